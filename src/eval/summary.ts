// Per-host totals over sessions: the same columns for every method, plus the host-compaction
// comparison and the repeated passes. Rates are ratios of pooled counts.
import type { Host } from "../engine/types.ts";
import type { CompactionScore } from "./host-compactions.ts";
import type { SessionReplay } from "./replay.ts";
import { addTally, ZERO_TALLY, type Tally } from "./score.ts";

export interface MethodSummary extends Tally {
  readonly method: string;
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
  readonly lostPerSession: number;
  readonly losingNothingShare: number;
}

export interface CompactionSummary extends Pick<CompactionScore, "needed" | "keptByHost" | "keptByRules" | "tokensBefore" | "hostTokensAfter" | "rulesTokensFreed"> {
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
  readonly methods: readonly MethodSummary[];
  readonly compactions: CompactionSummary;
  readonly passes: readonly PassSummary[];
}

/** rounded to 6 decimals: enough for any table, and short in report.json */
const ratio = (a: number, b: number): number => (b === 0 ? 0 : Math.round((a / b) * 1e6) / 1e6);

export const summarizeMethod = (method: string, sessions: readonly SessionReplay[]): MethodSummary => {
  let total = ZERO_TALLY;
  let losingNothing = 0;
  let counted = 0;
  for (const s of sessions) {
    let lost = 0;
    let seen = false;
    for (const c of s.cuts) {
      const t = c.methods[method];
      if (!t) continue;
      seen = true;
      total = addTally(total, t);
      lost += t.lost;
    }
    if (!seen) continue;
    counted++;
    if (lost === 0) losingNothing++;
  }
  return {
    method,
    ...total,
    sessions: counted,
    sessionsLosingNothing: losingNothing,
    removedShare: ratio(total.removed, total.unpinned),
    freedShare: ratio(total.tokensFreed, total.tokensBefore),
    missRate: ratio(total.misses, total.removed),
    missRateWithoutNumbers: ratio(total.misses - total.numberOnlyMisses, total.removed),
    lostRate: ratio(total.lost, total.removed),
    lostRateWithoutNumbers: ratio(total.lost - total.numberOnlyLost, total.removed),
    lostPerSession: ratio(total.lost, counted),
    losingNothingShare: ratio(losingNothing, counted),
  };
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
    hostFreedShareMean: ratio(sum((c) => (c.tokensBefore === 0 ? 0 : 1 - c.hostTokensAfter / c.tokensBefore)), all.length),
    rulesFreedShareMean: ratio(sum((c) => ratio(c.rulesTokensFreed, c.tokensBefore)), all.length),
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

export const summarizeHost = (
  host: Host,
  sessions: readonly SessionReplay[],
  methods: readonly string[],
  passes: readonly number[],
): HostSummary => {
  const mine = sessions.filter((s) => s.host === host);
  return {
    host,
    sessions: mine.length,
    methods: methods.map((m) => summarizeMethod(m, mine)),
    compactions: summarizeCompactions(mine),
    passes: summarizePasses(mine, passes),
  };
};
