// The scorer: what a method removed before a cut, against what the assistant wrote and the
// tool inputs it issued after the cut (which no method saw). Only the frozen yardstick
// decides what a token is.
import { estimateTextTokens } from "../engine/estimate.ts";
import type { CutContext } from "./cut.ts";
import type { Rewrites } from "./methods/method.ts";
import { resultsHolding, type IndexedSession, type ResultInfo } from "./session-index.ts";
import { extractTokens } from "./yardstick/v1.ts";

/** a token held by more than this many results before the cut is too generic to count */
export const GENERIC_TOKEN_RESULTS = 10;

/** years, versions, decimals, long numbers: a match on these alone is counted apart */
export const isNumberLike = (token: string): boolean => /^v?\d+(?:[.,:_/-]\d+)*$/.test(token.trim());

/** Counts that add up across cuts, sessions and hosts. */
export interface Tally {
  readonly cuts: number;
  /** tool results before the cut */
  readonly results: number;
  readonly unpinned: number;
  /** results whose text the method changed (truncations included) */
  readonly removed: number;
  /**
   * of the removed, those that took away a token the yardstick counts (not known before the
   * result, held by at most GENERIC_TOKEN_RESULTS results before the cut): only these can be
   * missed or lost; the others hold nothing the ruler can see used (0 where not counted: the
   * hosts' own summaries)
   */
  readonly scorable: number;
  /** of the removed, those cut to a head (some text kept) */
  readonly truncated: number;
  /** changes a method made to pinned results, undone by the replay */
  readonly pinnedTouched: number;
  /** estimated tokens before the cut: everything, and tool output only */
  readonly tokensBefore: number;
  readonly toolTokensBefore: number;
  /** tool-output tokens freed (original minus what was left in its place) */
  readonly tokensFreed: number;
  /** removed results one of whose removed tokens is used after the cut */
  readonly misses: number;
  /** misses matched by number-like tokens only */
  readonly numberOnlyMisses: number;
  /** misses with a used token visible nowhere in what the method left */
  readonly lost: number;
  readonly numberOnlyLost: number;
  /** results before the cut the session uses after it (labels.ts): the same for every method */
  readonly needed: number;
  /** cuts where the history ended at or under the budget (pressure mode) */
  readonly reached: number;
  /** cuts where the budget can be reached without touching pins, prose or call inputs: they alone fit (pressure mode) */
  readonly reachable: number;
  /** of those, the ones where the history ended at or under the budget */
  readonly reachedReachable: number;
  /** cuts the Claude Code plugin handed to the host's summary (pressure mode, bc only) */
  readonly handovers: number;
  /** cuts the Claude Code plugin answered with its own rows over the budget, under handOverAbovePercent (pressure mode, bc only) */
  readonly answeredOver: number;
}

export const ZERO_TALLY: Tally = {
  cuts: 0,
  results: 0,
  unpinned: 0,
  removed: 0,
  scorable: 0,
  truncated: 0,
  pinnedTouched: 0,
  tokensBefore: 0,
  toolTokensBefore: 0,
  tokensFreed: 0,
  misses: 0,
  numberOnlyMisses: 0,
  lost: 0,
  numberOnlyLost: 0,
  needed: 0,
  reached: 0,
  reachable: 0,
  reachedReachable: 0,
  handovers: 0,
  answeredOver: 0,
};

export const addTally = (a: Tally, b: Tally): Tally => {
  const out: Record<string, number> = {};
  for (const k of Object.keys(ZERO_TALLY) as (keyof Tally)[]) out[k] = a[k] + b[k];
  return out as unknown as Tally;
};

/** One removed result the continuation needed. */
export interface Miss {
  readonly ordinal: number;
  readonly message: number;
  readonly tool: string;
  /** removed tokens used after the cut */
  readonly tokens: readonly string[];
  /** of those, the ones visible nowhere in what the method left (empty: not lost) */
  readonly invisible: readonly string[];
}

export interface CutScore {
  readonly tally: Tally;
  readonly misses: readonly Miss[];
  /** ordinals of the scorable removals (Tally.scorable) */
  readonly scorableOrdinals: ReadonlySet<number>;
}

/** The method's rewrites with pinned results and no-op rewrites taken out. */
export const enforcePins = (ctx: CutContext, rewrites: Rewrites): { rewrites: Map<number, string>; pinnedTouched: number } => {
  const out = new Map<number, string>();
  let pinnedTouched = 0;
  for (const [ordinal, after] of rewrites) {
    const r = ctx.index.results[ordinal];
    if (r === undefined || ordinal >= ctx.results.length || after === r.text) continue;
    if (ctx.pinned.has(ordinal)) pinnedTouched++;
    else out.set(ordinal, after);
  }
  return { rewrites: out, pinnedTouched };
};

const isTruncation = (r: ResultInfo, after: string): boolean => after.length > 0 && r.text.startsWith(after.slice(0, Math.min(after.length, 64)));

export interface ScoreWindow {
  /** the history the method compacted is timeline[from, at) (0 for a cut) */
  readonly from: number;
  readonly at: number;
  /** the continuation ends before this message (timeline length for a cut) */
  readonly until: number;
  /** tokens used in [at, until); undefined: use the index's lastUsedAt (until = end) */
  readonly used?: ReadonlySet<string>;
}

/** Whether the yardstick counts token `t` for result `r`: new with it (not known by its message), and not generic. */
const countsFor = (index: IndexedSession, r: ResultInfo, t: string, genericCount: (t: string) => number): boolean => {
  const known = index.firstKnownAt.get(t);
  return !(known !== undefined && known <= r.message) && genericCount(t) <= GENERIC_TOKEN_RESULTS;
};

/** Which of a removed result's tokens the continuation used: known-before and generic tokens excluded. */
export const neededTokens = (
  index: IndexedSession,
  r: ResultInfo,
  removed: readonly string[],
  window: ScoreWindow,
  resultCount: number,
  genericCount: (t: string) => number = (t) => resultsHolding(index, t, resultCount),
): string[] => {
  const out: string[] = [];
  for (const t of removed) {
    if (window.used) {
      if (!window.used.has(t)) continue;
    } else {
      const last = index.lastUsedAt.get(t);
      if (last === undefined || last < window.at) continue;
    }
    if (countsFor(index, r, t, genericCount)) out.push(t);
  }
  return out;
};

export interface ScoreExtras {
  /** usedAfterCut(ctx): when given, `needed` is counted and misses read it instead of rescanning */
  readonly used?: readonly (readonly string[])[];
  /** pressure mode: the history's budget; `reached` is 1 when what is left is at or under it */
  readonly budget?: number;
  /** pressure mode: tokens of the history no compaction in its host leaves (PressurePoint.droppedTokens), not counted in what is left */
  readonly droppedTokens?: number;
  /** the method's own verdict on the budget (bc), instead of the scored tokens */
  readonly reached?: boolean;
  readonly handedOver?: boolean;
  /** the Claude Code plugin answered with its own rows (over the budget too) */
  readonly answered?: boolean;
  /** pressure mode: whether what no method may touch alone fits the budget (pressure.ts: untouchableTokens) */
  readonly reachable?: boolean;
}

/** Score one method's rewrites at one cut (rewrites already pin-enforced). */
export const scoreCut = (ctx: CutContext, rewrites: ReadonlyMap<number, string>, pinnedTouched = 0, extras: ScoreExtras = {}): CutScore => {
  const { index, at } = ctx;
  const resultCount = ctx.results.length;
  const afterTokens = new Map<number, Set<string>>();
  const tokensAfter = (ordinal: number, after: string): Set<string> => {
    let set = afterTokens.get(ordinal);
    if (!set) {
      set = new Set(after.length > 0 ? extractTokens(after) : []);
      afterTokens.set(ordinal, set);
    }
    return set;
  };
  const visible = (t: string): boolean => {
    const known = index.firstKnownAt.get(t);
    if (known !== undefined && known < at) return true;
    for (const o of index.resultsByToken.get(t) ?? []) {
      if (o >= resultCount) break;
      const after = rewrites.get(o);
      if (after === undefined || tokensAfter(o, after).has(t)) return true;
    }
    return false;
  };
  const generic = (t: string): number => resultsHolding(index, t, resultCount);
  let removed = 0;
  const scorable = new Set<number>();
  let truncated = 0;
  let tokensFreed = 0;
  let numberOnlyMisses = 0;
  let lost = 0;
  let numberOnlyLost = 0;
  const misses: Miss[] = [];
  const window: ScoreWindow = { from: 0, at, until: index.session.messages.length };
  for (const [ordinal, after] of [...rewrites].sort((a, b) => a[0] - b[0])) {
    const r = index.results[ordinal]!;
    removed++;
    if (isTruncation(r, after)) truncated++;
    tokensFreed += r.estTokens - estimateTextTokens(after);
    const kept = tokensAfter(ordinal, after);
    const gone = kept.size === 0 ? r.tokens : r.tokens.filter((t) => !kept.has(t));
    if (gone.some((t) => countsFor(index, r, t, generic))) scorable.add(ordinal);
    const usedHere = extras.used?.[ordinal];
    const needed =
      usedHere === undefined ? neededTokens(index, r, gone, window, resultCount) : kept.size === 0 ? [...usedHere] : usedHere.filter((t) => !kept.has(t));
    if (needed.length === 0) continue;
    if (needed.every(isNumberLike)) numberOnlyMisses++;
    const invisible = needed.filter((t) => !visible(t));
    if (invisible.length > 0) {
      lost++;
      if (invisible.every(isNumberLike)) numberOnlyLost++;
    }
    misses.push({ ordinal, message: r.message, tool: r.tool, tokens: needed, invisible });
  }
  const unpinned = resultCount - ctx.pinned.size;
  const reached = extras.budget === undefined ? 0 : (extras.reached ?? ctx.tokensBefore - (extras.droppedTokens ?? 0) - tokensFreed <= extras.budget) ? 1 : 0;
  return {
    tally: {
      cuts: 1,
      results: resultCount,
      unpinned,
      removed,
      scorable: scorable.size,
      truncated,
      pinnedTouched,
      tokensBefore: ctx.tokensBefore,
      toolTokensBefore: ctx.toolTokensBefore,
      tokensFreed,
      misses: misses.length,
      numberOnlyMisses,
      lost,
      numberOnlyLost,
      needed: extras.used === undefined ? 0 : extras.used.reduce((n, u) => n + (u.length > 0 ? 1 : 0), 0),
      reached,
      reachable: extras.reachable === true ? 1 : 0,
      reachedReachable: extras.reachable === true ? reached : 0,
      handovers: extras.handedOver === true ? 1 : 0,
      answeredOver: extras.answered === true && reached === 0 ? 1 : 0,
    },
    misses,
    scorableOrdinals: scorable,
  };
};

/** A method's rewrites at a cut, scored as bc eval scores every method: changes to pinned results undone (and counted), then scoreCut. */
export const scoreRewrites = (ctx: CutContext, rw: Rewrites, extras: ScoreExtras = {}): CutScore & { readonly rewrites: ReadonlyMap<number, string> } => {
  const { rewrites, pinnedTouched } = enforcePins(ctx, rw);
  return { ...scoreCut(ctx, rewrites, pinnedTouched, extras), rewrites };
};
