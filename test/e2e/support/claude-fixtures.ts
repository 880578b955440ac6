// Hook rows shaped like the ones Claude Code 2.1.328 hands a session.compact hook, for unit tests.
import type { SessionRow } from "../../../src/hosts/claude/rows.ts";

let handles = 0;
const handle = () => `00000000-0000-4000-8000-${String(++handles).padStart(12, "0")}`;

export interface Step {
  readonly tool: string;
  readonly input: Record<string, unknown>;
  readonly text: string;
  readonly isError?: boolean;
}

export interface TurnShape {
  /** each answer opens with a thinking block, whose record Claude Code hands in as a row of its own: no text, no calls */
  readonly thinking?: boolean;
  /** "answered" (the default): the turn ends with its answer; "open": with the last call's result, as at an automatic compaction mid-turn */
  readonly end?: "answered" | "open";
}

/** One turn as Claude Code hands it in: the prompt, then per call a text row, a tool_use row and a tool_result row, then the answer. */
export const turnRows = (prompt: string, steps: readonly Step[], firstId = 1, shape: TurnShape = {}): SessionRow[] => {
  const rows: SessionRow[] = [{ role: "user", text: prompt, toolUses: [], handle: handle() }];
  steps.forEach((s, i) => {
    const id = `toolu_${String(firstId + i).padStart(4, "0")}`;
    const isError = s.isError === true;
    const result = { stdout: s.text, stderr: "", interrupted: false };
    if (shape.thinking) rows.push({ role: "assistant", text: "", toolUses: [], handle: handle() });
    rows.push({ role: "assistant", text: `Step ${i + 1}: ${s.tool}.`, toolUses: [], handle: handle() });
    rows.push({ role: "assistant", text: "", toolUses: [{ tool_use_id: id, tool: s.tool, input: s.input, result, text: s.text, isError }], handle: handle() });
    rows.push({ role: "user", text: "", toolUses: [], toolResults: [{ tool_use_id: id, text: s.text, isError, result }], handle: handle() });
  });
  if (shape.end === "open") return rows;
  if (shape.thinking) rows.push({ role: "assistant", text: "", toolUses: [], handle: handle() });
  rows.push({ role: "assistant", text: `Done: ${steps.length} calls.`, toolUses: [], handle: handle() });
  return rows;
};

/** Rows for `READFILES a.txt b.txt ...` (the shape observed in a real run: Read tool_use rows carry the outcome copies). */
export const readRows = (files: readonly string[], body: (f: string) => string = (f) => `1\tcontent of ${f}\n`): SessionRow[] =>
  turnRows(
    `READFILES ${files.join(" ")}`,
    files.map((f) => ({ tool: "Read", input: { file_path: `/project/${f}` }, text: body(f) })),
  );

/** A one-page PDF with no content: enough for Claude Code's Read to send it as a document. */
export const MINIMAL_PDF = [
  "%PDF-1.4",
  "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj",
  "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj",
  "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj",
  "trailer << /Root 1 0 R >>",
  "%%EOF",
  "",
].join("\n");
