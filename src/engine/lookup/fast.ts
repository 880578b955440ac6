// The lookup made fast: the same answers as reference.ts (test/engine/speed-equivalence.slow.test.ts
// compares whole Plans), with everything that exists for speed in one place:
// - each message's tokens read from its parts (prose, input strings, input text) without
//   joining them, its identifiers by the hand-written scan (identifier-scan.ts);
// - per result, only the tokens later prose or inputs hold are looked for (CandidateMatcher,
//   its anchors chosen on a sample of the results' text), and a candidate that can change no
//   later answer is retired from the search;
// - a result repeating an earlier result's text shares its token list and its quote answer;
// - the quote check looks only where a quote can be (fast-quotes.ts), and remembers its answer
//   per text.
import { forEachIdentifierMatch } from "../identifier-scan.ts";
import type { ResultItem, SessionFacts } from "../session-facts.ts";
import { CandidateMatcher } from "./candidate-matcher.ts";
import { type FastQuoteTables, buildFastQuoteTables, findQuoteFast } from "./fast-quotes.ts";
import type { Lookup, TokenTables } from "./lookup.ts";
import { forEachMessagePart, sightings } from "./lookup.ts";
import { buildQuoteLines } from "./quotes.ts";

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

export class FastLookup implements Lookup {
  private readonly facts: SessionFacts;
  private tables?: TokenTables;
  /** each result's tokens that later prose or inputs hold, in extractTokens order */
  private candidateTokens?: (readonly string[])[];
  private fastQuotes?: FastQuoteTables;
  private firsts?: Int32Array;
  /** per text (its first result's ordinal): the last quote check, from where and its answer */
  private readonly quoteMemo = new Map<number, { after: number; at: number }>();

  constructor(facts: SessionFacts) {
    this.facts = facts;
  }

  tokensOf(item: ResultItem): readonly string[] {
    if (this.candidateTokens === undefined) this.tokenTables();
    return this.candidateTokens![item.ordinal]!;
  }

  tokenTables(): TokenTables {
    if (this.tables !== undefined) return this.tables;
    const { firstSeen, lastSeen } = sightings(this.facts.session.messages, forEachMessagePart, forEachIdentifierMatch);
    const resultCount = this.findCandidates(lastSeen);
    this.tables = { firstSeen, lastSeen, resultCount };
    return this.tables;
  }

  /** Each result's candidate tokens (kept in candidateTokens), and how many results hold each candidate. */
  private findCandidates(lastSeen: ReadonlyMap<string, number>): Map<string, number> {
    const items = this.facts.items;
    const matcher = new CandidateMatcher(lastSeen.keys(), this.sampleTexts());
    // A candidate last seen at or before a result, and already in more results than makes it
    // generic, can change no answer from there on: that result's lookup passes over it (seen
    // too early to count at all), and its count can only grow. It is retired, and later results
    // are not searched for it (their lists lack it; nothing reads it there).
    const limit = this.facts.options.genericTokenResults + 1;
    const lastOf = Int32Array.from({ length: matcher.size }, (_, id) => lastSeen.get(matcher.textOf(id))!);
    const counts = new Int32Array(matcher.size);
    /** saturated candidates still to be seen later, by the message of their last sighting */
    const retireAt: (number[] | undefined)[] = new Array(this.facts.session.messages.length);
    let retiredUpTo = -1;
    // a result repeating an earlier one's text shares its list
    const firsts = this.firstOfText();
    const found: (readonly string[])[] = [];
    const foundIds: (readonly number[])[] = [];
    for (const item of items) {
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
    const resultCount = new Map<string, number>();
    counts.forEach((n, id) => {
      if (n > 0) resultCount.set(matcher.textOf(id), n);
    });
    return resultCount;
  }

  /** Some results' texts, spread over the session (a 1/SAMPLE_SHARE share, at most SAMPLE_CHARS): what the scan's anchors are chosen on. */
  private sampleTexts(): string[] {
    const items = this.facts.items;
    let total = 0;
    for (const item of items) total += item.result.text.length;
    const out: string[] = [];
    if (total === 0) return out;
    const share = Math.min(SAMPLE_CHARS, total / SAMPLE_SHARE) / total;
    let budget = 0;
    for (const item of items) {
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

  quotedAt(item: ResultItem): number {
    this.fastQuotes ??= buildFastQuoteTables(buildQuoteLines(this.facts.session.messages));
    // the same text, asked again from later on (results come in order): no quote after an
    // earlier point means none after a later one; a quote at m found after an earlier point
    // is still the answer after any point before m (the places before it quote nothing later)
    const first = this.firstOfText()[item.ordinal]!;
    const after = item.messageIndex;
    const memo = this.quoteMemo.get(first);
    if (memo !== undefined && memo.after <= after && (memo.at === -1 || after < memo.at)) return memo.at;
    const at = findQuoteFast(this.fastQuotes, item.result.text, after);
    this.quoteMemo.set(first, { after, at });
    return at;
  }

  /** Mostly known from firstOfText, without comparing the texts again. */
  sameText(a: ResultItem, b: ResultItem): boolean {
    const firsts = this.firstOfText();
    if (firsts[a.ordinal] === firsts[b.ordinal]) return true;
    // look-alikes beyond MAX_REPEAT_CHECKS may be equal without having been matched
    const x = a.result.text;
    const y = b.result.text;
    return x.length === y.length && signature(x) === signature(y) && x === y;
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
    const items = this.facts.items;
    const firsts = new Int32Array(items.length);
    const bySignature = new Map<number, number[]>();
    for (const item of items) {
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
        if (items[same[k]!]!.result.text === text) {
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
}
