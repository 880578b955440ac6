// What the rules ask about tokens and quotes, behind one interface with two answers: the plain
// definition (reference.ts: slow and obviously right) and the fast one (fast.ts: everything that
// exists for speed). A plan chooses one, once; both give the same Plan, and the equivalence
// tests hold fast.ts to reference.ts.
import type { ResultItem } from "../session-facts.ts";
import { forEachInputString, inputStrings } from "../call-meaning.ts";
import { type IdentifierMatches, type TokenKind, forEachToken } from "../tokens.ts";
import type { Message } from "../types.ts";

export type LookupMode = "fast" | "reference";

export interface TokenTables {
  /** each token of prose or inputs -> the first message holding it */
  readonly firstSeen: ReadonlyMap<string, number>;
  /** each token -> the last assistant reply or tool input holding it (absent: none) */
  readonly lastSeen: ReadonlyMap<string, number>;
  /** each token of lastSeen -> in how many results it is a token (counted at least until it is more than generic) */
  readonly resultCount: ReadonlyMap<string, number>;
}

export interface Lookup {
  /**
   * The result's distinctive tokens the referenced rule can use, in extractTokens order: all of
   * them, or only those later prose or inputs hold (the rule passes over the others).
   */
  tokensOf(item: ResultItem): readonly string[];
  /** first and last sighting of each token in prose and inputs, and how many results hold it */
  tokenTables(): TokenTables;
  /** the message of a later assistant reply quoting this result (a run of 40+ characters or a whole line), or -1 */
  quotedAt(item: ResultItem): number;
  /** whether two results hold the same text */
  sameText(a: ResultItem, b: ResultItem): boolean;
}

/**
 * The text a message contributes to what came later: its prose and its calls' inputs ("": none).
 * Both the input's string values (real tokens, unescaped) and its text as written (what the
 * evaluation reads): a token found in either counts.
 */
export const messageText = (m: Message): string => {
  const parts: string[] = [];
  if (m.kind !== "reasoning" && m.text !== "") parts.push(m.text);
  for (const c of m.toolCalls) {
    const strings = inputStrings(c.input, c.inputText);
    parts.push(strings);
    // an input that is one string (a patch) is its own text: its tokens once
    if (c.inputText !== strings) parts.push(c.inputText);
  }
  return parts.join("\n");
};

/**
 * The parts of messageText, each in turn, without joining them: its prose, then each call's
 * input strings and its text as written (when that differs). No token spans a line break, so
 * the parts hold the tokens the joined text holds.
 */
export const forEachMessagePart = (m: Message, visit: (text: string) => void): void => {
  if (m.kind !== "reasoning" && m.text !== "") visit(m.text);
  for (const c of m.toolCalls) {
    // the joined strings' length, to tell cheaply when they cannot be the text as written
    let joined = -1;
    forEachInputString(c.input, c.inputText, (s) => {
      visit(s);
      joined += s.length + 1;
    });
    if (Math.max(joined, 0) !== c.inputText.length || inputStrings(c.input, c.inputText) !== c.inputText) visit(c.inputText);
  }
};

/** Whether a message's tokens count as used later: an assistant reply, or a tool input. */
export const usesTokens = (m: Message): boolean => m.role === "assistant" || m.toolCalls.length > 0;

/**
 * Each token of prose or inputs with the first message holding it, and with the last assistant
 * reply or tool input holding it (absent: none): every message's tokens, read from the texts
 * `partsOf(m, visit)` hands to visit (messageText, whole or in parts); the identifiers found by
 * `identifierMatches` where given (see forEachToken).
 */
export const sightings = (
  messages: readonly Message[],
  partsOf: (m: Message, visit: (text: string) => void) => void,
  identifierMatches?: IdentifierMatches,
): { firstSeen: Map<string, number>; lastSeen: Map<string, number> } => {
  // per token: [first message, last later message (-1: none)]; one lookup per occurrence
  const seen = new Map<string, [number, number]>();
  messages.forEach((m, i) => {
    const last = usesTokens(m) ? i : -1;
    const note = (_kind: TokenKind, t: string): void => {
      const s = seen.get(t);
      if (s === undefined) seen.set(t, [i, last]);
      else if (last > s[1]) s[1] = last;
    };
    partsOf(m, (text) => {
      if (text !== "") forEachToken(text, note, identifierMatches);
    });
  });
  const firstSeen = new Map<string, number>();
  const lastSeen = new Map<string, number>();
  for (const [t, [first, last]] of seen) {
    firstSeen.set(t, first);
    if (last !== -1) lastSeen.set(t, last);
  }
  return { firstSeen, lastSeen };
};
