// Claude Code's `session.compact` rows <-> the session model, for the hook.
// Runs inside Claude Code's hooks worker: no Bun, no Node, no bare package here.
//
// Back to rows: a row handed back with its handle and unchanged stands as
// Claude Code's own records; every other row is rebuilt from role, text and tool blocks, and a
// rebuilt assistant row has no thinking. Plain user prompt rows go back as received (handle
// included: it keeps their attachments). So do the assistant rows of a tool loop still open (the
// rows end with tool results: an automatic compaction runs mid-turn, right before the next model
// request), from the last prompt on: with thinking on, the API refuses a request whose open loop
// lost or changed the thinking of its answers, and only Claude Code's own records hold it. Every
// other row goes back WITHOUT its handle: a kept copy shares message.id / sourceToolAssistantUUID
// with its pre-compaction record, and `--resume` splices those back with their original results.
// The open loop's rows pay that price for their thinking: a session resumed after such a
// compaction gets the loop's answers twice, and the loop's results as they were before bc's cuts.
import type { Message, Session, ToolCall, ToolResult } from "../../engine/types.ts";
import { isObject } from "../../util/json.ts";

/** `toolUses[i]` as Claude Code hands it in (outcome copies included). */
export interface ToolUseSummary {
  readonly tool_use_id: string;
  readonly tool: string;
  readonly input: unknown;
  readonly result?: unknown;
  readonly text?: string;
  readonly isError?: boolean;
  readonly [extra: string]: unknown;
}

export interface ToolResultSummary {
  readonly tool_use_id: string;
  readonly text: string;
  readonly isError: boolean;
  readonly result?: unknown;
  readonly [extra: string]: unknown;
}

/** Claude Code's SessionMessage. */
export interface SessionRow {
  readonly role: "user" | "assistant";
  readonly text: string;
  readonly toolUses: readonly ToolUseSummary[];
  readonly toolResults?: readonly ToolResultSummary[];
  readonly handle?: string;
  readonly [extra: string]: unknown;
}

const inputText = (input: unknown): string => {
  if (typeof input === "string") return input;
  try {
    return JSON.stringify(input) ?? "";
  } catch {
    return "";
  }
};

const isPromptRow = (row: SessionRow): boolean => row.role === "user" && (row.toolResults?.length ?? 0) === 0;

/**
 * The index of the first row of the tool loop the rows end in: the row after the last prompt row,
 * when the last row carries tool results; `rows.length` when no loop is open (the turn ended, or
 * a prompt is the last row).
 */
export const openLoopStart = (rows: readonly SessionRow[]): number => {
  const last = rows.at(-1);
  if (last === undefined || last.role !== "user" || (last.toolResults?.length ?? 0) === 0) return rows.length;
  let i = rows.length - 1;
  while (i >= 0 && !isPromptRow(rows[i]!)) i--;
  return i + 1;
};

/** The ids of the tool calls of the assistant rows that go back with their handles (the open loop's), as far as bc leaves them as they are. */
export const keptCallIds = (rows: readonly SessionRow[]): Set<string> =>
  new Set(
    rows.slice(openLoopStart(rows)).flatMap((r) => (r.role === "assistant" && r.handle !== undefined ? (r.toolUses ?? []).map((u) => u.tool_use_id) : [])),
  );

const list = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);

/** The blocks beside a result's text that a rebuilt row loses: pictures, and documents (a PDF). */
export interface ResultBlocks {
  readonly images: number;
  readonly documents: number;
}

const NONE: ResultBlocks = { images: 0, documents: 0 };

/**
 * The blocks that are not text a result held, as its row's `result` (the record's toolUseResult)
 * shows them; a row's `text` has the text blocks alone. A Read: `{ type: "image", file }` is an
 * image, `{ type: "pdf", file }` a document, PDF pages (`type: "parts"`) an image per page sent as
 * a picture (`pages[i].base64`, or `file.count` where the pages were left out as Claude Code stores
 * the result), a notebook an image per cell output that has one. An MCP tool's
 * result is its list of content blocks: its image and document blocks count (Claude Code turns
 * the others into text; a ToolSearch's tool_reference blocks are names).
 */
export const resultBlocks = (result: unknown): ResultBlocks => {
  if (Array.isArray(result)) {
    let images = 0;
    let documents = 0;
    for (const b of result) {
      if (!isObject(b)) continue;
      if (b.type === "image") images++;
      else if (b.type === "document") documents++;
    }
    return { images, documents };
  }
  if (!isObject(result)) return NONE;
  switch (result.type) {
    case "image":
      return { images: 1, documents: 0 };
    case "pdf":
    case "document":
      return { images: 0, documents: 1 };
    case "parts": {
      // the pages' pictures; Claude Code stores the result without them, and then its count says how many were sent
      if (Array.isArray(result.pages))
        return { images: result.pages.filter((p) => isObject(p) && typeof p.base64 === "string" && p.base64 !== "").length, documents: 0 };
      const count = isObject(result.file) ? result.file.count : undefined;
      return { images: typeof count === "number" && Number.isInteger(count) && count > 0 ? count : 0, documents: 0 };
    }
    case "notebook": {
      const cells = isObject(result.file) ? list(result.file.cells) : [];
      const images = cells.reduce<number>((n, c) => n + (isObject(c) ? list(c.outputs).filter((o) => isObject(o) && isObject(o.image)).length : 0), 0);
      return { images, documents: 0 };
    }
    default:
      return NONE;
  }
};

/** One Message per row, in order; `source.record` is the row's index. */
export const rowsToSession = (rows: readonly SessionRow[], id: string): Session => {
  const messages: Message[] = rows.map((row, record): Message => {
    const toolCalls: ToolCall[] = (row.toolUses ?? []).map((u) => ({ id: u.tool_use_id, name: u.tool, input: u.input, inputText: inputText(u.input) }));
    const toolResults: ToolResult[] = (row.toolResults ?? []).map((r) => ({
      callId: r.tool_use_id,
      text: r.text,
      isError: r.isError === true,
      images: blockCount(resultBlocks(r.result)),
    }));
    const kind = row.role === "assistant" ? "reply" : toolResults.length > 0 ? "tool" : "prompt";
    return { role: row.role, kind, text: row.text, toolCalls, toolResults, source: { host: "claude", record } };
  });
  return { host: "claude", id, messages };
};

/** A rebuilt assistant row: text and the tool_use blocks (id, name, input) only, no handle. */
const rebuildAssistant = (row: SessionRow, m: Message): SessionRow => ({
  role: "assistant",
  text: m.text,
  // calls come back in their row's order (the engine never touches a call): each its own input,
  // even where two share an id
  toolUses: m.toolCalls.map((c, k) => {
    const orig = row.toolUses[k];
    return { tool_use_id: c.id, tool: c.name, input: orig?.tool_use_id === c.id ? orig.input : c.input };
  }),
});

const blockCount = (b: ResultBlocks): number => b.images + b.documents;

const counted = (n: number, one: string): string => (n === 1 ? `a${/^[aeiou]/.test(one) ? "n" : ""} ${one}` : `${n} ${one}s`);

/**
 * What a result kept whole says of the blocks a rebuilt row cannot carry (Claude Code rebuilds a
 * tool_result from its text alone): without it the agent would take a read of a picture for an
 * empty result. The plugin's recall tool hands them back from the transcript, as they were (a PDF
 * as a file Claude Code saves and names); `bc recall --images` writes them to files.
 */
export const blocksNote = (blocks: ResultBlocks, callId: string): string => {
  const what = [...(blocks.images > 0 ? [counted(blocks.images, "image")] : []), ...(blocks.documents > 0 ? [counted(blocks.documents, "document")] : [])].join(
    " and ",
  );
  const them = blockCount(blocks) === 1 ? "it" : "them";
  const how = /^[\w.:-]{1,256}$/.test(callId) ? `bc recall ${callId} gives ${them} back` : `to see ${them}, make the call again`;
  return `[bc: ${what} of this result did not carry over the compaction; ${how}]`;
};

/** The text a rebuilt result goes back with: a result kept whole that held blocks ends in their note. */
const withBlocksNote = (text: string, callId: string, before: ToolResultSummary | undefined): string => {
  // a result cut has its own note, and recall gives back its images with its text
  if (before === undefined || text !== before.text) return text;
  const blocks = resultBlocks(before.result);
  if (blockCount(blocks) === 0) return text;
  const note = blocksNote(blocks, callId);
  return text === "" ? note : `${text}\n${note}`;
};

/**
 * How many results sessionToRows ends in a blocks note: those of `before` (rowsToSession's messages)
 * that held blocks and that `after` (the engine's output over them, index-aligned) keeps whole.
 */
export const blocksNoted = (before: readonly Message[], after: readonly Message[]): number => {
  let n = 0;
  before.forEach((m, i) =>
    m.toolResults.forEach((r, k) => {
      if (r.images > 0 && after[i]?.toolResults[k]?.text === r.text) n++;
    }),
  );
  return n;
};

/** A rebuilt user row: its tool results (text as it now stands) and text, no handle. */
const rebuildUser = (m: Message, row: SessionRow | undefined): SessionRow => ({
  role: "user",
  text: m.text,
  toolUses: [],
  toolResults: m.toolResults.map((r, k) => {
    const orig = row?.toolResults?.[k];
    return { tool_use_id: r.callId, text: withBlocksNote(r.text, r.callId, orig?.tool_use_id === r.callId ? orig : undefined), isError: r.isError };
  }),
});

/** Whether an assistant message is its row as handed in: the same text and the same calls, in order (the engine never changes either). */
const sameAssistant = (row: SessionRow, m: Message): boolean => {
  const uses = row.toolUses ?? [];
  return (
    row.role === "assistant" &&
    m.role === "assistant" &&
    m.text === row.text &&
    m.toolCalls.length === uses.length &&
    m.toolCalls.every((c, k) => c.id === uses[k]?.tool_use_id && c.name === uses[k]?.tool)
  );
};

/**
 * The rows to hand back for `messages` (the engine's output over `rowsToSession(rows)`).
 * Messages are matched to their rows by `source.record`; a message without one is rebuilt.
 */
export const sessionToRows = (rows: readonly SessionRow[], messages: readonly Message[]): SessionRow[] => {
  const loop = openLoopStart(rows);
  return messages.map((m) => {
    const record = m.source?.host === "claude" ? m.source.record : undefined;
    const row = record === undefined ? undefined : rows[record];
    if (row && isPromptRow(row) && m.role === "user" && m.toolResults.length === 0 && m.text === row.text) return row;
    if (row && record! >= loop && row.handle !== undefined && sameAssistant(row, m)) return row;
    if (m.role === "assistant") return rebuildAssistant(row ?? { role: "assistant", text: "", toolUses: [] }, m);
    return rebuildUser(m, row);
  });
};

/** Every problem Claude Code's validator would report for a returned message list; [] when it accepts it. */
export const validateRows = (rows: unknown): string[] => {
  if (!Array.isArray(rows)) return ["messages that are not a list"];
  if (rows.length === 0) return ["an empty messages (a compaction leaves at least one)"];
  const problems: string[] = [];
  rows.forEach((r: any, i) => {
    const bad = (p: string): void => void problems.push(`messages[${i}] that ${p}`);
    if (typeof r !== "object" || r === null || Array.isArray(r)) return bad("is not an object");
    if (r.role !== "user" && r.role !== "assistant") bad("has a role that is neither user nor assistant");
    if (typeof r.text !== "string") bad("has no text (a string)");
    if (r.handle !== undefined && typeof r.handle !== "string") bad("has a handle that is not a string");
    if (
      r.toolUses !== undefined &&
      (!Array.isArray(r.toolUses) ||
        r.toolUses.some((u: any) => typeof u !== "object" || u === null || typeof u.tool_use_id !== "string" || typeof u.tool !== "string" || !("input" in u)))
    )
      bad("has toolUses that are not a list of { tool_use_id, tool, input }");
    if (
      r.toolResults !== undefined &&
      (!Array.isArray(r.toolResults) ||
        r.toolResults.some((t: any) => typeof t !== "object" || t === null || typeof t.tool_use_id !== "string" || typeof t.text !== "string"))
    )
      bad("has toolResults that are not a list of { tool_use_id, text, isError }");
  });
  return problems;
};

/** Tool uses without a result and results without a use, by id: [] when every call is paired. */
export const orphans = (rows: readonly SessionRow[]): string[] => {
  const uses = new Set(rows.flatMap((r) => (r.role === "assistant" ? (r.toolUses ?? []).map((u) => u.tool_use_id) : [])));
  const results = new Set(rows.flatMap((r) => (r.toolResults ?? []).map((t) => t.tool_use_id)));
  return [
    ...[...uses].filter((id) => !results.has(id)).map((id) => `tool_use ${id} has no result`),
    ...[...results].filter((id) => !uses.has(id)).map((id) => `tool_result ${id} has no tool_use`),
  ];
};
