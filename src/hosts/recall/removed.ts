// `bc recall --list`: what bc removed in a session. Every tool output whose text in the file ends
// in one of bc's notes, with its tool, what was removed, whether the file still holds the
// original (so `bc recall` can print it), and the rule that removed it where that was recorded
// (the Claude Code plugin's decision log).
import { existsSync, readFileSync } from "node:fs";
import type { Host } from "../../engine/types.ts";
import { readNote } from "../../engine/notes.ts";
import { parseLog } from "../claude/decision-log-read.ts";
import { claudeDirOf, logPathFor } from "../claude/decision-log.ts";
import { apply } from "../../engine/apply.ts";
import { plan } from "../../engine/plan.ts";
import { readTextFile, parseJsonl, type JsonlFile } from "../../util/jsonl.ts";
import { rebuildHistory } from "../codex/history.ts";
import { parseRollout } from "../codex/rollout.ts";
import { historyToMessages } from "../codex/session-map.ts";
import { sightingsIn } from "./records.ts";
import { isObject } from "../../util/json.ts";

export interface RemovedOutput {
  readonly id: string;
  readonly tool: string;
  /** removed: only the note is left; truncated: a head is kept */
  readonly kind: "removed" | "truncated";
  /** characters removed, as the note says */
  readonly charsRemoved: number;
  /** the original's length, when the file holds it */
  readonly originalChars?: number;
  /** the file still holds the original: `bc recall` prints it */
  readonly recallable: boolean;
  /** the rule that removed it, where recorded */
  readonly rule?: string;
  readonly reason?: string;
  /** 1-based line of the newest note */
  readonly lineNo: number;
}

export interface RemovedList {
  readonly path: string;
  readonly host: Host;
  readonly sessionId?: string;
  readonly removed: readonly RemovedOutput[];
}

/** Rules by call id from the Claude Code plugin's decision log (the newest cut wins). */
const claudeRules = (path: string, sessionId: string | undefined): Map<string, { rule: string; reason: string }> => {
  const rules = new Map<string, { rule: string; reason: string }>();
  const dir = claudeDirOf(path);
  if (dir === undefined || sessionId === undefined) return rules;
  const log = logPathFor(dir, sessionId);
  if (!existsSync(log)) return rules;
  let text: string;
  try {
    text = readFileSync(log, "utf8");
  } catch {
    return rules;
  }
  for (const r of parseLog(text).records) for (const d of r.results) if (d.action !== "keep") rules.set(d.callId, { rule: d.rule, reason: d.reason });
  return rules;
};

/**
 * Rules for a Codex fork, which records none: the engine is run again, at its defaults, over the
 * history the newest `compacted` record replaced (the source's lines before it). A rule is given
 * only where that run writes the very note the fork holds, byte for byte.
 */
const codexRules = (file: JsonlFile, path: string): Map<string, { rule: string; reason: string; text: string }> => {
  const rules = new Map<string, { rule: string; reason: string; text: string }>();
  let last = -1;
  file.lines.forEach((l, i) => {
    if (isObject(l.value) && l.value.type === "compacted") last = i;
  });
  if (last <= 0) return rules;
  try {
    const rollout = parseRollout(
      `${file.lines
        .slice(0, last)
        .map((l) => l.raw)
        .join("\n")}\n`,
      path,
    );
    const session = { host: "codex" as const, id: "fork", messages: historyToMessages(rebuildHistory(rollout).items) };
    const p = plan(session);
    const after = apply(session, p);
    for (const d of p.decisions) {
      if (d.action === "keep") continue;
      const text = after[d.messageIndex]?.toolResults.find((r) => r.callId === d.callId)?.text;
      if (text !== undefined) rules.set(d.callId, { rule: d.rule, reason: d.reason, text });
    }
  } catch {
    // not a history bc can plan: no rules
  }
  return rules;
};

/** What bc removed in one session file. */
export const removedIn = (path: string, host: Host): RemovedList => {
  const file = parseJsonl(readTextFile(path), path);
  const tools = new Map<string, string>();
  const originals = new Map<string, number>();
  const notes = new Map<string, { kind: "removed" | "truncated"; chars: number; lineNo: number; text: string }>();
  let sessionId: string | undefined;
  for (const line of file.lines) {
    const v = line.value;
    if (!isObject(v)) continue;
    if (sessionId === undefined) {
      if (host === "claude" && typeof v.sessionId === "string") sessionId = v.sessionId;
      if (host === "codex" && v.type === "session_meta" && isObject(v.payload) && typeof v.payload.id === "string") sessionId = v.payload.id;
    }
    for (const s of sightingsIn(v, host)) {
      if (s.kind === "call") {
        if (!tools.has(s.id)) tools.set(s.id, s.tool);
        continue;
      }
      if (!s.cut) {
        if (!originals.has(s.id)) originals.set(s.id, s.text.length);
        continue;
      }
      const note = readNote(s.text);
      if (note) notes.set(s.id, { kind: note.kind, chars: note.chars, lineNo: line.lineNo, text: s.text });
    }
  }
  const recorded = host === "claude" ? claudeRules(path, sessionId) : new Map<string, { rule: string; reason: string }>();
  const replanned = host === "codex" ? codexRules(file, path) : new Map<string, { rule: string; reason: string; text: string }>();
  const removed: RemovedOutput[] = [];
  for (const [id, n] of notes) {
    const original = originals.get(id);
    const again = replanned.get(id);
    const r = recorded.get(id) ?? (again !== undefined && again.text === n.text ? again : undefined);
    removed.push({
      id,
      tool: tools.get(id) ?? "?",
      kind: n.kind,
      charsRemoved: n.chars,
      ...(original === undefined ? {} : { originalChars: original }),
      recallable: original !== undefined,
      ...(r ? { rule: r.rule, reason: r.reason } : {}),
      lineNo: n.lineNo,
    });
  }
  return { path, host, ...(sessionId === undefined ? {} : { sessionId }), removed };
};
