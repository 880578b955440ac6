// The thinking Claude Code's count of the context holds, read from the messages it builds its next
// request from (`$.session.messages({ as: "api" })`, blocks intact). No row shows thinking, and
// Claude Code rebuilds the assistant rows bc hands back without their handles without it: after
// bc's compaction, the thinking of the compacted history is gone but the open tool loop's, whose
// rows bc hands back as they are (rows.ts), so only that thinking is part of what the budget must
// hold. Each answer's thinking is told with the tool calls it made, by which the plugin knows it.
// Runs inside Claude Code's hooks worker: no Bun, no Node, no bare package on this path.
import { estimateTextTokens } from "../../engine/estimate.ts";
import { keptCallIds, type SessionRow } from "./rows.ts";

/** One assistant message's thinking: its estimate, the ids of the tool calls the message made, and whether Claude Code's count holds it. */
export interface AnswerThinking {
  readonly tokens: number;
  readonly callIds: readonly string[];
  readonly counted: boolean;
}

/** The thinking the count holds (`tokens`) and each answer's thinking (`answers`, those with any). */
export interface ThinkingRead {
  readonly tokens: number;
  readonly answers?: readonly AnswerThinking[];
}

/** The thinking read, or why it is not known (then the whole count stands, as before). */
export type ThinkingCount = ThinkingRead | { readonly problem: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Estimated tokens of the thinking in the messages Claude Code's count (the last response's input
 * side) was taken over: the thinking blocks of every assistant message but the last, which is that
 * response's own answer; and each assistant message's thinking, the last's included, with its tool
 * calls. Redacted thinking and signatures are not counted (their size in tokens is not known), and
 * a thinking Claude Code shows summarized counts as its summary: the figure errs low, and thinking
 * counted low only leaves the budget as tight as it was without it.
 */
export const thinkingInCount = (messages: unknown): ThinkingCount => {
  if (!Array.isArray(messages)) return { problem: `Claude Code's messages are ${isObject(messages) && "deny" in messages ? "denied" : "not a list"}` };
  let last = -1;
  for (const [i, m] of messages.entries()) {
    if (!isObject(m) || (m.role !== "user" && m.role !== "assistant") || !Array.isArray(m.content))
      return { problem: `Claude Code's message ${i} is not { role, content: [blocks] }` };
    if (m.role === "assistant") last = i;
  }
  let tokens = 0;
  const answers: AnswerThinking[] = [];
  for (const [i, m] of (messages as { role: string; content: unknown[] }[]).entries()) {
    if (m.role !== "assistant") continue;
    let thought = 0;
    const callIds: string[] = [];
    for (const b of m.content) {
      if (isObject(b) && b.type === "tool_use" && typeof b.id === "string") callIds.push(b.id);
      if (!isObject(b) || b.type !== "thinking") continue;
      if (typeof b.thinking !== "string") return { problem: `a thinking block of Claude Code's message ${i} has no text` };
      thought += estimateTextTokens(b.thinking);
    }
    if (i !== last) tokens += thought;
    if (thought > 0) answers.push({ tokens: thought, callIds, counted: i !== last });
  }
  return { tokens, answers };
};

/**
 * The tool calls of the last assistant message of Claude Code's messages (`as: "api"`): the answer
 * to the request Claude Code's count is of, as the API joins it. Its calls tell where that answer
 * begins among the rows (plugin.ts: rowsInCount), where its records stand between their results
 * (parallel calls). Undefined when the messages are not a list of { role, content: [blocks] }.
 */
export const lastAnswerCalls = (messages: unknown): string[] | undefined => {
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m: unknown = messages[i];
    if (!isObject(m) || !Array.isArray(m.content)) return undefined;
    if (m.role !== "assistant") continue;
    return m.content.flatMap((b: unknown) => (isObject(b) && b.type === "tool_use" && typeof b.id === "string" ? [b.id] : []));
  }
  return [];
};

/**
 * The thinking that stays after bc's answer over `rows`: the answers whose calls go back with their
 * rows' handles (rows.ts: keptCallIds, the open tool loop's). `counted` is what the count holds of
 * it (at most `thinking.tokens`), `after` what it does not hold yet (the loop's last answer's). The
 * loop's answers are told by their tool calls: one without a call, which Claude Code never sends
 * mid-loop, counts as dropped.
 */
export const thinkingThatStays = (thinking: ThinkingRead, rows: readonly SessionRow[]): { readonly counted: number; readonly after: number } => {
  const kept = keptCallIds(rows);
  let counted = 0;
  let after = 0;
  for (const a of thinking.answers ?? []) {
    if (!a.callIds.some((id) => kept.has(id))) continue;
    if (a.counted) counted += a.tokens;
    else after += a.tokens;
  }
  return { counted: Math.min(thinking.tokens, counted), after };
};
