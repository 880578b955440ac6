// Numbers as the report prints them: fixed precision, thousands separators, no locale surprises.
import type { NeedWeightsRecord } from "../run.ts";
import type { HostSummary, MethodSummary, ToolSummary } from "../summary.ts";
import { counted } from "../../util/format.ts";

export const int = (n: number): string => Math.round(n).toLocaleString("en-US");

export const pct = (x: number, digits = 1): string => `${(100 * x).toFixed(digits)}%`;

/** A cut's share as given (50%, 50.1%, 0.01%): never rounded to another share, or to 0% or 100%. */
export const cutShare = (x: number): string => `${Number((100 * x).toFixed(4))}%`;

export const share = (part: number, whole: number, digits = 1): string => (whole === 0 ? "-" : pct(part / whole, digits));

/** A share with the counts it is of, or "-" where it is of nothing (a row with no cuts or no sessions): not "0% (0/0)". */
const counts = (value: number, part: number, whole: number): string => (whole === 0 ? "-" : `${pct(value, 0)} (${part}/${whole})`);

export const HOST_NAMES: Record<string, string> = { claude: "Claude Code", codex: "Codex" };

export interface Column {
  readonly head: string;
  readonly cell: (m: MethodSummary) => string;
}

const PRESSURE_NAMES: Record<string, string> = {
  rules: "bc (every cut)",
  "rules:reached": "bc: cuts it brought to the budget",
  "rules:over-budget": "bc: cuts left over budget",
};

/**
 * What the Claude Code plugin did at the cuts where bc did not reach the budget, after a sentence
 * saying how often it did: answered over it (under handOverAbovePercent), handed the rest to
 * Claude Code's summary. Empty where it did neither (Codex: its fork is only over the budget).
 */
const overBudgetCuts = (t: { readonly answeredOver: number; readonly handovers: number }): string => {
  const answered = t.answeredOver > 0 ? `answered ${int(t.answeredOver)} more with its own rows over the budget (under handOverAbovePercent)` : "";
  const handed = t.handovers > 0 ? `handed ${int(t.handovers)} to Claude Code's summary, which then removes more (not scored here)` : "";
  return answered && handed ? `, ${answered} and ${handed}` : answered || handed ? ` and ${answered || handed}` : "";
};

/**
 * What `bc recall` gave back of what bc removed or cut to a head at a mode's cuts, from the file
 * the host keeps after the compaction; undefined where bc removed nothing there (or it was not checked).
 */
export const recallSentence = (h: Pick<HostSummary, "recall" | "recallPressure">, mode: "light" | "pressure"): string | undefined => {
  const r = mode === "light" ? h.recall : h.recallPressure;
  if (r === undefined || r.removed === 0) return undefined;
  const where = mode === "light" ? "at these cuts" : "to the budget";
  return `Of the ${int(r.removed)} results bc removed or truncated ${where}, \`bc recall\` gives back ${int(r.recalled)} (${pct(r.recalled / r.removed, 1)}) byte for byte from the file the host keeps.`;
};

/** A row's name as the tables print it: ceilings and the host's summary are said to be what they are. */
export const rowName = (m: Pick<MethodSummary, "method" | "kind">, host?: string, mode: "light" | "pressure" = "light"): string => {
  if (m.kind === "ceiling") return `ceiling: ${m.method} (hindsight)`;
  if (m.kind === "host") return `${HOST_NAMES[host ?? ""] ?? "the host"}'s own summary (its real compactions)`;
  if (mode === "pressure") {
    if (m.method === "rules:over-budget" && host === "claude") return "bc: cuts over the budget (answered, or handed to Claude Code's summary)";
    return PRESSURE_NAMES[m.method] ?? m.method;
  }
  return m.method === "rules" ? "bc's rules" : m.method;
};

const spreadCell = (m: MethodSummary): string => (m.spread.sessions === 0 ? "-" : `${pct(m.spread.median, 0)} / ${pct(m.spread.worstTenth, 0)}`);

/** The same columns for every method. */
export const METHOD_COLUMNS: readonly Column[] = [
  { head: "method", cell: (m) => rowName(m) },
  { head: "removed", cell: (m) => int(m.removed) },
  { head: "of unpinned", cell: (m) => pct(m.removedShare) },
  { head: "tokens freed", cell: (m) => int(m.tokensFreed) },
  { head: "of tokens", cell: (m) => pct(m.freedShare) },
  { head: "misses", cell: (m) => int(m.misses) },
  { head: "miss rate", cell: (m) => pct(m.missRate, 2) },
  { head: "number-only misses", cell: (m) => int(m.numberOnlyMisses) },
  { head: "lost", cell: (m) => int(m.lost) },
  { head: "lost rate", cell: (m) => pct(m.lostRate, 2) },
  { head: "lost rate w/o number-only", cell: (m) => pct(m.lostRateWithoutNumbers, 2) },
  { head: "lost of scorable", cell: (m) => pct(m.lostOfScorable, 2) },
  { head: "lost / session", cell: (m) => m.lostPerSession.toFixed(2) },
  { head: "sessions losing nothing", cell: (m) => counts(m.losingNothingShare, m.sessionsLosingNothing, m.sessions) },
  { head: "needed still visible, per session: median / worst tenth", cell: spreadCell },
];

/** The pressure table's columns: as the light ones, with the cuts that reached the budget. */
export const pressureColumns = (host: string): readonly Column[] => [
  { head: "method", cell: (m) => rowName(m, host, "pressure") },
  { head: "cuts", cell: (m) => int(m.cuts) },
  { head: "removed", cell: (m) => int(m.removed) },
  { head: "tokens freed", cell: (m) => int(m.tokensFreed) },
  { head: "of tokens", cell: (m) => pct(m.freedShare) },
  { head: "reached the budget", cell: (m) => (m.kind === "host" ? "-" : counts(m.reachedShare, m.reached, m.cuts)) },
  {
    head: "where it can be reached",
    cell: (m) => (m.kind === "host" ? "-" : counts(m.reachedReachableShare, m.reachedReachable, m.reachable)),
  },
  { head: "misses", cell: (m) => int(m.misses) },
  { head: "lost", cell: (m) => int(m.lost) },
  { head: "lost rate", cell: (m) => pct(m.lostRate, 2) },
  { head: "lost of scorable", cell: (m) => (m.kind === "host" ? "-" : pct(m.lostOfScorable, 2)) },
  { head: "lost / session", cell: (m) => m.lostPerSession.toFixed(2) },
  { head: "sessions losing nothing", cell: (m) => counts(m.losingNothingShare, m.sessionsLosingNothing, m.sessions) },
  { head: "needed still visible, per session: median / worst tenth", cell: spreadCell },
];

/** Which need weights bc ranked by, when not the shipped ones: named by their contents, never a path. */
export const rankedBy = (w: NeedWeightsRecord): string =>
  `bc ranks by ${w.kind === "yours" ? "your need weights (bc calibrate --write)" : "the need weights given"}, fingerprint ${w.fingerprint}, not the shipped ones`;

/** bc's freed share as a fraction of oracle-head's (light), or undefined when either is missing. */
export const freedOfOracleHead = (h: HostSummary): number | undefined => {
  const bc = h.methods.find((m) => m.method === "rules");
  const head = h.methods.find((m) => m.method === "oracle-head");
  return bc && head && head.freedShare > 0 ? bc.freedShare / head.freedShare : undefined;
};

/**
 * What bc loses under pressure as a multiple of what a ceiling loses at the same budget (results
 * lost, not the share of what each removed: a method that removes more, smaller results would
 * look better by share), or undefined when either is missing or the ceiling lost nothing.
 */
export const lostOverCeiling = (h: HostSummary, ceiling = "oracle-to-budget"): number | undefined => {
  const bc = h.pressure?.find((m) => m.method === "rules");
  const c = h.pressure?.find((m) => m.method === ceiling);
  return bc && c && c.lost > 0 ? bc.lost / c.lost : undefined;
};

/** One sentence per host and mode comparing bc with its ceiling. */
export const ceilingSentences = (h: HostSummary): string[] => {
  const out: string[] = [];
  const bc = h.methods.find((m) => m.method === "rules");
  const head = h.methods.find((m) => m.method === "oracle-head");
  const f = freedOfOracleHead(h);
  if (bc && head && f !== undefined)
    out.push(
      `light: bc's rules free ${pct(bc.freedShare)} of the history, ${pct(f, 0)} of what the oracle-head ceiling frees (${pct(head.freedShare)}) at zero misses, and lose ${pct(bc.lostRate, 2)} of what they remove${h.intervals?.lightLostRate ? ` (${pct(h.intervals.lightLostRate.low, 2)}-${pct(h.intervals.lightLostRate.high, 2)} in 95% of resamplings of the sessions)` : ""}.${bc.scorable > 0 ? ` Of what they remove, ${pct(bc.scorableShare, 0)} holds a token the yardstick counts (the rest can never count as lost); of that, they lose ${pct(bc.lostOfScorable, 2)}.` : ""}`,
    );
  const pb = h.pressure?.find((m) => m.method === "rules");
  const pc = h.pressure?.find((m) => m.method === "oracle-to-budget");
  const pn = h.pressure?.find((m) => m.method === "need-oracle");
  const l = lostOverCeiling(h);
  const oi = h.intervals?.lostOverOracle;
  const asides = [
    oi === undefined ? undefined : `${oi.low.toFixed(2)}-${oi.high.toFixed(2)}× in 95% of resamplings of the sessions`,
    pn === undefined || pc === undefined || pc.lost === 0
      ? undefined
      : `with each result's need known, need-oracle loses ${int(pn.lost)}, ${(pn.lost / pc.lost).toFixed(2)}× the ceiling's`,
  ].filter((x) => x !== undefined);
  const aside = asides.length === 0 ? "" : ` (${asides.join("; ")})`;
  if (pb && pc)
    out.push(
      `under pressure: bc loses ${counted(pb.lost, "result")}, ${pct(pb.lostRate, 2)} of what it removes${l === undefined ? "" : `; ${l.toFixed(2)}× the ${int(pc.lost)} the oracle-to-budget ceiling loses at the same budget${aside}`}; it frees ${pct(pb.freedShare)} of the history where the ceiling frees ${pct(pc.freedShare)}; it reached the budget itself at ${pct(pb.reachedShare, 0)} of cuts${overBudgetCuts(pb)}.`,
    );
  return out;
};

/** The table of the hosts' own compactions: one row per host, in the same columns for markdown and HTML. */
export const COMPACTION_HEAD: readonly string[] = [
  "host",
  "compactions",
  "results needed after",
  "still visible after the host's summary",
  "after the rules",
  "freed by the summary (mean)",
  "freed by the rules (mean)",
];

export const compactionRows = (hosts: readonly HostSummary[]): string[][] =>
  hosts.map((h) => {
    const c = h.compactions;
    return [
      HOST_NAMES[h.host] ?? h.host,
      int(c.compactions),
      int(c.needed),
      `${int(c.keptByHost)} (${share(c.keptByHost, c.needed)})`,
      `${int(c.keptByRules)} (${share(c.keptByRules, c.needed)})`,
      c.compactions === 0 ? "-" : pct(c.hostFreedShareMean),
      c.compactions === 0 ? "-" : pct(c.rulesFreedShareMean),
    ];
  });

/** The by-rule table: what bc removed, lost and freed, by the rule that removed it. */
export const RULE_HEAD: readonly string[] = ["rule", "removed", "of which scorable", "lost", "lost %", "share of bc's freed tokens"];

export const ruleRows = (h: HostSummary, mode: "light" | "pressure"): string[][] =>
  h.byRule.filter((t) => t.mode === mode).map((t) => [t.rule, int(t.removed), int(t.scorable), int(t.lost), pct(t.lostRate, 2), pct(t.freedShare)]);

/** Each mode bc ran in on this host, with its heading and its rows (most lost first). */
export const ruleTables = (h: HostSummary): { heading: string; rows: string[][] }[] =>
  (["light", "pressure"] as const)
    .map((mode) => ({ heading: `${HOST_NAMES[h.host] ?? h.host}, ${mode === "light" ? "light compaction" : "under pressure"}`, rows: ruleRows(h, mode) }))
    .filter((t) => t.rows.length > 0);

/** The by-tool table: bc's removals of each tool's results, and what the ceilings did with the same tool. */
export const TOOL_HEAD: readonly string[] = ["tool", "removed", "of which scorable", "lost", "lost %", "share of bc's freed tokens"];

/** Rows beyond this many are summed into one: a session with many MCP tools would bury the table. */
export const MAX_TOOL_ROWS = 12;

type ToolRow = Pick<ToolSummary, "bc" | "freedShare" | "ceilings">;

/**
 * A mode's extra columns: light, the tokens bc and each ceiling freed of the tool (where the
 * room is); under pressure, what each ceiling lost of it at the same budget.
 */
const extraColumns = (mode: "light" | "pressure", ceilings: readonly string[]): { head: string[]; cells: (t: ToolRow) => string[] } =>
  mode === "light"
    ? {
        head: ["tokens freed by bc", ...ceilings.map((c) => `tokens freed by ${c}`)],
        cells: (t) => [int(t.bc.tokensFreed), ...ceilings.map((c) => int(t.ceilings[c]?.tokensFreed ?? 0))],
      }
    : { head: ceilings.map((c) => `lost by ${c}`), cells: (t) => ceilings.map((c) => int(t.ceilings[c]?.lost ?? 0)) };

const toolCells = (tool: string, t: ToolRow, extra: (t: ToolRow) => string[]): string[] => [
  tool,
  int(t.bc.removed),
  int(t.bc.scorable),
  int(t.bc.lost),
  t.bc.removed === 0 ? "-" : pct(t.bc.lost / t.bc.removed, 2),
  pct(t.freedShare),
  ...extra(t),
];

/** The rows past the first MAX_TOOL_ROWS - 1, summed into one. */
const summed = (rest: readonly ToolSummary[], ceilings: readonly string[]): ToolRow => {
  const sum = (f: (t: ToolSummary) => number): number => rest.reduce((n, t) => n + f(t), 0);
  return {
    bc: { removed: sum((t) => t.bc.removed), scorable: sum((t) => t.bc.scorable), lost: sum((t) => t.bc.lost), tokensFreed: sum((t) => t.bc.tokensFreed) },
    freedShare: sum((t) => t.freedShare),
    ceilings: Object.fromEntries(
      ceilings.map((c) => [c, { lost: sum((t) => t.ceilings[c]?.lost ?? 0), tokensFreed: sum((t) => t.ceilings[c]?.tokensFreed ?? 0) }]),
    ),
  };
};

/** Each mode bc ran in on this host, by tool: the head, the rows (in summarizeTools' order, the rest past MAX_TOOL_ROWS summed). */
export const toolTables = (h: HostSummary): { heading: string; head: string[]; rows: string[][] }[] =>
  (["light", "pressure"] as const)
    .map((mode) => {
      const all = (h.byTool ?? []).filter((t) => t.mode === mode);
      const ceilings = [...new Set(all.flatMap((t) => Object.keys(t.ceilings)))];
      const extra = extraColumns(mode, ceilings);
      const shown = all.length > MAX_TOOL_ROWS ? all.slice(0, MAX_TOOL_ROWS - 1) : all;
      const rest = all.slice(shown.length);
      const rows = shown.map((t) => toolCells(t.tool, t, extra.cells));
      if (rest.length > 0) rows.push(toolCells(`${int(rest.length)} other tools`, summed(rest, ceilings), extra.cells));
      return {
        heading: `${HOST_NAMES[h.host] ?? h.host}, ${mode === "light" ? "light compaction" : "under pressure"}`,
        head: [...TOOL_HEAD, ...extra.head],
        rows,
      };
    })
    .filter((t) => t.rows.length > 0);

export const TOOLS_SECTION =
  "What bc removed at the cuts, by the tool whose output it was. Light, beside the tokens `oracle-head` frees of the same tool without a miss: where the room is. Under pressure, beside what the two hindsight ceilings lost of the same tool at the same budget: a tool where bc loses far more than `need-oracle` is one whose need the score misjudges; where `need-oracle` itself loses about as much, the budget forces the cuts whatever the score.";

export const RULES_SECTION =
  "What bc removed at the cuts, by the rule that removed it (`escalation`: what the budget took after the rules). Light, the rules alone; under pressure, bc as the product answers. A rule that loses much for little room is where to look first; one whose removals are seldom scorable (they take away no token the yardstick counts) is not shown safe by losing nothing.";
