// One pass over a session's timeline that every cut, method and score reads from:
// each piece of text is run through the frozen yardstick once, so scoring a cut is
// lookups, never a rescan. Which text counts where:
// - "known" text (anything a token may already have come from): every message's prose and
//   every tool call's input;
// - "used" text (what shows a result was needed): assistant replies and tool call inputs.
import { estimateMessageTokens, estimateTextTokens } from "../engine/estimate.ts";
import type { Message, Session } from "../engine/types.ts";
import { extractTokens } from "./yardstick/v1.ts";

export interface ResultInfo {
  /** position among all tool results of the session, in message order */
  readonly ordinal: number;
  /** index of the message holding it */
  readonly message: number;
  /** index in that message's toolResults */
  readonly slot: number;
  readonly callId: string;
  /** the calling tool's name ("" when the call is not in the session) */
  readonly tool: string;
  readonly text: string;
  readonly isError: boolean;
  readonly images: number;
  /** yardstick tokens of the text, each once */
  readonly tokens: readonly string[];
  readonly estTokens: number;
}

export interface IndexedSession {
  readonly session: Session;
  readonly results: readonly ResultInfo[];
  /** resultCountBefore[k]: number of results in messages [0, k) (length n + 1) */
  readonly resultCountBefore: readonly number[];
  /** first message whose prose or tool input holds the token */
  readonly firstKnownAt: ReadonlyMap<string, number>;
  /** last message whose assistant reply or tool input holds the token */
  readonly lastUsedAt: ReadonlyMap<string, number>;
  /** tokens of each message's "used" text */
  readonly usedByMessage: readonly (readonly string[])[];
  /** tokens of each message's "known" text (prose and call inputs) */
  readonly knownByMessage: readonly (readonly string[])[];
  /** ordinals of the results holding the token, ascending */
  readonly resultsByToken: ReadonlyMap<string, readonly number[]>;
  /** estimated tokens of messages [0, k): everything, and tool output only (length n + 1) */
  readonly cumTokens: readonly number[];
  readonly cumToolTokens: readonly number[];
}

const isUsedProse = (m: Message): boolean => m.role === "assistant" && m.kind === "reply";

export const indexSession = (session: Session): IndexedSession => {
  const msgs = session.messages;
  const callNames = new Map<string, string>();
  const results: ResultInfo[] = [];
  const resultCountBefore: number[] = [0];
  const firstKnownAt = new Map<string, number>();
  const lastUsedAt = new Map<string, number>();
  const usedByMessage: string[][] = [];
  const knownByMessage: string[][] = [];
  const resultsByToken = new Map<string, number[]>();
  const cumTokens: number[] = [0];
  const cumToolTokens: number[] = [0];

  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i]!;
    const used = new Set<string>();
    const here = new Set<string>();
    const known = (tokens: readonly string[], isUsed: boolean): void => {
      for (const t of tokens) {
        if (!firstKnownAt.has(t)) firstKnownAt.set(t, i);
        here.add(t);
        if (isUsed) used.add(t);
      }
    };
    if (m.text.length > 0) known(extractTokens(m.text), isUsedProse(m));
    for (const c of m.toolCalls) {
      callNames.set(c.id, c.name);
      known(extractTokens(c.inputText), true);
    }
    m.toolResults.forEach((r, slot) => {
      const ordinal = results.length;
      const tokens = extractTokens(r.text);
      for (const t of tokens) {
        const list = resultsByToken.get(t);
        if (list) list.push(ordinal);
        else resultsByToken.set(t, [ordinal]);
      }
      results.push({
        ordinal,
        message: i,
        slot,
        callId: r.callId,
        tool: callNames.get(r.callId) ?? "",
        text: r.text,
        isError: r.isError,
        images: r.images,
        tokens,
        estTokens: estimateTextTokens(r.text),
      });
    });
    for (const t of used) lastUsedAt.set(t, i);
    usedByMessage.push([...used]);
    knownByMessage.push([...here]);
    resultCountBefore.push(results.length);
    const est = estimateMessageTokens(m);
    cumTokens.push(cumTokens[i]! + est.all);
    cumToolTokens.push(cumToolTokens[i]! + est.tool);
  }
  return { session, results, resultCountBefore, firstKnownAt, lastUsedAt, usedByMessage, knownByMessage, resultsByToken, cumTokens, cumToolTokens };
};

/** How many of the first `resultCount` results hold the token. */
export const resultsHolding = (index: IndexedSession, token: string, resultCount: number): number => {
  const list = index.resultsByToken.get(token);
  if (!list) return 0;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < resultCount) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};
