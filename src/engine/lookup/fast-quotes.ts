// The quote check made fast: the same answer as findQuote (quotes.ts), the same message, for
// far less work. Any common run of MIN_QUOTE_RUN characters between a result and a reply holds a
// whole BLOCK-character block of the result at an offset that is a multiple of BLOCK. So only
// those blocks of the result are looked up, among every BLOCK-character window of the replies
// (cheaply: a few sampled characters first, then the whole block); a place where the definition
// can succeed lies within BLOCK - 1 characters before to BLOCK characters after such a block,
// and only there is the definition's check (quoteAt) run, in the same order, reading the
// replies' blocks by hash instead of by text. Whole lines are looked up only when a cheap hash
// of the line is among the replies' lines.
import { hasBit, mix, setBit } from "./bits.ts";
import { BLOCK, MAX_BLOCK_CHECKS, MIN_QUOTE_LINE, MIN_QUOTE_RUN, type QuoteLines, commonRunAround, isLineToMatch } from "./quotes.ts";

const BLOOM_BITS = 1 << 20;
const HASH_BASE = 31;

export interface FastQuoteTables {
  readonly q: QuoteLines;
  /** the replies' aligned blocks, by a rolling hash: a place whose block is not here is not checked */
  readonly bloom: Uint32Array;
  /**
   * the replies' aligned blocks by bucket of their hash, in message order: bucket b's are
   * blockMsg/blockOff[blockStart[b], blockStart[b + 1]) (quotes.ts keeps them by their text)
   */
  readonly blockStart: Int32Array;
  readonly blockMsg: Int32Array;
  readonly blockOff: Int32Array;
  readonly blockShift: number;
  /** sampled hash of every BLOCK-character window of every reply */
  readonly windowBits: Uint32Array;
  readonly windowShift: number;
  /** full hash of every window, by bucket -> 1 + the latest reply holding such a window (0: none) */
  readonly windowLatest: Int32Array;
  readonly latestShift: number;
  /** cheap hashes (lineHash) of q.lines' keys */
  readonly lineBits: Uint32Array;
  readonly lineShift: number;
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

/** The hash of s[i + 1, i + 1 + BLOCK) from h, the hash of s[i, i + BLOCK). */
const rollHash = (h: number, s: string, i: number): number => (Math.imul(h - Math.imul(s.charCodeAt(i), hashPow()), HASH_BASE) + s.charCodeAt(i + BLOCK)) | 0;

/** A cheap first look at a block: four of its characters (offsets 0, 7, 13, 19), shifted apart. */
const sampledHash = (s: string, from: number): number =>
  s.charCodeAt(from) ^ (s.charCodeAt(from + 7) << 7) ^ (s.charCodeAt(from + 13) << 14) ^ (s.charCodeAt(from + 19) << 21);

/** A cheap look at a (trimmed) line: its length and five of its characters. */
const lineHash = (s: string, from: number, to: number): number => {
  const n = to - from;
  let h = (Math.imul(n, HASH_BASE) + s.charCodeAt(from)) | 0;
  h = (Math.imul(h, HASH_BASE) + s.charCodeAt(from + 1)) | 0;
  h = (Math.imul(h, HASH_BASE) + s.charCodeAt(from + (n >>> 1))) | 0;
  h = (Math.imul(h, HASH_BASE) + s.charCodeAt(to - 2)) | 0;
  return (Math.imul(h, HASH_BASE) + s.charCodeAt(to - 1)) | 0;
};

const bitsFor = (entries: number, min: number, max: number): number => {
  let bits = min;
  while (bits < max && 1 << bits < entries * 8) bits++;
  return bits;
};

export const buildFastQuoteTables = (q: QuoteLines): FastQuoteTables => {
  const bloom = new Uint32Array(BLOOM_BITS >>> 5);
  let windows = 0;
  let blocks = 0;
  for (const t of q.texts) {
    windows += Math.max(0, t.length - BLOCK + 1);
    blocks += Math.floor(t.length / BLOCK);
  }
  const bBits = bitsFor(blocks >>> 2, 4, 20);
  const blockStart = new Int32Array((1 << bBits) + 1);
  const blockMsg = new Int32Array(blocks);
  const blockOff = new Int32Array(blocks);
  const hashes = new Int32Array(blocks);
  let n = 0;
  for (const t of q.texts)
    for (let off = 0; off + BLOCK <= t.length; off += BLOCK) {
      const h = hashBlock(t, off);
      setBit(bloom, h & (BLOOM_BITS - 1));
      hashes[n++] = h;
      blockStart[mix(h, 32 - bBits) + 1]!++;
    }
  for (let b = 0; b < 1 << bBits; b++) blockStart[b + 1]! += blockStart[b]!;
  // filled in message order: each bucket's blocks stay in it
  const cursor = blockStart.slice(0, 1 << bBits);
  n = 0;
  q.texts.forEach((t, msg) => {
    for (let off = 0; off + BLOCK <= t.length; off += BLOCK) {
      const at = cursor[mix(hashes[n++]!, 32 - bBits)]!++;
      blockMsg[at] = msg;
      blockOff[at] = off;
    }
  });
  const wBits = bitsFor(windows, 10, 24);
  // about a slot per window: a shared slot only lets more blocks on to the bloom check, while
  // eight per window (4 MB for the replies of a long session) cost more in fresh memory than
  // they save
  const lBits = bitsFor(windows >>> 3, 10, 20);
  const windowBits = new Uint32Array(Math.max(1, (1 << wBits) >>> 5));
  const windowLatest = new Int32Array(1 << lBits);
  q.texts.forEach((t, msg) => {
    if (t.length < BLOCK) return;
    let h = hashBlock(t, 0);
    for (let j = 0; ; j++) {
      setBit(windowBits, mix(sampledHash(t, j), 32 - wBits));
      const b = mix(h, 32 - lBits);
      if (windowLatest[b]! < msg + 1) windowLatest[b] = msg + 1;
      if (j + BLOCK >= t.length) break;
      h = rollHash(h, t, j);
    }
  });
  const kBits = bitsFor(q.lines.size, 6, 20);
  const lineBits = new Uint32Array(Math.max(1, (1 << kBits) >>> 5));
  for (const key of q.lines.keys()) setBit(lineBits, mix(lineHash(key, 0, key.length), 32 - kBits));
  return {
    q,
    bloom,
    blockStart,
    blockMsg,
    blockOff,
    blockShift: 32 - bBits,
    windowBits,
    windowShift: 32 - wBits,
    windowLatest,
    latestShift: 32 - lBits,
    lineBits,
    lineShift: 32 - kBits,
  };
};

// JavaScript's \s (and what trim() removes): checked against the regex in the tests
export const isSpace = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  (c > 127 &&
    (c === 0xa0 ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000 ||
      c === 0xfeff));

/** The same answer as findQuote(f.q, text, after). */
export const findQuoteFast = (f: FastQuoteTables, text: string, after: number): number => {
  const q = f.q;
  if (q.lastReply <= after) return -1;
  // quotes.ts's firstLineQuote, written out: a call per line costs more here than the check
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (isLineToMatch(text, start, end)) {
      // the bounds of trimLine(line), without building it
      let i = start;
      while (i < end && isSpace(text.charCodeAt(i))) i++;
      let j = i;
      while (j < end && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
      let from = j > i && j < end && text.charCodeAt(j) === 0x2192 ? j + 1 : i;
      while (from < end && isSpace(text.charCodeAt(from))) from++;
      let to = end;
      while (to > from && isSpace(text.charCodeAt(to - 1))) to--;
      if (to - from >= MIN_QUOTE_LINE && hasBit(f.lineBits, mix(lineHash(text, from, to), f.lineShift))) {
        const at = q.lines.get(text.slice(from, to));
        if (at !== undefined && at > after) return at;
      }
    }
    start = end + 1;
  }
  if (text.length < MIN_QUOTE_RUN) return -1;
  const last = text.length - BLOCK;
  let next = 0;
  for (let a = 0; a <= last; a += BLOCK) {
    if (!hasBit(f.windowBits, mix(sampledHash(text, a), f.windowShift))) continue;
    if (f.windowLatest[mix(hashBlock(text, a), f.latestShift)]! <= after + 1) continue;
    const to = Math.min(last, a + BLOCK);
    // the replies' blocks first (a rolling hash), then the definition's check
    let i = Math.max(next, a - BLOCK + 1);
    let h = hashBlock(text, i);
    for (;;) {
      if (hasBit(f.bloom, h & (BLOOM_BITS - 1))) {
        const msg = quoteAtByHash(f, text, i, h, after);
        if (msg !== -1) return msg;
      }
      if (i >= to) break;
      h = rollHash(h, text, i);
      i++;
    }
    next = to + 1;
  }
  return -1;
};

/**
 * quotes.ts's quoteAt, from the blocks by hash: the same replies in the same order (those of
 * the bucket holding the very block at i), without a slice of the text or a Map lookup.
 */
const quoteAtByHash = (f: FastQuoteTables, text: string, i: number, h: number, after: number): number => {
  const b = mix(h, f.blockShift);
  const first = f.blockStart[b]!;
  let checked = 0;
  for (let k = f.blockStart[b + 1]! - 1; k >= first; k--) {
    const msg = f.blockMsg[k]!;
    const reply = f.q.texts[msg]!;
    const off = f.blockOff[k]!;
    if (!sameBlock(text, i, reply, off)) continue;
    if (++checked > MAX_BLOCK_CHECKS || msg <= after) return -1;
    if (commonRunAround(text, i, reply, off) >= MIN_QUOTE_RUN) return msg;
  }
  return -1;
};

const sameBlock = (a: string, i: number, b: string, j: number): boolean => {
  for (let k = 0; k < BLOCK; k++) if (a.charCodeAt(i + k) !== b.charCodeAt(j + k)) return false;
  return true;
};
