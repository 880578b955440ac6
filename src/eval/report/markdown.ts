// report.md: the tables a person reads, with the definitions beside them.
import type { EvalReport, NeedWeightsRecord } from "../run.ts";
import type { HostSummary } from "../summary.ts";
import {
  COMPACTION_HEAD,
  HOST_NAMES,
  METHOD_COLUMNS,
  RULE_HEAD,
  RULES_SECTION,
  ceilingSentences,
  recallSentence,
  compactionRows,
  int,
  cutShare,
  pct,
  pressureColumns,
  rankedBy,
  ruleTables,
  toolTables,
  TOOLS_SECTION,
  rowName,
  share,
  type Column,
} from "./format.ts";
import { counted } from "../../util/format.ts";

export const table = (head: readonly string[], rows: readonly (readonly string[])[]): string => {
  const esc = (s: string): string => s.replace(/\|/g, "\\|");
  const lines = [
    `| ${head.map(esc).join(" | ")} |`,
    `|${head.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
  ];
  return lines.join("\n");
};

export const methodTable = (h: HostSummary): string =>
  table(
    METHOD_COLUMNS.map((c) => c.head),
    h.methods.map((m) => METHOD_COLUMNS.map((c) => c.cell(m))),
  );

export const pressureTable = (h: HostSummary): string => {
  const cols: readonly Column[] = pressureColumns(h.host);
  return table(
    cols.map((c) => c.head),
    (h.pressure ?? []).map((m) => cols.map((c) => c.cell(m))),
  );
};

/** --split: per host and mode, each given path's block beside the total (freed, lost rate, light: lost of scorable, lost). */
export const splitRows = (r: EvalReport, host: string, mode: "light" | "pressure"): { head: string[]; rows: string[][] } | undefined => {
  // only the paths holding sessions of this host: another path's columns would be all "-"
  const blocks = [{ name: "total", hosts: r.hosts }, ...(r.split ?? []).filter((b) => b.hosts.some((h) => h.host === host))];
  const total = r.hosts.find((h) => h.host === host);
  const list = mode === "light" ? total?.methods : total?.pressure;
  if (!list || (r.split ?? []).length === 0) return undefined;
  const head = ["method"];
  // light: also the lost share of what the yardstick can judge (the light goal's share hides the rest)
  const light = mode === "light";
  for (const b of blocks) head.push(`${b.name}: freed`, `${b.name}: lost rate`, ...(light ? [`${b.name}: lost of scorable`] : []), `${b.name}: lost`);
  const rows = list.map((m) => {
    const row = [rowName(m, host, mode)];
    for (const b of blocks) {
      const h = b.hosts.find((x) => x.host === host);
      // a row of no cuts (a path whose sessions never got under pressure, a row no cut fell into): nothing to show
      const found = (light ? h?.methods : h?.pressure)?.find((y) => y.method === m.method && y.kind === m.kind);
      const x = found !== undefined && found.cuts > 0 ? found : undefined;
      row.push(x ? pct(x.freedShare) : "-", x ? pct(x.lostRate, 2) : "-", ...(light ? [x ? pct(x.lostOfScorable, 2) : "-"] : []), x ? int(x.lost) : "-");
    }
    return row;
  });
  return { head, rows };
};

export const compactionTable = (hosts: readonly HostSummary[]): string => table(COMPACTION_HEAD, compactionRows(hosts));

/** The repeated passes' table, in the same columns for markdown and HTML. */
export const PASS_HEAD: readonly string[] = [
  "pass at",
  "sessions",
  "freed by this pass",
  "freed so far (of tokens)",
  "removed",
  "misses",
  "lost",
  "lost rate",
  "fixed-point violations",
];

export const passRows = (h: HostSummary): string[][] =>
  h.passes.map((p) => [
    pct(p.share, 0),
    int(p.sessions),
    int(p.passFreed),
    `${int(p.tokensFreed)} (${share(p.tokensFreed, p.tokensBefore)})`,
    int(p.removed),
    int(p.misses),
    int(p.lost),
    share(p.lost, p.removed, 2),
    int(p.fixedPointViolations),
  ]);

export const passTable = (h: HostSummary): string => table(PASS_HEAD, passRows(h));

export const corpusLine = (r: EvalReport): string => {
  const perHost = r.hosts.map((h) => `${h.sessions} ${HOST_NAMES[h.host] ?? h.host}`).join(", ");
  const what =
    r.corpus.kind === "demo"
      ? "the built-in EXAMPLE corpus (small sessions the bc project made to show the report: synthetic scripts, and Claude Code driven by a scripted mock model; not real work)"
      : r.corpus.kind === "user"
        ? "your own sessions"
        : "the files given";
  const weights = (r.parameters as { needWeights?: NeedWeightsRecord }).needWeights;
  const ranked = weights === undefined || weights.kind === "shipped" ? "" : ` ${rankedBy(weights)}: ${weights.source}.`;
  return `Corpus: ${what}; ${counted(r.corpus.sessions, "session")} (${perHost || "none"}) from ${counted(r.corpus.files, "file")}, ${r.corpus.skipped.length} skipped. Fingerprint \`${r.corpus.fingerprint}\`.${ranked}`;
};

/** The definitions both reports print. */
export const DEFINITIONS: readonly string[] = [
  "removed: a result whose text the method replaced (a note, a placeholder) or cut to a head; a truncation counts as removed only for the tokens past its head.",
  "tokens freed: estimated tool-output tokens (4 characters a token) freed, as a share of all estimated tokens before the cut.",
  "used after the cut: a result holds a distinctive token (frozen yardstick v1) that appears after the cut in assistant text or a tool input; tokens known before the result (earlier prose, call inputs) and tokens held by more than 10 results before the cut do not count.",
  "miss: a removed result that was used after the cut (for a truncation, by a token past its head).",
  "lost: a miss with a used token that appears nowhere in what the method left (prose, call inputs, kept results and heads).",
  "number-only: a miss (or loss) matched only by number-like tokens (years, versions, decimals, long numbers).",
  "rates are pooled: lost rate = lost / removed over all cuts of all sessions of the host.",
  "lost of scorable: lost / the removals that took away a token the yardstick counts (not known before the result, held by at most 10 results before the cut). Only these can ever be missed or lost: a removal holding no such token lowers the lost rate whether or not the session needed it, so this rate compares methods that remove different kinds of output more fairly.",
  "needed still visible, per session: for each session, the share of the results it used after its cuts that are still visible after the method ((needed - lost) / needed, sessions that needed none left out); the median session and the worst tenth (the share the worst 10% of sessions are at or below).",
  "pressure: each cut compacted as an automatic compaction with the history at that share of the window (window = history tokens before the cut / pressure), down to the budget (the plugin's default compactAtPercent of the window). Every method frees until the history is at the budget and stops at the result that reaches it. Claude Code's thinking counts in the history at the pressure (Claude Code's own count holds it), and after a compaction only the thinking of the tool loop the history ends in stays: Claude Code rebuilds every row a compaction hands back without its thinking, but for the open loop's answers, which must reach the API with it (bc hands them back as they were; Claude Code's own summary keeps the last round), so every method, bc too, frees to the budget the history less the rest of its thinking; Codex keeps its reasoning, which counts throughout. Where bc cannot reach the budget, the Claude Code plugin still answers while the context stays under its handOverAbovePercent of the window, and hands over to Claude Code's summary only above it: such an answer counts as neither the budget reached nor a handover.",
  "reached the budget: cuts where what the method left is at or under the budget. bc's own verdict is used for bc: for Claude Code, the plugin answered with its own rows and they fit the budget (over it, it answered under handOverAbovePercent or handed its rows to Claude Code's summary: those cuts are scored as the rows it left, before any summary runs); for Codex, the engine's plan reports the budget reached.",
  "where it can be reached: the same, over the cuts where pins, prose and call inputs alone fit the budget (every other result, a person's answer too, counted as the shortest placeholder a method leaves); in the others no method that keeps them can reach it, and only a summary can.",
  "ceiling (hindsight): reads what the session did after the cut, which no method can: a mark of how far a method could go, never a method (under pressure, not a bound: either pressure ceiling can lose more than the other). oracle drops every unpinned result not used after the cut (where its note is shorter than it); oracle-head also cuts each used result after the line holding its last used token; oracle-to-budget frees to the budget, never-used results first (largest first), then used ones with the fewest used tokens per character; need-oracle is bc's own engine to the budget with each result's need known (1 when used after the cut, else 0): the gap between bc and need-oracle is what the need score costs, the gap between need-oracle and oracle-to-budget what bc's cuts (heads, names, order) cost.",
  "the host's own summary: at the compactions the host really ran in a transcript, the summary removes every result of the history it replaces; lost: results the session used afterwards (up to the next compaction) whose used tokens the summary does not show.",
  "pins hold for every method: a change a method makes to a pinned result (first message, last six messages before the cut, error results) is undone before scoring and counted as `pinnedTouched` in report.json.",
];

/** The paragraphs both reports print under their headings. */
export const LIGHT_INTRO = "Each method compacts as it would on its own, with nothing forcing it to free more.";
export const COMPACTIONS_INTRO =
  "Where a transcript holds a compaction the host really ran, the results the session used afterwards (up to the next compaction) are counted, and whether their used tokens are still visible after the host's summary, and after the rules applied to the same history.";
export const passesIntro = (passes: readonly number[]): string =>
  `The rules run at ${passes.map((c) => pct(c, 0)).join(", ")} of each session, each pass over the previous pass's output plus the real continuation since. A second run over a pass's own output must change nothing (fixed-point violations).`;
/** What bc's losses are; a run without pressure has light ones alone. */
export const lostIntro = (pressure: boolean): string =>
  pressure
    ? "Removed results whose tokens the session used after the cut and that nothing left in the history shows: those of light compactions first (the rules alone), then those under pressure (mostly the escalation's cuts to the budget; each names the rule or the escalation that removed it). All misses are in report.json."
    : "Removed results whose tokens the session used after the cut and that nothing left in the history shows, each with the rule that removed it. All misses are in report.json.";
export const CLOSING = "Every parameter and the per-session rows are in report.json; the same corpus gives the same numbers.";

/** The heading of bc's losses: how many, light and under pressure (when the run had pressure). */
export const lostHeading = (lost: readonly { pressure: boolean }[], pressure: boolean): string => {
  const under = lost.filter((l) => l.pressure).length;
  return pressure ? `What bc lost (${lost.length}: ${lost.length - under} light, ${under} under pressure)` : `What bc lost (${lost.length})`;
};

/** bc's losses, light first, then under pressure, for a person to look at. */
export const lostList = (r: EvalReport): { file: string; line: string; pressure: boolean }[] =>
  r.sessions
    .flatMap((s) => s.rulesMisses.filter((m) => m.lost).map((m) => ({ s, m })))
    .sort((a, b) => Number(a.m.mode === "pressure") - Number(b.m.mode === "pressure"))
    .map(({ s, m }) => ({
      pressure: m.mode === "pressure",
      file: s.file,
      line: `${s.file} at ${pct(m.share, 0)}${m.mode === "pressure" ? (m.handedOver === true ? " (pressure, handed over)" : " (pressure)") : ""}: message #${m.message} (${m.tool || "unknown tool"}${m.rule === undefined ? "" : `, ${m.rule}`}): ${m.invisible
        .slice(0, 4)
        .map((t) => `\`${t.replace(/`/g, "'").replace(/\s+/g, " ").slice(0, 80)}\``)
        .join(", ")}`,
    }));

type Params = {
  cuts: number[];
  passes: number[];
  methods: { id: string; summary: string }[];
  ceilings: { id: string; summary: string }[];
  leftOut: readonly { method: string; why: string }[];
  pressure: null | { share: number; budgetShare: number; methods: { id: string; summary: string }[] };
};

export const pressureHeading = (share: number, budgetShare: number): string =>
  `Under pressure: the history at ${pct(share, 0)} of the window, compacted to ${pct(budgetShare, 0)}`;

export const renderMarkdown = (r: EvalReport): string => {
  const p = r.parameters as unknown as Params;
  const out: string[] = [];
  const push = (...lines: string[]): void => void out.push(...lines);
  push(`# bc eval report`, "", `bc ${r.version}, yardstick ${r.yardstick}. ${corpusLine(r)}`, "");
  for (const b of r.split ?? []) push(`- \`${b.name}\`: ${counted(b.sessions, "session")} from ${counted(b.files, "file")}, fingerprint \`${b.fingerprint}\``);
  if ((r.split ?? []).length > 0) push("");
  push(
    `Each session is cut at ${p.cuts.map(cutShare).join(", ")} of its messages. Every method compacts the part before the cut; the scorer looks only at what the assistant wrote and the tool inputs it issued after the cut. Pinned results (first message, last six messages before the cut, error results) are never removed, for every method. Rows marked *ceiling (hindsight)* read the session's future and are not methods: they show how far a method could go.`,
    "",
  );
  push(`## Light compaction: no budget`, "");
  push(LIGHT_INTRO, "");
  for (const h of r.hosts) {
    push(`### ${HOST_NAMES[h.host] ?? h.host}: ${counted(h.sessions, "session")}`, "", methodTable(h), "");
    // the light sentence only: without bc's light row there is none, and the next would be another mode's
    const s = ceilingSentences(h).find((x) => x.startsWith("light: "));
    if (s) push(s.replace(/^light: /, ""), "");
    const rs = recallSentence(h, "light");
    if (rs) push(rs, "");
  }
  if (p.pressure !== null) {
    push(`## ${pressureHeading(p.pressure.share, p.pressure.budgetShare)}`, "");
    push(
      `Each cut is compacted as an automatic compaction with the history at ${pct(p.pressure.share, 0)} of the window (window = history tokens before the cut / ${p.pressure.share}), down to ${pct(p.pressure.budgetShare, 0)} of the window (the Claude Code plugin's default budget): every method frees to the same budget, so what they lose is compared at about the same freed share. bc is scored as the product answers: the Claude Code plugin's session.compact (trigger auto), and the plan bc codex-fork makes with that budget. Where bc cannot reach the budget, the Claude Code plugin still answers with its own rows while the context stays under its handOverAbovePercent of the window, and above it hands its pruned rows to Claude Code's summary: those cuts are scored as what bc left (before any summary), in their own row. The host's own summary is scored at the compactions it really ran in these transcripts, not at the cuts.`,
      "",
    );
    for (const h of r.hosts) {
      push(`### ${HOST_NAMES[h.host] ?? h.host}: ${counted(h.sessions, "session")}`, "", pressureTable(h), "");
      const s = ceilingSentences(h).find((x) => x.startsWith("under pressure"));
      if (s) push(s.replace(/^under pressure: /, ""), "");
      const rs = recallSentence(h, "pressure");
      if (rs) push(rs, "");
    }
  }
  if (r.hosts.some((h) => h.byRule.length > 0)) {
    push(`## What bc removed, by rule`, "", RULES_SECTION, "");
    for (const h of r.hosts) for (const t of ruleTables(h)) push(`### ${t.heading}`, "", table(RULE_HEAD, t.rows), "");
  }
  if (r.hosts.some((h) => (h.byTool ?? []).length > 0)) {
    push(`## What bc removed, by tool`, "", TOOLS_SECTION, "");
    for (const h of r.hosts) for (const t of toolTables(h)) push(`### ${t.heading}`, "", table(t.head, t.rows), "");
  }
  if ((r.split ?? []).length > 0) {
    push(`## Each given path beside the total`, "");
    push(
      "The same methods on each path given to `bc eval`, summarized alone. A figure that improves on one path and worsens on another is a sign of tuning to one set of sessions.",
      "",
    );
    for (const h of r.hosts)
      for (const mode of ["light", "pressure"] as const) {
        const t = splitRows(r, h.host, mode);
        if (!t) continue;
        push(`### ${HOST_NAMES[h.host] ?? h.host}, ${mode === "light" ? "light compaction" : "under pressure"}`, "", table(t.head, t.rows), "");
      }
  }
  push(`## At the hosts' own compactions`, "");
  push(COMPACTIONS_INTRO, "", compactionTable(r.hosts), "");
  push(`## Repeated passes`, "");
  push(passesIntro(p.passes), "");
  for (const h of r.hosts) push(`### ${HOST_NAMES[h.host] ?? h.host}`, "", passTable(h), "");
  push(`## Methods`, "");
  for (const m of p.methods) push(`- \`${m.id}\`: ${m.summary}`);
  for (const m of p.pressure?.methods ?? []) push(`- under pressure, \`${m.id}\`: ${m.summary}`);
  for (const m of p.leftOut) push(`- left out: ${m.method}: ${m.why}`);
  push("", `## Ceilings (hindsight, not methods)`, "");
  for (const c of p.ceilings) push(`- \`${c.id}\`: ${c.summary}`);
  push("", `## Definitions`, "", DEFINITIONS.map((d) => `- ${d}`).join("\n"), "");
  const lost = lostList(r);
  push(`## ${lostHeading(lost, p.pressure != null)}`, "", lostIntro(p.pressure != null), "");
  if (lost.length === 0) push("Nothing.");
  for (const l of lost.slice(0, 40)) push(`- ${l.line}`);
  if (lost.length > 40) push(`- … and ${lost.length - 40} more in report.json`);
  push("", `## Skipped files (${r.corpus.skipped.length})`, "");
  if (r.corpus.skipped.length === 0) push("None.");
  for (const s of r.corpus.skipped) push(`- ${s.reason}`);
  if (r.corpus.malformedLines.length > 0)
    push("", `Malformed lines skipped inside files that loaded: ${r.corpus.malformedLines.length} (listed in report.json).`);
  push("", CLOSING);
  return `${out.join("\n")}\n`;
};
