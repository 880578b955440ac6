// Hook rows shaped like the ones Claude Code 2.1.328 hands a session.compact hook, for unit tests.
import type { SessionRow } from "../../../src/hosts/claude/rows.ts";

let handles = 0;
const handle = () => `00000000-0000-4000-8000-${String(++handles).padStart(12, "0")}`;

/** Rows as Claude Code 2.1.328 handed them in for `READFILES a.txt b.txt` (shape observed in a real run). */
export const readRows = (files: readonly string[], body: (f: string) => string = (f) => `1\tcontent of ${f}\n`): SessionRow[] => {
  const rows: SessionRow[] = [{ role: "user", text: `READFILES ${files.join(" ")}`, toolUses: [], handle: handle() }];
  files.forEach((f, i) => {
    const id = `toolu_${String(i + 1).padStart(4, "0")}`;
    const path = `/project/${f}`;
    const result = { type: "text", file: { filePath: path, content: "", numLines: 1, startLine: 1, totalLines: 1 } };
    rows.push({ role: "assistant", text: `Step ${i + 1}: Read.`, toolUses: [], handle: handle() });
    rows.push({ role: "assistant", text: "", toolUses: [{ tool_use_id: id, tool: "Read", input: { file_path: path }, result, text: body(f) }], handle: handle() });
    rows.push({ role: "user", text: "", toolUses: [], toolResults: [{ tool_use_id: id, text: body(f), isError: false, result }], handle: handle() });
  });
  rows.push({ role: "assistant", text: `Done: ${files.length} reads.`, toolUses: [], handle: handle() });
  return rows;
};

