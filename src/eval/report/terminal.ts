// The summary `bc eval` prints for a person: per host and mode, bc beside the closest
// baselines and its ceiling, one line each, within 100 columns; then where the report is and
// what to do next. The report files hold everything else.
import type { EvalReport, NeedWeightsRecord } from "../run.ts";
import type { HostSummary, MethodSummary } from "../summary.ts";
import { cutShare, HOST_NAMES, int, lostOverCeiling, freedOfOracleHead, pct, rankedBy } from "./format.ts";
import { counted } from "../../util/format.ts";

export const TERMINAL_WIDTH = 100;

const NAME_WIDTH = 44;
const MAX_BLOCKS = 4;

const row = (name: string, m: MethodSummary, extra = ""): string => {
  const n = name.length > NAME_WIDTH ? `${name.slice(0, NAME_WIDTH - 1)}…` : name;
  return `  ${n.padEnd(NAME_WIDTH)}${pct(m.freedShare).padStart(7)}${int(m.removed).padStart(9)}${int(m.misses).padStart(8)}${int(m.lost).padStart(7)}${pct(m.lostRate, 2).padStart(8)}${extra}`;
};

const HEAD = `  ${"".padEnd(NAME_WIDTH)}${"freed".padStart(7)}${"removed".padStart(9)}${"missed".padStart(8)}${"lost".padStart(7)}${"lost %".padStart(8)}`;

/** the baselines freeing closest to bc */
const closest = (rows: readonly MethodSummary[], bc: MethodSummary, n: number): MethodSummary[] =>
  rows
    .filter((m) => m.kind === "method" && m.method !== "rules" && !m.method.startsWith("rules:") && m.removed > 0)
    .sort((a, b) => Math.abs(a.freedShare - bc.freedShare) - Math.abs(b.freedShare - bc.freedShare) || (a.method < b.method ? -1 : 1))
    .slice(0, n);

const hostLines = (r: EvalReport, h: HostSummary, mode: "light" | "pressure"): string[] => {
  const rows = mode === "light" ? h.methods : (h.pressure ?? []);
  const bc = rows.find((m) => m.method === "rules");
  const budget = (m: MethodSummary): string => (mode === "pressure" ? `  budget ${m.cuts === 0 ? "-" : pct(m.reachedShare, 0)}` : "");
  const head = `${HOST_NAMES[h.host] ?? h.host}, ${counted(h.sessions, "session")}`;
  const ceilings = rows.filter((m) => m.kind === "ceiling" && m.method !== "oracle").map((c) => row(`ceiling: ${c.method} (hindsight)`, c));
  const host = rows.find((m) => m.kind === "host");
  const hostRow = host ? [row(`${HOST_NAMES[h.host] ?? h.host}'s summary, ${host.cuts} real compaction${host.cuts === 1 ? "" : "s"}`, host)] : [];
  // --methods without bc's rules: the methods that ran and the ceilings, with no bc to set them beside
  if (!bc) return rows.length === 0 ? [] : [head, ...rows.filter((m) => m.kind === "method").map((m) => row(m.method, m, budget(m))), ...ceilings, ...hostRow];
  const out = [head];
  out.push(row(mode === "light" ? "bc's rules" : "bc", bc, budget(bc)));
  const blocks = r.split ?? [];
  // a block per path given, up to a few; more are in the report
  for (const b of blocks.length <= MAX_BLOCKS ? blocks : []) {
    const x = b.hosts.find((y) => y.host === h.host);
    const m = (mode === "light" ? x?.methods : x?.pressure)?.find((y) => y.method === "rules");
    if (m) out.push(row(`  in ${b.name}`, m, budget(m)));
  }
  if (blocks.length > MAX_BLOCKS) out.push(`    (each of the ${blocks.length} paths given: in the report)`);
  for (const m of closest(rows, bc, 3)) out.push(row(m.method, m, budget(m)));
  out.push(...ceilings, ...hostRow);
  if (mode === "light") {
    const f = freedOfOracleHead(h);
    if (f !== undefined) out.push(`  bc frees ${pct(f, 0)} of what the oracle-head ceiling frees.`);
    const li = h.intervals?.lightLostRate;
    if (li) out.push(`  bc's lost share is ${pct(bc.lostRate, 2)}; resampling the sessions, ${pct(li.low, 2)}-${pct(li.high, 2)} (95% of draws).`);
    if (bc.scorable > 0)
      out.push(`  ${pct(bc.scorableShare, 0)} of what bc removes holds a token the yardstick counts; of that, it loses ${pct(bc.lostOfScorable, 2)}.`);
    if (h.recall.removed > 0) out.push(`  bc recall gives back ${int(h.recall.recalled)} of the ${int(h.recall.removed)} results bc removed, byte for byte.`);
  } else {
    const l = lostOverCeiling(h);
    out.push(`  bc reached the budget itself in ${int(bc.reached)} of ${int(bc.cuts)} cuts.`);
    const rp = h.recallPressure;
    if (rp !== undefined && rp.removed > 0)
      out.push(`  bc recall gives back ${int(rp.recalled)} of the ${int(rp.removed)} results bc removed or cut to a head, byte for byte.`);
    // the Claude Code plugin: answered over the budget (under handOverAbovePercent), or handed over
    const others = [
      ...(bc.answeredOver > 0 ? [`${int(bc.answeredOver)} answered over the budget`] : []),
      ...(bc.handovers > 0 ? [`${int(bc.handovers)} handed to Claude Code's summary`] : []),
    ];
    if (others.length > 0) out.push(`  Of the other ${int(bc.cuts - bc.reached)}: ${others.join(", ")}.`);
    out.push(
      `  Where what no method may touch fits the budget (${int(bc.reachable)} cuts), bc reached it in ${int(bc.reachedReachable)} (${bc.reachable === 0 ? "-" : pct(bc.reachedReachableShare, 0)}).`,
    );
    const c = rows.find((m) => m.method === "oracle-to-budget");
    const n = rows.find((m) => m.method === "need-oracle");
    if (l !== undefined && c)
      out.push(`  bc loses ${counted(bc.lost, "result")}, ${l.toFixed(2)}× the ${int(c.lost)} oracle-to-budget loses at the same budget.`);
    const oi = h.intervals?.lostOverOracle;
    if (l !== undefined && oi) out.push(`  Resampling the sessions, that multiple is ${oi.low.toFixed(2)}-${oi.high.toFixed(2)}× (95% of draws).`);
    if (n && c && c.lost > 0) out.push(`  Told which results the session uses (need-oracle), bc would lose ${int(n.lost)} (${(n.lost / c.lost).toFixed(2)}×).`);
  }
  return out;
};

export const terminalSummary = (r: EvalReport, paths: readonly string[]): string => {
  const p = r.parameters as { cuts: number[]; pressure: null | { share: number; budgetShare: number }; needWeights?: NeedWeightsRecord };
  const perHost = r.hosts.map((h) => `${h.sessions} ${HOST_NAMES[h.host] ?? h.host}`).join(", ");
  const lines: string[] = [
    `bc eval: ${counted(r.corpus.sessions, "session")} (${perHost || "none"}), ${counted(r.corpus.skipped.length, "file")} skipped; corpus ${r.corpus.fingerprint.slice(0, 12)}`,
    `Each session cut at ${p.cuts.map(cutShare).join(", ")} of its messages; each method compacts what is before the cut.`,
    ...(p.needWeights === undefined || p.needWeights.kind === "shipped" ? [] : [`${rankedBy(p.needWeights)}.`]),
    "",
    `Light compaction (no budget)`,
    HEAD,
  ];
  for (const h of r.hosts) lines.push(...hostLines(r, h, "light"));
  if (p.pressure !== null) {
    lines.push("", `At ${pct(p.pressure.share, 0)} of the window, compacted to ${pct(p.pressure.budgetShare, 0)} (budget: cuts reaching it)`, HEAD);
    for (const h of r.hosts) lines.push(...hostLines(r, h, "pressure"));
  }
  lines.push(
    "",
    "missed: a removed result whose tokens the session used after the cut.",
    "lost:   a missed result whose used tokens nothing left in the history shows (lost % of removed).",
    "",
  );
  const html = paths.find((x) => x.endsWith(".html"));
  if (html) lines.push(`Full report: ${html} (also report.md and report.json beside it)`);
  lines.push(
    "Next: open report.html in a browser; run `bc eval` on your own sessions (no arguments: those",
    "under ~/.claude/projects and $CODEX_HOME/sessions); `bc claude install` puts bc in Claude Code.",
  );
  return lines.join("\n");
};
