// How Codex itself estimates the size of history items it has not sent yet (codex-rs,
// context_manager/history.rs: estimate_response_item_model_visible_bytes): an item's JSON bytes,
// but for a reasoning item's encrypted content, counted as the text it decodes to (3/4 of its
// length, less 650 bytes), and an inline base64 image, counted as 7,373 bytes whatever its size;
// then 4 bytes a token, rounded up, item by item. A fork tells Codex this figure as the size of
// its history, and a budget is reached only when this figure is under it: an estimate of the text
// alone would leave out what Codex counts (a long session's reasoning can double it).

import { isObject } from "../../util/json.ts";

const REASONING_BASE64_OVERHEAD_BYTES = 650;
const IMAGE_BYTES_ESTIMATE = 7373;
const BYTES_PER_TOKEN = 4;

const DATA_URL_BASE64 = /^data:[^;,]*;base64,/i;

/** The base64 payload bytes of the inline images an item carries (a message's or an output's input_image parts). */
const imagePayloads = (item: Record<string, unknown>): { bytes: number; images: number } => {
  const parts =
    item.type === "message" ? item.content : item.type === "function_call_output" || item.type === "custom_tool_call_output" ? item.output : undefined;
  let bytes = 0;
  let images = 0;
  if (!Array.isArray(parts)) return { bytes, images };
  for (const p of parts) {
    if (!isObject(p) || p.type !== "input_image" || typeof p.image_url !== "string") continue;
    const m = DATA_URL_BASE64.exec(p.image_url);
    if (!m) continue;
    bytes += p.image_url.length - m[0].length;
    images++;
  }
  return { bytes, images };
};

/** Bytes Codex counts for one history item. */
export const codexItemBytes = (item: unknown): number => {
  if (
    isObject(item) &&
    (item.type === "reasoning" || item.type === "compaction" || item.type === "context_compaction") &&
    typeof item.encrypted_content === "string"
  )
    return Math.max(0, Math.floor((item.encrypted_content.length * 3) / 4) - REASONING_BASE64_OVERHEAD_BYTES);
  const raw = Buffer.byteLength(JSON.stringify(item) ?? "");
  if (!isObject(item)) return raw;
  const { bytes, images } = imagePayloads(item);
  return images === 0 ? raw : raw - bytes + images * IMAGE_BYTES_ESTIMATE;
};

/** Tokens Codex estimates for a history: each item's bytes / 4, rounded up, summed. */
export const codexTokens = (items: readonly unknown[]): number => {
  let tokens = 0;
  for (const it of items) tokens += Math.ceil(codexItemBytes(it) / BYTES_PER_TOKEN);
  return tokens;
};
