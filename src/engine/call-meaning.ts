// What a tool call means, for both hosts' tool names: which file it reads (and which
// lines), which files it may change, which shell command it runs, whether a person answered
// it, and whether re-running brings its result back. Read from the call's parsed input;
// unknown tools mean "other", never an error.
import {
  ANY_FILE,
  type FileRead,
  type LineRange,
  type RerunnableKind,
  discoveryOf,
  normalizePath,
  parseCommand,
  readOf,
  rerunnableOf,
  rewritesOf,
  shellQuote,
  writesOf,
} from "./shell.ts";
import { codeModeCalls, constantAt, stringConstants } from "./code-mode.ts";
import type { ToolCall } from "./types.ts";
import { isRecord, num, str } from "./values.ts";

export interface CallMeaning {
  /** the single file this call reads and prints, if that is all it does */
  readonly read?: FileRead;
  /** files this call may change; "*" when it may change any file (git checkout ., a formatter) */
  readonly writes: readonly string[];
  /** files this call replaces or deletes whole (Write, apply_patch Add/Delete File, `> file`): an earlier read of them is obsolete */
  readonly rewrites?: readonly string[];
  /** an Edit/Write/MultiEdit/NotebookEdit/apply_patch call (also from a code-mode script): its input is never touched */
  readonly mutating: boolean;
  /** the shell command line, for shell tools */
  readonly command?: string;
  /** the folder the call names for its command (Codex's `workdir`; Claude Code's Bash names none) */
  readonly workdir?: string;
  /** a command whose output is cheaper to re-run than to keep */
  readonly rerunnable?: RerunnableKind;
  /** a person's answer or an approved plan: re-running does not bring it back */
  readonly asksPerson: boolean;
  /** a search or listing (Glob, Grep, find, rg, tree, --help): later steps reach for the names it shows */
  readonly discovery?: boolean;
  /** a result re-running would not reproduce: a subagent's report, a web search or fetch */
  readonly unrepeatable?: boolean;
}

const MUTATING_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"]);
const PERSON_TOOLS = new Set(["AskUserQuestion", "ExitPlanMode", "request_user_input"]);
const DISCOVERY_TOOLS = new Set(["Glob", "Grep", "LS", "ToolSearch", "tool_search"]);
const UNREPEATABLE_TOOLS = new Set(["Task", "Agent", "WebSearch", "WebFetch", "web_search", "spawn_agent", "wait_agent"]);
const SHELL_TOOLS = new Set(["Bash", "exec_command", "shell", "shell_command", "local_shell_call", "exec", "container.exec"]);

/** Every string leaf of a parsed input, joined by newlines: what later-use lookups search. */
export const inputStrings = (input: unknown, inputText: string): string => {
  if (input === undefined || input === null) return inputText;
  if (typeof input === "string") return input;
  const parts: string[] = [];
  stringLeaves(input, 0, (s) => parts.push(s));
  return parts.join("\n");
};

/** The strings inputStrings joins, each in turn (no joined copy). */
export const forEachInputString = (input: unknown, inputText: string, visit: (s: string) => void): void => {
  if (input === undefined || input === null) visit(inputText);
  else if (typeof input === "string") visit(input);
  else stringLeaves(input, 0, visit);
};

const stringLeaves = (v: unknown, depth: number, visit: (s: string) => void): void => {
  if (typeof v === "string") visit(v);
  else if (typeof v === "number") visit(String(v));
  else if (depth > 8) return;
  else if (Array.isArray(v)) for (const x of v) stringLeaves(x, depth + 1, visit);
  else if (isRecord(v)) for (const k of Object.keys(v)) stringLeaves(v[k], depth + 1, visit);
};

/** The command line a shell-like call runs, and its working directory, for every host shape. */
const shellCommand = (call: ToolCall, script: Script | undefined): { command: string; workdir?: string } | undefined => {
  const input = call.input;
  if (!SHELL_TOOLS.has(call.name)) return undefined;
  if (script !== undefined) return codeModeCommand(script);
  if (!isRecord(input)) return undefined;
  const workdir = str(input.workdir) ?? str(input.cwd) ?? str(input.working_directory);
  const fromArgv = (v: unknown): string | undefined => {
    if (typeof v === "string") return v;
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) return undefined;
    const argv = v as string[];
    if (argv.length >= 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]!) && /^-\w*c$/.test(argv[1]!)) return argv[2]!;
    return argv.map(shellQuote).join(" ");
  };
  const command = fromArgv(input.command) ?? str(input.cmd) ?? (isRecord(input.action) ? fromArgv(input.action.command) : undefined);
  if (command === undefined) return undefined;
  const wd = workdir ?? (isRecord(input.action) ? str(input.action.working_directory) : undefined);
  return wd === undefined ? { command } : { command, workdir: wd };
};

// Codex "code mode": the model writes JS that calls tools.exec_command({...}). A single call
// only: several commands print several outputs.
const codeModeCommand = ({ code, calls }: Script): { command: string; workdir?: string } | undefined => {
  if (calls.length !== 1 || calls[0]!.tool !== "exec_command") return undefined;
  const args = constantAt(code, calls[0]!.argsAt);
  if (!isRecord(args) || typeof args.cmd !== "string") return undefined;
  return typeof args.workdir === "string" ? { command: args.cmd, workdir: args.workdir } : { command: args.cmd };
};

/** A code-mode call's script and the tool calls it makes. */
interface Script {
  readonly code: string;
  readonly calls: readonly { tool: string; argsAt: number }[];
}

const scriptOf = (call: ToolCall): Script | undefined => {
  if (call.name !== "exec") return undefined;
  const code = typeof call.input === "string" ? call.input : isRecord(call.input) && typeof call.input.input === "string" ? call.input.input : undefined;
  return code === undefined ? undefined : { code, calls: codeModeCalls(code) };
};

// ---------------------------------------------------------------- the meaning of a call

const APPLY_PATCH_FILE_RE = /^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;

/** Files an apply_patch body changes. */
const patchFiles = (patch: string, workdir?: string): string[] => {
  const out: string[] = [];
  for (const m of patch.matchAll(APPLY_PATCH_FILE_RE)) out.push(normalizePath((m[1] ?? m[2]!).trim(), workdir));
  return out;
};

const WHOLE_FILE_PATCH_RE = /^\*\*\* (?:Add|Delete) File: (.+)$/gm;

/** Files an apply_patch body creates or deletes whole. */
const patchRewrites = (patch: string, workdir?: string): string[] => {
  const out: string[] = [];
  for (const m of patch.matchAll(WHOLE_FILE_PATCH_RE)) out.push(normalizePath(m[1]!.trim(), workdir));
  return out;
};

/** Whether a tool's result is a person's answer (never touched, whatever the budget). */
export const isPersonTool = (toolName: string): boolean => PERSON_TOOLS.has(toolName);

const patchText = (input: unknown): string | undefined => {
  if (typeof input === "string") return input;
  if (!isRecord(input)) return undefined;
  return str(input.input) ?? str(input.patch);
};

export const describeCall = (call: ToolCall): CallMeaning => {
  const name = call.name;
  const input = call.input;
  const asksPerson = isPersonTool(name);
  if (DISCOVERY_TOOLS.has(name)) return { writes: [], mutating: false, asksPerson, discovery: true };
  const script = scriptOf(call);
  // a code-mode script that searches or fetches from the web: re-running it would not reproduce it
  const web = name === "exec" && /\btools\.web__/.test(script?.code ?? call.inputText);
  if (script?.calls.some((c) => c.tool === "apply_patch")) {
    // the patch is a string constant of the script, most often bound to a name before the call
    const code = script.code;
    const patches = stringConstants(code).filter((s) => s.includes("*** Begin Patch"));
    const writes = patches.flatMap((p) => patchFiles(p));
    const rewrites = patches.flatMap((p) => patchRewrites(p));
    return {
      writes: writes.length > 0 ? writes : [ANY_FILE],
      mutating: true,
      asksPerson,
      ...(rewrites.length > 0 ? { rewrites } : {}),
      ...(web ? { unrepeatable: true } : {}),
    };
  }
  if (UNREPEATABLE_TOOLS.has(name) || web) return { writes: [], mutating: false, asksPerson, unrepeatable: true };
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
  const sh = shellCommand(call, script);
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
    const base = { command, ...(sh.workdir === undefined ? {} : { workdir: sh.workdir }), writes, mutating: false, asksPerson };
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
