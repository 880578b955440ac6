// Facts about a session that the rules read: every tool result with its call and what the
// call means, file reads and writes in order, and (computed on first use) the token tables,
// quotes (the rule-word pattern lives here too; never-drop applies it). Built once per plan; rules only look things up.
import { CandidateMatcher } from "./candidate-tokens.ts";
import { isAlreadyCut } from "./notes.ts";
import { type FastQuoteTables, type QuoteTables, buildFastQuoteTables, buildQuoteTables, findQuote, findQuoteFast } from "./quotes.ts";
import { extractTokens, forEachToken } from "./tokens.ts";
import { type CallMeaning, ANY_FILE, describeCall, exitCode, inputStrings, rangeWithin, resultBody } from "./tools.ts";
import type { Message, Options, Session, ToolCall, ToolResult } from "./types.ts";

export { MIN_QUOTE_LINE, MIN_QUOTE_RUN } from "./quotes.ts";

/**
 * How the lookup and the quote check find what they need. "fast": only the tokens that
 * later prose or inputs hold are looked for in each result (candidate-tokens.ts), and only
 * likely places are checked for quotes (quotes.ts). "reference": every token of every result
 * is extracted and every place is checked, the plain definition the fast path is tested
 * against. Both give the same Plan.
 */
export type LookupMode = "fast" | "reference";

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
const messageTextCache = new WeakMap<Message, string>();

export const meaningOf = (call: ToolCall): CallMeaning => {
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

/** The text a message contributes to what came later: its prose and its calls' inputs ("": none). */
const messageText = (m: Message): string => {
  let t = messageTextCache.get(m);
  if (t === undefined) {
    const parts: string[] = [];
    if (m.kind !== "reasoning" && m.text !== "") parts.push(m.text);
    // the input's string values (real tokens, unescaped) and its text as written (what the
    // evaluation reads): a token found in either counts
    for (const c of m.toolCalls) parts.push(inputStrings(c.input, c.inputText), c.inputText);
    t = parts.join("\n");
    messageTextCache.set(m, t);
  }
  return t;
};

export const RULE_WORD_RE = /\b(?:must|never|always|do not|don't|don’t)\b/i;

interface TokenTables {
  firstSeen: Map<string, number>;
  lastSeen: Map<string, number>;
  resultCount: Map<string, number>;
}

const NO_TOKENS: readonly string[] = [];

/** The first of a sorted list of message indices after `from` (Infinity: none). */
const firstAfter = (sorted: readonly number[] | undefined, from: number): number => {
  if (sorted === undefined) return Infinity;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= from) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length ? sorted[lo]! : Infinity;
};

export class SessionIndex {
  readonly session: Session;
  readonly options: Options;
  readonly items: readonly ResultItem[];
  /** reads of each file, in order */
  private readonly readsByPath = new Map<string, ResultItem[]>();
  /** message indices of calls that may write each file (ANY_FILE: any file) */
  private readonly writesByPath = new Map<string, number[]>();
  private superseded?: Map<ResultItem, ResultItem>;
  private tokenTables?: TokenTables;
  /** fast mode: each result's tokens that later prose or inputs hold, in extractTokens order */
  private candidateTokens?: (readonly string[])[];
  private quoteTables?: QuoteTables;
  private fastQuoteTables?: FastQuoteTables;
  private supersedingReads?: Set<ResultItem>;
  readonly mode: LookupMode;

  constructor(session: Session, options: Options, mode: LookupMode = "fast") {
    this.session = session;
    this.options = options;
    this.mode = mode;
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
    if (this.supersedingReads === undefined) {
      if (this.superseded === undefined) this.superseded = this.findSuperseded();
      this.supersedingReads = new Set(this.superseded.values());
    }
    return this.supersedingReads.has(item);
  }

  private findSuperseded(): Map<ResultItem, ResultItem> {
    const out = new Map<ResultItem, ResultItem>();
    for (const reads of this.readsByPath.values()) {
      // each body once, not once per pair (a file read hundreds of times sliced them ~n²/2 times)
      const bodies: (string | undefined)[] = new Array(reads.length);
      const bodyOf = (k: number): string => (bodies[k] ??= resultBody(reads[k]!.result.text));
      for (let a = 0; a < reads.length - 1; a++) {
        const earlier = reads[a]!;
        if (earlier.cut) continue;
        const body = bodyOf(a);
        if (body.trim() === "") continue;
        // reads after the next call that may write the file cannot supersede this one
        const path = earlier.meaning.read!.path;
        const from = earlier.callMessageIndex;
        const nextWrite = Math.min(firstAfter(this.writesByPath.get(path), from), firstAfter(this.writesByPath.get(ANY_FILE), from));
        for (let b = a + 1; b < reads.length; b++) {
          const later = reads[b]!;
          if (nextWrite < later.callMessageIndex) break;
          if (later.cut) continue;
          if (!rangeWithin(earlier.meaning.read!.range, later.meaning.read!.range)) continue;
          const laterBody = bodyOf(b);
          if (laterBody.length === body.length ? laterBody === body : laterBody.length > body.length && laterBody.includes(body)) {
            out.set(earlier, later);
            break;
          }
          // a later read covering these lines no longer shows this text: the file was changed in
          // between (by something no call recorded), so no read after it can supersede this one
          break;
        }
      }
    }
    return out;
  }

  /**
   * Token tables: where each prose/input token was first seen (any message), where it was
   * last seen in an assistant reply or a tool input, and in how many results it occurs.
   * Only tokens seen in prose or inputs can ever match, so results are counted for those alone.
   */
  tokens(): TokenTables {
    if (this.tokenTables) return this.tokenTables;
    const firstSeen = new Map<string, number>();
    const lastSeen = new Map<string, number>();
    const resultCount = new Map<string, number>();
    // every message's text in one string, joined by "\n" (no token spans a line break, so its
    // tokens are each message's, shifted): one extraction instead of one per message
    const texts: string[] = [];
    const starts: number[] = [];
    const owners: number[] = [];
    const later: boolean[] = [];
    let at = 0;
    this.session.messages.forEach((m, i) => {
      const t = messageText(m);
      if (t === "") return;
      texts.push(t);
      starts.push(at);
      owners.push(i);
      later.push(m.role === "assistant" || m.toolCalls.length > 0);
      at += t.length + 1;
    });
    forEachToken(texts.join("\n"), (_kind, t, pos) => {
      // the message holding pos: the last start at or before it
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (starts[mid]! <= pos) lo = mid;
        else hi = mid - 1;
      }
      const i = owners[lo]!;
      const first = firstSeen.get(t);
      if (first === undefined || i < first) firstSeen.set(t, i);
      if (later[lo]) {
        const last = lastSeen.get(t);
        if (last === undefined || i > last) lastSeen.set(t, i);
      }
    });
    if (this.mode === "fast") {
      const matcher = new CandidateMatcher(lastSeen.keys());
      this.candidateTokens = this.items.map((item) => (item.cut ? NO_TOKENS : matcher.tokensIn(item.result.text)));
    }
    for (const item of this.items) {
      for (const t of this.resultTokens(item)) {
        if (!lastSeen.has(t)) continue;
        resultCount.set(t, (resultCount.get(t) ?? 0) + 1);
      }
    }
    this.tokenTables = { firstSeen, lastSeen, resultCount };
    return this.tokenTables;
  }

  /**
   * The result's distinctive tokens that the lookup can use, in extractTokens order: in
   * "reference" mode all of them, in "fast" mode those that later prose or inputs hold (the
   * lookup passes over the others).
   */
  resultTokens(item: ResultItem): readonly string[] {
    if (this.mode === "reference") return resultTokens(item.result);
    if (this.candidateTokens === undefined) this.tokens();
    return this.candidateTokens![item.ordinal]!;
  }

  /** The index of a later assistant reply that quotes this result (a run of 40+ characters or a whole line), or -1. */
  quotedAt(item: ResultItem): number {
    if (this.quoteTables === undefined) this.quoteTables = buildQuoteTables(this.session.messages);
    if (this.mode === "reference") return findQuote(this.quoteTables, item.result.text, item.messageIndex);
    if (this.fastQuoteTables === undefined) this.fastQuoteTables = buildFastQuoteTables(this.quoteTables);
    return findQuoteFast(this.fastQuoteTables, item.result.text, item.messageIndex);
  }
}
