// Small, readable sessions for rule tests: a prompt, calls with their results, replies.
// Builds plain session-model values; nothing of the engine is stubbed.
import { DEFAULT_OPTIONS, type Host, type Message, type Session, type ToolCall, type ToolResult } from "../../../src/engine/types.ts";

/** Tool results after one that take it out of the rules' "too recent to judge" windows (the current task's is the wider), with a margin. */
export const BEYOND_RECENT = Math.max(DEFAULT_OPTIONS.recentResults, DEFAULT_OPTIONS.taskRecentResults) + 2;

export interface CallOptions {
  readonly isError?: boolean;
  /** put the result in the same message as the call (Codex-style items are separate; Claude too) */
  readonly callText?: string;
}

export class SessionBuilder {
  readonly host: Host;
  readonly messages: Message[] = [];
  private n = 0;

  constructor(host: Host = "claude") {
    this.host = host;
  }

  user(text: string): this {
    this.messages.push({ role: "user", kind: "prompt", text, toolCalls: [], toolResults: [] });
    return this;
  }

  assistant(text: string): this {
    this.messages.push({ role: "assistant", kind: "reply", text, toolCalls: [], toolResults: [] });
    return this;
  }

  /** An assistant message with one call, then a tool message with its result. Returns the call id. */
  call(name: string, input: unknown, result: string, opts: CallOptions = {}): string {
    const id = `call_${++this.n}`;
    const call: ToolCall = { id, name, input, inputText: typeof input === "string" ? input : JSON.stringify(input) };
    const res: ToolResult = { callId: id, text: result, isError: opts.isError ?? false, images: 0 };
    this.messages.push({ role: "assistant", kind: "reply", text: opts.callText ?? "", toolCalls: [call], toolResults: [] });
    this.messages.push({ role: "user", kind: "tool", text: "", toolCalls: [], toolResults: [res] });
    return id;
  }

  read(path: string, result: string, extra: Record<string, unknown> = {}): string {
    return this.call("Read", { file_path: path, ...extra }, result);
  }

  bash(command: string, result: string, opts: CallOptions = {}): string {
    return this.call("Bash", { command, description: "run" }, result, opts);
  }

  /** `count` unrelated tool results, so earlier results are neither too recent nor pinned (BEYOND_RECENT is enough). */
  filler(count: number): this {
    for (let i = 0; i < count; i++) this.call("Bash", { command: "true" }, `ok ${this.n}`);
    return this;
  }

  session(): Session {
    return { host: this.host, id: "test-session", messages: [...this.messages] };
  }
}

export const numbered = (lines: readonly string[], from = 1): string => lines.map((l, i) => `${String(from + i).padStart(6)}→${l}`).join("\n");

/** A file's worth of distinct lines (long enough to be worth cutting). */
export const fileLines = (name: string, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `const ${name}Value${i} = computeSomething(${i}); // line ${i} of ${name}`);

/** A Bash call and its result, as two messages (an assistant's reply with the call, a user's with the result). */
export const bashTurn = (id: string, command: string, text: string): Message[] => [
  {
    role: "assistant",
    kind: "reply",
    text: "",
    toolCalls: [{ id, name: "Bash", input: { command }, inputText: JSON.stringify({ command }) }],
    toolResults: [],
  },
  { role: "user", kind: "tool", text: "", toolCalls: [], toolResults: [{ callId: id, text, isError: false, images: 0 }] },
];
