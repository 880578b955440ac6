// Token estimates: the model's unit of text is about four characters of English.
// One estimate everywhere (plans, logs, eval, fork token_count) so the figures agree.

export const CHARS_PER_TOKEN = 4;

export const estimateTokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

export const estimateTextTokens = (text: string): number => estimateTokens(text.length);
