// The thinking Claude Code's count of the context holds, read from the messages it builds its next
// request from (`$.session.messages({ as: "api" })`, blocks intact). No row shows thinking, and
// Claude Code rebuilds every assistant row bc hands back without it: after bc's compaction the
// thinking of the compacted history is gone, so it is no part of what the budget must hold.
// Runs inside Claude Code's hooks worker: no Bun, no Node, no bare package on this path.
import { estimateTextTokens } from "../../engine/estimate.ts";

/** The thinking the count holds, or why it is not known (then the whole count stands, as before). */
export type ThinkingCount = { readonly tokens: number } | { readonly problem: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Estimated tokens of the thinking in the messages Claude Code's count (the last response's input
 * side) was taken over: the thinking blocks of every assistant message but the last, which is that
 * response's own answer. Redacted thinking and signatures are not counted (their size in tokens is
 * not known), and a thinking Claude Code shows summarized counts as its summary: the figure errs
 * low, and thinking counted low only leaves the budget as tight as it was without it.
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
  for (const [i, m] of (messages as { role: string; content: unknown[] }[]).entries()) {
    if (m.role !== "assistant" || i === last) continue;
    for (const b of m.content) {
      if (!isObject(b) || b.type !== "thinking") continue;
      if (typeof b.thinking !== "string") return { problem: `a thinking block of Claude Code's message ${i} has no text` };
      tokens += estimateTextTokens(b.thinking);
    }
  }
  return { tokens };
};
