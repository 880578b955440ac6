// The matches of the identifier grammar (tokens.ts, IDENTIFIER_RE), found by a scan written out
// by hand: where `text.matchAll(IDENTIFIER_RE)` matches, the same places, in the same order, at
// a fraction of the cost (the pattern's lookbehind and lookaheads are tried at every place of
// the text). test/engine/identifier-scan.test.ts holds it to the pattern.
//
// The pattern, read as a scan: a match starts at a letter, "_" or "$" with no [\w$] character
// before it; the run of [\w$-] characters from there is at least 6 long and holds a "_", a "-"
// or a lower-case letter followed by an upper-case one; the match is [\w$]* then any number of
// "-" each followed by [\w$]+. The next match is looked for from where this one ends.

/** [\w$]: what may not come before a match, and what a match is made of */
const WORD = new Uint8Array(128);
/** [\w$-]: the run the lookaheads read */
const RUN = new Uint8Array(128);
/** [A-Za-z_$]: what a match starts with */
const START = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[\w$]/.test(ch)) WORD[c] = 1;
  if (/[\w$-]/.test(ch)) RUN[c] = 1;
  if (/[A-Za-z_$]/.test(ch)) START[c] = 1;
}

const DASH = 45;
const UNDERSCORE = 95;
/** how long the run from a match's start must be */
const MIN_RUN = 6;

const isWord = (c: number): boolean => c < 128 && WORD[c] === 1;
const isRun = (c: number): boolean => c < 128 && RUN[c] === 1;
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

/** Every match of IDENTIFIER_RE in `text`, in order: `visit` gets where it starts and ends. */
export const forEachIdentifierMatch = (text: string, visit: (start: number, end: number) => void): void => {
  const n = text.length;
  let p = 0;
  while (p < n) {
    const c = text.charCodeAt(p);
    if (c >= 128 || START[c] !== 1 || (p > 0 && isWord(text.charCodeAt(p - 1)))) {
      p++;
      continue;
    }
    // the run of [\w$-] from here: no start inside it can pass where this one fails (its run
    // is this run's end, shorter and with no mark this one lacks)
    let r = p + 1;
    while (r < n && isRun(text.charCodeAt(r))) r++;
    if (r - p < MIN_RUN || !hasMark(text, p, r)) {
      p = r;
      continue;
    }
    let e = p + 1;
    while (e < n && isWord(text.charCodeAt(e))) e++;
    while (e + 1 < n && text.charCodeAt(e) === DASH && isWord(text.charCodeAt(e + 1))) {
      e += 2;
      while (e < n && isWord(text.charCodeAt(e))) e++;
    }
    visit(p, e);
    p = e;
  }
};
