// Claude Code's `session.compact` rows <-> the session model, for the hook.
// Runs inside Claude Code's hooks worker: no Bun, no Node, no bare package here.
//
// Back to rows: a row handed back with its handle and unchanged stands as
// Claude Code's own records; every other row is rebuilt from role, text and tool blocks. Assistant
// rows and tool_result rows always go back WITHOUT their handle: kept copies share message.id /
// sourceToolAssistantUUID with the pre-compaction records, and `--resume` would splice those back.
// Plain user prompt rows go back as received (handle included: it keeps their attachments).
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

/** One Message per row, in order; `source.record` is the row's index. */
export const rowsToSession = (rows: readonly SessionRow[], id: string): Session => {
  const messages: Message[] = rows.map((row, record): Message => {
    const toolCalls: ToolCall[] = (row.toolUses ?? []).map((u) => ({ id: u.tool_use_id, name: u.tool, input: u.input, inputText: inputText(u.input) }));
    const toolResults: ToolResult[] = (row.toolResults ?? []).map((r) => ({ callId: r.tool_use_id, text: r.text, isError: r.isError === true, images: 0 }));
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

/** A rebuilt user row: its tool results (text as it now stands) and text, no handle. */
const rebuildUser = (m: Message): SessionRow => ({
  role: "user",
  text: m.text,
  toolUses: [],
  toolResults: m.toolResults.map((r) => ({ tool_use_id: r.callId, text: r.text, isError: r.isError })),
});

/**
 * The rows to hand back for `messages` (the engine's output over `rowsToSession(rows)`).
 * Messages are matched to their rows by `source.record`; a message without one is rebuilt.
 */
export const sessionToRows = (rows: readonly SessionRow[], messages: readonly Message[]): SessionRow[] =>
  messages.map((m) => {
    const row = m.source?.host === "claude" ? rows[m.source.record] : undefined;
    if (row && isPromptRow(row) && m.role === "user" && m.toolResults.length === 0 && m.text === row.text) return row;
    if (m.role === "assistant") return rebuildAssistant(row ?? { role: "assistant", text: "", toolUses: [] }, m);
    return rebuildUser(m);
  });

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
