// Repeated passes, as the loop runs in production: a pass at 50, 60, 70, 80 and 90% of a
// session, each over the previous pass's output plus the real continuation since. Each pass
// is scored against the rest of the real session, and run a second time over its own output:
// a pass must be a fixed point (the second run changes nothing).
import type { Message } from "../engine/types.ts";
import { cutContext, cutIndex } from "./cut.ts";
import { compactAligned, rewritesFrom, type Compactor } from "./methods/rules.ts";
import { enforcePins, scoreCut, type Tally } from "./score.ts";
import type { IndexedSession } from "./session-index.ts";
import { estimateMessageTokens } from "../engine/estimate.ts";

export const DEFAULT_PASSES: readonly number[] = [0.5, 0.6, 0.7, 0.8, 0.9];

export interface PassResult {
  readonly share: number;
  readonly at: number;
  /** tool-output tokens this pass freed from its own input */
  readonly passFreed: number;
  /** the cumulative picture at this pass, scored against the real continuation */
  readonly tally: Tally;
  /** results a second run over this pass's output changed (0: a fixed point) */
  readonly fixedPointViolations: number;
}

const toolTokens = (messages: readonly Message[]): number => {
  let n = 0;
  for (const m of messages) n += estimateMessageTokens(m).tool;
  return n;
};

const changedResults = (a: readonly Message[], b: readonly Message[]): number => {
  let n = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    x.toolResults.forEach((r, j) => {
      if (y.toolResults[j]?.text !== r.text) n++;
    });
  }
  return n;
};

export const replayPasses = (index: IndexedSession, compact: Compactor, shares: readonly number[] = DEFAULT_PASSES): PassResult[] => {
  const timeline = index.session.messages;
  const out: PassResult[] = [];
  let history: readonly Message[] = [];
  let prevAt = 0;
  for (const share of shares) {
    const at = cutIndex(timeline.length, share);
    if (at <= prevAt) continue;
    const input = [...history, ...timeline.slice(prevAt, at)];
    const session = { ...index.session, messages: input };
    const after = compactAligned(compact, session).messages;
    const again = compactAligned(compact, { ...index.session, messages: after }).messages;
    const ctx = cutContext(index, share, at);
    const rewrites = rewritesFrom(ctx.results, after);
    // score what really happened; a change to a pinned result is counted, not undone
    const { pinnedTouched } = enforcePins(ctx, rewrites);
    const score = scoreCut(ctx, rewrites, pinnedTouched);
    out.push({
      share,
      at,
      passFreed: toolTokens(input) - toolTokens(after),
      tally: score.tally,
      fixedPointViolations: changedResults(after, again) + (again.length === after.length ? 0 : 1),
    });
    history = after;
    prevAt = at;
  }
  return out;
};
