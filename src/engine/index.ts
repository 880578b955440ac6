// Facts about a session that the rules read: every tool result with its call and what the
// call means, file reads and writes in order, and (computed on first use) which results repeat
// an earlier result's text, the token tables and quotes (the rule-word pattern lives here too;
// never-drop applies it). Built once per plan; rules only look things up.
import { CandidateMatcher } from "./candidate-tokens.ts";
import { isAlreadyCut } from "./notes.ts";
import { type FastQuoteTables, type QuoteTables, buildFastQuoteTables, buildQuoteTables, findQuote, findQuoteFast } from "./quotes.ts";
import { extractTokens, forEachToken } from "./tokens.ts";
import { exitCode, resultBody } from "./result-text.ts";
import { type CallMeaning, ANY_FILE, describeCall, inputStrings, rangeWithin } from "./tools.ts";
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

/** Longer inputs (a file's new text) seldom repeat: not worth hashing as a key. */
const MAX_SHARED_INPUT = 1000;

/**
 * meaningOf for the calls of one session: a call repeating an earlier one (the same tool, the
 * same input text: `git status`, a test run, a file read again) shares its meaning.
 */
const meaningsOf = (): ((call: ToolCall) => CallMeaning) => {
  const byInput = new Map<string, CallMeaning>();
  return (call) => {
    const cached = meaningCache.get(call);
    if (cached !== undefined) return cached;
    if (call.inputText.length > MAX_SHARED_INPUT) return meaningOf(call);
    const key = `${call.name}\u0000${typeof call.input}\u0000${call.inputText}`;
    let m = byInput.get(key);
    if (m === undefined) {
      m = describeCall(call);
      byInput.set(key, m);
    }
    meaningCache.set(call, m);
    return m;
  };
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
const NO_IDS: readonly number[] = [];


/** How much result text the scan's anchors are chosen on (see CandidateMatcher). */
const SAMPLE_CHARS = 256 * 1024;
const SAMPLE_SHARE = 16;

/** How many earlier look-alike texts a result is compared with before it is taken as new. */
const MAX_REPEAT_CHECKS = 4;
const SIGNATURE_SAMPLES = 8;
const EDGE_CHARS = 24;

/**
 * A cheap fingerprint of a text: its length, its first and last EDGE_CHARS characters (where
 * outputs that repeat a command differ most: a header, a timing, a count) and characters at
 * SIGNATURE_SAMPLES even places between. Equal texts have equal fingerprints.
 */
const signature = (text: string): number => {
  const n = text.length;
  let h = n;
  if (n <= 2 * EDGE_CHARS + SIGNATURE_SAMPLES) {
    for (let i = 0; i < n; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
    return h;
  }
  for (let i = 0; i < EDGE_CHARS; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  for (let i = n - EDGE_CHARS; i < n; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  const step = (n - 2 * EDGE_CHARS) / SIGNATURE_SAMPLES;
  for (let k = 0; k < SIGNATURE_SAMPLES; k++) h = (Math.imul(h, 31) + text.charCodeAt(EDGE_CHARS + Math.floor(k * step))) | 0;
  return h;
};

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
  private firsts?: Int32Array;
  /** per text (its first result's ordinal): the last quote check, from where and its answer */
  private readonly quoteMemo = new Map<number, { after: number; at: number }>();
  readonly mode: LookupMode;

  constructor(session: Session, options: Options, mode: LookupMode = "fast") {
    this.session = session;
    this.options = options;
    this.mode = mode;
    const calls = new Map<string, { call: ToolCall; at: number }>();
    const items: ResultItem[] = [];
    const meaningOf = meaningsOf();
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
        const code = exitCode(r.text);
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

  /** Whether two results carry the same text (mostly known from firstOfText, without comparing them again). */
  sameText(a: ResultItem, b: ResultItem): boolean {
    const firsts = this.firstOfText();
    if (firsts[a.ordinal] === firsts[b.ordinal]) return true;
    // look-alikes beyond MAX_REPEAT_CHECKS may be equal without having been matched
    const x = a.result.text;
    const y = b.result.text;
    return x.length === y.length && signature(x) === signature(y) && x === y;
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
          if (this.sameText(earlier, later)) {
            out.set(earlier, later);
            break;
          }
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
    // per token: [first message, last later message (-1: none)]
    const seen = new Map<string, [number, number]>();
    let lo = 0;
    forEachToken(texts.join("\n"), (_kind, t, pos) => {
      // the message holding pos: the last start at or before it (each kind of token comes
      // in text order, so from where the last one was, unless this one lies before it)
      if (starts[lo]! > pos) lo = 0;
      while (lo + 1 < starts.length && starts[lo + 1]! <= pos) lo++;
      const i = owners[lo]!;
      const last = later[lo] ? i : -1;
      const s = seen.get(t);
      if (s === undefined) seen.set(t, [i, last]);
      else {
        if (i < s[0]) s[0] = i;
        if (last > s[1]) s[1] = last;
      }
    });
    for (const [t, [first, last]] of seen) {
      firstSeen.set(t, first);
      if (last !== -1) lastSeen.set(t, last);
    }
    if (this.mode === "fast") {
      const matcher = new CandidateMatcher(lastSeen.keys(), this.sampleTexts());
      // A candidate last seen at or before a result, and already in more results than makes it
      // generic, can change no answer from there on: that result's lookup passes over it
      // (seen too early to count at all), and its count can only grow. It is retired, and later
      // results are not searched for it (their lists lack it; nothing reads it there).
      const limit = this.options.genericTokenResults + 1;
      const lastOf = Int32Array.from({ length: matcher.size }, (_, id) => lastSeen.get(matcher.textOf(id))!);
      const counts = new Int32Array(matcher.size);
      /** saturated candidates still to be seen later, by the message of their last sighting */
      const retireAt: (number[] | undefined)[] = new Array(this.session.messages.length);
      let retiredUpTo = -1;
      // a result repeating an earlier one's text shares its list
      const firsts = this.firstOfText();
      const found: (readonly string[])[] = [];
      const foundIds: (readonly number[])[] = [];
      for (const item of this.items) {
        const i = item.messageIndex;
        while (retiredUpTo < i) {
          retiredUpTo++;
          for (const id of retireAt[retiredUpTo] ?? NO_IDS) matcher.retire(id);
        }
        const first = firsts[item.ordinal]!;
        if (item.cut) {
          found.push(NO_TOKENS);
          foundIds.push(NO_IDS);
          continue;
        }
        if (first !== item.ordinal) {
          found.push(found[first]!);
          foundIds.push(foundIds[first]!);
        } else {
          found.push(matcher.tokensIn(item.result.text));
          foundIds.push(matcher.lastFound);
        }
        for (const id of foundIds[item.ordinal]!) {
          if (++counts[id]! !== limit) continue;
          if (lastOf[id]! <= i) matcher.retire(id);
          else (retireAt[lastOf[id]!] ??= []).push(id);
        }
      }
      this.candidateTokens = found;
      // the counts kept above are the results each candidate is in (a retired one's stops
      // growing once it is generic, which is all the lookup asks of it)
      counts.forEach((n, id) => {
        if (n > 0) resultCount.set(matcher.textOf(id), n);
      });
    } else {
      // results with the same text share one list: count each list once, times its results
      const lists = new Map<readonly string[], number>();
      for (const item of this.items) {
        const list = this.resultTokens(item);
        if (list.length > 0) lists.set(list, (lists.get(list) ?? 0) + 1);
      }
      for (const [list, times] of lists) {
        for (const t of list) {
          if (!lastSeen.has(t)) continue;
          resultCount.set(t, (resultCount.get(t) ?? 0) + times);
        }
      }
    }
    this.tokenTables = { firstSeen, lastSeen, resultCount };
    return this.tokenTables;
  }

  /** Some results' texts, spread over the session (a 1/SAMPLE_SHARE share, at most SAMPLE_CHARS): what the scan's anchors are chosen on. */
  private sampleTexts(): string[] {
    let total = 0;
    for (const item of this.items) total += item.result.text.length;
    const out: string[] = [];
    if (total === 0) return out;
    const share = Math.min(SAMPLE_CHARS, total / SAMPLE_SHARE) / total;
    let budget = 0;
    for (const item of this.items) {
      // a slice of each result in proportion to its size: every kind of output is seen
      const text = item.result.text;
      budget += text.length * share;
      if (budget < 1) continue;
      const take = Math.min(text.length, Math.floor(budget));
      budget -= take;
      out.push(text.length === take ? text : text.slice(0, take));
    }
    return out;
  }

  /**
   * For each result, the ordinal of the first result with the same text (itself when none came
   * before). The same text gives the same tokens and the same quotes: a result repeating an
   * earlier one (a file read again unchanged, a command run again) is not scanned again. Only
   * texts alike in length and in a few sampled characters are compared, so a session without
   * repeats pays next to nothing for this.
   */
  private firstOfText(): Int32Array {
    if (this.firsts !== undefined) return this.firsts;
    const firsts = new Int32Array(this.items.length);
    const bySignature = new Map<number, number[]>();
    for (const item of this.items) {
      const text = item.result.text;
      const sig = signature(text);
      firsts[item.ordinal] = item.ordinal;
      const same = bySignature.get(sig);
      if (same === undefined) {
        bySignature.set(sig, [item.ordinal]);
        continue;
      }
      // a few comparisons at most, so that many look-alikes (test runs differing in one
      // line) cannot make this quadratic
      let first = -1;
      for (let k = same.length - 1; k >= Math.max(0, same.length - MAX_REPEAT_CHECKS); k--) {
        if (this.items[same[k]!]!.result.text === text) {
          first = same[k]!;
          break;
        }
      }
      if (first === -1) same.push(item.ordinal);
      else firsts[item.ordinal] = first;
    }
    this.firsts = firsts;
    return firsts;
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
    // the same text, asked again from later on (results come in order): no quote after an
    // earlier point means none after a later one; a quote at m found after an earlier point
    // is still the answer after any point before m (the places before it quote nothing later)
    const first = this.firstOfText()[item.ordinal]!;
    const after = item.messageIndex;
    const memo = this.quoteMemo.get(first);
    if (memo !== undefined && memo.after <= after && (memo.at === -1 || after < memo.at)) return memo.at;
    const at = findQuoteFast(this.fastQuoteTables, item.result.text, after);
    this.quoteMemo.set(first, { after, at });
    return at;
  }
}
