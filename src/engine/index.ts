// Facts about a session that the rules read: every tool result with its call and what the
// call means, file reads and writes in order, and (computed on first use) the token tables,
// quotes and rule words. Built once per plan; rules only look things up.
import { isAlreadyCut } from "./notes.ts";
import { extractTokens } from "./tokens.ts";
import { type CallMeaning, ANY_FILE, describeCall, exitCode, inputStrings, rangeWithin, resultBody } from "./tools.ts";
import type { Message, Options, Session, ToolCall, ToolResult } from "./types.ts";

export interface ResultItem {
  /** position among all tool results, in message order */
  readonly ordinal: number;
  readonly messageIndex: number;
  readonly result: ToolResult;
  readonly call: ToolCall | undefined;
  /** message holding the call; -1 when the result has no call */
  readonly callMessageIndex: number;
  readonly meaning: CallMeaning;
  /** an error result: flagged by the host, or a non-zero exit status */
  readonly error: boolean;
  /** already carries a note from an earlier pass */
  readonly cut: boolean;
}

const NO_MEANING: CallMeaning = { writes: [], mutating: false, asksPerson: false };

// Caches keyed by object identity: repeated passes hand back the same objects, so their
// facts are computed once. Pure: the value depends only on the key's contents.
const meaningCache = new WeakMap<ToolCall, CallMeaning>();
const resultTokenCache = new WeakMap<ToolResult, readonly string[]>();
const messageTokenCache = new WeakMap<Message, readonly string[]>();

const meaningOf = (call: ToolCall): CallMeaning => {
  let m = meaningCache.get(call);
  if (m === undefined) {
    m = describeCall(call);
    meaningCache.set(call, m);
  }
  return m;
};

export const resultTokens = (r: ToolResult): readonly string[] => {
  let t = resultTokenCache.get(r);
  if (t === undefined) {
    // the whole text, host header included: the same text the evaluation's yardstick reads
    t = isAlreadyCut(r.text) ? [] : extractTokens(r.text);
    resultTokenCache.set(r, t);
  }
  return t;
};

/** Tokens a message contributes to what came later: its prose and its calls' inputs. */
const messageTokens = (m: Message): readonly string[] => {
  let t = messageTokenCache.get(m);
  if (t === undefined) {
    const parts: string[] = [];
    if (m.kind !== "reasoning" && m.text !== "") parts.push(m.text);
    // the input's string values (real tokens, unescaped) and its text as written (what the
    // evaluation reads): a token found in either counts
    for (const c of m.toolCalls) parts.push(inputStrings(c.input, c.inputText), c.inputText);
    t = parts.length === 0 ? [] : extractTokens(parts.join("\n"));
    messageTokenCache.set(m, t);
  }
  return t;
};

const isAssistantReply = (m: Message): boolean => m.role === "assistant" && m.kind === "reply" && m.text !== "";

export const RULE_WORD_RE = /\b(?:must|never|always|do not|don't|don’t)\b/i;

/** A quoted run must be at least this long. */
export const MIN_QUOTE_RUN = 40;
/** A quoted whole line must be at least this long (shorter lines are too common: "}", "OK"). */
export const MIN_QUOTE_LINE = 12;
const BLOCK = MIN_QUOTE_RUN / 2;
const BLOOM_BITS = 1 << 20;
const MAX_BLOCK_CHECKS = 8;
const HASH_BASE = 31;

export class SessionIndex {
  readonly session: Session;
  readonly options: Options;
  readonly items: readonly ResultItem[];
  /** reads of each file, in order */
  private readonly readsByPath = new Map<string, ResultItem[]>();
  /** message indices of calls that may write each file (ANY_FILE: any file) */
  private readonly writesByPath = new Map<string, number[]>();
  private superseded?: Map<ResultItem, ResultItem>;
  private tokenTables?: { firstSeen: Map<string, number>; lastSeen: Map<string, number>; resultCount: Map<string, number> };
  private quoteTables?: QuoteTables;
  private nextReply?: Int32Array;

  constructor(session: Session, options: Options) {
    this.session = session;
    this.options = options;
    const calls = new Map<string, { call: ToolCall; at: number }>();
    const items: ResultItem[] = [];
    session.messages.forEach((m, i) => {
      for (const c of m.toolCalls) {
        calls.set(c.id, { call: c, at: i });
        for (const w of meaningOf(c).writes) {
          const list = this.writesByPath.get(w);
          if (list) list.push(i);
          else this.writesByPath.set(w, [i]);
        }
      }
      for (const r of m.toolResults) {
        const found = calls.get(r.callId);
        const meaning = found ? meaningOf(found.call) : NO_MEANING;
        const code = exitCode(r.text.length > 400 ? r.text.slice(0, 400) : r.text);
        const item: ResultItem = {
          ordinal: items.length,
          messageIndex: i,
          result: r,
          call: found?.call,
          callMessageIndex: found ? found.at : -1,
          meaning,
          error: r.isError || (code !== undefined && code !== 0),
          cut: isAlreadyCut(r.text),
        };
        items.push(item);
        if (meaning.read && !item.error) {
          const list = this.readsByPath.get(meaning.read.path);
          if (list) list.push(item);
          else this.readsByPath.set(meaning.read.path, [item]);
        }
      }
    });
    this.items = items;
  }

  resultsAfter(item: ResultItem): number {
    return this.items.length - 1 - item.ordinal;
  }

  /** Whether any call between two message indices (exclusive) may have changed `path`. */
  writtenBetween(path: string, from: number, to: number): boolean {
    for (const key of [path, ANY_FILE]) {
      const list = this.writesByPath.get(key);
      if (list && list.some((w) => w > from && w < to)) return true;
    }
    return false;
  }

  /** Reads of the same file after this one. */
  laterReads(item: ResultItem): ResultItem[] {
    const read = item.meaning.read;
    if (!read) return [];
    const list = this.readsByPath.get(read.path) ?? [];
    return list.filter((r) => r.ordinal > item.ordinal);
  }

  isLatestRead(item: ResultItem): boolean {
    const read = item.meaning.read;
    if (!read || item.error) return false;
    const list = this.readsByPath.get(read.path);
    return list !== undefined && list[list.length - 1] === item;
  }

  /** For each read, the later read that makes it redundant (same file, nothing written between, its text contained). */
  supersededBy(item: ResultItem): ResultItem | undefined {
    if (this.superseded === undefined) this.superseded = this.findSuperseded();
    return this.superseded.get(item);
  }

  /** Whether this read made an earlier read redundant (it cannot be truncated). */
  supersedesAnother(item: ResultItem): boolean {
    if (this.superseded === undefined) this.superseded = this.findSuperseded();
    for (const v of this.superseded.values()) if (v === item) return true;
    return false;
  }

  private findSuperseded(): Map<ResultItem, ResultItem> {
    const out = new Map<ResultItem, ResultItem>();
    for (const reads of this.readsByPath.values()) {
      for (let a = 0; a < reads.length - 1; a++) {
        const earlier = reads[a]!;
        if (earlier.cut) continue;
        const body = resultBody(earlier.result.text);
        if (body.trim() === "") continue;
        for (let b = a + 1; b < reads.length; b++) {
          const later = reads[b]!;
          if (this.writtenBetween(earlier.meaning.read!.path, earlier.callMessageIndex, later.callMessageIndex)) break;
          if (later.cut) continue;
          if (!rangeWithin(earlier.meaning.read!.range, later.meaning.read!.range)) continue;
          const laterBody = resultBody(later.result.text);
          if (laterBody.includes(body)) {
            out.set(earlier, later);
            break;
          }
        }
      }
    }
    return out;
  }

  /**
   * Token tables: where each prose/input token was first seen (any message), where it was
   * last seen in an assistant reply or a tool input, and in how many results it occurs.
   */
  tokens(): { firstSeen: Map<string, number>; lastSeen: Map<string, number>; resultCount: Map<string, number> } {
    if (this.tokenTables) return this.tokenTables;
    const firstSeen = new Map<string, number>();
    const lastSeen = new Map<string, number>();
    const resultCount = new Map<string, number>();
    this.session.messages.forEach((m, i) => {
      const toks = messageTokens(m);
      if (toks.length === 0) return;
      const later = m.role === "assistant" || m.toolCalls.length > 0;
      for (const t of toks) {
        if (!firstSeen.has(t)) firstSeen.set(t, i);
        if (later) lastSeen.set(t, i);
      }
    });
    // only tokens seen in prose or inputs can ever match: count results for those alone
    for (const item of this.items) {
      for (const t of resultTokens(item.result)) {
        if (!lastSeen.has(t)) continue;
        resultCount.set(t, (resultCount.get(t) ?? 0) + 1);
      }
    }
    this.tokenTables = { firstSeen, lastSeen, resultCount };
    return this.tokenTables;
  }

  /** Index of the first assistant reply with prose after message i, in the same turn; -1 if none. */
  nextReplyAfter(i: number): number {
    if (this.nextReply === undefined) {
      const msgs = this.session.messages;
      const next = new Int32Array(msgs.length).fill(-1);
      let seen = -1;
      for (let j = msgs.length - 1; j >= 0; j--) {
        next[j] = seen;
        const m = msgs[j]!;
        if (isAssistantReply(m)) seen = j;
        else if (m.role === "user" && m.kind === "prompt") seen = -1;
      }
      this.nextReply = next;
    }
    return this.nextReply[i] ?? -1;
  }

  /** The index of a later assistant reply that quotes this result (a run of 40+ characters or a whole line), or -1. */
  quotedAt(item: ResultItem): number {
    if (this.quoteTables === undefined) this.quoteTables = buildQuoteTables(this.session.messages);
    return findQuote(this.quoteTables, item.result.text, item.messageIndex);
  }
}

// ---------------------------------------------------------------- quotes

interface QuoteTables {
  readonly texts: readonly string[];
  /** 20-character blocks at aligned offsets of every assistant reply -> [message, offset] pairs */
  readonly blocks: Map<string, number[]>;
  readonly bloom: Uint32Array;
  /** whole lines and `code spans` of assistant replies (trimmed) -> last message index */
  readonly lines: Map<string, number>;
  readonly lastReply: number;
}

let powCache = 0;
const hashPow = (): number => {
  if (powCache === 0) {
    let p = 1;
    for (let i = 0; i < BLOCK - 1; i++) p = Math.imul(p, HASH_BASE);
    powCache = p;
  }
  return powCache;
};

const hashBlock = (s: string, from: number): number => {
  let h = 0;
  for (let i = from; i < from + BLOCK; i++) h = (Math.imul(h, HASH_BASE) + s.charCodeAt(i)) | 0;
  return h;
};

const trimLine = (line: string): string => line.replace(/^\s*\d+→/, "").trim();

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

const buildQuoteTables = (messages: readonly Message[]): QuoteTables => {
  const texts: string[] = [];
  const blocks = new Map<string, number[]>();
  const bloom = new Uint32Array(BLOOM_BITS >>> 5);
  const lines = new Map<string, number>();
  let lastReply = -1;
  messages.forEach((m, i) => {
    texts.push(isAssistantReply(m) ? m.text : "");
    if (!isAssistantReply(m)) return;
    lastReply = i;
    const t = m.text;
    for (let off = 0; off + BLOCK <= t.length; off += BLOCK) {
      const b = t.slice(off, off + BLOCK);
      const list = blocks.get(b);
      if (list) list.push(i, off);
      else blocks.set(b, [i, off]);
      const h = hashBlock(t, off) & (BLOOM_BITS - 1);
      bloom[h >>> 5]! |= 1 << (h & 31);
    }
    for (const raw of t.split("\n")) {
      const line = trimLine(raw.replace(/^[>*-]\s+/, ""));
      if (isQuotableLine(line)) lines.set(line, i);
    }
    for (const span of t.matchAll(/`([^`\n]+)`/g)) {
      const s = span[1]!.trim();
      if (isQuotableLine(s)) lines.set(s, i);
    }
  });
  return { texts, blocks, bloom, lines, lastReply };
};

const commonRunAround = (r: string, rAt: number, p: string, pAt: number): number => {
  let left = 0;
  while (rAt - left - 1 >= 0 && pAt - left - 1 >= 0 && r.charCodeAt(rAt - left - 1) === p.charCodeAt(pAt - left - 1)) left++;
  let right = BLOCK;
  while (rAt + right < r.length && pAt + right < p.length && r.charCodeAt(rAt + right) === p.charCodeAt(pAt + right)) right++;
  return left + right;
};

const findQuote = (q: QuoteTables, text: string, after: number): number => {
  if (q.lastReply <= after) return -1;
  // whole lines shorter than a quoted run (a longer line quoted whole is a run, found below)
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (end - start >= MIN_QUOTE_LINE && (end - start < MIN_QUOTE_RUN || shortWhenTrimmed(text, start, end))) {
      const line = trimLine(text.slice(start, end));
      const at = q.lines.get(line);
      if (at !== undefined && at > after) return at;
    }
    start = end + 1;
  }
  // runs of 40+ characters: any such run contains one aligned 20-character block of the reply
  if (text.length < MIN_QUOTE_RUN) return -1;
  const pow = hashPow();
  let h = hashBlock(text, 0);
  for (let i = 0; ; i++) {
    const b = h & (BLOOM_BITS - 1);
    if ((q.bloom[b >>> 5]! & (1 << (b & 31))) !== 0) {
      const hits = q.blocks.get(text.slice(i, i + BLOCK));
      if (hits) {
        // entries are in message order: walk back from the latest, stop at the result; a
        // block repeated in many replies is checked in its latest MAX_BLOCK_CHECKS places only
        // (otherwise a much-quoted line would make the check quadratic)
        const stop = Math.max(0, hits.length - 2 * MAX_BLOCK_CHECKS);
        for (let k = hits.length - 2; k >= stop; k -= 2) {
          const msg = hits[k]!;
          if (msg <= after) break;
          if (commonRunAround(text, i, q.texts[msg]!, hits[k + 1]!) >= MIN_QUOTE_RUN) return msg;
        }
      }
    }
    if (i + BLOCK >= text.length) break;
    h = (Math.imul(h - Math.imul(text.charCodeAt(i), pow), HASH_BASE) + text.charCodeAt(i + BLOCK)) | 0;
  }
  return -1;
};
