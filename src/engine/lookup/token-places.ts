// Where a candidate string can be a distinctive token of a text, checked at one place with
// tokens.ts's own regexes over only the stretch of text that can affect a match there, and the
// \w runs (anchors) the candidate matcher hashes. The candidate matcher's exactness rests on
// these: test/engine/speed-equivalence.slow.test.ts holds the whole against extractTokens.
import { ERROR_LINE_GRAMMAR, IDENTIFIER_GRAMMAR, NUMBER_GRAMMAR, PATH_GRAMMAR, QUOTED_GRAMMAR, lengthWithoutDots } from "../tokens.ts";
import { hasBit, mix, setBit } from "./bits.ts";

// Ranks: the order in which extractTokenList lists kinds. NONE: not (yet) found as a token.
export const PATH = 0;
export const IDENTIFIER = 1;
export const NUMBER = 2;
export const QUOTED = 3;
export const ERROR_LINE = 4;
export const NONE = 5;

/** A table of the UTF-16 code units `re` (one character, no u flag: ASCII only) matches: 1 where it does. */
export const classTable = (re: RegExp): Uint8Array => {
  const t = new Uint8Array(65_536);
  for (let c = 0; c < 128; c++) if (re.test(String.fromCharCode(c))) t[c] = 1;
  return t;
};
/** \w without the u flag: ASCII letters, digits, underscore */
export const WORD = classTable(/\w/);
const PATH_CHARS = classTable(PATH_GRAMMAR.chars);
/** [\w$-]: what an identifier match can consume */
export const IDENTIFIER_CHARS = classTable(IDENTIFIER_GRAMMAR.chars);

/** PATH_RE tried at one place only: where pathStartFrom says a match may start. */
const PATH_AT = new RegExp(PATH_GRAMMAR.pattern.source, "y");

/** The ranks `c` could have as a token of some text, from its shape alone (bit r: rank r); 0: never a token. */
export const possibleRanks = (c: string): number => {
  let mask = 0;
  if (PATH_GRAMMAR.shape.test(c) && (c.includes("/") || c.includes(".")) && PATH_GRAMMAR.isDistinctive(c)) mask |= 1 << PATH;
  if (IDENTIFIER_GRAMMAR.shape.test(c) && IDENTIFIER_GRAMMAR.isDistinctive(c)) mask |= 1 << IDENTIFIER;
  if (c.length >= NUMBER_GRAMMAR.minChars && NUMBER_GRAMMAR.shape.test(c)) mask |= 1 << NUMBER;
  if (quotedPossible(c)) mask |= 1 << QUOTED;
  if (errorLinePossible(c)) mask |= 1 << ERROR_LINE;
  return mask;
};

const quotedPossible = (c: string): boolean =>
  c.length >= QUOTED_GRAMMAR.minChars &&
  c.length <= QUOTED_GRAMMAR.maxChars &&
  !c.includes("\n") &&
  c.trim().length >= QUOTED_GRAMMAR.minChars &&
  (!c.includes('"') || !c.includes("'") || !c.includes("`"));

// a clipped error line is the first maxChars characters of a line whose marker may lie beyond them
const errorLinePossible = (c: string): boolean =>
  c.length >= ERROR_LINE_GRAMMAR.minChars &&
  c.length <= ERROR_LINE_GRAMMAR.maxChars &&
  !c.includes("\n") &&
  (c.length === ERROR_LINE_GRAMMAR.maxChars || ERROR_LINE_GRAMMAR.marker.test(c));

/** log2 of the number of buckets the candidate matcher's filter and the sample counts use */
export const FILTER_LOG2 = 16;
export const FILTER_BITS = 1 << FILTER_LOG2;

/**
 * Where QUOTED_RE's match starting at p ends (the closing quote's index), or -1 when none
 * starts there. Exact because the string cannot hold its own quote: it runs to the next one.
 */
export const quotedMatchEnd = (text: string, p: number): number => {
  const q = text.charCodeAt(p);
  if (q !== 34 && q !== 39 && q !== 96) return -1;
  if (p > 0) {
    const before = text.charCodeAt(p - 1);
    if (WORD[before] === 1 || before === 92) return -1;
  }
  const limit = Math.min(text.length, p + 1 + QUOTED_GRAMMAR.maxChars + 1);
  let e = p + 1;
  while (e < limit) {
    const ch = text.charCodeAt(e);
    if (ch === q || ch === 10) break;
    e++;
  }
  if (e >= text.length || text.charCodeAt(e) !== q) return -1;
  const len = e - p - 1;
  if (len < QUOTED_GRAMMAR.minChars || len > QUOTED_GRAMMAR.maxChars) return -1;
  if (e + 1 < text.length && WORD[text.charCodeAt(e + 1)] === 1) return -1;
  return e;
};

// NUMBER_RE at s: not after \w or ".", digits (c is all digits), then no \w: the match is c.
export const numberAt = (text: string, c: string, s: number): boolean => {
  if (s > 0) {
    const before = text.charCodeAt(s - 1);
    if (WORD[before] === 1 || before === 46) return false;
  }
  const after = s + c.length;
  return after >= text.length || WORD[text.charCodeAt(after)] !== 1;
};

/**
 * A run's hash: rotate left by 5, xor the next character. One cheap step per character (a
 * multiply would make each character wait on the last one's product); a weak hash is fine,
 * every hit is checked against the text.
 */
export const hashRange = (s: string, from: number, to: number): number => {
  let h = 0;
  for (let i = from; i < to; i++) h = ((h << 5) | (h >>> 27)) ^ s.charCodeAt(i);
  return h;
};

/** x rotated left by r bits (r taken mod 32, as JavaScript's shifts take it). */
const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r));

/**
 * The hash of two runs with one character between, from the runs' own hashes: hashRange over
 * the whole stretch, without going over its characters again (each step of the hash rotates
 * what came before by 5 bits and xors in a character, so a part's share is its hash rotated by
 * 5 bits per character after it).
 */
export const joinHash = (first: number, between: number, second: number, secondLength: number): number =>
  rotl(first, 5 * (secondLength + 1)) ^ rotl(between, 5 * secondLength) ^ second;

/**
 * Count in each anchor's `seen` (runs and pairs of runs, by hash: anchorSpans) how often it
 * occurs as a whole run of \w characters, or two with one character between, in the sample
 * texts: the same hashing as the scan, so only hashes are compared (a collision only makes an
 * anchor look commoner than it is). Counted in place: no second table as large as the first.
 */
export const countRuns = (anchors: ReadonlyMap<number, { seen: number }>, sample: readonly string[]): void => {
  if (sample.length === 0) return;
  const filter = new Int32Array(FILTER_BITS >>> 5);
  for (const h of anchors.keys()) if (h !== 0) setBit(filter, mix(h, 32 - FILTER_LOG2));
  const count = (h: number): void => {
    if (!hasBit(filter, mix(h, 32 - FILTER_LOG2))) return;
    const entry = anchors.get(h);
    if (entry !== undefined) entry.seen++;
  };
  for (const text of sample) {
    const n = text.length;
    // the last run's hash and end (-2: none yet), for the pairs the scan hashes too
    let prevHash = 0;
    let prevEnd = -2;
    let i = 0;
    while (i < n) {
      let ch = text.charCodeAt(i);
      if (WORD[ch] !== 1) {
        i++;
        continue;
      }
      const start = i;
      let h = 0;
      for (;;) {
        h = ((h << 5) | (h >>> 27)) ^ ch;
        if (++i >= n) break;
        ch = text.charCodeAt(i);
        if (WORD[ch] !== 1) break;
      }
      if (h !== 0) count(h);
      if (start === prevEnd + 1) {
        const pair = joinHash(prevHash, text.charCodeAt(prevEnd), h, i - start);
        if (pair !== 0) count(pair);
      }
      prevHash = h;
      prevEnd = i;
      i++;
    }
  }
};

/**
 * The runs of \w characters in `c` that are whole runs wherever `c` occurs as a token, as
 * [start, end, start, end, ...] (flat: a candidate matcher asks this of thousands of strings).
 * A run touching the end of a string as long as a clipped error line may continue past the
 * clip, so it is left out.
 */
export const usableRuns = (c: string): number[] => {
  const out: number[] = [];
  let i = 0;
  while (i < c.length) {
    if (WORD[c.charCodeAt(i)] !== 1) {
      i++;
      continue;
    }
    let j = i;
    while (j < c.length && WORD[c.charCodeAt(j)] === 1) j++;
    if (!(j === c.length && c.length === ERROR_LINE_GRAMMAR.maxChars)) out.push(i, j);
    i = j;
  }
  return out;
};

/**
 * The stretches of `c` the candidate matcher may anchor it on, as [start, end, ...]: each usable
 * run, and each two usable runs with one character between ("packages/core" in
 * "packages/core/src"). The scan hashes both, so a candidate whose every run is a common word
 * can still be anchored on something rare: a pair of common words is much rarer than either.
 */
export const anchorSpans = (c: string): number[] => {
  const runs = usableRuns(c);
  const out = runs.slice();
  for (let k = 0; k + 3 < runs.length; k += 2) if (runs[k + 2] === runs[k + 1]! + 1) out.push(runs[k]!, runs[k + 3]!);
  return out;
};

/** Where the stretch of `table` characters holding s starts: matches of a pattern that consumes only those cannot cross its ends. */
const stretchStart = (text: string, s: number, table: Uint8Array): number => {
  let start = s;
  while (start > 0 && table[text.charCodeAt(start - 1)] === 1) start--;
  return start;
};

const COLON = 58;

/**
 * The first place in [from, end) of a stretch of path characters starting at `start` where a
 * PATH_RE match may start, or -1. Its lookbehind lets a match start only where the character
 * before is not one of [\w.@+~/-]: inside a stretch (whose characters are those and ":"), only
 * at the stretch's start or right after a ":". Bounded by the stretch: a text's later colons
 * are not looked for.
 */
const pathStartFrom = (text: string, start: number, from: number, end: number): number => {
  if (from === start) return from < end ? from : -1;
  for (let q = from; q < end; q++) if (text.charCodeAt(q - 1) === COLON) return q;
  return -1;
};

/** [\w.@+~/-]: what PATH_RE's lookbehind lets come before a match */
const PATH_BEFORE = classTable(/[\w.@+~/-]/);
const SLASH = 47;

/**
 * Whether the characters around `c` at s let it be a path token there; false rules it out
 * without the scan. Most places a path candidate is confirmed lie inside a longer path
 * ("packages/core/" inside "src/packages/core/index.ts"), and these two characters say so:
 * a match starts only after a character its lookbehind allows; and it ends only before a
 * character it could not take in (a \w character it always would; a "/" too, unless the match
 * already ends in one: "a/b//"). A token is its match less trailing dots, so a "." after it
 * proves nothing.
 */
export const pathEdgesFit = (text: string, c: string, s: number): boolean => {
  if (s > 0 && PATH_BEFORE[text.charCodeAt(s - 1)] === 1) return false;
  const e = s + c.length;
  if (e >= text.length) return true;
  const after = text.charCodeAt(e);
  return WORD[after] !== 1 && (after !== SLASH || c.charCodeAt(c.length - 1) === SLASH);
};

// The path scan over the stretch of path characters around s: is there a match at s that is `c`?
// A match consumes only path characters, and its look-arounds see a non-path character past a
// stretch's ends either way, so the scan over the whole text is the scans over its stretches:
// this one is taken up at the stretch's start and never runs past its end (a scan left to run on
// would read the text up to its next path, wherever that is), and tries the pattern only where
// a match may start (pathStartFrom). Several candidates are often confirmed in one stretch (a
// path, its folders, its file name): they share one scan, kept as far as it went.
export class PathPlaces {
  private text = "";
  private stretch = -1;
  /** the stretch's end */
  private end = -1;
  /** the scan's matches so far: start, and length without trailing dots (as the tokenizer takes it) */
  private readonly found: number[] = [];
  /** where the scan tries next (-1: no more matches in the stretch) */
  private resume = -1;

  /** Whether the path scan has a match at s that is `c`. */
  at(text: string, c: string, s: number): boolean {
    if (!pathEdgesFit(text, c, s)) return false;
    const start = stretchStart(text, s, PATH_CHARS);
    if (start !== this.stretch || text !== this.text) {
      let end = s;
      while (end < text.length && PATH_CHARS[text.charCodeAt(end)] === 1) end++;
      this.text = text;
      this.stretch = start;
      this.end = end;
      this.found.length = 0;
      this.resume = start;
    }
    const found = this.found;
    for (let k = 0; ; k += 2) {
      if (k === found.length && !this.scanOn()) return false;
      const at = found[k]!;
      if (at < s) continue;
      return at === s && found[k + 1] === c.length && text.startsWith(c, s);
    }
  }

  /** The scan's next match in the stretch, added to found; false when there is none. */
  private scanOn(): boolean {
    for (let q = this.resume; q !== -1; ) {
      PATH_AT.lastIndex = q;
      const m = PATH_AT.exec(this.text);
      q = pathStartFrom(this.text, this.stretch, m === null ? q + 1 : PATH_AT.lastIndex, this.end);
      if (m !== null) {
        this.resume = q;
        this.found.push(m.index, lengthWithoutDots(m[0]));
        return true;
      }
    }
    this.resume = -1;
    return false;
  }
}
