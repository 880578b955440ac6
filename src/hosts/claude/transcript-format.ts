// Claude Code transcript JSONL (`~/.claude/projects/<project>/<session>.jsonl`), the file format:
// every line keeps its raw text so an unchanged transcript writes back byte for byte; records are
// read loosely (plain property checks, no schema per line) so new record types and fields pass through.
import { BcError } from "../../util/errors.ts";
import { parseJsonl, readTextFile, type JsonlFile } from "../../util/jsonl.ts";
import { isClaudeRecord, isCodexRecord } from "../record-kind.ts";
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

/** Split and parse transcript text; malformed lines are reported (`file:line: why`) and kept raw. */
export const parseTranscript = (text: string, path: string): Transcript => {
  if (text.length === 0) throw new BcError("bad-input", `${path}: the file is empty`, `expected ${EXPECTED}`);
  const parsed = parseJsonl(text, path);
  // a line of whole records written with no newline between them: each record read in its place
  // (the same line number; only the first keeps the raw text), and said so
  if (!parsed.lines.some((l) => l.records !== undefined)) {
    checkFormat(parsed);
    return parsed;
  }
  const lines = parsed.lines.flatMap((l) =>
    l.records === undefined ? [l] : l.records.map((value, part) => ({ lineNo: l.lineNo, raw: part === 0 ? l.raw : "", value })),
  );
  const malformed = parsed.malformed.map((m) => {
    const line = parsed.lines.find((l) => l.records !== undefined && m.startsWith(`${path}:${l.lineNo}: `));
    return line === undefined ? m : `${m}; read as ${line.records!.length} records`;
  });
  const file = { ...parsed, lines, malformed };
  checkFormat(file);
  return file;
};

export const readTranscript = (path: string): Transcript => parseTranscript(readTextFile(path, EXPECTED), path);
