// Shell command lines as the rules read them: split into words and commands (honouring quotes,
// a leading `cd DIR &&`, `2>&1`), and what a command does to files: reads one, writes some or
// any, replaces some whole, or is cheaply re-runnable or a search. Read from the text alone;
// anything unknown reads as "other", never an error.
/** lines [start, end] (1-based, inclusive); end undefined: to the end of the file */
export interface LineRange {
  readonly start: number;
  readonly end?: number;
}

export interface FileRead {
  readonly path: string;
  /** undefined: the whole file */
  readonly range?: LineRange;
}

export type RerunnableKind = "listing" | "git" | "test";

/** A word as a POSIX shell reads it back: bare when it is safe, else in single quotes. */
export const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** "may change any file" (git checkout ., a formatter) */
export const ANY_FILE = "*";

// a search or listing command (ls and git log are re-runnable instead: see rerunnableKind)
const DISCOVERY_RE = /^(?:find|fd|rg|grep|egrep|fgrep|ag|tree|git\s+(?:ls-files|grep)|ls\s+(?:-\w*R|--recursive))\b|\s--help\b|\s-h$|^\S+\s+help\b/;

// ---------------------------------------------------------------- paths

/** Join a relative path to a working directory and fold "." and ".." segments. */
export const normalizePath = (path: string, workdir?: string): string => {
  let p = path.trim();
  if (p.startsWith("~/") || p.startsWith("/") || workdir === undefined || workdir === "") {
    // keep as is
  } else p = `${workdir.replace(/\/+$/, "")}/${p}`;
  const absolute = p.startsWith("/");
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else out.push(seg);
  }
  return (absolute ? "/" : "") + out.join("/");
};

// ---------------------------------------------------------------- shell words

/** Split a shell command line into words, honouring quotes; operators (|, &&, ;, >, ...) become their own words. */
const shellWords = (cmd: string): string[] => {
  const words: string[] = [];
  let cur = "";
  let has = false;
  const push = (): void => {
    if (has) words.push(cur);
    cur = "";
    has = false;
  };
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]!;
    if (c === "'") {
      const j = cmd.indexOf("'", i + 1);
      const end = j === -1 ? cmd.length : j;
      cur += cmd.slice(i + 1, end);
      has = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      while (j < cmd.length && cmd[j] !== '"') {
        if (cmd[j] === "\\" && j + 1 < cmd.length) {
          cur += cmd[j + 1];
          j += 2;
        } else {
          // a stretch without quote or backslash, taken whole
          let k = j + 1;
          while (k < cmd.length && cmd[k] !== '"' && cmd[k] !== "\\") k++;
          cur += cmd.slice(j, k);
          j = k;
        }
      }
      has = true;
      i = j;
    } else if (c === "\\" && i + 1 < cmd.length) {
      cur += cmd[++i];
      has = true;
    } else if (c === " " || c === "\t" || c === "\n") {
      push();
    } else if (c === "|" || c === "&" || c === ";" || c === ">" || c === "<" || c === "(" || c === ")") {
      // 2>&1, 2>/dev/null: the digit before > belongs to the operator
      if (c === ">" && has && /^\d$/.test(cur)) {
        cur = "";
        has = false;
      } else push();
      let op = c;
      const next = cmd[i + 1];
      if ((c === "|" || c === "&" || c === ">") && next === c) op += cmd[++i];
      else if (c === ">" && next === "&") {
        op += cmd[++i];
        while (i + 1 < cmd.length && /\d/.test(cmd[i + 1]!)) op += cmd[++i];
      }
      words.push(op);
    } else {
      // a stretch of plain characters, taken whole
      let j = i + 1;
      while (j < cmd.length && !SHELL_SPECIAL.has(cmd[j]!)) j++;
      cur += cmd.slice(i, j);
      has = true;
      i = j - 1;
    }
  }
  push();
  return words;
};

/** Characters shellWords treats specially: quotes, escapes, blanks, operators. */
const SHELL_SPECIAL = new Set(["'", '"', "\\", " ", "\t", "\n", "|", "&", ";", ">", "<", "(", ")"]);

const SEPARATORS = new Set(["&&", "||", ";", "|", "&", "(", ")"]);

/** Commands of a command line, split at |, &&, ||, ; (each a list of words). */
const pipelineParts = (words: readonly string[]): { words: string[]; sep: string }[] => {
  const parts: { words: string[]; sep: string }[] = [];
  let cur: string[] = [];
  for (const w of words) {
    if (SEPARATORS.has(w)) {
      parts.push({ words: cur, sep: w });
      cur = [];
    } else cur.push(w);
  }
  parts.push({ words: cur, sep: "" });
  return parts.filter((p) => p.words.length > 0);
};

/** A command line split once: its words and its commands (describeCall asks five questions of it). */
export interface ParsedCommand {
  readonly command: string;
  readonly words: readonly string[];
  /** the commands after a leading `cd DIR &&` and without `2>&1` (see stripPreamble) */
  readonly parts: { words: string[]; sep: string }[];
  /** the working directory those commands run in */
  readonly workdir: string | undefined;
}

export const parseCommand = (command: string, workdir: string | undefined): ParsedCommand => {
  const words = shellWords(command);
  const stripped = stripPreamble(pipelineParts(words), workdir);
  return { command, words, parts: stripped.parts, workdir: stripped.workdir };
};

/** Drop a leading `cd DIR &&` (folding DIR into the working directory) and trailing `2>&1`. */
const stripPreamble = (
  parts: { words: string[]; sep: string }[],
  workdir: string | undefined,
): { parts: { words: string[]; sep: string }[]; workdir: string | undefined } => {
  let wd = workdir;
  let i = 0;
  while (i < parts.length - 1 && parts[i]!.words[0] === "cd" && parts[i]!.words.length === 2 && parts[i]!.sep === "&&") {
    wd = normalizePath(parts[i]!.words[1]!, wd);
    i++;
  }
  const rest = parts.slice(i).map((p) => ({ words: p.words.filter((w) => !/^\d?>&\d$/.test(w)), sep: p.sep }));
  return { parts: rest, workdir: wd };
};

const parseSedRange = (script: string): LineRange | undefined => {
  const m = /^(\d+)(?:,(\d+|\$))?p$/.exec(script.trim());
  if (!m) return undefined;
  const start = Number(m[1]);
  if (m[2] === undefined) return { start, end: start };
  if (m[2] === "$") return { start };
  return { start, end: Number(m[2]) };
};

const lineCountArg = (words: readonly string[]): { n?: number; files: string[]; ok: boolean } => {
  let n: number | undefined;
  const files: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === "-n" || w === "--lines") {
      const v = words[++i];
      if (v === undefined || !/^\+?\d+$/.test(v)) return { files, ok: false };
      n = Number(v.replace("+", ""));
    } else if (/^-n\d+$/.test(w)) n = Number(w.slice(2));
    else if (/^-\d+$/.test(w)) n = Number(w.slice(1));
    else if (w.startsWith("-")) return { files, ok: false };
    else files.push(w);
  }
  return n === undefined ? { files, ok: true } : { n, files, ok: true };
};

/** The file (and lines) a command only prints, if that is all it does. */
export const readOf = (parsed: ParsedCommand): FileRead | undefined => {
  const parts = parsed.parts;
  const wd = parsed.workdir;
  if (parts.some((p) => p.words.some((w) => w === ">" || w === ">>" || w === "<"))) return undefined;
  const first = parts[0];
  if (!first) return undefined;
  const w = first.words;
  const file = (f: string): string => normalizePath(f, wd);
  if (parts.length === 1) {
    if (w[0] === "cat" && w.length === 2 && !w[1]!.startsWith("-")) return { path: file(w[1]!) };
    if (w[0] === "sed" && w.length === 4 && w[1] === "-n") {
      const range = parseSedRange(w[2]!);
      if (range) return { path: file(w[3]!), range };
    }
    if (w[0] === "head" || w[0] === "tail") {
      const a = lineCountArg(w);
      if (!a.ok || a.files.length !== 1) return undefined;
      const n = a.n ?? 10;
      if (w[0] === "head") return { path: file(a.files[0]!), range: { start: 1, end: n } };
      // tail's lines are unknown without the file's length: a ranged read of unknown place
      return { path: file(a.files[0]!), range: { start: Number.MAX_SAFE_INTEGER } };
    }
    return undefined;
  }
  // nl -ba F | sed -n 'a,bp'   and   cat -n F | sed -n 'a,bp'   and   cat F | head -n N
  if (parts.length === 2 && first.sep === "|") {
    const second = parts[1]!.words;
    const src =
      (w[0] === "nl" && w.length === 3 && w[1] === "-ba") || (w[0] === "cat" && w.length === 3 && w[1] === "-n")
        ? w[2]!
        : w[0] === "cat" && w.length === 2
          ? w[1]!
          : undefined;
    if (src === undefined || src.startsWith("-")) return undefined;
    if (second[0] === "sed" && second.length === 3 && second[1] === "-n") {
      const range = parseSedRange(second[2]!);
      if (range) return { path: file(src), range };
    }
    if (second[0] === "head") {
      const a = lineCountArg(second);
      if (a.ok && a.files.length === 0) return { path: file(src), range: { start: 1, end: a.n ?? 10 } };
    }
  }
  return undefined;
};

// Commands that change files they name; the words after them that look like files are the targets.
const WRITING_COMMANDS = new Set(["rm", "mv", "cp", "tee", "touch", "truncate", "patch", "dd", "install", "ln", "chmod", "unlink", "shred"]);
// Commands that may change files without naming them.
const WRITES_ANYTHING_RE =
  /\bgit\s+(?:checkout|restore|reset|stash|pull|merge|rebase|apply|am|cherry-pick|revert|switch|clean)\b|--write\b|--fix\b|\b(?:cargo|go)\s+fmt\b|\bgofmt\s+-w\b|\bnpm\s+run\s+(?:format|fmt|lint:fix)\b|\bprettier\b.*\s-w\b|\bblack\b|\bruff\s+format\b|\brustfmt\b|\bnpx\s+\S*codemod/;

const looksLikePath = (w: string): boolean => /[\w]/.test(w) && !w.startsWith("-") && /^[\w.@+~/-]+$/.test(w) && (w.includes("/") || w.includes("."));

/** Files a command may change: named targets of writing commands and redirections; ANY_FILE when it may change anything. */
export const writesOf = (parsed: ParsedCommand): string[] => {
  const { command, words } = parsed;
  const wd = parsed.workdir;
  const out = new Set<string>();
  if (WRITES_ANYTHING_RE.test(command)) out.add(ANY_FILE);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if ((w === ">" || w === ">>" || w === ">|") && words[i + 1] !== undefined) {
      const target = words[i + 1]!;
      if (target !== "/dev/null" && !target.startsWith("&")) out.add(normalizePath(target, wd));
    }
  }
  for (const part of parsed.parts) {
    const [cmd, ...args] = part.words;
    if (cmd === undefined) continue;
    const inPlace =
      ((cmd === "sed" || cmd === "perl" || cmd === "ruby") && args.some((a) => /^-\w*i/.test(a) || a === "--in-place")) ||
      WRITING_COMMANDS.has(cmd) ||
      (cmd === "git" && (args[0] === "mv" || args[0] === "rm"));
    if (!inPlace) continue;
    // sed/perl/ruby: the script (after -e, or the first operand) is not a file
    const scripted = cmd === "sed" || cmd === "perl" || cmd === "ruby";
    let scriptSeen = scripted && args.some((a) => a === "-e" || a === "--expression");
    for (let k = 0; k < args.length; k++) {
      const a = args[k]!;
      if (scripted && (a === "-e" || a === "--expression")) {
        k++;
        continue;
      }
      if (scripted && !scriptSeen && !a.startsWith("-")) {
        scriptSeen = true;
        continue;
      }
      if (looksLikePath(a)) out.add(normalizePath(a, wd));
    }
  }
  return [...out];
};

// ---------------------------------------------------------------- re-runnable

const TEST_RE =
  /^(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b|bun\s+test\b|npx\s+(?:jest|vitest)\b|(?:python3?\s+-m\s+)?pytest\b|cargo\s+test\b|go\s+test\b|make\s+test\b)/;
const GIT_RE = /^git\s+(?:status\b|log\b|branch\b|diff\s+(?:.*\s)?--stat\b)/;
const LISTING_RE = /^(?:ls|pwd)\b/;
// Filters a re-runnable command's output may be piped through.
const FILTER_RE = /^(?:head|tail|wc|sort|uniq|grep|rg|cat|cut|less|more)\b/;

/** ls, pwd, git status/log/branch/diff --stat, or a test run, possibly after `cd X &&` and through a filter. */
export const rerunnableOf = (parsed: ParsedCommand): RerunnableKind | undefined => {
  const parts = parsed.parts;
  const first = parts[0];
  if (!first) return undefined;
  if (parts.some((p) => p.words.some((w) => w === ">" || w === ">>"))) return undefined;
  for (let i = 0; i < parts.length - 1; i++) {
    if (parts[i]!.sep !== "|") return undefined;
    if (!FILTER_RE.test(parts[i + 1]!.words.join(" "))) return undefined;
  }
  const line = first.words.join(" ").replace(/^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+/, "");
  if (LISTING_RE.test(line)) return "listing";
  if (GIT_RE.test(line) && !/\bgit\s+branch\s+(?:-[dDmMcC]|--delete|--move)\b/.test(line)) return "git";
  if (TEST_RE.test(line)) return "test";
  return undefined;
};

/** Targets of `>` / `>|` redirections (not `>>`): files a shell command replaces whole. */
export const rewritesOf = (parsed: ParsedCommand): string[] => {
  const words = parsed.words;
  const wd = parsed.workdir;
  const out: string[] = [];
  for (let i = 0; i < words.length - 1; i++) {
    const w = words[i]!;
    const target = words[i + 1]!;
    if ((w === ">" || w === ">|") && target !== "/dev/null" && !target.startsWith("&")) out.push(normalizePath(target, wd));
  }
  return out;
};

/** Whether a shell command is a search or listing, after `cd X &&` and through filters. */
export const discoveryOf = (parsed: ParsedCommand): boolean => {
  const first = parsed.parts[0];
  return first !== undefined && DISCOVERY_RE.test(first.words.join(" "));
};
