// Token estimates: the model's unit of text is about four characters of English.
// One estimate everywhere (plans, logs, eval, fork token_count) so the figures agree.

import type { Message } from "./types.ts";

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
