// Tiny hand-made sessions for the eval tests: a few lines per message, answers computable by hand.
import type { Message, Session } from "../../src/engine/types.ts";

export const prompt = (text: string): Message => ({ role: "user", kind: "prompt", text, toolCalls: [], toolResults: [] });

export const reply = (text: string): Message => ({ role: "assistant", kind: "reply", text, toolCalls: [], toolResults: [] });

export const call = (id: string, name: string, input: Record<string, unknown>, text = ""): Message => ({
  role: "assistant",
  kind: "reply",
  text,
  toolCalls: [{ id, name, input, inputText: JSON.stringify(input) }],
  toolResults: [],
});

export const result = (id: string, text: string, opts: { isError?: boolean; images?: number } = {}): Message => ({
  role: "user",
  kind: "tool",
  text: "",
  toolCalls: [],
  toolResults: [{ callId: id, text, isError: opts.isError ?? false, images: opts.images ?? 0 }],
});

/** a call and its result */
export const pair = (id: string, name: string, input: Record<string, unknown>, text: string, opts: { isError?: boolean } = {}): Message[] => [
  call(id, name, input),
  result(id, text, opts),
];

export const session = (messages: readonly Message[], id = "s1", host: "claude" | "codex" = "claude"): Session => ({
  host,
  id,
  messages,
});

/** n filler replies (no tokens) to move results out of the pinned tail */
export const filler = (n: number): Message[] => Array.from({ length: n }, () => reply("ok"));
