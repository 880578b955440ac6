// What one parsed line of a session file says about a tool call: the call itself (tool and input)
// and/or its output, as the host stored it. Claude Code: `tool_use` / `tool_result` blocks of
// user and assistant records. Codex: call and output items of `response_item` lines, the oldest
// rollouts' bare item lines, and the copies inside a `compacted` record's `replacement_history`.
import type { Host } from "../../engine/types.ts";
import { readNote } from "../../engine/notes.ts";
import { shellQuote } from "../../engine/shell.ts";
import { toolResultText } from "../claude/conversation.ts";
import { itemProblem, outputText, type ToolOutput } from "../codex/items.ts";
import { isObject } from "../../util/json.ts";

/** A picture (or other non-text part) the host stored beside an output's text. */
export interface StoredImage {
  /** block type: image, document, input_image, ... */
  readonly type: string;
  /** e.g. image/png, when the host says */
  readonly mediaType?: string;
  /** decoded size in bytes, when the data is inline */
  readonly bytes?: number;
  /** the inline base64 data (for handing the picture back) */
  readonly data?: string;
  /** the tool a `tool_reference` block names (a ToolSearch output's) */
  readonly toolName?: string;
}

/** A block recall can hand back as it was: a picture or a PDF, held inline. */
export const handsBack = (img: StoredImage): boolean =>
  img.data !== undefined && (img.mediaType?.startsWith("image/") === true || img.mediaType === "application/pdf");

export interface CallSighting {
  readonly kind: "call";
  readonly host: Host;
  readonly id: string;
  readonly tool: string;
  readonly input: unknown;
  /** inside a Codex compacted record (a copy of history), not the line that recorded the call */
  readonly copy: boolean;
}

export interface OutputSighting {
  readonly kind: "output";
  readonly host: Host;
  readonly id: string;
  /** text blocks joined with "\n", exactly as bc reads a result */
  readonly text: string;
  /** Claude Code's is_error flag (Codex stores none) */
  readonly isError: boolean;
  readonly images: readonly StoredImage[];
  /** the text ends in one of bc's notes: a removed or truncated copy */
  readonly cut: boolean;
  readonly copy: boolean;
}

export type Sighting = CallSighting | OutputSighting;

const base64Bytes = (data: string): number => {
  const pad = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
};

const claudeImage = (b: Record<string, unknown>): StoredImage => {
  const type = typeof b.type === "string" ? b.type : "unknown";
  const src = isObject(b.source) ? b.source : undefined;
  const mediaType = typeof src?.media_type === "string" ? src.media_type : undefined;
  const data = typeof src?.data === "string" && src.type === "base64" ? src.data : undefined;
  const toolName = typeof b.tool_name === "string" ? b.tool_name : undefined;
  return {
    type,
    ...(mediaType ? { mediaType } : {}),
    ...(data === undefined ? {} : { bytes: base64Bytes(data), data }),
    ...(toolName === undefined ? {} : { toolName }),
  };
};

const DATA_URL = /^data:([^;,]+)?(;base64)?,/;

const codexImage = (c: Record<string, unknown>): StoredImage => {
  const type = typeof c.type === "string" ? c.type : "unknown";
  const url = typeof c.image_url === "string" ? c.image_url : undefined;
  const m = url === undefined ? null : DATA_URL.exec(url);
  if (!m?.[2]) return { type };
  const data = url!.slice(m[0].length);
  return { type, ...(m[1] ? { mediaType: m[1] } : {}), bytes: base64Bytes(data), data };
};

/**
 * Whether an output is bc's note in place of this call's output (or its head and note): the note
 * is the whole text, or ends it after the head, and names this call (the first notes named none).
 * An output that merely ends like a note, naming another call or none where bc would, is the
 * call's own text.
 */
export const cutByBc = (text: string, id: string): boolean => {
  const note = readNote(text);
  if (note === undefined) return false;
  return note.callWord === undefined || note.callWord === id || note.callWord === shellQuote(id);
};

const claudeSightings = (rec: Record<string, unknown>, id: string | undefined, out: Sighting[]): void => {
  if (rec.type !== "user" && rec.type !== "assistant") return;
  const m = rec.message;
  if (!isObject(m) || !Array.isArray(m.content)) return;
  for (const b of m.content) {
    if (!isObject(b)) continue;
    if (b.type === "tool_use" && typeof b.id === "string" && (id === undefined || b.id === id))
      out.push({ kind: "call", host: "claude", id: b.id, tool: typeof b.name === "string" ? b.name : "?", input: b.input ?? {}, copy: false });
    else if (b.type === "tool_result" && typeof b.tool_use_id === "string" && (id === undefined || b.tool_use_id === id)) {
      const { text } = toolResultText(b.content);
      const images = Array.isArray(b.content) ? b.content.filter((x) => !(isObject(x) && x.type === "text")).map((x) => claudeImage(isObject(x) ? x : {})) : [];
      out.push({
        kind: "output",
        host: "claude",
        id: b.tool_use_id,
        text,
        isError: b.is_error === true,
        images,
        cut: cutByBc(text, b.tool_use_id),
        copy: false,
      });
    }
  }
};

const CALL_TYPES = new Set(["function_call", "custom_tool_call", "local_shell_call", "tool_search_call"]);
const OUTPUT_TYPES = new Set(["function_call_output", "custom_tool_call_output"]);

const codexItem = (item: unknown, id: string | undefined, copy: boolean, out: Sighting[]): void => {
  // an item Codex cannot read (an output of null, a call without arguments) it skips, line and all:
  // nothing of it was in the session
  if (!isObject(item) || typeof item.type !== "string" || itemProblem(item) !== undefined) return;
  const callId = item.call_id;
  if (typeof callId !== "string" || (id !== undefined && callId !== id)) return;
  if (CALL_TYPES.has(item.type)) {
    const tool = typeof item.name === "string" ? item.name : item.type === "local_shell_call" ? "local_shell" : item.type;
    const input = typeof item.arguments === "string" ? item.arguments : (item.input ?? item.action ?? {});
    out.push({ kind: "call", host: "codex", id: callId, tool, input, copy });
  } else if (item.type === "tool_search_output") {
    // the tools a search found: its text is their JSON, as bc reads it
    const text = item.tools === undefined ? "" : JSON.stringify(item.tools);
    out.push({ kind: "output", host: "codex", id: callId, text, isError: false, images: [], cut: cutByBc(text, callId), copy });
  } else if (OUTPUT_TYPES.has(item.type) && item.output !== undefined) {
    const output = item.output as ToolOutput;
    const { text } = outputText(output);
    const parts = Array.isArray(output) ? output : isObject(output) && Array.isArray(output.content) ? (output.content as unknown[]) : [];
    const images = parts.filter((c) => isObject(c) && !/text$/.test(String(c.type))).map((c) => codexImage(c as Record<string, unknown>));
    out.push({ kind: "output", host: "codex", id: callId, text, isError: false, images, cut: cutByBc(text, callId), copy });
  }
};

const codexSightings = (rec: Record<string, unknown>, id: string | undefined, out: Sighting[]): void => {
  const p = rec.payload;
  if (rec.type === "response_item") codexItem(p, id, false, out);
  else if (rec.type === "compacted" && isObject(p) && Array.isArray(p.replacement_history))
    for (const item of p.replacement_history) codexItem(item, id, true, out);
  else if (!("payload" in rec)) codexItem(rec, id, false, out); // the oldest rollouts: one bare item per line
};

/** Every call and output in one parsed line (of `id` only, when given). */
export const sightingsIn = (value: unknown, host: Host, id?: string): Sighting[] => {
  const out: Sighting[] = [];
  if (!isObject(value)) return out;
  if (host === "claude") claudeSightings(value, id, out);
  else codexSightings(value, id, out);
  return out;
};
