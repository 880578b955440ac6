// Distinctive tokens: the searchable strings that show a tool result was used later.
// A token is a whole string a person or model would copy (a path, an identifier, a long
// number, a quoted string, an error line), never a word piece. The evaluation freezes a
// copy of this file as its yardstick, so the definitions here are the contract: change
// them on purpose, never in passing. Self-contained: imports nothing.

export type TokenKind = "path" | "identifier" | "number" | "quoted" | "error-line";

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
}

/** identifiers shorter than this are too common to count */
export const MIN_IDENTIFIER_CHARS = 6;
/** numbers shorter than this (in digits) are too common to count */
export const MIN_NUMBER_DIGITS = 4;
/** quoted strings shorter than this (inside the quotes) are too common to count */
export const MIN_QUOTED_CHARS = 8;
/** longer quoted strings are not treated as one searchable string */
export const MAX_QUOTED_CHARS = 200;
/** an error line must carry at least this much text to be searchable */
export const MIN_ERROR_LINE_CHARS = 8;
/** longer lines are clipped to their first MAX_ERROR_LINE_CHARS characters (still a verbatim prefix) */
export const MAX_ERROR_LINE_CHARS = 300;

const FILE_EXTENSIONS =
  "tsx?|jsx?|mjs|cjs|mts|cts|json|jsonl|ya?ml|toml|md|mdx|txt|py|pyi|go|rs|rb|java|kt|kts|swift|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|fish|ps1|sql|css|scss|less|html?|xml|csv|tsv|lock|env|ini|cfg|conf|vue|svelte|astro|proto|graphql|gql|tf|gradle|dart|lua|ex|exs|erl|scala|zig|nix|mod|sum|log|patch|diff";

// A path has at least one "/" between name characters and looks like a file or folder:
// it starts at a root (/, ./, ../, ~/, a URL scheme), or has two or more slashes, or ends
// in a file extension. A bare file name with a known extension also counts.
// The lookaheads only say what a match must contain (a "/", a "."): they change no result,
// but spare the engine from trying the whole pattern at every word.
export const PATH_RE = new RegExp(
  String.raw`(?<![\w.@+~/-])(?=[\w.@+~:-]*\/)(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/)?(?:~|\.{1,2})?[\w.@+-]*(?:\/[\w.@+-]+)+\/?` +
    String.raw`|(?<![\w.@+~/-])(?=[\w@+-][\w@+-]*\.)[\w@+-][\w.@+-]*\.(?:${FILE_EXTENSIONS})(?![\w/])`,
  "g",
);
const PATH_EXT_RE = new RegExp(String.raw`\.(?:${FILE_EXTENSIONS})\/?$`);

// The lookahead skips words with no "_", "-" or camelCase hump (most words) without a match.
export const IDENTIFIER_RE = /(?<![\w$])(?=[\w$-]{6})(?=[\w$-]*?(?:[_-]|[a-z][A-Z]))[A-Za-z_$][\w$]*(?:-[\w$]+)*/g;
export const NUMBER_RE = /(?<![\w.])\d{4,}(?!\w)/g;
export const QUOTED_RE = /(?<![\w\\])(?:"([^"\n]{8,200})"|'([^'\n]{8,200})'|`([^`\n]{8,200})`)(?!\w)/g;

/** What makes a line an error line. Case matters where a word would be too common otherwise. */
export const ERROR_MARKER_RE = /\b(?:error|errors|ERROR|exception|EXCEPTION|FAILED|FAIL|FATAL)\b|Error\b|Exception\b|\bTraceback\b|\bpanic:|\bfatal:|\bERR!/;

// Literal strings one of which every error line holds: a line without one is never an error
// line, so only lines holding one are read (found in one pass of this alternation).
const ERROR_SCAN_LITERALS = ["error", "Error", "ERROR", "exception", "Exception", "EXCEPTION", "FAIL", "FATAL", "Traceback", "panic:", "fatal:", "ERR!"];
const ERROR_SCAN_RE = new RegExp(ERROR_SCAN_LITERALS.join("|"));

// Claude Code's Read output numbers lines as "    12→"; the number is not part of the line.
const LINE_NUMBER_PREFIX_RE = /^\s*\d+→/;

export const isDistinctivePath = (p: string): boolean => {
  if (p.length < 4 || !/[A-Za-z]/.test(p)) return false;
  if (/^(?:~|\.{1,2})?\//.test(p) || p.includes("://")) return p.length >= 4;
  const slash = p.indexOf("/");
  if (slash !== -1 && p.indexOf("/", slash + 1) !== -1) return true;
  return PATH_EXT_RE.test(p);
};

export const isDistinctiveIdentifier = (id: string): boolean =>
  id.length >= MIN_IDENTIFIER_CHARS && /[A-Za-z]/.test(id) && (id.includes("_") || id.includes("-") || /[a-z][A-Z]/.test(id));

/** The error line around position `at`, trimmed and without a line-number prefix; undefined when too short. */
export const errorLineAt = (text: string, at: number): { line: string | undefined; end: number } => {
  const start = text.lastIndexOf("\n", at) + 1;
  let end = text.indexOf("\n", at);
  if (end === -1) end = text.length;
  let line = text.slice(start, end).replace(LINE_NUMBER_PREFIX_RE, "").trim();
  if (!ERROR_MARKER_RE.test(line)) return { line: undefined, end };
  if (line.length > MAX_ERROR_LINE_CHARS) line = line.slice(0, MAX_ERROR_LINE_CHARS);
  return { line: line.length >= MIN_ERROR_LINE_CHARS ? line : undefined, end };
};

/**
 * The grammar of each kind of token, one table per kind: what the tokenizer below scans with,
 * and what the fast scan (lookup/token-places.ts) reads to find the same tokens without
 * scanning: the characters a match can consume, the shape every token of the kind has.
 */
export const PATH_GRAMMAR = {
  pattern: PATH_RE,
  /** a character a match can consume */
  chars: /[\w.@+~:/-]/,
  /** every path token has this shape (and a "/" or a ".") */
  shape: /^[\w.@+~:/-]+$/,
  isDistinctive: isDistinctivePath,
} as const;

export const IDENTIFIER_GRAMMAR = {
  pattern: IDENTIFIER_RE,
  chars: /[\w$-]/,
  shape: /^[A-Za-z_$][\w$]*(?:-[\w$]+)*$/,
  isDistinctive: isDistinctiveIdentifier,
} as const;

export const NUMBER_GRAMMAR = { pattern: NUMBER_RE, shape: /^\d+$/, minChars: MIN_NUMBER_DIGITS } as const;

export const QUOTED_GRAMMAR = { pattern: QUOTED_RE, minChars: MIN_QUOTED_CHARS, maxChars: MAX_QUOTED_CHARS } as const;

export const ERROR_LINE_GRAMMAR = { marker: ERROR_MARKER_RE, minChars: MIN_ERROR_LINE_CHARS, maxChars: MAX_ERROR_LINE_CHARS } as const;

/**
 * A scan that finds exactly the matches of IDENTIFIER_RE in `text`, in order, giving each one's
 * start and end (the engine's hand-written one is faster than the pattern).
 */
export type IdentifierMatches = (text: string, visit: (start: number, end: number) => void) => void;

/**
 * Every occurrence of a distinctive token in `text`, in order of kind then place: `visit`
 * gets the token, its kind, and where its match starts (an error line: where its line starts).
 * No token spans a line break, so the occurrences in several texts joined by "\n" are those
 * of each text, shifted. Identifiers are found by `identifierMatches` where given, else by
 * IDENTIFIER_RE: the same tokens either way.
 */
export const forEachToken = (text: string, visit: (kind: TokenKind, token: string, at: number) => void, identifierMatches?: IdentifierMatches): void => {
  // the module's own scanners (no copy of a pattern per text); a visit that tokenizes again gets copies
  const [paths, identifiers, numbers, quoted, errors] = scanning++ === 0 ? SCANNERS : scanners();
  try {
    for (let m = first(paths, text); m !== null; m = paths.exec(text)) {
      let p = m[0];
      const end = lengthWithoutDots(p);
      if (end < p.length) p = p.slice(0, end);
      if (PATH_GRAMMAR.isDistinctive(p)) visit("path", p, m.index);
    }
    if (identifierMatches !== undefined)
      identifierMatches(text, (start, end) => {
        const id = text.slice(start, end);
        if (IDENTIFIER_GRAMMAR.isDistinctive(id)) visit("identifier", id, start);
      });
    else
      for (let m = first(identifiers, text); m !== null; m = identifiers.exec(text)) {
        const id = m[0];
        if (IDENTIFIER_GRAMMAR.isDistinctive(id)) visit("identifier", id, m.index);
      }
    for (let m = first(numbers, text); m !== null; m = numbers.exec(text)) visit("number", m[0], m.index);
    for (let m = first(quoted, text); m !== null; m = quoted.exec(text)) {
      const q = m[1] ?? m[2] ?? m[3] ?? "";
      if (q.trim().length >= QUOTED_GRAMMAR.minChars) visit("quoted", q, m.index);
    }
    // every line holding a literal, once, in text order
    for (let m = first(errors, text); m !== null; m = errors.exec(text)) {
      const start = text.lastIndexOf("\n", m.index) + 1;
      const { line, end } = errorLineAt(text, start);
      if (line !== undefined) visit("error-line", line, start);
      if (end >= text.length) break;
      errors.lastIndex = end + 1;
    }
  } finally {
    scanning--;
  }
};

/** A path match's length without its trailing dots, as the tokenizer takes it (no new string). */
export const lengthWithoutDots = (match: string): number => {
  let end = match.length;
  while (end > 0 && match.charCodeAt(end - 1) === 46) end--;
  return end;
};

type Scanners = readonly [paths: RegExp, identifiers: RegExp, numbers: RegExp, quoted: RegExp, errors: RegExp];
const scanners = (): Scanners => {
  const g = (re: RegExp): RegExp => new RegExp(re.source, "g");
  return [g(PATH_GRAMMAR.pattern), g(IDENTIFIER_GRAMMAR.pattern), g(NUMBER_GRAMMAR.pattern), g(QUOTED_GRAMMAR.pattern), g(ERROR_SCAN_RE)];
};
const SCANNERS = scanners();
/** how many forEachToken calls are under way (more than one: a visit tokenizing again) */
let scanning = 0;
/** A global scanner's first match in text, from its start. */
const first = (re: RegExp, text: string): RegExpExecArray | null => {
  re.lastIndex = 0;
  return re.exec(text);
};

/** Every distinctive token in `text`, each once, with its kind, in order of kind then first appearance. */
export const extractTokenList = (text: string): Token[] => {
  const out: Token[] = [];
  const seen = new Set<string>();
  forEachToken(text, (kind, t) => {
    if (seen.has(t)) return;
    seen.add(t);
    out.push({ kind, text: t });
  });
  return out;
};

/** Every distinctive token in `text`, each once: the searchable strings. */
export const extractTokens = (text: string): string[] => extractTokenList(text).map((t) => t.text);

/** Whether `text` carries an error marker anywhere (used to spot failed runs). */
export const hasErrorMarker = (text: string): boolean => ERROR_MARKER_RE.test(text);
