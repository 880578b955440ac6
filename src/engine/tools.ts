// What a tool call means, for both hosts' tool names: which file it reads (and which
// lines), which files it may change, which shell command it runs, whether a person
// answered it, and how its result reports success. Everything is read from the call's
// parsed input and the result text; unknown tools mean "other", never an error.
import type { ToolCall } from "./types.ts";

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

export interface CallMeaning {
  /** the single file this call reads and prints, if that is all it does */
  readonly read?: FileRead;
  /** files this call may change; "*" when it may change any file (git checkout ., a formatter) */
  readonly writes: readonly string[];
  /** files this call replaces or deletes whole (Write, apply_patch Add/Delete File, `> file`): an earlier read of them is obsolete */
  readonly rewrites?: readonly string[];
  /** an Edit/Write/MultiEdit/NotebookEdit/apply_patch call: its input is never touched */
  readonly mutating: boolean;
  /** the shell command line, for shell tools */
  readonly command?: string;
  /** a command whose output is cheaper to re-run than to keep */
  readonly rerunnable?: RerunnableKind;
  /** a person's answer or an approved plan: re-running does not bring it back */
  readonly asksPerson: boolean;
  /** a search or listing (Glob, Grep, find, rg, tree, --help): later steps reach for the names it shows */
  readonly discovery?: boolean;
  /** a result re-running would not reproduce: a subagent's report, a web search or fetch */
  readonly unrepeatable?: boolean;
}

export const ANY_FILE = "*";

const MUTATING_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"]);
const PERSON_TOOLS = new Set(["AskUserQuestion", "ExitPlanMode", "request_user_input"]);
const DISCOVERY_TOOLS = new Set(["Glob", "Grep", "LS", "ToolSearch", "tool_search"]);
const UNREPEATABLE_TOOLS = new Set(["Task", "Agent", "WebSearch", "WebFetch", "web_search", "spawn_agent", "wait_agent"]);
// a search or listing command (ls and git log are re-runnable instead: see rerunnableKind)
const DISCOVERY_RE = /^(?:find|fd|rg|grep|egrep|fgrep|ag|tree|git\s+(?:ls-files|grep)|ls\s+(?:-\w*R|--recursive))\b|\s--help\b|\s-h$|^\S+\s+help\b/;
const SHELL_TOOLS = new Set(["Bash", "exec_command", "shell", "shell_command", "local_shell_call", "exec", "container.exec"]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** Every string leaf of a parsed input, joined by newlines: what later-use lookups search. */
export const inputStrings = (input: unknown, inputText: string): string => {
  if (input === undefined || input === null) return inputText;
  if (typeof input === "string") return input;
  const parts: string[] = [];
  stringLeaves(input, 0, parts);
  return parts.join("\n");
};

const stringLeaves = (v: unknown, depth: number, out: string[]): void => {
  if (typeof v === "string") out.push(v);
  else if (typeof v === "number") out.push(String(v));
  else if (depth > 8) return;
  else if (Array.isArray(v)) for (const x of v) stringLeaves(x, depth + 1, out);
  else if (isRecord(v)) for (const k of Object.keys(v)) stringLeaves(v[k], depth + 1, out);
};

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
export const shellWords = (cmd: string): string[] => {
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
interface ParsedCommand {
  readonly command: string;
  readonly words: readonly string[];
  /** the commands after a leading `cd DIR &&` and without `2>&1` (see stripPreamble) */
  readonly parts: { words: string[]; sep: string }[];
  /** the working directory those commands run in */
  readonly workdir: string | undefined;
}

const parseCommand = (command: string, workdir: string | undefined): ParsedCommand => {
  const words = shellWords(command);
  const stripped = stripPreamble(pipelineParts(words), workdir);
  return { command, words, parts: stripped.parts, workdir: stripped.workdir };
};

/** The command line a shell-like call runs, and its working directory, for every host shape. */
export const shellCommand = (call: ToolCall): { command: string; workdir?: string } | undefined => {
  const input = call.input;
  if (!SHELL_TOOLS.has(call.name)) return undefined;
  if (call.name === "exec" && typeof input === "string") return codeModeCommand(input);
  if (call.name === "exec" && isRecord(input) && typeof input.input === "string") return codeModeCommand(input.input);
  if (!isRecord(input)) return undefined;
  const workdir = str(input.workdir) ?? str(input.cwd) ?? str(input.working_directory);
  const fromArgv = (v: unknown): string | undefined => {
    if (typeof v === "string") return v;
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) return undefined;
    const argv = v as string[];
    if (argv.length >= 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]!) && /^-\w*c$/.test(argv[1]!)) return argv[2]!;
    return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(" ");
  };
  const command =
    fromArgv(input.command) ?? str(input.cmd) ?? (isRecord(input.action) ? fromArgv(input.action.command) : undefined);
  if (command === undefined) return undefined;
  const wd = workdir ?? (isRecord(input.action) ? str(input.action.working_directory) : undefined);
  return wd === undefined ? { command } : { command, workdir: wd };
};

// Codex "code mode": the model writes JS that calls tools.exec_command({...}).
const codeModeCommand = (code: string): { command: string; workdir?: string } | undefined => {
  const m = /tools\.exec_command\((\{[\s\S]*?\})\)/.exec(code);
  if (!m) return undefined;
  // a single call only: several commands print several outputs
  if (code.indexOf("tools.", m.index + 1) !== -1) return undefined;
  try {
    const args: unknown = JSON.parse(m[1]!);
    if (!isRecord(args) || typeof args.cmd !== "string") return undefined;
    return typeof args.workdir === "string" ? { command: args.cmd, workdir: args.workdir } : { command: args.cmd };
  } catch {
    return undefined;
  }
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

/** A shell command that only prints (part of) one file. */
export const shellRead = (command: string, workdir?: string): FileRead | undefined => readOf(parseCommand(command, workdir));

const readOf = (parsed: ParsedCommand): FileRead | undefined => {
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

/** Files a shell command may change: named targets of writing commands and redirections; ANY_FILE when it may change anything. */
export const shellWrites = (command: string, workdir?: string): string[] => writesOf(parseCommand(command, workdir));

const writesOf = (parsed: ParsedCommand): string[] => {
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
export const rerunnableKind = (command: string): RerunnableKind | undefined => rerunnableOf(parseCommand(command, undefined));

const rerunnableOf = (parsed: ParsedCommand): RerunnableKind | undefined => {
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

// ---------------------------------------------------------------- the meaning of a call

const APPLY_PATCH_FILE_RE = /^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;

/** Files an apply_patch body changes. */
export const patchFiles = (patch: string, workdir?: string): string[] => {
  const out: string[] = [];
  for (const m of patch.matchAll(APPLY_PATCH_FILE_RE)) out.push(normalizePath((m[1] ?? m[2]!).trim(), workdir));
  return out;
};

const WHOLE_FILE_PATCH_RE = /^\*\*\* (?:Add|Delete) File: (.+)$/gm;

/** Files an apply_patch body creates or deletes whole. */
export const patchRewrites = (patch: string, workdir?: string): string[] => {
  const out: string[] = [];
  for (const m of patch.matchAll(WHOLE_FILE_PATCH_RE)) out.push(normalizePath(m[1]!.trim(), workdir));
  return out;
};

/** Targets of `>` / `>|` redirections (not `>>`): files a shell command replaces whole. */
const rewritesOf = (parsed: ParsedCommand): string[] => {
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

const patchText = (input: unknown): string | undefined => {
  if (typeof input === "string") return input;
  if (!isRecord(input)) return undefined;
  return str(input.input) ?? str(input.patch);
};

/** Whether a shell command is a search or listing, after `cd X &&` and through filters. */
const discoveryOf = (parsed: ParsedCommand): boolean => {
  const first = parsed.parts[0];
  return first !== undefined && DISCOVERY_RE.test(first.words.join(" "));
};

export const describeCall = (call: ToolCall): CallMeaning => {
  const name = call.name;
  const input = call.input;
  const asksPerson = PERSON_TOOLS.has(name);
  if (DISCOVERY_TOOLS.has(name)) return { writes: [], mutating: false, asksPerson, discovery: true };
  if (UNREPEATABLE_TOOLS.has(name) || (name === "exec" && /\btools\.web__/.test(call.inputText)))
    return { writes: [], mutating: false, asksPerson, unrepeatable: true };
  if (MUTATING_TOOLS.has(name)) {
    let writes: string[] = [];
    let rewrites: string[] = [];
    if (name === "apply_patch") {
      const p = patchText(input);
      const wd = isRecord(input) ? str(input.workdir) : undefined;
      writes = p === undefined ? [ANY_FILE] : patchFiles(p, wd);
      if (writes.length === 0) writes = [ANY_FILE];
      if (p !== undefined) rewrites = patchRewrites(p, wd);
    } else if (isRecord(input)) {
      const f = str(input.file_path) ?? str(input.notebook_path) ?? str(input.path);
      writes = f === undefined ? [ANY_FILE] : [normalizePath(f)];
      if (name === "Write" && f !== undefined) rewrites = writes;
    } else writes = [ANY_FILE];
    return { writes, mutating: true, asksPerson, ...(rewrites.length > 0 ? { rewrites } : {}) };
  }
  if (name === "Read" && isRecord(input)) {
    const f = str(input.file_path) ?? str(input.path);
    if (f === undefined) return { writes: [], mutating: false, asksPerson };
    const offset = num(input.offset);
    const limit = num(input.limit);
    if (offset === undefined && limit === undefined) return { read: { path: normalizePath(f) }, writes: [], mutating: false, asksPerson };
    const start = Math.max(1, offset ?? 1);
    const range: LineRange = limit === undefined ? { start } : { start, end: start + limit - 1 };
    return { read: { path: normalizePath(f), range }, writes: [], mutating: false, asksPerson };
  }
  const sh = shellCommand(call);
  if (sh) {
    // Codex's exec_command may carry a freeform apply_patch heredoc
    const command = sh.command;
    const parsed = parseCommand(command, sh.workdir);
    const read = readOf(parsed);
    const patch = /\bapply_patch\b/.test(command);
    let writes = read ? [] : writesOf(parsed);
    if (patch) writes = [...writes, ...patchFiles(command, sh.workdir)];
    const rewrites = read ? [] : [...rewritesOf(parsed), ...(patch ? patchRewrites(command, sh.workdir) : [])];
    const rerunnable = read ? undefined : rerunnableOf(parsed);
    const discovery = !read && rerunnable === undefined && writes.length === 0 && discoveryOf(parsed);
    const base = { command, writes, mutating: false, asksPerson };
    return {
      ...base,
      ...(discovery ? { discovery } : {}),
      ...(rewrites.length > 0 ? { rewrites } : {}),
      ...(read ? { read } : {}),
      ...(rerunnable ? { rerunnable } : {}),
    };
  }
  return { writes: [], mutating: false, asksPerson };
};

/** Whether `a` lies inside `b` (whole file contains everything; an open end runs to the end of the file). */
export const rangeWithin = (a: LineRange | undefined, b: LineRange | undefined): boolean => {
  if (b === undefined) return true;
  if (a === undefined) return false;
  if (a.start < b.start) return false;
  if (b.end === undefined) return true;
  return a.end !== undefined && a.end <= b.end;
};
