// Per-host totals over sessions: the same columns for every method, plus the host-compaction
// comparison and the repeated passes. Rates are ratios of pooled counts.
import type { Host } from "../engine/types.ts";
import type { CompactionScore } from "./host-compactions.ts";
import { type Interval, ratioInterval } from "./interval.ts";
import { BY_TOOL_CEILINGS, type Recalled, type Removals, RULES_ID, type RuleTally, type SessionReplay } from "./replay.ts";
import { addTally, ZERO_TALLY, type Tally } from "./score.ts";

export interface MethodSummary extends Tally {
  readonly method: string;
  /** a method, a hindsight ceiling (never a method), or the host's own summary at its real compactions */
  readonly kind: "method" | "ceiling" | "host";
  readonly sessions: number;
  /** sessions where the method lost nothing, over all cuts */
  readonly sessionsLosingNothing: number;
  /** removed / unpinned */
  readonly removedShare: number;
  /** tokensFreed / tokensBefore */
  readonly freedShare: number;
  readonly missRate: number;
  /** misses not matched by number-like tokens only, over removed */
  readonly missRateWithoutNumbers: number;
  readonly lostRate: number;
  readonly lostRateWithoutNumbers: number;
  /** scorable / removed: the removals the yardstick can count as lost at all */
  readonly scorableShare: number;
  /** lost / scorable: the lost share of the removals the yardstick can judge */
  readonly lostOfScorable: number;
  readonly lostPerSession: number;
  readonly losingNothingShare: number;
  /** reached / cuts (pressure mode) */
  readonly reachedShare: number;
  /** reachedReachable / reachable: the budget reached where what no method may touch alone fits (pressure mode) */
  readonly reachedReachableShare: number;
  /** per session, needed results still visible ((needed - lost) / needed), over sessions that needed any */
  readonly spread: Spread;
}

export interface Spread {
  /** sessions with at least one needed result */
  readonly sessions: number;
  readonly median: number;
  /** the worst tenth: the share the worst 10% of sessions are at or below (nearest rank) */
  readonly worstTenth: number;
}

export const spreadOf = (shares: readonly number[]): Spread => {
  const xs = [...shares].sort((a, b) => a - b);
  const n = xs.length;
  if (n === 0) return { sessions: 0, median: 1, worstTenth: 1 };
  const median = n % 2 === 1 ? xs[(n - 1) / 2]! : (xs[n / 2 - 1]! + xs[n / 2]!) / 2;
  const worstTenth = xs[Math.max(0, Math.ceil(0.1 * n) - 1)]!;
  return { sessions: n, median: ratio(median, 1), worstTenth: ratio(worstTenth, 1) };
};

export interface CompactionSummary
  extends Pick<CompactionScore, "needed" | "keptByHost" | "keptByRules" | "tokensBefore" | "hostTokensAfter" | "rulesTokensFreed"> {
  readonly compactions: number;
  /** mean over compactions of 1 - after/before for the host, and freed/before for the rules */
  readonly hostFreedShareMean: number;
  readonly rulesFreedShareMean: number;
}

export interface PassSummary {
  readonly share: number;
  readonly sessions: number;
  readonly passFreed: number;
  readonly tokensBefore: number;
  readonly tokensFreed: number;
  readonly removed: number;
  readonly misses: number;
  readonly lost: number;
  readonly fixedPointViolations: number;
}

export interface HostSummary {
  readonly host: Host;
  readonly sessions: number;
  /** the light mode: methods, then the hindsight ceilings */
  readonly methods: readonly MethodSummary[];
  /** the pressure mode: bc (whole, then split), the budget baselines, the ceilings, then the host's own summary where the transcripts hold one */
  readonly pressure?: readonly MethodSummary[];
  readonly compactions: CompactionSummary;
  readonly passes: readonly PassSummary[];
  /** results bc removed at the light cuts, and how many `bc recall` gave back byte for byte from the files the host keeps */
  readonly recall: Recalled;
  /** the same at the pressure mode's cuts (absent from a report written without it) */
  readonly recallPressure?: Recalled;
  /** what bc removed and lost by the rule that removed it, light then pressure, most lost first (then most freed) */
  readonly byRule: readonly RuleSummary[];
  /** per mode and tool: what bc removed, lost and freed, and what the ceilings of BY_TOOL_CEILINGS lost and freed of the same tool */
  readonly byTool?: readonly ToolSummary[];
  /** how far bc's headline figures could move with other sessions (interval.ts) */
  readonly intervals?: HostIntervals;
}

export interface HostIntervals {
  /** light: bc's lost / removed */
  readonly lightLostRate?: Interval;
  /** pressure: bc's lost / removed */
  readonly pressureLostRate?: Interval;
  /** pressure: bc's results lost / oracle-to-budget's */
  readonly lostOverOracle?: Interval;
  /** pressure: bc's results lost / need-oracle's */
  readonly lostOverNeedOracle?: Interval;
}

export interface RuleSummary extends RuleTally {
  /** lost / removed */
  readonly lostRate: number;
  /** of the tokens bc freed in this mode, the share this rule freed */
  readonly freedShare: number;
}

/** One tool's results in one mode: bc's removals, and the ceilings' (BY_TOOL_CEILINGS) beside them. */
export interface ToolSummary {
  readonly mode: Mode;
  readonly tool: string;
  /** bc's tally of this tool's results (zero where bc removed none) */
  readonly bc: Removals;
  /** of the tokens bc freed in this mode, the share this tool's results freed */
  readonly freedShare: number;
  /** per ceiling of the mode: what it lost of this tool's results, and the tokens it freed of them */
  readonly ceilings: Readonly<Record<string, { readonly lost: number; readonly tokensFreed: number }>>;
}

/** rounded to 6 decimals: enough for any table, and short in report.json */
const ratio = (a: number, b: number): number => (b === 0 ? 0 : Math.round((a / b) * 1e6) / 1e6);

export type Mode = "light" | "pressure";

const tallyAt = (c: SessionReplay["cuts"][number], mode: Mode, method: string): Tally | undefined =>
  mode === "light" ? c.methods[method] : c.pressure?.methods[method];

/** Per session, a method's tally summed over its cuts in one mode (undefined: the method never ran). */
const sessionTally = (s: SessionReplay, mode: Mode, method: string): Tally | undefined => {
  let t: Tally | undefined;
  for (const c of s.cuts) {
    const here = tallyAt(c, mode, method);
    if (here) t = addTally(t ?? ZERO_TALLY, here);
  }
  return t;
};

export const summarizeMethod = (
  method: string,
  sessions: readonly SessionReplay[],
  mode: Mode = "light",
  kind: MethodSummary["kind"] = "method",
): MethodSummary => {
  const perSession = sessions.flatMap((s) => sessionTally(s, mode, method) ?? []);
  return summarizeTallies(method, kind, perSession);
};

/** A row from per-session totals (one tally per session that had the method). */
export const summarizeTallies = (method: string, kind: MethodSummary["kind"], perSession: readonly Tally[]): MethodSummary => {
  let total = ZERO_TALLY;
  let losingNothing = 0;
  for (const t of perSession) {
    total = addTally(total, t);
    if (t.lost === 0) losingNothing++;
  }
  const counted = perSession.length;
  return {
    method,
    kind,
    ...total,
    sessions: counted,
    sessionsLosingNothing: losingNothing,
    removedShare: ratio(total.removed, total.unpinned),
    freedShare: ratio(total.tokensFreed, total.tokensBefore),
    missRate: ratio(total.misses, total.removed),
    missRateWithoutNumbers: ratio(total.misses - total.numberOnlyMisses, total.removed),
    lostRate: ratio(total.lost, total.removed),
    lostRateWithoutNumbers: ratio(total.lost - total.numberOnlyLost, total.removed),
    scorableShare: ratio(total.scorable, total.removed),
    lostOfScorable: ratio(total.lost, total.scorable),
    lostPerSession: ratio(total.lost, counted),
    losingNothingShare: ratio(losingNothing, counted),
    reachedShare: ratio(total.reached, total.cuts),
    reachedReachableShare: ratio(total.reachedReachable, total.reachable),
    spread: spreadOf(perSession.filter((t) => t.needed > 0).map((t) => (t.needed - t.lost) / t.needed)),
  };
};

/** The host's own summary at its real compactions, as a row of the pressure table: it removes every result of the history it summarizes. */
export const hostSummaryRow = (sessions: readonly SessionReplay[]): MethodSummary | undefined => {
  const perSession: Tally[] = [];
  for (const s of sessions) {
    if (s.compactions.length === 0) continue;
    let t = ZERO_TALLY;
    for (const c of s.compactions)
      t = addTally(t, {
        ...ZERO_TALLY,
        cuts: 1,
        results: c.results,
        unpinned: c.results,
        removed: c.results,
        tokensBefore: c.tokensBefore,
        tokensFreed: Math.max(0, c.tokensBefore - c.hostTokensAfter),
        misses: c.needed,
        lost: c.needed - c.keptByHost,
        needed: c.needed,
      });
    perSession.push(t);
  }
  return perSession.length === 0 ? undefined : summarizeTallies("host-summary", "host", perSession);
};

export const summarizeCompactions = (sessions: readonly SessionReplay[]): CompactionSummary => {
  const all = sessions.flatMap((s) => s.compactions);
  const sum = (f: (c: (typeof all)[number]) => number): number => all.reduce((a, c) => a + f(c), 0);
  return {
    compactions: all.length,
    needed: sum((c) => c.needed),
    keptByHost: sum((c) => c.keptByHost),
    keptByRules: sum((c) => c.keptByRules),
    tokensBefore: sum((c) => c.tokensBefore),
    hostTokensAfter: sum((c) => c.hostTokensAfter),
    rulesTokensFreed: sum((c) => c.rulesTokensFreed),
    hostFreedShareMean: ratio(
      sum((c) => (c.tokensBefore === 0 ? 0 : 1 - c.hostTokensAfter / c.tokensBefore)),
      all.length,
    ),
    rulesFreedShareMean: ratio(
      sum((c) => ratio(c.rulesTokensFreed, c.tokensBefore)),
      all.length,
    ),
  };
};

export const summarizePasses = (sessions: readonly SessionReplay[], shares: readonly number[]): PassSummary[] =>
  shares.map((share) => {
    const ps = sessions.flatMap((s) => s.passes.filter((p) => p.share === share));
    const sum = (f: (p: (typeof ps)[number]) => number): number => ps.reduce((a, p) => a + f(p), 0);
    return {
      share,
      sessions: ps.length,
      passFreed: sum((p) => p.passFreed),
      tokensBefore: sum((p) => p.tally.tokensBefore),
      tokensFreed: sum((p) => p.tally.tokensFreed),
      removed: sum((p) => p.tally.removed),
      misses: sum((p) => p.tally.misses),
      lost: sum((p) => p.tally.lost),
      fixedPointViolations: sum((p) => p.fixedPointViolations),
    };
  });

/** bc's removals by rule over sessions: per mode, the rules that lost most first. */
export const summarizeRules = (sessions: readonly SessionReplay[]): RuleSummary[] => {
  const sums = new Map<string, RuleTally>();
  for (const s of sessions)
    for (const t of s.byRule) {
      const key = `${t.mode} ${t.rule}`;
      const a = sums.get(key) ?? { mode: t.mode, rule: t.rule, removed: 0, scorable: 0, lost: 0, tokensFreed: 0 };
      sums.set(key, {
        ...a,
        removed: a.removed + t.removed,
        scorable: a.scorable + t.scorable,
        lost: a.lost + t.lost,
        tokensFreed: a.tokensFreed + t.tokensFreed,
      });
    }
  const freedIn = (mode: RuleTally["mode"]): number => [...sums.values()].filter((t) => t.mode === mode).reduce((n, t) => n + t.tokensFreed, 0);
  const freed = { light: freedIn("light"), pressure: freedIn("pressure") };
  return [...sums.values()]
    .map((t) => ({ ...t, lostRate: ratio(t.lost, t.removed), freedShare: ratio(t.tokensFreed, freed[t.mode]) }))
    .sort((a, b) => (a.mode !== b.mode ? (a.mode === "light" ? -1 : 1) : b.lost - a.lost || b.tokensFreed - a.tokensFreed || a.rule.localeCompare(b.rule)));
};

/**
 * What bc and the ceilings of BY_TOOL_CEILINGS removed, lost and freed, by tool, over sessions.
 * Light, the tools a ceiling frees most of first (where the room is); under pressure, those bc
 * lost most of (then most freed; then by name). A tool only a ceiling removed has a row with
 * bc's zeros.
 */
export const summarizeTools = (sessions: readonly SessionReplay[]): ToolSummary[] => {
  type Row = {
    mode: Mode;
    tool: string;
    bc: { removed: number; scorable: number; lost: number; tokensFreed: number };
    ceilings: Record<string, { lost: number; tokensFreed: number }>;
  };
  const rows = new Map<string, Row>();
  for (const s of sessions)
    for (const t of s.byTool ?? []) {
      const key = `${t.mode} ${t.tool}`;
      const row: Row = rows.get(key) ?? {
        mode: t.mode,
        tool: t.tool,
        bc: { removed: 0, scorable: 0, lost: 0, tokensFreed: 0 },
        ceilings: Object.fromEntries(BY_TOOL_CEILINGS[t.mode].map((c) => [c, { lost: 0, tokensFreed: 0 }])),
      };
      rows.set(key, row);
      if (t.method === RULES_ID) {
        row.bc.removed += t.removed;
        row.bc.scorable += t.scorable;
        row.bc.lost += t.lost;
        row.bc.tokensFreed += t.tokensFreed;
      } else {
        const c = (row.ceilings[t.method] ??= { lost: 0, tokensFreed: 0 });
        c.lost += t.lost;
        c.tokensFreed += t.tokensFreed;
      }
    }
  const freed = { light: 0, pressure: 0 };
  for (const r of rows.values()) freed[r.mode] += r.bc.tokensFreed;
  const room = (r: Row): number => Object.values(r.ceilings).reduce((n, c) => Math.max(n, c.tokensFreed), 0);
  // light: where the room is first (the most a ceiling frees of the tool); under pressure, what bc lost
  const first = (a: Row, b: Row): number =>
    a.mode === "light" ? room(b) - room(a) || b.bc.tokensFreed - a.bc.tokensFreed : b.bc.lost - a.bc.lost || b.bc.tokensFreed - a.bc.tokensFreed;
  return [...rows.values()]
    .map((r) => ({ mode: r.mode, tool: r.tool, bc: r.bc, freedShare: ratio(r.bc.tokensFreed, freed[r.mode]), ceilings: r.ceilings }))
    .sort((a, b) => (a.mode === b.mode ? 0 : a.mode === "light" ? -1 : 1) || first(a, b) || a.tool.localeCompare(b.tool));
};

/** The intervals of bc's headline figures over the host's sessions. */
export const hostIntervals = (sessions: readonly SessionReplay[]): HostIntervals => {
  // per session, bc's lost over a divisor: what bc removed, or what a ceiling lost
  const lostOver = (mode: Mode, divisor: (s: SessionReplay) => number | undefined) =>
    ratioInterval(
      sessions.flatMap((s) => {
        const lost = sessionTally(s, mode, "rules")?.lost;
        const d = divisor(s);
        return lost === undefined || d === undefined ? [] : [[lost, d] as const];
      }),
    );
  const removed = (mode: Mode) => (s: SessionReplay) => sessionTally(s, mode, "rules")?.removed;
  const ceilingLost = (id: string) => (s: SessionReplay) => sessionTally(s, "pressure", id)?.lost;
  const light = lostOver("light", removed("light"));
  const pressure = lostOver("pressure", removed("pressure"));
  const oracle = lostOver("pressure", ceilingLost("oracle-to-budget"));
  const need = lostOver("pressure", ceilingLost("need-oracle"));
  return {
    ...(light ? { lightLostRate: light } : {}),
    ...(pressure ? { pressureLostRate: pressure } : {}),
    ...(oracle ? { lostOverOracle: oracle } : {}),
    ...(need ? { lostOverNeedOracle: need } : {}),
  };
};

/** What recall gave back, summed over the sessions (none where a session was not checked). */
const sumRecalled = (xs: readonly (Recalled | undefined)[]): Recalled =>
  xs.reduce<Recalled>((a, r) => ({ removed: a.removed + (r?.removed ?? 0), recalled: a.recalled + (r?.recalled ?? 0) }), { removed: 0, recalled: 0 });

export const summarizeHost = (
  host: Host,
  sessions: readonly SessionReplay[],
  methods: readonly string[],
  passes: readonly number[],
  modes: { readonly ceilings: readonly string[]; readonly pressure?: readonly string[]; readonly isCeiling: (id: string) => boolean },
): HostSummary => {
  const mine = sessions.filter((s) => s.host === host);
  const hostRow = hostSummaryRow(mine);
  return {
    host,
    sessions: mine.length,
    methods: [...methods.map((m) => summarizeMethod(m, mine)), ...modes.ceilings.map((c) => summarizeMethod(c, mine, "light", "ceiling"))],
    ...(modes.pressure === undefined
      ? {}
      : {
          pressure: [
            ...modes.pressure.map((m) => summarizeMethod(m, mine, "pressure", modes.isCeiling(m) ? "ceiling" : "method")),
            ...(hostRow === undefined ? [] : [hostRow]),
          ],
        }),
    compactions: summarizeCompactions(mine),
    passes: summarizePasses(mine, passes),
    recall: sumRecalled(mine.map((s) => s.recall)),
    recallPressure: sumRecalled(mine.map((s) => s.recallPressure)),
    byRule: summarizeRules(mine),
    byTool: summarizeTools(mine),
    intervals: hostIntervals(mine),
  };
};
