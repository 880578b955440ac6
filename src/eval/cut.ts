// A cut: the compactor sees timeline[0, at) (the prefix); the scorer looks at the rest.
// Pins are the same for every method, so every method is judged on the same removable set.
import { DEFAULT_OPTIONS, type Session } from "../engine/types.ts";
import type { IndexedSession, ResultInfo } from "./session-index.ts";

/** the last messages before a cut are never touched (bc's default, applied to every method) */
export const PIN_LAST_MESSAGES = DEFAULT_OPTIONS.pinLastMessages;

export const DEFAULT_CUTS: readonly number[] = [0.5, 0.7, 0.9];

/** Message index of a cut at `share` of `messageCount` messages. */
export const cutIndex = (messageCount: number, share: number): number => Math.round(share * messageCount);

export interface CutContext {
  readonly index: IndexedSession;
  /** share of the timeline's messages before the cut */
  readonly share: number;
  /** the prefix is timeline[0, at) */
  readonly at: number;
  readonly prefix: Session;
  /** the prefix's tool results, in order (ordinals 0 .. results.length - 1) */
  readonly results: readonly ResultInfo[];
  /** ordinals of pinned results: in the first message, in the last PIN_LAST_MESSAGES messages, or errors */
  readonly pinned: ReadonlySet<number>;
  /** estimated tokens of the prefix: everything, and tool output only */
  readonly tokensBefore: number;
  readonly toolTokensBefore: number;
}

export const isPinned = (r: ResultInfo, at: number): boolean => r.message === 0 || r.message >= at - PIN_LAST_MESSAGES || r.isError;

export const cutContext = (index: IndexedSession, share: number, at = cutIndex(index.session.messages.length, share)): CutContext => {
  const results = index.results.slice(0, index.resultCountBefore[at]);
  const pinned = new Set<number>();
  for (const r of results) if (isPinned(r, at)) pinned.add(r.ordinal);
  return {
    index,
    share,
    at,
    prefix: { ...index.session, messages: index.session.messages.slice(0, at) },
    results,
    pinned,
    tokensBefore: index.cumTokens[at]!,
    toolTokensBefore: index.cumToolTokens[at]!,
  };
};

/**
 * A session's cuts at `shares`, in order: a cut with nothing before or after it is left out, and
 * shares that fall on the same message are one cut (the first share given names it), so that no
 * result is counted twice.
 */
export const sessionCuts = (index: IndexedSession, shares: readonly number[]): CutContext[] => {
  const n = index.session.messages.length;
  const seen = new Set<number>();
  const out: CutContext[] = [];
  for (const share of [...shares].sort((a, b) => a - b)) {
    const at = cutIndex(n, share);
    if (at <= 0 || at >= n || seen.has(at)) continue;
    seen.add(at);
    out.push(cutContext(index, share, at));
  }
  return out;
};
