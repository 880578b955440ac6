// Claude Code transcript JSONL (`~/.claude/projects/<project>/<session>.jsonl`), the file format:
// every line keeps its raw text so an unchanged transcript writes back byte for byte; records are
// read loosely (plain property checks, no schema per line) so new record types and fields pass through.
import { BcError } from "../../util/errors.ts";
import { parseJsonl, readTextFile, type JsonlFile } from "../../util/jsonl.ts";
import { isObject } from "../../util/json.ts";
import { hasClaudeKeys, isClaudeRecord, isCodexRecord } from "../record-kind.ts";
import { counted } from "../../util/format.ts";

const EXPECTED = "a Claude Code transcript (~/.claude/projects/<project>/<session>.jsonl)";

/** A parsed transcript: the file's lines, each with its raw text and (if it parsed) its record. */
export type Transcript = JsonlFile;

export interface Block {
  readonly type?: unknown;
  readonly text?: unknown;
  readonly thinking?: unknown;
  readonly id?: unknown;
  readonly name?: unknown;
  readonly input?: unknown;
  readonly tool_use_id?: unknown;
  readonly content?: unknown;
  readonly is_error?: unknown;
}

export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Check a parsed file is a Claude Code transcript; a one-line error naming what was expected otherwise. */
const checkFormat = (file: JsonlFile): void => {
  let parsed = 0;
  let codex = 0;
  for (const line of file.lines) {
    if (line.value === undefined) continue;
    parsed++;
    if (isClaudeRecord(line.value)) return;
    if (isCodexRecord(line.value)) codex++;
  }
  if (codex > 0) throw new BcError("bad-input", `${file.path}: this is a Codex rollout, not a Claude Code transcript`, `expected ${EXPECTED}`);
  if (parsed === 0) {
    const first = file.malformed[0] ?? `${file.path}: no JSON lines`;
    throw new BcError("bad-input", `${first}`, `expected ${EXPECTED} (JSON Lines)`);
  }
  throw new BcError(
    "bad-input",
    `${file.path}: no Claude Code records (user, assistant, system, ...) in ${counted(parsed, "JSON line")}`,
    `expected ${EXPECTED}`,
  );
};

/**
 * What in a record bc passes over, said as the line's problem: a line of JSON that is no object, a
 * record with Claude Code's keys but no string type, and in a user or assistant record, a message
 * or content of no shape Claude Code writes, a block that is no object, a call or result without its id.
 */
const shapeProblem = (v: unknown): string | undefined => {
  if (!isObject(v)) return "not a JSON object";
  if (typeof v.type !== "string") return hasClaudeKeys(v) ? 'record without string "type"' : undefined;
  if ((v.type !== "user" && v.type !== "assistant") || !isClaudeRecord(v)) return undefined;
  const m = v.message;
  if (!isObject(m)) return `${v.type} record without an object "message"`;
  const c = m.content;
  if (typeof c === "string" || c === undefined) return undefined;
  if (!Array.isArray(c)) return `${v.type} record whose message.content is neither text nor a list of blocks`;
  for (const b of c) {
    if (!isObject(b)) return `${v.type} record with a content block that is not an object (passed over)`;
    if (b.type === "tool_use" && typeof b.id !== "string") return "tool_use block without a string id";
    if (b.type === "tool_result" && typeof b.tool_use_id !== "string") return "tool_result block without a string tool_use_id";
  }
  return undefined;
};

/** Split and parse transcript text; malformed lines are reported (`file:line: why`) and kept raw. */
export const parseTranscript = (text: string, path: string): Transcript => {
  if (text.length === 0) throw new BcError("bad-input", `${path}: the file is empty`, `expected ${EXPECTED}`);
  const parsed = parseJsonl(text, path);
  // a line of whole records written with no newline between them: each record read in its place
  // (the same line number; only the first keeps the raw text), and said so
  const split = parsed.lines.some((l) => l.records !== undefined);
  const lines = split
    ? parsed.lines.flatMap((l) => (l.records === undefined ? [l] : l.records.map((value, part) => ({ lineNo: l.lineNo, raw: part === 0 ? l.raw : "", value }))))
    : parsed.lines;
  const malformed = parsed.malformed.map((m) => {
    const line = split ? parsed.lines.find((l) => l.records !== undefined && m.startsWith(`${path}:${l.lineNo}: `)) : undefined;
    return line === undefined ? m : `${m}; read as ${line.records!.length} records`;
  });
  // records of a shape bc passes over (in whole or in part) are said, as the lines it cannot parse are
  const shapes: { lineNo: number; problem: string }[] = [];
  for (const l of lines) {
    const problem = l.value === undefined ? undefined : shapeProblem(l.value);
    if (problem !== undefined) shapes.push({ lineNo: l.lineNo, problem });
  }
  const said = shapes.map((p) => `${path}:${p.lineNo}: ${p.problem}`);
  const file =
    !split && said.length === 0 ? parsed : { ...parsed, lines, malformed: [...malformed, ...said].sort((a, b) => lineOf(a, path) - lineOf(b, path)) };
  checkFormat(file);
  return file;
};

/** The line number a `file:line: why` names (sorting keeps each line's problems in file order). */
const lineOf = (said: string, path: string): number => Number.parseInt(said.slice(path.length + 1), 10);

export const readTranscript = (path: string): Transcript => parseTranscript(readTextFile(path, EXPECTED), path);
