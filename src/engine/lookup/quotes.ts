// Quotes, the definition: a later assistant reply that repeats a result verbatim (a run of
// MIN_QUOTE_RUN+ characters, or a whole line) shows the result was read closely: never-drop
// keeps it. findQuote tries every place of the result, plainly; fast-quotes.ts gives the same
// answer for far less work.
import type { Message } from "../types.ts";

/** A quoted run must be at least this long. */
export const MIN_QUOTE_RUN = 40;
/** A quoted whole line must be at least this long (shorter lines are too common: "}", "OK"). */
export const MIN_QUOTE_LINE = 12;
/** Replies are indexed by blocks of this many characters at aligned offsets: any quoted run holds one whole. */
export const BLOCK = MIN_QUOTE_RUN / 2;
/**
 * A block found in many replies is checked in its latest MAX_BLOCK_CHECKS places after the result
 * only. Part of the definition: without it a block common to many replies (a run of indentation,
 * a repeated banner) makes the check quadratic in the session's length.
 */
export const MAX_BLOCK_CHECKS = 8;

const isAssistantReply = (m: Message): boolean => m.role === "assistant" && m.kind === "reply" && m.text !== "";

/** What both quote checks read of the replies. */
export interface QuoteLines {
  /** per message: its text when it is an assistant reply, else "" */
  readonly texts: readonly string[];
  /** whole lines and `code spans` of assistant replies (trimmed) -> last message index */
  readonly lines: Map<string, number>;
  readonly lastReply: number;
}

export interface QuoteTables extends QuoteLines {
  /** BLOCK-character blocks at aligned offsets of every assistant reply -> [message, offset] pairs, in message order */
  readonly blocks: Map<string, number[]>;
}

export const trimLine = (line: string): string => line.replace(/^\s*\d+→/, "").trim();

/** Whether text[start, end) is shorter than a quoted run once its indentation (and a line-number prefix) is gone. */
const shortWhenTrimmed = (text: string, start: number, end: number): boolean => {
  let i = start;
  while (i < end && text.charCodeAt(i) <= 32) i++;
  let j = i;
  while (j < end && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
  if (j > i && text.charCodeAt(j) === 0x2192) i = j + 1;
  let k = end;
  while (k > i && text.charCodeAt(k - 1) <= 32) k--;
  return k - i < MIN_QUOTE_RUN;
};

const isQuotableLine = (line: string): boolean => line.length >= MIN_QUOTE_LINE && /[A-Za-z]/.test(line);

export const buildQuoteLines = (messages: readonly Message[]): QuoteLines => {
  const texts: string[] = [];
  const lines = new Map<string, number>();
  let lastReply = -1;
  messages.forEach((m, i) => {
    texts.push(isAssistantReply(m) ? m.text : "");
    if (!isAssistantReply(m)) return;
    lastReply = i;
    const t = m.text;
    for (const raw of t.split("\n")) {
      const line = trimLine(raw.replace(/^[>*-]\s+/, ""));
      if (isQuotableLine(line)) lines.set(line, i);
    }
    for (const span of t.matchAll(/`([^`\n]+)`/g)) {
      const s = span[1]!.trim();
      if (isQuotableLine(s)) lines.set(s, i);
    }
  });
  return { texts, lines, lastReply };
};

export const buildQuoteTables = (messages: readonly Message[]): QuoteTables => {
  const base = buildQuoteLines(messages);
  const blocks = new Map<string, number[]>();
  base.texts.forEach((t, i) => {
    for (let off = 0; off + BLOCK <= t.length; off += BLOCK) {
      const b = t.slice(off, off + BLOCK);
      const list = blocks.get(b);
      if (list) list.push(i, off);
      else blocks.set(b, [i, off]);
    }
  });
  return { ...base, blocks };
};

/** The length of the common run of r and p around a common block at r[rAt] and p[pAt]. */
export const commonRunAround = (r: string, rAt: number, p: string, pAt: number): number => {
  let left = 0;
  while (rAt - left - 1 >= 0 && pAt - left - 1 >= 0 && r.charCodeAt(rAt - left - 1) === p.charCodeAt(pAt - left - 1)) left++;
  let right = BLOCK;
  while (rAt + right < r.length && pAt + right < p.length && r.charCodeAt(rAt + right) === p.charCodeAt(pAt + right)) right++;
  return left + right;
};

/** The check at one place i of the result: the latest reply after `after` (of its latest few holding the block there) with a long enough common run, or -1. */
export const quoteAt = (q: QuoteTables, text: string, i: number, after: number): number => {
  const hits = q.blocks.get(text.slice(i, i + BLOCK));
  if (!hits) return -1;
  const stop = Math.max(0, hits.length - 2 * MAX_BLOCK_CHECKS);
  for (let k = hits.length - 2; k >= stop; k -= 2) {
    const msg = hits[k]!;
    if (msg <= after) break;
    if (commonRunAround(text, i, q.texts[msg]!, hits[k + 1]!) >= MIN_QUOTE_RUN) return msg;
  }
  return -1;
};

/** Whether the line text[start, end) is one a whole-line quote is looked for in: long enough, but shorter than a run once trimmed. */
export const isLineToMatch = (text: string, start: number, end: number): boolean =>
  end - start >= MIN_QUOTE_LINE && (end - start < MIN_QUOTE_RUN || shortWhenTrimmed(text, start, end));

/**
 * The first answer other than -1 that `quoteOfLine` gives for a line of the result a whole-line
 * quote is looked for in (long enough, but shorter than a run once trimmed), in order; -1: none.
 * (A longer line quoted whole is a run, found by the run search.)
 */
export const firstLineQuote = (text: string, quoteOfLine: (start: number, end: number) => number): number => {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (isLineToMatch(text, start, end)) {
      const at = quoteOfLine(start, end);
      if (at !== -1) return at;
    }
    start = end + 1;
  }
  return -1;
};

/** The reply after `after` quoting `text`: its lines first, in order, then its places, in order; -1 when none does. */
export const findQuote = (q: QuoteTables, text: string, after: number): number => {
  if (q.lastReply <= after) return -1;
  const line = firstLineQuote(text, (start, end) => {
    const at = q.lines.get(trimLine(text.slice(start, end)));
    return at !== undefined && at > after ? at : -1;
  });
  if (line !== -1) return line;
  // runs of MIN_QUOTE_RUN+ characters: any such run holds one aligned block of the reply
  for (let i = 0; i + BLOCK <= text.length && text.length >= MIN_QUOTE_RUN; i++) {
    const msg = quoteAt(q, text, i, after);
    if (msg !== -1) return msg;
  }
  return -1;
};
