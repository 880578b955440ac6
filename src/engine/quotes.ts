// Quotes: a later assistant reply that repeats a result verbatim (a run of MIN_QUOTE_RUN+
// characters, or a whole line) shows the result was read closely: never-drop keeps it.
// findQuote is the definition; findQuoteFast gives the same answer (the same message) for
// far less work, and test/engine/speed-equivalence.test.ts holds the two together.
import type { Message } from "./types.ts";

/** A quoted run must be at least this long. */
export const MIN_QUOTE_RUN = 40;
/** A quoted whole line must be at least this long (shorter lines are too common: "}", "OK"). */
export const MIN_QUOTE_LINE = 12;
const BLOCK = MIN_QUOTE_RUN / 2;
const BLOOM_BITS = 1 << 20;
const MAX_BLOCK_CHECKS = 8;
const HASH_BASE = 31;

export const isAssistantReply = (m: Message): boolean => m.role === "assistant" && m.kind === "reply" && m.text !== "";

export interface QuoteTables {
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

export const buildQuoteTables = (messages: readonly Message[]): QuoteTables => {
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

/** The definition: the latest reply after `after` quoting `text` at the first place it is found, or -1. */
export const findQuote = (q: QuoteTables, text: string, after: number): number => {
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

// ---------------------------------------------------------------- the fast path

// Any common run of MIN_QUOTE_RUN characters between a result and a reply holds a whole
// BLOCK-character block of the result at an offset that is a multiple of BLOCK. So only
// those blocks of the result are looked up, among every BLOCK-character window of the
// replies (cheaply: a few sampled characters first, then the whole block); a place where the
// definition can succeed lies within BLOCK - 1 characters before to BLOCK characters after
// such a block, and only there is the definition's own check run, in the same order.

export interface FastQuoteTables {
  readonly q: QuoteTables;
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

const mix = (h: number, shift: number): number => Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> shift;

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

const setBit = (bits: Uint32Array, b: number): void => {
  bits[b >>> 5]! |= 1 << (b & 31);
};
const hasBit = (bits: Uint32Array, b: number): boolean => (bits[b >>> 5]! & (1 << (b & 31))) !== 0;

export const buildFastQuoteTables = (q: QuoteTables): FastQuoteTables => {
  let windows = 0;
  for (const t of q.texts) windows += Math.max(0, t.length - BLOCK + 1);
  const wBits = bitsFor(windows, 10, 24);
  const lBits = bitsFor(windows, 10, 20);
  const windowBits = new Uint32Array(Math.max(1, (1 << wBits) >>> 5));
  const windowLatest = new Int32Array(1 << lBits);
  q.texts.forEach((t, msg) => {
    if (t.length < BLOCK) return;
    const pow = hashPow();
    let h = hashBlock(t, 0);
    for (let j = 0; ; j++) {
      setBit(windowBits, mix(sampledHash(t, j), 32 - wBits));
      const b = mix(h, 32 - lBits);
      if (windowLatest[b]! < msg + 1) windowLatest[b] = msg + 1;
      if (j + BLOCK >= t.length) break;
      h = (Math.imul(h - Math.imul(t.charCodeAt(j), pow), HASH_BASE) + t.charCodeAt(j + BLOCK)) | 0;
    }
  });
  const kBits = bitsFor(q.lines.size, 6, 20);
  const lineBits = new Uint32Array(Math.max(1, (1 << kBits) >>> 5));
  for (const key of q.lines.keys()) setBit(lineBits, mix(lineHash(key, 0, key.length), 32 - kBits));
  return { q, windowBits, windowShift: 32 - wBits, windowLatest, latestShift: 32 - lBits, lineBits, lineShift: 32 - kBits };
};

// JavaScript's \s (and what trim() removes): checked against the regex in the tests
export const isSpace = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  (c > 127 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff));

/** The same answer as findQuote(f.q, text, after). */
export const findQuoteFast = (f: FastQuoteTables, text: string, after: number): number => {
  const q = f.q;
  if (q.lastReply <= after) return -1;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (end - start >= MIN_QUOTE_LINE && (end - start < MIN_QUOTE_RUN || shortWhenTrimmed(text, start, end))) {
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
  const pow = hashPow();
  let next = 0;
  for (let a = 0; a <= last; a += BLOCK) {
    if (!hasBit(f.windowBits, mix(sampledHash(text, a), f.windowShift))) continue;
    if (f.windowLatest[mix(hashBlock(text, a), f.latestShift)]! <= after + 1) continue;
    const to = Math.min(last, a + BLOCK);
    // the definition's own bloom filter first (a rolling hash, as it has), then its check
    let i = Math.max(next, a - BLOCK + 1);
    let h = hashBlock(text, i);
    for (;;) {
      const b = h & (BLOOM_BITS - 1);
      if ((q.bloom[b >>> 5]! & (1 << (b & 31))) !== 0) {
        const msg = checkAt(q, text, i, after);
        if (msg !== -1) return msg;
      }
      if (i >= to) break;
      h = (Math.imul(h - Math.imul(text.charCodeAt(i), pow), HASH_BASE) + text.charCodeAt(i + BLOCK)) | 0;
      i++;
    }
    next = to + 1;
  }
  return -1;
};

/** The definition's check at one place: the latest reply (of its latest few holding the block) with a long enough common run. */
const checkAt = (q: QuoteTables, text: string, i: number, after: number): number => {
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
