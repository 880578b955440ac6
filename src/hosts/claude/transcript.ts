// A Claude Code transcript as a LoadedSession: its main conversation (or a subagent's), the
// host's own compactions, the versions that wrote it, and every call left without its result.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Message } from "../../engine/types.ts";
import type { JsonlLine } from "../../util/jsonl.ts";
import type { HostCompaction, LoadedSession } from "../types.ts";
import { type Segment, isMessageRecord, messageOf, walkConversation } from "./conversation.ts";
import { isObject } from "../../util/json.ts";
import { type ClaudeRecord, isClaudeRecord } from "../record-kind.ts";
import { customTitleOf } from "./titles.ts";
import { type Transcript, readTranscript, str } from "./transcript-format.ts";

export interface ClaudeSession extends LoadedSession {
  /** the agent id for a sidechain/subagent conversation */
  readonly agentId?: string;
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

/**
 * The oldest record the conversation reaches names a parent no record of the file holds (a record
 * lost or cut out): the message records before it are not part of the conversation Claude Code
 * loads, and bc leaves them out too. Said as a problem of that record's line.
 */
const brokenChain = (
  t: Transcript,
  select: (rec: ClaudeRecord) => boolean,
  segments: readonly Segment[],
  at: { readonly record: number; readonly parent: string },
): string => {
  const read = new Set(segments.flatMap((s) => s.records));
  let left = 0;
  for (let i = 0; i < at.record; i++) {
    const v = t.lines[i]!.value;
    if (isClaudeRecord(v) && select(v) && isMessageRecord(v) && !read.has(i)) left++;
  }
  const what =
    left === 0
      ? "no earlier message is left out"
      : `the ${left === 1 ? "message record" : `${left} message records`} before it ${left === 1 ? "is" : "are"} left out, as Claude Code leaves ${left === 1 ? "it" : "them"} out`;
  return `${t.path}:${t.lines[at.record]!.lineNo}: its parentUuid ${at.parent} names no record in the file: the conversation is read from here (${what})`;
};

/** Build one LoadedSession from the records `select` picks. */
export const loadConversation = (t: Transcript, select: (rec: ClaudeRecord) => boolean, ids: { id: string; agentId?: string }): ClaudeSession => {
  const { segments, brokenAt } = walkConversation(t, select);
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
    malformed: brokenAt === undefined ? t.malformed : [...t.malformed, brokenChain(t, select, segments, brokenAt)],
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

const hasMainMessages = (t: Transcript): boolean => t.lines.some((l) => isClaudeRecord(l.value) && isMessageRecord(l.value) && isMain(l.value));

/** The session's name: the last custom-title record (Claude Code writes one per naming and per resume). */
const titleOf = (t: Transcript): string | undefined => {
  for (let i = t.lines.length - 1; i >= 0; i--) {
    const title = customTitleOf(t.lines[i]!.value);
    if (title !== undefined) return title;
  }
  return undefined;
};

/** The transcript's main conversation (for a subagent file, whose records are all sidechain: that agent's). */
export const loadTranscript = (t: Transcript): ClaudeSession => {
  if (hasMainMessages(t)) {
    const name = titleOf(t);
    const main = loadConversation(t, isMain, { id: sessionIdOf(t, isMain) });
    return name === undefined ? main : { ...main, name };
  }
  const agent = sidechainAgents(t)[0];
  const id = sessionIdOf(t, () => true);
  return loadConversation(t, () => true, agent ? { id: `${id}/agent-${agent}`, agentId: agent } : { id });
};

export const loadClaudeTranscript = (path: string): ClaudeSession => loadTranscript(readTranscript(path));

/**
 * Subagent files Claude Code writes beside a session: `<project>/<sessionId>/subagents/agent-*.jsonl`.
 * A folder that cannot be listed gives none, and `onProblem` says why.
 */
export const subagentFiles = (path: string, onProblem?: (problem: string) => void): string[] => {
  const dir = join(dirname(path), basename(path).replace(/\.jsonl$/, ""), "subagents");
  try {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
    return readdirSync(dir)
      .filter((f) => f.startsWith("agent-") && f.endsWith(".jsonl"))
      .sort()
      .map((f) => join(dir, f));
  } catch (e) {
    onProblem?.(`${dir}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); its subagents are left out`);
    return [];
  }
};

/**
 * The main conversation first, then each sidechain in the file and each subagent file, as their
 * own sessions. A subagent file that cannot be read is left out, and `onProblem` says why.
 */
export const loadClaudeTranscripts = (path: string, onProblem: (problem: string) => void): ClaudeSession[] => {
  const t = readTranscript(path);
  const sessions: ClaudeSession[] = [loadTranscript(t)];
  if (hasMainMessages(t)) {
    for (const agent of sidechainAgents(t)) {
      const select = (r: ClaudeRecord): boolean => r.isSidechain === true && (str(r.agentId) ?? "") === agent;
      const base = sessionIdOf(t, isMain);
      sessions.push(loadConversation(t, select, { id: `${base}/agent-${agent || "sidechain"}`, agentId: agent || undefined }));
    }
  }
  for (const f of subagentFiles(path, onProblem)) {
    try {
      sessions.push(loadClaudeTranscript(f));
    } catch (e) {
      onProblem(`${(e as Error).message.split("\n")[0]}; this subagent is left out`);
    }
  }
  return sessions;
};
