// The plugin's decision log: one JSON line per compaction, in
// <claude config dir>/better-compaction/logs/<session id>.jsonl. The hook writes it through $.fs
// (read the file, append a line, write it back: $.fs has no append), so this file is pure:
// no Bun, no Node, no bare package (it is bundled into the hooks module).
import type { Action, RuleId } from "../../engine/types.ts";
import { tokenCount } from "../../util/format.ts";

export const LOG_DIR_NAME = "better-compaction";

/** $.fs reads and writes at most 4 MiB; a log is trimmed from its oldest lines well before that. */
export const MAX_LOG_BYTES = 3 * 1024 * 1024;

export type Outcome = "compacted" | "skipped" | "handed-over";

export interface ResultDecision {
  readonly callId: string;
  readonly tool: string;
  readonly action: Action;
  readonly rule: RuleId;
  readonly reason: string;
}

export interface DecisionRecord {
  /** format version */
  readonly v: 1;
  /** ISO time the compaction began */
  readonly at: string;
  readonly sessionId: string;
  readonly agentId?: string;
  readonly trigger: string;
  readonly outcome: Outcome;
  /** one line: why this outcome */
  readonly reason: string;
  readonly rowsIn: number;
  readonly rowsOut: number;
  /** estimated tokens of the history before and after (after = before when nothing was installed) */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** points of the context window freed, when the window is known: the rows' tokens cut, and thinkingTokens */
  readonly freedPercent?: number;
  readonly window?: number;
  /** the escalation budget given to the engine, when the window is known: compactAtPercent of it, less unseenTokens */
  readonly budgetTokens?: number;
  /**
   * what the context holds beyond the rows and keeps after bc's answer (system prompt, tool
   * definitions, memory, attachments, keptThinkingTokens), by Claude Code's count less bc's
   * estimate and less thinkingTokens, plus the loop's last answer's thinking, which the count does
   * not hold; without thinkingTokens, all the thinking in the count
   */
  readonly unseenTokens?: number;
  /** the thinking in Claude Code's count, which bc's answer drops: not counted against the budget */
  readonly thinkingTokens?: number;
  /** the open tool loop's thinking, which stays with the rows bc hands back as they are: counted against the budget */
  readonly keptThinkingTokens?: number;
  /** why the thinking could not be told from the rest of Claude Code's count (then it was counted) */
  readonly thinkingProblem?: string;
  /** whether the engine cut beyond the rules to reach the budget */
  readonly escalated: boolean;
  /** which need weights ranked the escalation: the binary's own, or the user's (bc calibrate --write) */
  readonly needWeights?: "shipped" | "user";
  /** why the user's weights file, there, was not used (the shipped weights were) */
  readonly needWeightsProblem?: string;
  /** results kept whole whose images or documents did not carry over (Claude Code rebuilds a result from its text): each says so after its text */
  readonly blocksNoted?: number;
  /** milliseconds of the hook's own work (rows in to rows out) */
  readonly ms: number;
  readonly results: readonly ResultDecision[];
}

/** A transcript's place below `<claude dir>`: `projects/<project>/<session>.jsonl`, or a subagent's `projects/<project>/<session>/subagents/<agent>.jsonl`. */
const TRANSCRIPT_PLACE = /^(.+)\/projects\/[^/]+\/(?:[^/]+\/subagents\/)?[^/]+$/;

/**
 * `<claude dir>` from a transcript path, read from its end: a project folder may itself be named
 * `projects` ($CLAUDE_CODE_PROJECT_DIR_NAME), and the Claude folder may live under a `projects`
 * folder of the user's.
 */
export const claudeDirOf = (transcriptPath: string): string | undefined => {
  const p = transcriptPath.replace(/\\/g, "/");
  const m = TRANSCRIPT_PLACE.exec(p);
  if (m !== null) return m[1];
  const i = p.lastIndexOf("/projects/");
  return i > 0 ? p.slice(0, i) : undefined;
};

const safeName = (sessionId: string): string => sessionId.replace(/[^A-Za-z0-9._-]/g, "_") || "unknown";

export const logPathFor = (claudeDir: string, sessionId: string): string => `${claudeDir}/${LOG_DIR_NAME}/logs/${safeName(sessionId)}.jsonl`;

/** The user's need weights (bc calibrate --write), beside the logs. */
export const needWeightsPathFor = (claudeDir: string): string => `${claudeDir}/${LOG_DIR_NAME}/need-weights.json`;

const byteLength = (s: string): number => new TextEncoder().encode(s).length;

/** The log's new text: `existing` plus one line, oldest lines dropped to stay under `maxBytes`. */
export const appendRecord = (existing: string, record: DecisionRecord, maxBytes = MAX_LOG_BYTES): string => {
  const line = `${JSON.stringify(record)}\n`;
  const text = existing === "" || existing.endsWith("\n") ? existing + line : `${existing}\n${line}`;
  if (byteLength(text) <= maxBytes) return text;
  const lines = text.split("\n").filter((l) => l !== "");
  let size = lines.reduce((n, l) => n + byteLength(l) + 1, 0);
  while (lines.length > 1 && size > maxBytes) size -= byteLength(lines.shift()!) + 1;
  return `${lines.join("\n")}\n`;
};

/** A record as people read it: a heading line, then one line per result that was not kept. */
export const formatRecord = (r: DecisionRecord, opts: { readonly allResults?: boolean } = {}): string => {
  // a skipped or handed-over compaction changed nothing: its figures are the plan's, not what happened
  const applied = r.outcome === "compacted";
  const freed =
    r.freedPercent === undefined
      ? ""
      : applied
        ? `, ${r.freedPercent.toFixed(1)} points of the window freed`
        : `, would have freed ${r.freedPercent.toFixed(1)} points of the window`;
  const counts = { keep: 0, truncate: 0, drop: 0 } as Record<Action, number>;
  for (const d of r.results) counts[d.action]++;
  const lines = [
    `${r.at}  ${r.trigger}${r.agentId ? ` (subagent ${r.agentId})` : ""}  ${r.outcome}: ${r.reason}`,
    `  rows ${r.rowsIn} -> ${r.rowsOut}, ~${tokenCount(r.tokensBefore)} -> ~${tokenCount(r.tokensAfter)} tokens${freed}${r.escalated ? ", escalated" : ""}, ${r.ms.toFixed(1)} ms`,
    ...(r.budgetTokens === undefined
      ? []
      : [
          `  budget ~${tokenCount(r.budgetTokens)} tokens for the rows${r.unseenTokens === undefined ? "" : ` (the window's share less ~${tokenCount(r.unseenTokens)} the rows do not show: system prompt, tools${r.thinkingTokens === undefined ? ", thinking" : r.keptThinkingTokens === undefined ? "" : ", the open tool loop's thinking"})`}`,
          ...(r.thinkingTokens === undefined
            ? []
            : [`  thinking ~${tokenCount(r.thinkingTokens)} tokens not counted: Claude Code drops it with the rows bc rewrites`]),
          ...(r.keptThinkingTokens === undefined
            ? []
            : [`  thinking ~${tokenCount(r.keptThinkingTokens)} tokens counted: the open tool loop's, which stays with the rows bc hands back as they are`]),
        ]),
    ...(r.thinkingProblem === undefined ? [] : [`  thinking counted against the budget: ${r.thinkingProblem}`]),
    ...(r.needWeightsProblem === undefined ? [] : [`  need weights: shipped; yours not used: ${r.needWeightsProblem}`]),
    `  results${applied ? "" : " as planned, not applied"}: ${counts.keep} kept, ${counts.truncate} truncated, ${counts.drop} dropped`,
    ...(r.blocksNoted === undefined || r.blocksNoted === 0
      ? []
      : [
          `  ${r.blocksNoted === 1 ? "1 result kept whole holds images or documents" : `${r.blocksNoted} results kept whole hold images or documents`} that ${applied ? "did" : "would"} not carry over: each says so after its text`,
        ]),
  ];
  for (const d of r.results) {
    if (d.action === "keep" && !opts.allResults) continue;
    lines.push(`    ${d.action.padEnd(8)} ${d.tool.padEnd(12)} ${d.rule.padEnd(16)} ${d.callId}  ${d.reason}`);
  }
  return lines.join("\n");
};
