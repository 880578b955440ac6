// The lookup's fast path: which of a set of candidate strings (the tokens of later prose and
// tool inputs) are distinctive tokens of a result, listed in the order extractTokens would
// list them, without extracting every token of the result.
//
// Why it is exact. Every token is a substring of the text, and each kind of token is flanked
// by characters outside \w ([A-Za-z0-9_]) on both sides (an error line clipped to its first
// MAX_ERROR_LINE_CHARS characters is the one exception, on its right). So every run of \w
// characters inside a candidate is a whole run of \w characters in the text wherever the
// candidate occurs as a token. One pass over the text hashes each run of \w characters, and
// each two runs with one character between, and looks them up among the candidates' "anchors"
// (one run of the candidate, or two: anchorSpans); a hit whose candidate really occurs there
// is then confirmed at that place (token-places.ts). Candidates with no usable anchor (no \w
// character) are found with indexOf.
// test/engine/speed-equivalence.slow.test.ts holds this against extractTokens.
import { identifierAt } from "../identifier-scan.ts";
import { errorLineAt } from "../tokens.ts";
import { clearBit, hasBit, mix, setBit } from "./bits.ts";
import {
  ERROR_LINE,
  FILTER_BITS,
  FILTER_LOG2,
  IDENTIFIER,
  NONE,
  NUMBER,
  PATH,
  QUOTED,
  WORD,
  hashRange,
  numberAt,
  PathPlaces,
  anchorSpans,
  joinHash,
  possibleRanks,
  quotedMatchEnd,
  countRuns,
} from "./token-places.ts";

/** An anchor some candidates hold: how many, the last of them counted, and how often the sample has it. */
interface SharedRun {
  holders: number;
  lastHolder: number;
  seen: number;
}

const ENDS_ANY = 0;
const ENDS_QUOTE = -1;
/** ints per candidate in CandidateMatcher.members (seven used) */
const MEMBER = 8;

/**
 * Candidate `id`'s record at members[k]: its id, its anchor (offset in c, length), and up to two
 * characters of c around the anchor (before it, else after it). Compared first, they turn away
 * most hits on a common anchor before any other work.
 */
const placeMember = (m: Int32Array, k: number, id: number, c: string, off: number, length: number): void => {
  const after = off + length;
  m[k] = id;
  m[k + 1] = off;
  m[k + 2] = length;
  m[k + 4] = -1;
  m[k + 6] = -1;
  // the first two of off - 1, off - 2, after, after + 1 inside the candidate (no arrays: one per candidate adds up)
  for (let j = 0, at = k + 3; j < 4 && at < k + 7; j++) {
    const p = j === 0 ? off - 1 : j === 1 ? off - 2 : j === 2 ? after : after + 1;
    if (p < 0 || p >= c.length) continue;
    m[at] = p - off;
    m[at + 1] = c.charCodeAt(p);
    at += 2;
  }
};

/**
 * A set of candidate strings, prepared once per plan; tokensIn(text) answers for one result.
 * Not reentrant (it keeps per-call scratch state), and pure: answers depend only on its arguments.
 */
export class CandidateMatcher {
  private readonly texts: string[] = [];
  private readonly possible: number[] = [];
  /** the lowest possible rank: once found with it, a candidate is settled for this text */
  private readonly lowest: number[] = [];
  /** candidates found with indexOf (no \w run usable as an anchor) */
  private readonly unanchored: number[] = [];
  // open addressing: anchor hash -> its candidates, members[slotFirst, slotFirst + slotCount)
  // (slotCount 0: an empty slot)
  private readonly slotHash: Int32Array;
  private readonly slotFirst: Int32Array;
  private readonly slotCount: Int32Array;
  /**
   * per candidate anchored in a slot, MEMBER ints side by side, so that a hit on a common anchor
   * reads one stretch of memory: its id, anchor offset and length, and up to two characters of
   * it around the anchor (place relative to the anchor's start, character; -1: none)
   */
  private readonly members: Int32Array;
  private readonly slotShift: number;
  /** the call for which every candidate of a slot is settled: later hits on it are skipped */
  private readonly slotSettled: Int32Array;
  /** one bit per FILTER_BITS bucket of anchor hashes: most runs are turned away here */
  private readonly filter: Int32Array;
  /** per bucket, the character that must end a run there (ENDS_ANY, ENDS_QUOTE: a quote character, or a code): the rest are turned away */
  private readonly ender: Int32Array;
  /** per bucket, its candidates not yet retired; per candidate, its bucket (-1: none) and whether it is retired */
  private readonly bucketLive: Int32Array;
  private readonly bucketOf: Int32Array;
  private readonly retired: Uint8Array;
  // per-call state, indexed by candidate; valid where stamp === this.call
  private readonly stamp: Int32Array;
  private readonly rank: Uint8Array;
  private readonly pos: Float64Array;
  private call = 0;
  private found: number[] = [];
  /** the candidates tokensIn found last, in its order */
  lastFound: readonly number[] = [];
  // where the simulated quoted-string scan of one line stopped (see quotedAt)
  private quoteLine = -1;
  private quoteCursor = 0;
  /** the path scan of the stretch last asked about, kept for the next path confirmed in it */
  private readonly paths = new PathPlaces();

  /**
   * `sample`: some of the texts to be scanned. Each hit on an anchor costs a check of every
   * candidate anchored there, so the anchor is the run or pair of runs with the fewest expected
   * checks: the candidates sharing it times how often it occurs in the sample (a run such as
   * "core" or "1" can turn up thousands of times where a longer or odder run of the same
   * candidate, or "core" with its neighbour, never does). Without a sample, the one fewest
   * candidates share (then the longest).
   */
  constructor(candidates: Iterable<string>, sample: readonly string[] = []) {
    // per anchor hash, how many candidates hold that anchor (each counted once however often it
    // holds it) and the last of them counted. Anchors are told apart by hash, as the scan tells
    // them: a collision only makes one look commoner than it is.
    // per candidate, its anchors as [start, end, hash, ...]
    const spansOf: number[][] = [];
    // each candidate's anchor: where it starts in the candidate (-1: none) and its length
    const anchorOffset: number[] = [];
    const anchorLength: number[] = [];
    const shared = new Map<number, SharedRun>();
    for (const c of new Set(candidates)) {
      const possible = possibleRanks(c);
      if (possible === 0) continue;
      const id = this.texts.length;
      this.texts.push(c);
      this.possible.push(possible);
      this.lowest.push(31 - Math.clz32(possible & -possible));
      const spans = anchorSpans(c);
      const withHashes: number[] = [];
      for (let k = 0; k < spans.length; k += 2) {
        const hash = hashRange(c, spans[k]!, spans[k + 1]!);
        // a hash of 0 is read by the scan as "no run" (never looked up)
        if (hash === 0) continue;
        withHashes.push(spans[k]!, spans[k + 1]!, hash);
        const entry = shared.get(hash);
        if (entry === undefined) shared.set(hash, { holders: 1, lastHolder: id, seen: 0 });
        else if (entry.lastHolder !== id) {
          entry.lastHolder = id;
          entry.holders++;
        }
      }
      spansOf.push(withHashes);
    }
    countRuns(shared, sample);
    const anchors: { id: number; hash: number }[] = [];
    spansOf.forEach((spans, id) => {
      // the best anchor: its start, its length and its hash (-1: none)
      let bestStart = -1;
      let bestLength = 0;
      let bestHash = 0;
      let bestCost = Infinity;
      for (let k = 0; k < spans.length; k += 3) {
        const start = spans[k]!;
        const length = spans[k + 1]! - start;
        const hash = spans[k + 2]!;
        const entry = shared.get(hash)!;
        const cost = entry.holders * (1 + entry.seen);
        if (cost < bestCost || (cost === bestCost && length > bestLength)) {
          bestStart = start;
          bestLength = length;
          bestHash = hash;
          bestCost = cost;
        }
      }
      // no usable anchor at all
      if (bestStart === -1) {
        anchorOffset.push(-1);
        anchorLength.push(0);
        this.unanchored.push(id);
        return;
      }
      anchorOffset.push(bestStart);
      anchorLength.push(bestLength);
      anchors.push({ id, hash: bestHash });
    });
    let bits = 4;
    while (1 << bits < anchors.length * 2) bits++;
    this.slotShift = 32 - bits;
    this.slotHash = new Int32Array(1 << bits);
    const slotHead = new Int32Array(1 << bits);
    /** next candidate with the same anchor hash, or -1 */
    const chain = new Int32Array(this.texts.length).fill(-1);
    this.slotSettled = new Int32Array(1 << bits);
    this.filter = new Int32Array(FILTER_BITS >>> 5);
    this.ender = new Int32Array(FILTER_BITS);
    this.bucketLive = new Int32Array(FILTER_BITS);
    this.bucketOf = new Int32Array(this.texts.length).fill(-1);
    this.retired = new Uint8Array(this.texts.length);
    for (const { id, hash } of anchors) {
      const b = mix(hash, 32 - FILTER_LOG2);
      this.bucketOf[id] = b;
      this.bucketLive[b]!++;
      const c = this.texts[id]!;
      const after = anchorOffset[id]! + anchorLength[id]!;
      // what must end the run in the text: the candidate's next character; at the candidate's
      // end, a closing quote for a candidate that can only be a quoted string; else anything
      const ender = after < c.length ? c.charCodeAt(after) : this.possible[id] === 1 << QUOTED ? ENDS_QUOTE : ENDS_ANY;
      if (!hasBit(this.filter, b)) this.ender[b] = ender;
      else if (this.ender[b] !== ender) this.ender[b] = ENDS_ANY;
      setBit(this.filter, b);
    }
    for (const { id, hash } of anchors) {
      let s = mix(hash, this.slotShift);
      while (slotHead[s] !== 0 && this.slotHash[s] !== hash) s = (s + 1) & ((1 << bits) - 1);
      if (slotHead[s] !== 0) chain[id] = slotHead[s]! - 1;
      this.slotHash[s] = hash;
      slotHead[s] = id + 1;
    }
    // each slot's candidates side by side, in chain order (the latest first)
    this.slotFirst = new Int32Array(1 << bits);
    this.slotCount = new Int32Array(1 << bits);
    this.members = new Int32Array(anchors.length * MEMBER);
    let next = 0;
    for (let s = 0; s < 1 << bits; s++) {
      if (slotHead[s] === 0) continue;
      this.slotFirst[s] = next;
      for (let id = slotHead[s]! - 1; id !== -1; id = chain[id]!) {
        placeMember(this.members, next * MEMBER, id, this.texts[id]!, anchorOffset[id]!, anchorLength[id]!);
        next++;
      }
      this.slotCount[s] = next - this.slotFirst[s]!;
    }
    const n = this.texts.length;
    this.stamp = new Int32Array(n);
    this.rank = new Uint8Array(n);
    this.pos = new Float64Array(n);
  }

  get size(): number {
    return this.texts.length;
  }

  textOf(id: number): string {
    return this.texts[id]!;
  }

  /**
   * Look for `id` no more (the caller knows no later text needs it). Once every candidate of a
   * bucket is retired, its runs are turned away by the filter.
   */
  retire(id: number): void {
    if (this.retired[id] === 1) return;
    this.retired[id] = 1;
    const b = this.bucketOf[id]!;
    if (b !== -1 && --this.bucketLive[b]! === 0) clearBit(this.filter, b);
  }

  /** The candidates that are distinctive tokens of `text`, in extractTokens order. */
  tokensIn(text: string): string[] {
    if (this.texts.length === 0) {
      this.lastFound = [];
      return [];
    }
    this.call++;
    this.found = [];
    this.quoteLine = -1;
    this.scan(text);
    for (const id of this.unanchored) {
      if (this.retired[id] === 1) continue;
      for (let s = text.indexOf(this.texts[id]!); s !== -1; s = text.indexOf(this.texts[id]!, s + 1)) {
        this.confirm(text, id, s);
        if (this.rank[id] === this.lowest[id]) break;
      }
    }
    const found = this.found;
    this.lastFound = found;
    if (found.length === 0) return [];
    found.sort((a, b) => this.rank[a]! - this.rank[b]! || this.pos[a]! - this.pos[b]!);
    return found.map((id) => this.texts[id]!);
  }

  /**
   * One pass over the text: every maximal run of \w characters, and every two with one
   * character between, hashed and looked up (a hash of 0 is not: no anchor has it). The loops
   * carry only hashes and ends: the less the hot loop does, the faster.
   */
  private scan(text: string): void {
    const n = text.length;
    // the last run's hash and end (-2: none yet)
    let prevHash = 0;
    let prevEnd = -2;
    let i = 0;
    while (i < n) {
      let ch = text.charCodeAt(i);
      if (WORD[ch] !== 1) {
        i++;
        continue;
      }
      // a run: hash it to its end (two tight loops branch less often than one)
      const start = i;
      let h = 0;
      for (;;) {
        h = ((h << 5) | (h >>> 27)) ^ ch;
        if (++i >= n) break;
        ch = text.charCodeAt(i);
        if (WORD[ch] !== 1) break;
      }
      if (h !== 0) this.offer(text, h, i, ch);
      if (start === prevEnd + 1) {
        const pair = joinHash(prevHash, text.charCodeAt(prevEnd), h, i - start);
        if (pair !== 0) this.offer(text, pair, i, ch);
      }
      prevHash = h;
      prevEnd = i;
      // text[i] ended the run: not a \w character (or the end)
      i++;
    }
  }

  /** An anchor's hash h ending at `end` (before ch): look it up if the filter and the bucket's ender let it through. */
  private offer(text: string, h: number, end: number, ch: number): void {
    const b = mix(h, 32 - FILTER_LOG2);
    // hasBit, written out: this is the hot loop
    if ((this.filter[b >>> 5]! & (1 << (b & 31))) === 0) return;
    const e = this.ender[b]!;
    if (e === ENDS_ANY || (end < text.length && (e === ch || (e === ENDS_QUOTE && (ch === 34 || ch === 39 || ch === 96))))) this.lookUp(text, h, end);
  }

  /** A run ending at `end` with hash h passed the filter: find its anchor slot, if any, and confirm its candidates. */
  private lookUp(text: string, h: number, end: number): void {
    const counts = this.slotCount;
    const mask = counts.length - 1;
    let s = mix(h, this.slotShift);
    while (counts[s] !== 0) {
      if (this.slotHash[s] === h) {
        if (this.slotSettled[s] === this.call) return;
        if (this.anchorHit(text, s, end)) this.slotSettled[s] = this.call;
        return;
      }
      s = (s + 1) & mask;
    }
  }

  /**
   * An anchor ending at `end` whose hash is slot s's: confirm the candidates that occur here.
   * Each candidate's anchor starts its own length back, after a character outside \w (else the
   * run there is longer than the anchor). True when all of them are settled for this text.
   */
  private anchorHit(text: string, s: number, end: number): boolean {
    const m = this.members;
    let allSettled = true;
    for (let k = this.slotFirst[s]! * MEMBER, stop = k + this.slotCount[s]! * MEMBER; k < stop; k += MEMBER) {
      const id = m[k]!;
      const live = this.retired[id] !== 1;
      const start = end - m[k + 2]!;
      if (
        start >= 0 &&
        (start === 0 || WORD[text.charCodeAt(start - 1)] !== 1) &&
        this.contextFits(text, k, start) &&
        live &&
        (this.stamp[id] !== this.call || this.rank[id] !== this.lowest[id])
      ) {
        const at = start - m[k + 1]!;
        if (at >= 0 && text.startsWith(this.texts[id]!, at)) this.confirm(text, id, at);
      }
      if (allSettled && live && (this.rank[id] !== this.lowest[id] || this.stamp[id] !== this.call)) allSettled = false;
    }
    return allSettled;
  }

  /** Whether the text has the context characters of the candidate at members[k] around its anchor starting at `start`. */
  private contextFits(text: string, k: number, start: number): boolean {
    const m = this.members;
    const c0 = m[k + 4]!;
    if (c0 !== -1 && text.charCodeAt(start + m[k + 3]!) !== c0) return false;
    const c1 = m[k + 6]!;
    return c1 === -1 || text.charCodeAt(start + m[k + 5]!) === c1;
  }

  /** `texts[id]` occurs at s: record the best kind it has there, if better than what was found before. */
  private confirm(text: string, id: number, s: number): void {
    if (this.stamp[id] !== this.call) {
      this.stamp[id] = this.call;
      this.rank[id] = NONE;
    }
    const c = this.texts[id]!;
    const better = this.rank[id]!;
    const possible = this.possible[id]!;
    for (let r = this.lowest[id]!; r < better; r++) {
      if ((possible & (1 << r)) === 0) continue;
      const at = this.tokenAt(text, c, s, r);
      if (at === -1) continue;
      if (better === NONE) this.found.push(id);
      this.rank[id] = r;
      this.pos[id] = at;
      return;
    }
  }

  /** Where extractTokenList would place `c` as a token of kind `r` occurring at s (its match's position), or -1. */
  private tokenAt(text: string, c: string, s: number, r: number): number {
    switch (r) {
      case PATH:
        return this.paths.at(text, c, s) ? s : -1;
      case IDENTIFIER:
        return identifierAt(text, c, s) ? s : -1;
      case NUMBER:
        return numberAt(text, c, s) ? s : -1;
      case QUOTED:
        return this.quotedAt(text, c, s) ? s - 1 : -1;
      case ERROR_LINE: {
        const lineStart = s === 0 ? 0 : text.lastIndexOf("\n", s - 1) + 1;
        return errorLineAt(text, lineStart).line === c ? lineStart : -1;
      }
      default:
        return -1;
    }
  }

  /**
   * Whether the quoted-string scan of the line holding s has a match opening just before s
   * whose string is `c`. The scan is simulated (a match at a quote is fully determined by the
   * next same quote on the line), resuming where the last call on this line stopped.
   */
  private quotedAt(text: string, c: string, s: number): boolean {
    const open = s - 1;
    if (open < 0) return false;
    const q = text.charCodeAt(open);
    if ((q !== 34 && q !== 39 && q !== 96) || text.charCodeAt(s + c.length) !== q) return false;
    const lineStart = text.lastIndexOf("\n", open) + 1;
    let p = this.quoteLine === lineStart && this.quoteCursor <= open ? this.quoteCursor : lineStart;
    while (p < open) {
      const ch = text.charCodeAt(p);
      if (ch !== 34 && ch !== 39 && ch !== 96) {
        // only a quote character can open a match
        p++;
        continue;
      }
      const end = quotedMatchEnd(text, p);
      if (end === -1) p++;
      else if (end > open) {
        this.quoteLine = lineStart;
        this.quoteCursor = end + 1;
        return false;
      } else p = end + 1;
    }
    this.quoteLine = lineStart;
    this.quoteCursor = open;
    return quotedMatchEnd(text, open) === s + c.length;
  }
}
