// JSON.parse of one JSONL line, without doubling memory on a line holding a huge string.
// JavaScriptCore's JSON.parse builds a string value at about twice its length, so a single
// 200 MB tool output costs ~400 MB on top of the file text. Long string values are decoded in
// 1 MiB pieces instead and joined as a rope (concatenation), which holds ~one byte per character
// and is only flattened if something reads the characters.

/** Lines shorter than this go straight to JSON.parse. */
export const HUGE_LINE_CHARS = 8 * 1024 * 1024;
/** String values at least this long are decoded in pieces. */
const BIG_STRING_CHARS = 1024 * 1024;
const PIECE_CHARS = 1024 * 1024;
/** A string no real JSON text holds (it starts with NUL); stands in for a big value while the rest is parsed. */
const PLACEHOLDER = "\u0000bc-huge-line-value-";
const PLACEHOLDER_JSON = "\\u0000bc-huge-line-value-";

const BACKSLASH = 92;

/** Number of backslashes immediately before `at` (not going below `floor`). */
const backslashesBefore = (s: string, at: number, floor: number): number => {
  let n = 0;
  while (at - n - 1 >= floor && s.charCodeAt(at - n - 1) === BACKSLASH) n++;
  return n;
};

/** Ask the runtime for a young-generation collection: the pieces' temporaries otherwise pile up. */
const collectGarbage = (): void => {
  (globalThis as { Bun?: { gc?: (full: boolean) => void } }).Bun?.gc?.(false);
};

/** Decode the JSON string body s[from, to) (between its quotes) piece by piece. */
const decodeStringBody = (s: string, from: number, to: number): string => {
  let out = "";
  let pieces = 0;
  for (let i = from; i < to; ) {
    let j = Math.min(to, i + PIECE_CHARS);
    if (j < to) {
      // never cut an escape in two: back off before a lone trailing backslash or a partial \uXXXX
      if (backslashesBefore(s, j, i) % 2 === 1) j--;
      const w0 = Math.max(i, j - 5);
      const u = s.slice(w0, j).lastIndexOf("\\u");
      if (u !== -1 && backslashesBefore(s, w0 + u, i) % 2 === 0) j = w0 + u;
    }
    out += JSON.parse(`"${s.slice(i, j)}"`) as string;
    i = j;
    if (++pieces % 16 === 0) collectGarbage();
  }
  return out;
};

const restore = (v: unknown, big: readonly string[]): unknown => {
  if (typeof v === "string") {
    if (!v.startsWith(PLACEHOLDER)) return v;
    const k = Number(v.slice(PLACEHOLDER.length));
    return Number.isInteger(k) && k < big.length ? big[k] : v;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = restore(v[i], big);
    return v;
  }
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = restore(o[k], big);
  }
  return v;
};

const parseHugeLine = (line: string): unknown => {
  if (line.includes(PLACEHOLDER_JSON)) return JSON.parse(line);
  const big: string[] = [];
  const skeleton: string[] = [];
  let copied = 0;
  let pos = 0;
  for (;;) {
    const open = line.indexOf('"', pos);
    if (open === -1) break;
    let close = line.indexOf('"', open + 1);
    while (close !== -1 && backslashesBefore(line, close, open + 1) % 2 === 1) close = line.indexOf('"', close + 1);
    if (close === -1) return JSON.parse(line); // unterminated: let JSON.parse say what is wrong
    pos = close + 1;
    if (close - open - 1 < BIG_STRING_CHARS) continue;
    let k = pos;
    while (k < line.length && (line[k] === " " || line[k] === "\t" || line[k] === "\r")) k++;
    if (line[k] === ":") continue; // a huge key: leave it to JSON.parse
    skeleton.push(line.slice(copied, open), `"${PLACEHOLDER_JSON}${big.length}"`);
    big.push(decodeStringBody(line, open + 1, close));
    copied = pos;
  }
  if (big.length === 0) return JSON.parse(line);
  skeleton.push(line.slice(copied));
  return restore(JSON.parse(skeleton.join("")), big);
};

/** JSON.parse for one line of a JSONL file; throws SyntaxError as JSON.parse does. */
export const parseJsonLine = (line: string): unknown => (line.length < HUGE_LINE_CHARS ? JSON.parse(line) : parseHugeLine(line));
