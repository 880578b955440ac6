// A Claude Code transcript's conversation: content blocks read as the session model's messages
// (text, tool calls, tool results), and the records walked in the order Claude Code loads them,
// segment by segment across its compactions.
import type { Message, MessageKind, ToolCall, ToolResult } from "../../engine/types.ts";
import { isObject } from "../../util/json.ts";
import { type ClaudeRecord, isClaudeRecord } from "../record-kind.ts";
import { type Block, type Transcript, str } from "./transcript-format.ts";

// ---------------------------------------------------------------------------------------------
// Content blocks -> text, calls, results

const blocksOf = (rec: ClaudeRecord): readonly Block[] | string | undefined => {
  const m = rec.message;
  if (!isObject(m)) return undefined;
  const c = m.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.filter(isObject) as Block[];
  return undefined;
};

const messageId = (rec: ClaudeRecord): string | undefined => (isObject(rec.message) ? str(rec.message.id) : undefined);

/**
 * A tool_result's text: the string content, or its text blocks joined; other blocks are counted
 * (pictures, documents), but for a ToolSearch's tool_reference blocks, which name tools.
 */
export const toolResultText = (content: unknown): { text: string; images: number } => {
  if (typeof content === "string") return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: "", images: 0 };
  const parts: string[] = [];
  let images = 0;
  for (const b of content) {
    if (isObject(b) && b.type === "text" && typeof b.text === "string") parts.push(b.text);
    else if (!(isObject(b) && b.type === "tool_reference")) images++;
  }
  return { text: parts.join("\n"), images };
};

const toolCallOf = (b: Block): ToolCall => {
  const input = b.input ?? {};
  return { id: str(b.id) ?? "", name: str(b.name) ?? "", input, inputText: JSON.stringify(input) };
};

const toolResultOf = (b: Block): ToolResult => {
  const { text, images } = toolResultText(b.content);
  return { callId: str(b.tool_use_id) ?? "", text, isError: b.is_error === true, images };
};

/** One Message for a user/assistant record, or undefined for a record Claude Code makes no row of. */
export const messageOf = (rec: ClaudeRecord, record: number): Message | undefined => {
  const type = rec.type;
  if (type !== "user" && type !== "assistant") return undefined;
  if (rec.isVirtual === true) return undefined;
  const content = blocksOf(rec);
  const source = { host: "claude" as const, record };
  if (type === "assistant") {
    const texts: string[] = [];
    const thinking: string[] = [];
    const toolCalls: ToolCall[] = [];
    if (typeof content === "string") texts.push(content);
    else
      for (const b of content ?? []) {
        if (b.type === "text" && typeof b.text === "string") texts.push(b.text);
        else if (b.type === "thinking" && typeof b.thinking === "string") thinking.push(b.thinking);
        else if (b.type === "tool_use") toolCalls.push(toolCallOf(b));
      }
    const reasoning = texts.length === 0 && toolCalls.length === 0 && thinking.length > 0;
    // each block of a response is a record of its own, and parallel calls stand between their results: the id ties them
    const response = isObject(rec.message) ? str(rec.message.id) : undefined;
    return {
      role: "assistant",
      kind: reasoning ? "reasoning" : "reply",
      text: reasoning ? thinking.join("\n") : texts.join("\n"),
      toolCalls,
      toolResults: [],
      source: response === undefined ? source : { ...source, response },
    };
  }
  const texts: string[] = [];
  const toolResults: ToolResult[] = [];
  if (typeof content === "string") texts.push(content);
  else
    for (const b of content ?? []) {
      if (b.type === "text" && typeof b.text === "string") texts.push(b.text);
      else if (b.type === "tool_result") toolResults.push(toolResultOf(b));
    }
  const text = texts.join("\n");
  const kind: MessageKind =
    rec.isCompactSummary === true ? "summary" : rec.isMeta === true ? "meta" : toolResults.length > 0 && text === "" ? "tool" : "prompt";
  return { role: "user", kind, text, toolCalls: [], toolResults, source };
};

// ---------------------------------------------------------------------------------------------
// The conversation as Claude Code loads it

const isBoundary = (rec: ClaudeRecord): boolean => rec.type === "system" && rec.subtype === "compact_boundary";
export const isMessageRecord = (rec: ClaudeRecord): boolean => rec.type === "user" || rec.type === "assistant";

/** One stretch of the conversation between host compactions: record indices in file order. */
export interface Segment {
  /** the compact_boundary record that opens it (undefined for the first) */
  readonly boundary?: number;
  readonly records: readonly number[];
}

export interface Conversation {
  /** oldest first; a new segment starts at each compact_boundary */
  readonly segments: readonly Segment[];
  /** the record the chain was walked from */
  readonly leaf?: number;
  /** the oldest record reached, when its parentUuid names no record of the file: the chain broke there */
  readonly brokenAt?: { readonly record: number; readonly parent: string };
}

/**
 * File order, except that a record never comes before its parent or before the record holding the
 * tool_use it answers (Claude Code occasionally writes a tool result a few ms before its call).
 */
const orderRecords = (recs: readonly (ClaudeRecord | undefined)[], byUuid: ReadonlyMap<string, number>, records: readonly number[]): number[] => {
  const set = new Set(records);
  const sorted = [...set].sort((a, b) => a - b);
  const callAt = new Map<string, number>();
  for (const i of sorted) {
    const c = blocksOf(recs[i]!);
    if (Array.isArray(c)) for (const b of c) if (b.type === "tool_use" && typeof b.id === "string") callAt.set(b.id, i);
  }
  const depsOf = (i: number): number[] => {
    const r = recs[i]!;
    const deps: number[] = [];
    const p = typeof r.parentUuid === "string" ? byUuid.get(r.parentUuid) : undefined;
    if (p !== undefined && p !== i && set.has(p)) deps.push(p);
    const c = blocksOf(r);
    if (Array.isArray(c))
      for (const b of c) {
        const at = b.type === "tool_result" && typeof b.tool_use_id === "string" ? callAt.get(b.tool_use_id) : undefined;
        if (at !== undefined && at !== i) deps.push(at);
      }
    return deps;
  };
  const out: number[] = [];
  const done = new Set<number>();
  const waiting = new Map<number, number[]>();
  const emit = (i: number): void => {
    const stack = [i];
    while (stack.length > 0) {
      const k = stack.pop()!;
      if (done.has(k)) continue;
      const missing = depsOf(k).find((d) => !done.has(d));
      if (missing !== undefined) {
        const w = waiting.get(missing);
        if (w) w.push(k);
        else waiting.set(missing, [k]);
        continue;
      }
      done.add(k);
      out.push(k);
      const w = waiting.get(k);
      if (w) {
        waiting.delete(k);
        for (let x = w.length - 1; x >= 0; x--) stack.push(w[x]!);
      }
    }
  };
  for (const i of sorted) emit(i);
  // a dependency cycle (never written by Claude Code): keep what is left in file order
  for (const i of sorted) {
    if (done.has(i)) continue;
    done.add(i);
    out.push(i);
  }
  return out;
};

/**
 * Walk the chain the way Claude Code does on load: from the leaf (the newest user/assistant
 * record reached from a record no one points at) up `parentUuid`, across each compact_boundary
 * through `logicalParentUuid`; then put back assistant records that share a `message.id` with a
 * chain record (one record per content block, parallel tool calls) and the tool results answering them.
 * `select` chooses the records of one conversation (main thread or one sidechain).
 */
export const walkConversation = (t: Transcript, select: (rec: ClaudeRecord) => boolean): Conversation => {
  const lines = t.lines;
  const recs: (ClaudeRecord | undefined)[] = new Array(lines.length);
  const byUuid = new Map<string, number>();
  const parents = new Set<string>();
  let hintLeaf: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const v = lines[i]!.value;
    if (!isClaudeRecord(v)) continue;
    if (v.type === "last-prompt" && typeof v.leafUuid === "string") hintLeaf = v.leafUuid;
    if (!select(v)) continue;
    recs[i] = v;
    if (typeof v.uuid === "string") byUuid.set(v.uuid, i); // a repeated uuid: the later record wins, as in a Map
    if (typeof v.parentUuid === "string") parents.add(v.parentUuid);
  }
  const parentOf = (i: number): number | undefined => {
    const p = recs[i]?.parentUuid;
    return typeof p === "string" ? byUuid.get(p) : undefined;
  };
  /** nearest user/assistant record at or above i */
  const messageAtOrAbove = (i: number): number | undefined => {
    const seen = new Set<number>();
    for (let j: number | undefined = i; j !== undefined && !seen.has(j); j = parentOf(j)) {
      seen.add(j);
      const r = recs[j]!;
      if (isMessageRecord(r)) return j;
      if (isBoundary(r)) return undefined;
    }
    return undefined;
  };
  // Leaves: records no one names as parent. Progress/system records hang off the chain, so each
  // leaf is lifted to its nearest message; the newest wins. Scan newest first and stop early.
  const newestLeaf = (below: number): number | undefined => {
    let leaf: number | undefined;
    for (let i = below - 1; i >= 0; i--) {
      if (leaf !== undefined && i < leaf) break;
      const r = recs[i];
      if (!r || typeof r.uuid !== "string" || parents.has(r.uuid)) continue;
      const m = messageAtOrAbove(i);
      if (m !== undefined && (leaf === undefined || m > leaf)) leaf = m;
    }
    return leaf;
  };
  let leaf = newestLeaf(lines.length);
  // `last-prompt.leafUuid` is written at prompt time and goes stale within the turn: only a fallback.
  if (leaf === undefined && hintLeaf !== undefined) leaf = byUuid.get(hintLeaf);
  if (leaf === undefined) return { segments: [] };

  // Walk up. Each boundary closes a segment; continue into the one before through logicalParentUuid
  // (or, when the file lacks that record, from the newest leaf written before the boundary).
  const chains: { boundary?: number; records: number[] }[] = [{ records: [] }];
  const visited = new Set<number>();
  let j: number | undefined = leaf;
  let top = leaf;
  while (j !== undefined && !visited.has(j)) {
    visited.add(j);
    top = j;
    const r: ClaudeRecord = recs[j]!;
    if (isBoundary(r)) {
      chains[chains.length - 1]!.boundary = j;
      chains.push({ records: [] });
      const lp = r.logicalParentUuid;
      const logical = typeof lp === "string" ? byUuid.get(lp) : undefined;
      j = logical !== undefined && logical < j ? logical : newestLeaf(j);
      continue;
    }
    chains[chains.length - 1]!.records.push(j);
    j = parentOf(j);
  }
  chains.reverse();
  const segments: Segment[] = chains.map((c) => ({ boundary: c.boundary, records: c.records.reverse() }));

  // Parallel tool calls: recover siblings within each segment's line range (not across a
  // boundary: a compaction's copies keep old message ids and must not pull pre-compaction records in).
  const out: Segment[] = [];
  for (let k = 0; k < segments.length; k++) {
    const seg = segments[k]!;
    const lo = seg.boundary ?? -1;
    const hi = segments[k + 1]?.boundary ?? lines.length;
    const inChain = new Set(seg.records);
    const ids = new Set<string>();
    for (const i of seg.records) {
      const r = recs[i]!;
      const id = r.type === "assistant" ? messageId(r) : undefined;
      if (id) ids.add(id);
    }
    const added: number[] = [];
    const callIds = new Set<string>();
    if (ids.size > 0) {
      for (let i = lo + 1; i < hi; i++) {
        const r = recs[i];
        if (r?.type !== "assistant") continue;
        const id = messageId(r);
        if (id === undefined || !ids.has(id)) continue;
        if (!inChain.has(i)) added.push(i);
        const c = blocksOf(r);
        if (Array.isArray(c)) for (const b of c) if (b.type === "tool_use" && typeof b.id === "string") callIds.add(b.id);
      }
      for (let i = lo + 1; i < hi; i++) {
        const r = recs[i];
        if (r?.type !== "user" || inChain.has(i)) continue;
        const c = blocksOf(r);
        if (Array.isArray(c) && c.some((b) => b.type === "tool_result" && typeof b.tool_use_id === "string" && callIds.has(b.tool_use_id))) added.push(i);
      }
    }
    out.push({ boundary: seg.boundary, records: orderRecords(recs, byUuid, [...seg.records, ...added]) });
  }
  const parent = recs[top]!.parentUuid;
  const brokenAt = typeof parent === "string" && !byUuid.has(parent) ? { record: top, parent } : undefined;
  return brokenAt === undefined ? { segments: out, leaf } : { segments: out, leaf, brokenAt };
};
