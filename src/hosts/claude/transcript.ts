// Claude Code transcript JSONL (`~/.claude/projects/<project>/<session>.jsonl`) <-> the session model.
// Every line keeps its raw text so an unchanged transcript writes back byte for byte; records are
// read loosely (plain property checks, no schema per line) so new record types and fields pass through.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Message, MessageKind, ToolCall, ToolResult } from "../../engine/types.ts";
import { BcError } from "../../util/errors.ts";
import { joinJsonl, parseJsonl, readTextFile, type JsonlFile, type JsonlLine } from "../../util/jsonl.ts";
import { isCodexRecord } from "../codex/rollout.ts";
import type { HostCompaction, LoadedSession } from "../types.ts";

const EXPECTED = "a Claude Code transcript (~/.claude/projects/<project>/<session>.jsonl)";

/** A parsed transcript: the file's lines, each with its raw text and (if it parsed) its record. */
export type Transcript = JsonlFile;

/** The fields bc reads; everything else is kept in the raw line untouched. */
export interface ClaudeRecord {
  readonly type?: unknown;
  readonly subtype?: unknown;
  readonly uuid?: unknown;
  readonly parentUuid?: unknown;
  readonly logicalParentUuid?: unknown;
  readonly isSidechain?: unknown;
  readonly isMeta?: unknown;
  readonly isVirtual?: unknown;
  readonly isCompactSummary?: unknown;
  readonly sessionId?: unknown;
  readonly agentId?: unknown;
  readonly version?: unknown;
  readonly timestamp?: unknown;
  readonly leafUuid?: unknown;
  readonly compactMetadata?: unknown;
  readonly message?: unknown;
}

interface Block {
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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Record types Claude Code writes (2.0.x–2.1.x); used only to recognise the format. */
const CLAUDE_TYPES = new Set([
  "user",
  "assistant",
  "system",
  "attachment",
  "progress",
  "summary",
  "file-history-snapshot",
  "queue-operation",
  "last-prompt",
  "ai-title",
  "custom-title",
  "agent-name",
  "mode",
  "permission-mode",
  "pr-link",
  "tools-used",
  "cost-state",
  "atis-latch",
  "api-request",
  "api-request-shape",
  "api-request-blob",
]);

/** Whether a parsed line looks like a Claude Code transcript record. */
export const isClaudeRecord = (v: unknown): v is ClaudeRecord => {
  if (!isObject(v) || typeof v.type !== "string") return false;
  if (isCodexRecord(v)) return false;
  return CLAUDE_TYPES.has(v.type) || typeof v.uuid === "string" || typeof v.sessionId === "string";
};


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
  throw new BcError("bad-input", `${file.path}: no Claude Code records (user, assistant, system, ...) in ${parsed} JSON line(s)`, `expected ${EXPECTED}`);
};

/** Split and parse transcript text; malformed lines are reported (`file:line: why`) and kept raw. */
export const parseTranscript = (text: string, path: string): Transcript => {
  if (text.length === 0) throw new BcError("bad-input", `${path}: the file is empty`, `expected ${EXPECTED}`);
  const file = parseJsonl(text, path);
  checkFormat(file);
  return file;
};

export const readTranscript = (path: string): Transcript => parseTranscript(readTextFile(path, EXPECTED), path);

/** The file text again: identical bytes for an unchanged transcript. */
export const serializeTranscript = (t: Transcript): string => joinJsonl(t.lines.map((l) => l.raw), t.endsWithNewline);

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

/** A tool_result's text: the string content, or its text blocks joined; other blocks are counted. */
export const toolResultText = (content: unknown): { text: string; images: number } => {
  if (typeof content === "string") return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: "", images: 0 };
  const parts: string[] = [];
  let images = 0;
  for (const b of content) {
    if (isObject(b) && b.type === "text" && typeof b.text === "string") parts.push(b.text);
    else images++;
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
    return {
      role: "assistant",
      kind: reasoning ? "reasoning" : "reply",
      text: reasoning ? thinking.join("\n") : texts.join("\n"),
      toolCalls,
      toolResults: [],
      source,
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
const isMessageRecord = (rec: ClaudeRecord): boolean => rec.type === "user" || rec.type === "assistant";

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
  for (const i of sorted) if (!done.has(i)) (done.add(i), out.push(i));
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
  while (j !== undefined && !visited.has(j)) {
    visited.add(j);
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
        if (!r || r.type !== "assistant") continue;
        const id = messageId(r);
        if (id === undefined || !ids.has(id)) continue;
        if (!inChain.has(i)) added.push(i);
        const c = blocksOf(r);
        if (Array.isArray(c)) for (const b of c) if (b.type === "tool_use" && typeof b.id === "string") callIds.add(b.id);
      }
      for (let i = lo + 1; i < hi; i++) {
        const r = recs[i];
        if (!r || r.type !== "user" || inChain.has(i)) continue;
        const c = blocksOf(r);
        if (Array.isArray(c) && c.some((b) => b.type === "tool_result" && typeof b.tool_use_id === "string" && callIds.has(b.tool_use_id)))
          added.push(i);
      }
    }
    out.push({ boundary: seg.boundary, records: orderRecords(recs, byUuid, [...seg.records, ...added]) });
  }
  return { segments: out, leaf };
};

// ---------------------------------------------------------------------------------------------
// LoadedSession

export interface ClaudeSession extends LoadedSession {
  /** the agent id for a sidechain/subagent conversation */
  readonly agentId?: string;
  /** `file:line: ...` for a tool call without its result or a result without its call */
  readonly warnings: readonly string[];
  /** record indices of each segment, for writers */
  readonly segments: readonly Segment[];
}

/** A compaction's copies are written together with its boundary; later records are new conversation. */
const KEPT_WINDOW_MS = 1_000;

const timeOf = (rec: ClaudeRecord | undefined): number => {
  const t = rec && typeof rec.timestamp === "string" ? Date.parse(rec.timestamp) : NaN;
  return Number.isNaN(t) ? NaN : t;
};

const recordAt = (t: Transcript, i: number): ClaudeRecord => t.lines[i]!.value as ClaudeRecord;

const sessionIdOf = (t: Transcript, select: (r: ClaudeRecord) => boolean): string => {
  for (const l of t.lines) if (isClaudeRecord(l.value) && select(l.value) && typeof l.value.sessionId === "string") return l.value.sessionId;
  return basename(t.path).replace(/\.jsonl$/, "");
};

const versionsOf = (t: Transcript, select: (r: ClaudeRecord) => boolean): string[] => {
  const seen = new Set<string>();
  for (const l of t.lines) if (isClaudeRecord(l.value) && select(l.value) && typeof l.value.version === "string") seen.add(l.value.version);
  return [...seen];
};

/** Check every tool_result has its tool_use before it, and every tool_use gets a result. */
const pairingWarnings = (path: string, lines: readonly JsonlLine[], messages: readonly Message[]): string[] => {
  const warnings: string[] = [];
  const open = new Map<string, { name: string; record: number }>();
  const answered = new Set<string>();
  const where = (m: Message): string => `${path}:${lines[m.source?.record ?? 0]?.lineNo ?? "?"}`;
  for (const m of messages) {
    for (const c of m.toolCalls) open.set(c.id, { name: c.name, record: m.source?.record ?? 0 });
    for (const r of m.toolResults) {
      if (open.delete(r.callId)) answered.add(r.callId);
      else if (answered.has(r.callId)) warnings.push(`${where(m)}: a second tool_result for ${r.callId}`);
      else warnings.push(`${where(m)}: tool_result ${r.callId} has no tool_use before it`);
    }
  }
  for (const [id, c] of open) warnings.push(`${path}:${lines[c.record]?.lineNo ?? "?"}: tool_use ${id} (${c.name}) has no tool_result`);
  return warnings;
};

/** Build one LoadedSession from the records `select` picks. */
export const loadConversation = (
  t: Transcript,
  select: (rec: ClaudeRecord) => boolean,
  ids: { id: string; agentId?: string },
): ClaudeSession => {
  const { segments } = walkConversation(t, select);
  const timeline: Message[] = [];
  const compactions: HostCompaction[] = [];
  let live: Message[] = [];
  let from = 0;
  for (let k = 0; k < segments.length; k++) {
    const seg = segments[k]!;
    const msgs: Message[] = [];
    const kept: Message[] = [];
    const boundary = seg.boundary === undefined ? undefined : recordAt(t, seg.boundary);
    const boundaryTime = timeOf(boundary);
    let copying = boundary !== undefined;
    for (const i of seg.records) {
      const rec = recordAt(t, i);
      const m = messageOf(rec, i);
      if (!m) continue;
      msgs.push(m);
      if (m.kind === "summary") {
        kept.push(m);
        continue;
      }
      // What the compaction wrote right after its boundary (hook replacements, preserved copies)
      // stands in for old history: it is kept, not new timeline.
      if (copying && timeOf(rec) - boundaryTime <= KEPT_WINDOW_MS) {
        kept.push(m);
        continue;
      }
      copying = false;
      timeline.push(m);
    }
    if (boundary !== undefined) {
      const at = timeline.length - (msgs.length - kept.length);
      const meta = isObject(boundary.compactMetadata) ? boundary.compactMetadata : undefined;
      const trigger = str(meta?.trigger);
      compactions.push({ from, at, kept, ...(trigger === undefined ? {} : { trigger }) });
      from = at;
    }
    live = msgs;
  }
  // Pairing is checked on everything that happened (host summaries and copies left out).
  const warnings = pairingWarnings(t.path, t.lines, timeline);
  return {
    host: "claude",
    path: t.path,
    id: ids.id,
    ...(ids.agentId === undefined ? {} : { agentId: ids.agentId }),
    timeline: { host: "claude", id: ids.id, messages: timeline },
    live: { host: "claude", id: ids.id, messages: live },
    compactions,
    malformed: t.malformed,
    versions: versionsOf(t, select),
    warnings,
    segments,
  };
};

const isMain = (r: ClaudeRecord): boolean => r.isSidechain !== true;

/** Sidechain agent ids in a transcript, in order of first appearance ("" for sidechain records with none). */
const sidechainAgents = (t: Transcript): string[] => {
  const seen = new Set<string>();
  for (const l of t.lines) {
    const v = l.value;
    if (isClaudeRecord(v) && v.isSidechain === true && isMessageRecord(v)) seen.add(str(v.agentId) ?? "");
  }
  return [...seen];
};

const hasMainMessages = (t: Transcript): boolean =>
  t.lines.some((l) => isClaudeRecord(l.value) && isMessageRecord(l.value) && isMain(l.value));

/** The transcript's main conversation (for a subagent file, whose records are all sidechain: that agent's). */
export const loadTranscript = (t: Transcript): ClaudeSession => {
  if (hasMainMessages(t)) return loadConversation(t, isMain, { id: sessionIdOf(t, isMain) });
  const agent = sidechainAgents(t)[0];
  const id = sessionIdOf(t, () => true);
  return loadConversation(t, () => true, agent ? { id: `${id}/agent-${agent}`, agentId: agent } : { id });
};

export const loadClaudeTranscript = (path: string): ClaudeSession => loadTranscript(readTranscript(path));

/** Subagent files Claude Code writes beside a session: `<project>/<sessionId>/subagents/agent-*.jsonl`. */
export const subagentFiles = (path: string): string[] => {
  const dir = join(dirname(path), basename(path).replace(/\.jsonl$/, ""), "subagents");
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith("agent-") && f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(dir, f));
};

/** The main conversation first, then each sidechain in the file and each subagent file, as their own sessions. */
export const loadClaudeTranscripts = (path: string): ClaudeSession[] => {
  const t = readTranscript(path);
  const main = loadTranscript(t);
  const sessions: ClaudeSession[] = [main];
  if (hasMainMessages(t)) {
    for (const agent of sidechainAgents(t)) {
      const select = (r: ClaudeRecord): boolean => r.isSidechain === true && (str(r.agentId) ?? "") === agent;
      const base = sessionIdOf(t, isMain);
      sessions.push(loadConversation(t, select, { id: `${base}/agent-${agent || "sidechain"}`, agentId: agent || undefined }));
    }
  }
  for (const f of subagentFiles(path)) sessions.push(loadClaudeTranscript(f));
  return sessions;
};

// ---------------------------------------------------------------------------------------------
// Writing tool results back

/**
 * The transcript text with changed tool results written in: `messages` are the transcript's own
 * messages (as loaded, same order and ids) with some `toolResults[].text` changed. Only records
 * holding a changed result are re-serialized (the tool_result's `content` becomes the new text);
 * every other line stays byte-identical.
 */
export const rewriteTranscript = (t: Transcript, messages: readonly Message[]): string => {
  const raws = t.lines.map((l) => l.raw);
  for (const m of messages) {
    if (m.toolResults.length === 0 || m.source?.host !== "claude") continue;
    const i = m.source.record;
    const line = t.lines[i];
    const rec = line?.value;
    if (!line || !isClaudeRecord(rec) || !isObject(rec.message) || !Array.isArray(rec.message.content))
      throw new BcError("validation", `${t.path}: record ${i + 1} holds no tool results to rewrite`);
    const content = rec.message.content as unknown[];
    let changed = false;
    const next = content.map((b) => {
      if (!isObject(b) || b.type !== "tool_result") return b;
      const r = m.toolResults.find((x) => x.callId === b.tool_use_id);
      if (!r || toolResultText(b.content).text === r.text) return b;
      changed = true;
      return { ...b, content: r.text };
    });
    for (const r of m.toolResults)
      if (!content.some((b) => isObject(b) && b.type === "tool_result" && b.tool_use_id === r.callId))
        throw new BcError("validation", `${t.path}:${line.lineNo}: no tool_result for ${r.callId} in this record`);
    if (!changed) continue;
    const json = JSON.stringify({ ...rec, message: { ...rec.message, content: next } });
    raws[i] = line.raw.endsWith("\r") ? json + "\r" : json;
  }
  return joinJsonl(raws, t.endsWithNewline);
};
