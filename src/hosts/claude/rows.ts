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

const NOT_IMAGES = new Set(["text", "tool_reference"]);

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
const list = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);

/**
 * The images (and other blocks that are not text) a result held, as its row's `result` (the
 * record's toolUseResult) shows them. A Read: `{ type: "image" | "pdf", file }` is one; PDF pages
 * (`type: "parts"`) one per page sent as a picture (`pages[i].base64`); a notebook one per cell
 * output with an `image`. An MCP tool's result is its list of content blocks. A row's `text` has
 * the text blocks alone.
 */
export const resultImages = (result: unknown): number => {
  if (Array.isArray(result)) return result.filter((b) => isObject(b) && typeof b.type === "string" && !NOT_IMAGES.has(b.type)).length;
  if (!isObject(result)) return 0;
  switch (result.type) {
    case "image":
    case "pdf":
    case "document":
      return 1;
    case "parts":
      return list(result.pages).filter((p) => isObject(p) && typeof p.base64 === "string" && p.base64 !== "").length;
    case "notebook": {
      const cells = isObject(result.file) ? list(result.file.cells) : [];
      return cells.reduce<number>((n, c) => n + (isObject(c) ? list(c.outputs).filter((o) => isObject(o) && isObject(o.image)).length : 0), 0);
    }
    default:
      return 0;
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
      images: resultImages(r.result),
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

/**
 * What a result kept whole says of the images a rebuilt row cannot carry (Claude Code rebuilds a
 * tool_result from its text alone): without it the agent would take an image-only result for an
 * empty one. The plugin's recall tool hands them back from the transcript, as they were.
 */
export const imagesNote = (images: number, callId: string): string => {
  const them = images === 1 ? "it" : "them";
  const how = /^[\w.:-]{1,256}$/.test(callId) ? `bc recall ${callId} gives ${them} back` : `to see ${them}, make the call again`;
  return `[bc: ${images === 1 ? "an image" : `${images} images`} of this result did not carry over the compaction; ${how}]`;
};

const withImagesNote = (r: ToolResult, before: ToolResult | undefined): string => {
  // a result cut has its own note, and recall gives back its images with its text
  if (r.images === 0 || before === undefined || r.text !== before.text) return r.text;
  const note = imagesNote(r.images, r.callId);
  return r.text === "" ? note : `${r.text}\n${note}`;
};

/** How many results of `out` (sessionToRows' answer for `rows`) end in the images note they did not end in before. */
export const imagesNoted = (rows: readonly SessionRow[], out: readonly SessionRow[]): number => {
  let n = 0;
  out.forEach((row, i) =>
    (row.toolResults ?? []).forEach((r, k) => {
      const before = rows[i]?.toolResults?.[k];
      if (before !== undefined && r.text !== before.text && r.text.endsWith(imagesNote(resultImages(before.result), r.tool_use_id))) n++;
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
    const before = orig?.tool_use_id === r.callId ? { ...r, text: orig.text } : undefined;
    return { tool_use_id: r.callId, text: withImagesNote(r, before), isError: r.isError };
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
