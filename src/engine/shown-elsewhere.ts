// Shown elsewhere: a result every line of which the history still shows, word for word, is
// dropped. Its text stays in view: each of its lines stands in another result that stays, in the
// person's or the assistant's prose, or in a call's input (an edit's old or new text, a file's
// new text, a patch). A file read and then edited whole, part of a file read again with the
// rest, the same output printed twice: the later copy stays, the earlier goes. Lost with it is
// only where its lines stood (which call printed them, next to what); `bc recall` prints it whole.
//
// Lines are compared trimmed, past a Codex output's header. A read's line number (`  12→`,
// `  12\t`) is left out when it has at most three digits: a longer one is a token of its own,
// which must then stand elsewhere too. A call input's line holding a quote or a backslash does
// not count, for in the call's JSON the quote stands escaped (and a token reader sees no quoted
// string there). Lines shorter than MIN_LINE_CHARS (a brace, a blank) are passed over. The need
// score is not asked: whatever the need, the lines stay in view. Results are taken largest first
// and, of equal size, earliest first, so an output repeated word for word keeps its latest copy;
// each line keeps at least one holder that stays. Lines are told apart by a 64-bit fingerprint,
// hashed where they stand.
import { forEachInputString } from "./call-meaning.ts";
import { worthANote } from "./notes.ts";
import { isSpace } from "./lookup/fast-quotes.ts";
import { headerChars } from "./result-text.ts";
import { quotedLater } from "./rules/never-drop.ts";
import type { Verdict } from "./rules/rule.ts";
import type { ResultItem, SessionFacts } from "./session-facts.ts";

/** Shorter trimmed lines are passed over: they show nothing of their own. */
export const MIN_LINE_CHARS = 4;

const TAB = 9;
const ARROW = 0x2192;

/** Where a line is held: by prose or an input (never cut), else by how many results that stay. */
const IN_PROSE = -1;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isEscapedInJson = (c: number): boolean => c === 34 || c === 39 || c === 96 || c === 92;

/** Bits of LineTable's sketch of the lines it holds. */
const SKETCH_LOG2 = 20;

/**
 * A line's place in the sketch, from its length and three of its characters (the first, the
 * middle and the last): read in constant time, where the fingerprint reads the whole line.
 */
const sketchBit = (text: string, from: number, to: number): number => {
  const n = to - from;
  let k = Math.imul(n, 0x9e3779b1) ^ Math.imul(text.charCodeAt(from), 0x85ebca6b);
  k ^= Math.imul(text.charCodeAt(to - 1), 0xc2b2ae35) ^ Math.imul(text.charCodeAt(from + (n >> 1)), 0x27d4eb2f);
  k = Math.imul(k ^ (k >>> 15), 0x2c1b3c6d);
  return (k ^ (k >>> 12)) >>> (32 - SKETCH_LOG2);
};

/**
 * Every distinct line seen, by a 64-bit fingerprint of its text (two 32-bit hashes): an entry per
 * line, numbered as first seen, with how many results hold it (or IN_PROSE) and the last result
 * that counted it. Lines are hashed where they stand: no line is cut out as a string of its own.
 * Entries are made first (the candidates' lines) and only looked up after; a line whose sketch
 * bit no entry set is none of them, and is turned away without reading it whole.
 */
class LineTable {
  private slots = new Int32Array(1 << 12).fill(-1);
  private h1 = new Int32Array(1 << 11);
  private h2 = new Int32Array(1 << 11);
  private readonly sketch = new Int32Array(1 << (SKETCH_LOG2 - 5));
  holders = new Int32Array(1 << 11);
  last = new Int32Array(1 << 11);
  size = 0;

  /** The entry of text[from, to), or -1 when there is none and `create` is false. */
  entry(text: string, from: number, to: number, create: boolean): number {
    const bit = sketchBit(text, from, to);
    if (create) this.sketch[bit >>> 5]! |= 1 << (bit & 31);
    else if ((this.sketch[bit >>> 5]! & (1 << (bit & 31))) === 0) return -1;
    let a = to - from;
    let b = 0x9e3779b9 ^ a;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = (Math.imul(b, 31) + c) | 0;
    }
    a = Math.imul(a ^ (a >>> 16), 0x45d9f3b);
    const mask = this.slots.length - 1;
    for (let s = (a ^ (a >>> 13)) & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s]!;
      if (e === -1) {
        if (!create) return -1;
        return this.add(s, a, b);
      }
      if (this.h1[e] === a && this.h2[e] === b) return e;
    }
  }

  /**
   * The distinct entries of an output's lines (past its header), as result `k` holds them: made
   * where `create`, else only those already there.
   */
  outputLines(text: string, k: number, create: boolean): Int32Array {
    const found: number[] = [];
    forEachLine(text, headerChars(text), "output", (from, to) => {
      const e = this.entry(text, from, to, create);
      if (e === -1 || this.last[e] === k) return;
      this.last[e] = k;
      found.push(e);
    });
    return Int32Array.from(found);
  }

  private add(slot: number, a: number, b: number): number {
    const e = this.size++;
    if (e === this.h1.length) {
      const grow = (xs: Int32Array): Int32Array<ArrayBuffer> => {
        const ys = new Int32Array(2 * xs.length);
        ys.set(xs);
        return ys;
      };
      this.h1 = grow(this.h1);
      this.h2 = grow(this.h2);
      this.holders = grow(this.holders);
      this.last = grow(this.last);
    }
    this.h1[e] = a;
    this.h2[e] = b;
    this.last[e] = -1;
    this.slots[slot] = e;
    if (2 * this.size > this.slots.length) this.rehash();
    return e;
  }

  private rehash(): void {
    const slots = new Int32Array(2 * this.slots.length).fill(-1);
    const mask = slots.length - 1;
    for (let e = 0; e < this.size; e++) {
      const a = this.h1[e]!;
      let s = (a ^ (a >>> 13)) & mask;
      while (slots[s] !== -1) s = (s + 1) & mask;
      slots[s] = e;
    }
    this.slots = slots;
  }
}

/**
 * Each line of text[from, …) as compared, trimmed, of MIN_LINE_CHARS or more: an output's lines
 * without a read's line number of up to three digits; an input's only where the line holds no
 * quote or backslash, and a patch line also without its mark. `visit` gets its bounds.
 */
const forEachLine = (text: string, from: number, kind: "output" | "prose" | "input", visit: (from: number, to: number) => void): void => {
  const n = text.length;
  for (let start = from; start <= n; ) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = n;
    let skip = false;
    if (kind === "input") for (let k = start; k < end && !skip; k++) skip = isEscapedInJson(text.charCodeAt(k));
    if (!skip) {
      let i = start;
      let j = end;
      while (i < j && isSpace(text.charCodeAt(i))) i++;
      while (j > i && isSpace(text.charCodeAt(j - 1))) j--;
      if (kind === "output") {
        let k = i;
        while (k < j && k - i < 4 && isDigit(text.charCodeAt(k))) k++;
        const after = text.charCodeAt(k);
        if (k > i && k - i <= 3 && k < j && (after === ARROW || after === TAB)) {
          i = k + 1;
          while (i < j && isSpace(text.charCodeAt(i))) i++;
        }
      }
      if (j - i >= MIN_LINE_CHARS) visit(i, j);
      const mark = text.charCodeAt(start);
      if (kind === "input" && start < end && (mark === 43 || mark === 45)) {
        let u = start + 1;
        while (u < j && isSpace(text.charCodeAt(u))) u++;
        if (j - u >= MIN_LINE_CHARS) visit(u, j);
      }
    }
    if (end === n) break;
    start = end + 1;
  }
};

/** Whether the rules' verdict leaves a result where this rule may drop it. */
const mayDrop = (item: ResultItem, v: Verdict): boolean =>
  v.action === "keep" &&
  !item.cut &&
  item.call !== undefined &&
  v.rule !== "pinned" &&
  v.rule !== "never-drop" &&
  !item.meaning.asksPerson &&
  // an image beside the text stands nowhere else
  item.result.images === 0 &&
  worthANote(item.result.text.length, item.result.callId);

/** The verdicts with every result shown elsewhere dropped (index-aligned; the others as given). */
export const shownElsewhere = (facts: SessionFacts, verdicts: readonly Verdict[]): Verdict[] => {
  const items = facts.items;
  const candidates = items.filter((item) => mayDrop(item, verdicts[item.ordinal]!));
  if (candidates.length === 0) return [...verdicts];
  const table = new LineTable();
  // each candidate's distinct lines, as entries; the results holding each
  const linesOf: Int32Array[] = [];
  // an output repeated word for word (a file read again, a command run again) is read once
  const seen = new Map<string, Int32Array>();
  const holdersOf = (item: ResultItem, create: boolean): Int32Array => {
    const text = item.result.text;
    let lines = seen.get(text);
    if (lines === undefined) {
      lines = table.outputLines(text, item.ordinal, create);
      seen.set(text, lines);
    }
    for (const e of lines) table.holders[e]!++;
    return lines;
  };
  for (const item of candidates) linesOf[item.ordinal] = holdersOf(item, true);
  // kept results that are not candidates hold lines too (counted once each); every line is known
  // by now, so they only look lines up
  for (const item of items) {
    const k = item.ordinal;
    if (verdicts[k]!.action !== "keep" || item.cut || linesOf[k] !== undefined) continue;
    holdersOf(item, false);
  }
  const mark =
    (text: string) =>
    (from: number, to: number): void => {
      const e = table.entry(text, from, to, false);
      if (e !== -1) table.holders[e] = IN_PROSE;
    };
  for (const m of facts.session.messages) {
    if (m.text.length > 0) forEachLine(m.text, 0, "prose", mark(m.text));
    for (const call of m.toolCalls) forEachInputString(call.input, call.inputText, (s) => forEachLine(s, 0, "input", mark(s)));
  }
  const out = [...verdicts];
  // largest first; of equal size, the earlier (a repeated output keeps its latest copy)
  const order = [...candidates].sort((a, b) => b.result.text.length - a.result.text.length || a.ordinal - b.ordinal);
  const holders = table.holders;
  for (const item of order) {
    const lines = linesOf[item.ordinal]!;
    if (lines.length === 0) continue;
    let held = true;
    for (const e of lines) {
      const n = holders[e]!;
      if (n !== IN_PROSE && n < 2) {
        held = false;
        break;
      }
    }
    // a result a later reply quotes is never dropped (never-drop's guard), whichever rule kept it
    if (!held || quotedLater(facts, item)) continue;
    let inProse = 0;
    for (const e of lines) {
      if (holders[e] === IN_PROSE) inProse++;
      else holders[e]!--;
    }
    // what holds the lines as the rules leave the history (a budget's escalation may cut more)
    const where = inProse === 0 ? "other kept results" : inProse === lines.length ? "prose or call inputs" : "prose, call inputs or other kept results";
    const count = lines.length === 1 ? "its one line" : `all ${lines.length} lines`;
    out[item.ordinal] = { action: "drop", rule: "shown-elsewhere", reason: `${count} shown word for word in ${where}` };
  }
  return out;
};
