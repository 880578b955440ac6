// The matches of the identifier grammar (tokens.ts, IDENTIFIER_RE), found by a scan written out
// by hand: where `text.matchAll(IDENTIFIER_RE)` matches, the same places, in the same order, at
// a fraction of the cost (the pattern's lookbehind and lookaheads are tried at every place of
// the text). test/engine/identifier-scan.test.ts holds it to the pattern.
//
// The pattern, read as a scan: a match starts at a letter, "_" or "$" with no [\w$] character
// before it; the run of [\w$-] characters from there is at least 6 long and holds a "_", a "-"
// or a lower-case letter followed by an upper-case one; the match is [\w$]* then any number of
// "-" each followed by [\w$]+. The next match is looked for from where this one ends.
import { IDENTIFIER_CHARS, classTable } from "./lookup/token-places.ts";

/** [\w$]: what may not come before a match, and what a match is made of */
const WORD = classTable(/[\w$]/);
/** [A-Za-z_$]: what a match starts with */
const START = classTable(/[A-Za-z_$]/);

const DASH = 45;
const UNDERSCORE = 95;
/** how long the run of IDENTIFIER_CHARS from a match's start must be */
const MIN_RUN = 6;

const isLower = (c: number): boolean => c >= 97 && c <= 122;
const isUpper = (c: number): boolean => c >= 65 && c <= 90;

/** Whether text[from, to) holds a "_", a "-", or a lower-case letter followed by an upper-case one. */
const hasMark = (text: string, from: number, to: number): boolean => {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === UNDERSCORE || c === DASH) return true;
    if (isLower(c) && i + 1 < to && isUpper(text.charCodeAt(i + 1))) return true;
  }
  return false;
};

/** The end of the match nextMatch found last. */
let matchEnd = 0;

/**
 * The first match of IDENTIFIER_RE starting in [p, to) as a scan from p finds it (its start;
 * its end in matchEnd), or -1. Scanning on from a match's end finds the next match.
 */
const nextMatch = (text: string, from: number, to: number): number => {
  const n = text.length;
  let p = from;
  while (p < to) {
    const c = text.charCodeAt(p);
    if (START[c] !== 1 || (p > 0 && WORD[text.charCodeAt(p - 1)] === 1)) {
      p++;
      continue;
    }
    // the run of [\w$-] from here: no start inside it can pass where this one fails (its run
    // is this run's end, shorter and with no mark this one lacks)
    let r = p + 1;
    while (r < n && IDENTIFIER_CHARS[text.charCodeAt(r)] === 1) r++;
    if (r - p < MIN_RUN || !hasMark(text, p, r)) {
      p = r;
      continue;
    }
    let e = p + 1;
    while (e < n && WORD[text.charCodeAt(e)] === 1) e++;
    while (e + 1 < n && text.charCodeAt(e) === DASH && WORD[text.charCodeAt(e + 1)] === 1) {
      e += 2;
      while (e < n && WORD[text.charCodeAt(e)] === 1) e++;
    }
    matchEnd = e;
    return p;
  }
  return -1;
};

/** Every match of IDENTIFIER_RE in `text`, in order: `visit` gets where it starts and ends. */
export const forEachIdentifierMatch = (text: string, visit: (start: number, end: number) => void): void => {
  for (let p = nextMatch(text, 0, text.length); p !== -1; p = nextMatch(text, matchEnd, text.length)) visit(p, matchEnd);
};

/**
 * Whether the identifier scan has a match at s that is `c`. A match consumes only [\w$-]
 * characters and its look-arounds read only those, so the scan is taken up at the start of the
 * stretch of them holding s (where the scan over the whole text also starts afresh), and only
 * as far as s.
 */
export const identifierAt = (text: string, c: string, s: number): boolean => {
  let from = s;
  while (from > 0 && IDENTIFIER_CHARS[text.charCodeAt(from - 1)] === 1) from--;
  for (let p = nextMatch(text, from, s + 1); p !== -1; p = nextMatch(text, matchEnd, s + 1)) {
    if (p === s) return matchEnd - s === c.length && text.startsWith(c, s);
  }
  return false;
};
