// `bc recall --list`: what bc removed in a session. Every tool output whose text in the file ends
// in one of bc's notes, with its tool, what was removed, whether the file still holds the
// original (so `bc recall` can print it), and the rule that removed it where that is known (the
// Claude Code plugin's decision log; for a Codex thread bc compacted live, its live log; for a
// Codex fork, the engine run again as the fork ran it).
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import type { Host, Options, Plan, Session } from "../../engine/types.ts";
import { readNote } from "../../engine/notes.ts";
import { parseLog } from "../claude/decision-log-read.ts";
import { claudeDirOf, logPathFor } from "../claude/decision-log.ts";
import { apply } from "../../engine/apply.ts";
import { estimateSessionTokens, estimateTextTokens } from "../../engine/estimate.ts";
import { tokensAfter } from "../../engine/escalate.ts";
import { plan } from "../../engine/plan.ts";
import { decodeUtf8, type JsonlFile, parseJsonl, readFileBytes } from "../../util/jsonl.ts";
import { type CompactionPoint, type HistoryItem, rebuildHistory } from "../codex/history.ts";
import { isOutputItem } from "../codex/items.ts";
import { readRollout, type Rollout } from "../codex/rollout.ts";
import { historyToMessages } from "../codex/session-map.ts";
import { homeOfRollout, threadIdInName } from "../codex/rollout-files.ts";
import { logPath, parseLiveLog } from "../codex/live/state.ts";
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

/** The rule and reason of each cut, by call id, as a log records them. */
type Rules = Map<string, { rule: string; reason: string }>;

/** Rules by call id from the Claude Code plugin's decision log (the newest cut wins). */
const claudeRules = (path: string, sessionId: string | undefined): Rules => {
  const rules: Rules = new Map();
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

/** How many budgets codexRules tries, each less what the fork kept whole of the last plan's cuts. */
const REPLAN_TRIES = 4;

/** Tokens a plan frees on results that are no output item, which a fork keeps as they are. */
const freedOnNoOutput = (session: Session, history: readonly HistoryItem[], p: Plan): number => {
  let freed = 0;
  for (const d of p.decisions) {
    const item = history[d.messageIndex]?.item;
    if (d.action === "keep" || item === undefined || isOutputItem(item)) continue;
    const text = session.messages[d.messageIndex]?.toolResults.find((r) => r.callId === d.callId)?.text ?? "";
    freed += estimateTextTokens(text) - tokensAfter(text, d, d.callId);
  }
  return freed;
};

/**
 * Rules by call id from bc's live decision log of a Codex thread ($CODEX_HOME/better-compaction/logs): what each
 * replacement bc applied cut (the newest cut wins). None where the rollout lies outside a Codex home.
 */
const liveRules = (path: string, sessionId: string | undefined): Rules => {
  const rules: Rules = new Map();
  const home = homeOfRollout(path);
  const thread = threadIdInName(basename(path)) ?? sessionId;
  if (home === undefined || thread === undefined) return rules;
  let text: string;
  try {
    text = readFileSync(logPath(home, thread), "utf8");
  } catch {
    return rules; // no log: the thread was never compacted live
  }
  for (const r of parseLiveLog(text).records)
    if (r.outcome === "applied") for (const d of r.removed ?? []) rules.set(d.callId, { rule: d.rule, reason: d.reason });
  return rules;
};

interface Replanned {
  readonly rule: string;
  readonly reason: string;
  /** the text the run leaves in place of the output */
  readonly text: string;
}

/**
 * Rules for the notes of a Codex fork, which records none. The engine is run again over the
 * history each `compacted` record that first holds one of the notes replaced (the lines before
 * it), as codex-fork ran it: to the budget, in the engine's estimate, of the history that record
 * holds. A fork's plan meets its budget exactly (the room its last cut leaves goes to a longer
 * head), or, where it cannot, cuts all it may; without a budget, nothing more is cut than the
 * rules cut. So a run to that size cuts what the fork's did, the escalation's cuts too. A rule is
 * given only where that run writes the very note the fork holds, byte for byte.
 */
const codexRules = (
  path: string,
  read: { readonly source: Uint8Array; readonly file: JsonlFile },
  firstHeldAt: ReadonlyMap<string, number>,
  options: Partial<Options> | undefined,
): Map<string, Replanned> => {
  const rules = new Map<string, Replanned>();
  const lineNos = new Set(firstHeldAt.values());
  let rollout: Rollout;
  let compactions: readonly CompactionPoint[];
  try {
    rollout = readRollout(path, { runTogether: "skip", read });
    // one replay gives each record's history before it and after it
    compactions = rebuildHistory(rollout).compactions;
  } catch {
    return rules; // not a rollout bc can read: no rules
  }
  for (const { line, replaced: before, base: holds } of compactions) {
    const at = rollout.lines[line]!;
    if (!lineNos.has(at.lineNo)) continue;
    try {
      const session = { host: "codex" as const, id: "fork", messages: historyToMessages(before) };
      const heldText = new Map(historyToMessages(holds).flatMap((m) => m.toolResults.map((r) => [r.callId, r.text] as const)));
      // what the record's history comes to as the engine counts it
      let held = estimateSessionTokens(session).total;
      for (const m of session.messages)
        for (const r of m.toolResults) {
          const t = heldText.get(r.callId);
          if (t !== undefined) held -= estimateTextTokens(r.text) - estimateTextTokens(t);
        }
      // a result whose text is no output string (the tools a search found) the fork keeps whole
      // where its plan cut it: the budget was that much under what the fork holds
      let kept = 0;
      let p = plan(session, { ...options, budgetTokens: Math.max(0, held) });
      for (let i = 0; i < REPLAN_TRIES; i++) {
        const keptNow = freedOnNoOutput(session, before, p);
        if (keptNow === kept) break;
        kept = keptNow;
        p = plan(session, { ...options, budgetTokens: Math.max(0, held - kept) });
      }
      const after = apply(session, p);
      for (const d of p.decisions) {
        if (d.action === "keep") continue;
        const text = after[d.messageIndex]?.toolResults.find((r) => r.callId === d.callId)?.text;
        if (text !== undefined && firstHeldAt.get(d.callId) === at.lineNo) rules.set(d.callId, { rule: d.rule, reason: d.reason, text });
      }
    } catch {
      // not a history bc can plan: no rules from it
    }
  }
  return rules;
};

/**
 * What bc removed in one session file. `options`: the engine's, as codex-fork plans with them (the
 * need weights in use), for the rules of a Codex fork's notes. `otherFiles`: the thread's other
 * files, for a Codex thread that went on in a new file after a revert (a live compaction by bc):
 * the originals of its notes are in the earlier ones.
 */
export const removedIn = (path: string, host: Host, options?: Partial<Options>, otherFiles: readonly string[] = []): RemovedList => {
  // read and split once: a Codex fork's rules are planned from the same lines
  const source = readFileBytes(path);
  const file = parseJsonl(decodeUtf8(source), path);
  const tools = new Map<string, string>();
  const originals = new Map<string, number>();
  // of each note, the line that first holds it as it stands (an earlier pass's note, carried on)
  const notes = new Map<string, { kind: "removed" | "truncated"; chars: number; lineNo: number; firstLineNo: number; text: string }>();
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
      const before = notes.get(s.id);
      const firstLineNo = before !== undefined && before.text === s.text ? before.firstLineNo : line.lineNo;
      if (note) notes.set(s.id, { kind: note.kind, chars: note.chars, lineNo: line.lineNo, firstLineNo, text: s.text });
    }
  }
  for (const other of otherFiles) {
    if ([...notes.keys()].every((id) => originals.has(id))) break;
    let lines: JsonlFile["lines"];
    try {
      lines = parseJsonl(decodeUtf8(readFileBytes(other)), other).lines;
    } catch {
      continue; // a file that cannot be read holds no original bc can print
    }
    for (const line of lines)
      for (const s of sightingsIn(line.value, host))
        if (s.kind === "output" && !s.cut && notes.has(s.id) && !originals.has(s.id)) originals.set(s.id, s.text.length);
  }
  const recorded = host === "claude" ? claudeRules(path, sessionId) : liveRules(path, sessionId);
  const replanned =
    host === "codex" ? codexRules(path, { source, file }, new Map([...notes].map(([id, n]) => [id, n.firstLineNo])), options) : new Map<string, Replanned>();
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
