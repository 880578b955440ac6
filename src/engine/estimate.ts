// Token estimates: the model's unit of text is about four characters of English.
// One estimate everywhere (plans, logs, eval, fork token_count) so the figures agree.

import type { Message, Session } from "./types.ts";

export const CHARS_PER_TOKEN = 4;

export const estimateTokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

export const estimateTextTokens = (text: string): number => estimateTokens(text.length);

/** Estimated tokens of one message: everything (prose, call inputs, result texts) and tool output alone. */
export const estimateMessageTokens = (m: Message): { all: number; tool: number } => {
  let tool = 0;
  for (const r of m.toolResults) tool += estimateTextTokens(r.text);
  let all = estimateTextTokens(m.text) + tool;
  for (const c of m.toolCalls) all += estimateTextTokens(c.inputText);
  return { all, tool };
};

/** Estimated tokens of a whole history: everything, and tool output alone. */
export const estimateSessionTokens = (session: Session): { total: number; tool: number } => {
  let total = 0;
  let tool = 0;
  for (const m of session.messages) {
    const t = estimateMessageTokens(m);
    total += t.all;
    tool += t.tool;
  }
  return { total, tool };
};

/**
 * What a host's own count of its context holds beyond bc's estimate of the history it shows bc
 * (instructions, tool definitions, thinking): at most half of `share`, the budget it comes off, so
 * that a count that is stale or off cannot take the whole budget.
 */
export const beyondEstimate = (counted: number, estimated: number, share: number): number =>
  Math.min(Math.floor(share / 2), Math.max(0, Math.round(counted - estimated)));
