// report.md: the tables a person reads, with the definitions beside them.
import type { EvalReport } from "../run.ts";
import type { HostSummary } from "../summary.ts";
import { COMPACTION_HEAD, GOALS, HOST_NAMES, METHOD_COLUMNS, compactionRows, goalChecks, int, pct, share } from "./format.ts";

const table = (head: readonly string[], rows: readonly (readonly string[])[]): string => {
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

export const compactionTable = (hosts: readonly HostSummary[]): string => table(COMPACTION_HEAD, compactionRows(hosts));

export const passTable = (h: HostSummary): string =>
  table(
    ["pass at", "sessions", "freed by this pass", "freed so far (of tokens)", "removed", "misses", "lost", "lost rate", "fixed-point violations"],
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
    ]),
  );

export const corpusLine = (r: EvalReport): string => {
  const perHost = r.hosts.map((h) => `${h.sessions} ${HOST_NAMES[h.host] ?? h.host}`).join(", ");
  const what =
    r.corpus.kind === "demo"
      ? "the built-in EXAMPLE corpus (small sessions the bc project made to show the report: synthetic scripts, and Claude Code driven by a scripted mock model; not real work)"
      : r.corpus.kind === "user"
        ? "your own sessions"
        : "the files given";
  return `Corpus: ${what}; ${r.corpus.sessions} sessions (${perHost || "none"}) from ${r.corpus.files} files, ${r.corpus.skipped.length} skipped. Fingerprint \`${r.corpus.fingerprint}\`.`;
};

const goalSection = (r: EvalReport): string => {
  const checks = goalChecks(r);
  if (checks.length === 0) return "";
  const lines = checks.map((c) => {
    const g = GOALS[c.host]!;
    const dom = c.dominatedBy.length === 0 ? "no baseline frees as much and loses as little" : `matched or beaten by ${c.dominatedBy.join(", ")}`;
    return `- ${HOST_NAMES[c.host] ?? c.host}: lost rate ${pct(c.lostRate, 2)} (goal ≤ ${pct(g.maxLostRate, 1)}: ${c.lostOk ? "met" : "NOT met"}), tokens freed ${pct(c.freedShare)} (goal ≥ ${pct(g.minFreedShare, 1)}: ${c.freedOk ? "met" : "NOT met"}); ${dom}.`;
  });
  return `## The rules against the product goal\n\n${lines.join("\n")}\n`;
};

export const renderMarkdown = (r: EvalReport): string => {
  const p = r.parameters as { cuts: number[]; passes: number[]; methods: { id: string; summary: string }[]; leftOut: readonly { method: string; why: string }[] };
  const out: string[] = [];
  out.push(`# bc eval report`);
  out.push("");
  out.push(`bc ${r.version}, yardstick ${r.yardstick}. ${corpusLine(r)}`);
  out.push("");
  out.push(
    `Each session is cut at ${p.cuts.map((c) => pct(c, 0)).join(", ")} of its messages. Every method compacts the part before the cut; the scorer looks only at what the assistant wrote and the tool inputs it issued after the cut. Pinned results (first message, last six messages before the cut, error results) are never removed, for every method.`,
  );
  out.push("");
  for (const h of r.hosts) {
    out.push(`## ${HOST_NAMES[h.host] ?? h.host}: ${h.sessions} sessions, every method on the same cuts`);
    out.push("");
    out.push(methodTable(h));
    out.push("");
  }
  const goals = goalSection(r);
  if (goals) out.push(goals);
  out.push(`## At the hosts' own compactions`);
  out.push("");
  out.push(
    "Where a transcript holds a compaction the host really ran, the results the session used afterwards (up to the next compaction) are counted, and whether their used tokens are still visible after the host's summary, and after the rules applied to the same history.",
  );
  out.push("");
  out.push(compactionTable(r.hosts));
  out.push("");
  out.push(`## Repeated passes`);
  out.push("");
  out.push(
    `The rules run at ${p.passes.map((c) => pct(c, 0)).join(", ")} of each session, each pass over the previous pass's output plus the real continuation since. A second run over a pass's own output must change nothing (fixed-point violations).`,
  );
  out.push("");
  for (const h of r.hosts) {
    out.push(`### ${HOST_NAMES[h.host] ?? h.host}`);
    out.push("");
    out.push(passTable(h));
    out.push("");
  }
  out.push(`## Methods`);
  out.push("");
  for (const m of p.methods) out.push(`- \`${m.id}\`: ${m.summary}`);
  for (const m of p.leftOut) out.push(`- left out: ${m.method}: ${m.why}`);
  out.push("");
  out.push(`## Definitions`);
  out.push("");
  out.push(
    [
      "- removed: a result whose text the method replaced (a note, a placeholder) or cut to a head; a truncation counts as removed only for the tokens past its head.",
      "- tokens freed: estimated tool-output tokens (4 characters a token) freed, as a share of all estimated tokens before the cut.",
      "- miss: a removed result one of whose distinctive tokens (frozen yardstick v1) appears after the cut in assistant text or a tool input; tokens known before the result (earlier prose, call inputs) and tokens held by more than 10 results before the cut do not count.",
      "- lost: a miss with a used token that appears nowhere in what the method left (prose, call inputs, kept results and heads).",
      "- number-only: a miss (or loss) matched only by number-like tokens (years, versions, decimals, long numbers).",
      "- rates are pooled: lost rate = lost / removed over all cuts of all sessions of the host.",
      "- pins hold for every method: a change a method makes to a pinned result is undone before scoring and counted as `pinnedTouched` in report.json.",
    ].join("\n"),
  );
  out.push("");
  const lost = r.sessions.flatMap((s) => s.rulesMisses.filter((m) => m.lost).map((m) => ({ s, m })));
  out.push(`## What the rules lost (${lost.length})`);
  out.push("");
  out.push("Removed results whose tokens the session used after the cut and that nothing left in the history shows (every cut; all misses are in report.json).");
  out.push("");
  if (lost.length === 0) out.push("Nothing.");
  for (const { s, m } of lost.slice(0, 40))
    out.push(`- ${s.file} at ${pct(m.share, 0)}: message #${m.message} (${m.tool || "unknown tool"}): ${m.invisible.slice(0, 4).map((t) => "`" + t.replace(/`/g, "'").slice(0, 80) + "`").join(", ")}`);
  if (lost.length > 40) out.push(`- … and ${lost.length - 40} more in report.json`);
  out.push("");
  out.push(`## Skipped files (${r.corpus.skipped.length})`);
  out.push("");
  if (r.corpus.skipped.length === 0) out.push("None.");
  for (const s of r.corpus.skipped) out.push(`- ${s.reason}`);
  if (r.corpus.malformedLines.length > 0) {
    out.push("");
    out.push(`Malformed lines skipped inside files that loaded: ${r.corpus.malformedLines.length} (listed in report.json).`);
  }
  out.push("");
  out.push(`Every parameter and the per-session rows are in report.json; the same corpus gives the same numbers.`);
  return out.join("\n") + "\n";
};
