// Numbers as the report prints them: fixed precision, thousands separators, no locale surprises.
import type { EvalReport } from "../run.ts";
import type { HostSummary, MethodSummary } from "../summary.ts";

export const int = (n: number): string => Math.round(n).toLocaleString("en-US");

export const pct = (x: number, digits = 1): string => `${(100 * x).toFixed(digits)}%`;

export const share = (part: number, whole: number, digits = 1): string => (whole === 0 ? "-" : pct(part / whole, digits));

export const HOST_NAMES: Record<string, string> = { claude: "Claude Code", codex: "Codex" };

export interface Column {
  readonly head: string;
  readonly cell: (m: MethodSummary) => string;
}

/** The same columns for every method. */
export const METHOD_COLUMNS: readonly Column[] = [
  { head: "method", cell: (m) => m.method },
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
  { head: "lost / session", cell: (m) => m.lostPerSession.toFixed(2) },
  { head: "sessions losing nothing", cell: (m) => `${pct(m.losingNothingShare, 0)} (${m.sessionsLosingNothing}/${m.sessions})` },
];

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

/** The product goal for the rules, per host (issue 5 / seed 000). */
export const GOALS: Record<string, { maxLostRate: number; minFreedShare: number }> = {
  claude: { maxLostRate: 0.003, minFreedShare: 0.226 },
  codex: { maxLostRate: 0.014, minFreedShare: 0.113 },
};

export interface GoalCheck {
  readonly host: string;
  readonly lostRate: number;
  readonly freedShare: number;
  readonly lostOk: boolean;
  readonly freedOk: boolean;
  /** baselines that free as much and lose as little as the rules */
  readonly dominatedBy: readonly string[];
}

export const goalChecks = (report: EvalReport): GoalCheck[] =>
  report.hosts.flatMap((h) => {
    const rules = h.methods.find((m) => m.method === "rules");
    const goal = GOALS[h.host];
    if (!rules || !goal) return [];
    const dominatedBy = h.methods
      .filter((o) => o.method !== "rules" && o.removed > 0 && o.freedShare >= rules.freedShare && o.lostRate <= rules.lostRate)
      .map((o) => o.method);
    return [
      {
        host: h.host,
        lostRate: rules.lostRate,
        freedShare: rules.freedShare,
        lostOk: rules.lostRate <= goal.maxLostRate,
        freedOk: rules.freedShare >= goal.minFreedShare,
        dominatedBy,
      },
    ];
  });
