// A scripted Anthropic Messages API for driving the real Claude Code in tests.
// POST /v1/messages only, always answered as an SSE stream; listens on 127.0.0.1 only,
// on a random port, and stops itself after `lifetimeMs`. Every request body is kept.
//
// Script (read from the current prompt: the last user message with its own text and no tool_result):
//   READFILES a.txt b.txt a.txt   one Read tool_use per request (paths joined to `root`), then a text answer;
//                                 a.txt,b.txt: both read in parallel, in one answer
//   SCRIPT [{"name":"Bash","input":{...}}, ...]   the same with any tool calls
//   anything containing PLEASE_COMPACT: answered in text (the interactive test's turn.complete hook compacts)
//   anything else: a short text answer naming the prompt
// A request whose user text contains Claude Code's summarization instruction is recorded as a
// summarization and answered with a summary text (or, with failSummaries, refused with a 400).
// A request whose system prompt asks to name the session (Claude Code 2.1.337, in an interactive
// session, asks for a title beside the conversation's own requests) is recorded as a title
// request and answered with a title; it is no request of the conversation.
// With `thinking`, every answer but a summary opens with a thinking block (its text and a
// signature), as a model with extended thinking answers, and the mock holds requests to the API's
// rule for thinking with tool use: a request with thinking on whose messages end with tool results
// must send back the answer that made those calls (the last assistant message; consecutive ones
// are one, as the API joins them) opening with the thinking the mock gave that answer, byte for
// byte, signature included; otherwise it is refused with the API's 400 (invalid_request_error).
import { join } from "node:path";

export const SUMMARIZE_MARK = "CRITICAL: Respond with TEXT ONLY";

/** How the system prompt of Claude Code's request for a session title begins its task. */
export const TITLE_MARK = "You are naming a coding session";

const systemText = (body: any): string => {
  const system = body?.system;
  if (typeof system === "string") return system;
  return Array.isArray(system) ? system.map((b: any) => (typeof b?.text === "string" ? b.text : "")).join("\n") : "";
};

export interface ToolStep {
  readonly name: string;
  readonly input: Record<string, unknown>;
  /** the assistant's text before the call (default: "Step k of n: <tool>.") */
  readonly say?: string;
  /** calls made in parallel with this one, in the same answer */
  readonly with?: readonly ToolStep[];
}

export interface MockRequest {
  readonly n: number;
  readonly body: any;
  readonly summarization: boolean;
  /** a request for the session's title, beside the conversation */
  readonly title: boolean;
  /** the API's error message when the mock refused the request for its thinking (HTTP 400) */
  readonly refused?: string;
}

export interface MockOptions {
  /** folder READFILES paths are relative to */
  readonly root: string;
  /** reported input tokens: a number, or the request's size estimate (chars / 4, the default) */
  readonly inputTokens?: number | "estimate" | ((body: any) => number);
  readonly lifetimeMs?: number;
  /** prompts (exact text) answered by a given list of tool calls, then a given answer */
  readonly scripts?: Readonly<Record<string, { readonly steps: readonly ToolStep[]; readonly answer: string }>>;
  /** refuse every summarization request (HTTP 400, invalid_request_error): a summary that fails */
  readonly failSummaries?: boolean;
  /** the thinking each answer opens with (n: the request's number), signed; absent, none */
  readonly thinking?: (n: number) => string;
  /**
   * stream an answer that makes several calls slowly: wait this long after each of its content
   * blocks, as a model streaming at its own pace does (absent: the whole answer at once).
   * Claude Code may then start a call before the answer's next block arrives.
   */
  readonly parallelBlockDelayMs?: number;
}

export interface Mock {
  readonly url: string;
  readonly port: number;
  readonly requests: MockRequest[];
  readonly summarizations: () => MockRequest[];
  setInputTokens(v: MockOptions["inputTokens"]): void;
  /** requests of the main conversation (not summarizations, not title requests), in order */
  readonly conversationRequests: () => MockRequest[];
  /** requests refused for the thinking of their last assistant message */
  readonly refusals: () => MockRequest[];
  /** the thinking blocks the mock opened the answer that made this tool call with, as sent */
  readonly thinkingFor: (toolUseId: string) => readonly Block[] | undefined;
  stop(): void;
}

export type Block = {
  type: string;
  text?: string;
  content?: unknown;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  thinking?: string;
  signature?: string;
};

/** The signature the mock signs a thinking block with (the API's is opaque; any string is taken back). */
export const signatureOf = (thinking: string): string => `bcmock-sig-${thinking.length}`;

const blocksOf = (m: any): Block[] => (typeof m?.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m?.content) ? m.content : []);

const isReminder = (t: string): boolean => {
  const s = t.trimStart();
  return s.startsWith("<system-reminder>") || s.startsWith("<local-command") || s.startsWith("<command-") || s === "";
};

/** Every text of a request's messages, concatenated (for detecting the summarizer's prompt). */
const userTexts = (body: any): string =>
  (body?.messages ?? [])
    .filter((m: any) => m.role === "user")
    .flatMap((m: any) =>
      blocksOf(m)
        .filter((b) => b.type === "text")
        .map((b) => b.text ?? ""),
    )
    .join("\n");

/** Index of the current prompt and its text. */
export const currentPrompt = (messages: any[]): { index: number; text: string } | undefined => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "user") continue;
    const blocks = blocksOf(m);
    if (blocks.some((b) => b.type === "tool_result")) continue;
    const texts = blocks.filter((b) => b.type === "text" && !isReminder(b.text ?? "")).map((b) => b.text ?? "");
    if (texts.length > 0) return { index: i, text: texts.join("\n") };
  }
  return undefined;
};

export const stepsOf = (prompt: string, root: string): ToolStep[] | undefined => {
  const read = /READFILES((?:[ \t]+\S+)+)/.exec(prompt);
  if (read)
    return read[1]!
      .trim()
      .split(/\s+/)
      .map((group) => {
        const [f, ...more] = group.split(",").map((g) => ({ name: "Read", input: { file_path: join(root, g) } }));
        return more.length === 0 ? f! : { ...f!, with: more };
      });
  const script = /SCRIPT (\[.*\])/s.exec(prompt);
  if (script) return JSON.parse(script[1]!) as ToolStep[];
  return undefined;
};

/** The API's text for a final assistant message that does not open with thinking (N: its index, found: its first block's type). */
export const thinkingMissing = (n: number, found: string): string =>
  `messages.${n}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;

/** The API's text for thinking in the latest assistant message that is not what the model sent (N: the message, k: the block). */
export const thinkingModified = (n: number, k: number): string =>
  `messages.${n}.content.${k}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`;

const isThinking = (b: Block | undefined): boolean => b?.type === "thinking" || b?.type === "redacted_thinking";

/**
 * Why the API would refuse a request for the thinking of its last assistant message, or undefined.
 * Only a request with thinking on that ends with tool results is held to it; the answer that made
 * those calls is found by its tool_use ids among the answers the mock gave (`given`: tool_use id ->
 * the thinking blocks of its answer), and must open with exactly those blocks.
 */
export const thinkingRefusal = (body: any, given: ReadonlyMap<string, readonly Block[]>): string | undefined => {
  const type = body?.thinking?.type;
  if (type !== "enabled" && type !== "adaptive") return undefined;
  const messages: any[] = (body?.messages ?? []).filter((m: any) => m?.role === "user" || m?.role === "assistant");
  const all: any[] = body?.messages ?? [];
  const last = messages.at(-1);
  if (last?.role !== "user" || !blocksOf(last).some((b) => b.type === "tool_result")) return undefined;
  // the assistant messages right before the tool results, joined as the API joins consecutive turns
  let first = messages.length - 1;
  while (first > 0 && messages[first - 1]?.role === "assistant") first--;
  const answer = messages.slice(first, -1).flatMap(blocksOf);
  const expected = answer.filter((b) => b.type === "tool_use").map((b) => given.get(b.id ?? ""))[0];
  if (expected === undefined || expected.length === 0) return undefined;
  const n = all.indexOf(messages[first]);
  if (!isThinking(answer[0])) return thinkingMissing(n, answer[0]?.type ?? "nothing");
  for (const [k, want] of expected.entries()) {
    const got = answer[k];
    if (got?.type !== want.type || got.thinking !== want.thinking || got.signature !== want.signature) return thinkingModified(n, k);
  }
  if (isThinking(answer[expected.length])) return thinkingModified(n, expected.length);
  return undefined;
};

const sseEvent = ([e, d]: [string, unknown]): string => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`;

const sse = (events: [string, unknown][]): string => events.map(sseEvent).join("");

/** The events as a stream that waits `delayMs` after each content block's stop. */
const slowSse = (events: [string, unknown][], delayMs: number): ReadableStream<Uint8Array> => {
  const bytes = new TextEncoder();
  return new ReadableStream({
    async start(controller) {
      for (const ev of events) {
        controller.enqueue(bytes.encode(sseEvent(ev)));
        if (ev[0] === "content_block_stop") await Bun.sleep(delayMs);
      }
      controller.close();
    },
  });
};

const estimate = (body: any): number => Math.ceil(JSON.stringify(body).length / 4);

export const startMock = (opts: MockOptions): Mock => {
  const requests: MockRequest[] = [];
  let inputTokens = opts.inputTokens ?? "estimate";
  let ids = 0;
  // tool_use id -> the thinking blocks of the answer that made the call, as sent
  const given = new Map<string, Block[]>();
  const tokensFor = (body: any): number =>
    typeof inputTokens === "number" ? inputTokens : typeof inputTokens === "function" ? inputTokens(body) : estimate(body);

  const answer = (body: any, summarization: boolean): { blocks: Block[]; stop: string } => {
    if (summarization) return { blocks: [{ type: "text", text: "MOCK SUMMARY: the conversation so far, summarized." }], stop: "end_turn" };
    const messages: any[] = body?.messages ?? [];
    const prompt = currentPrompt(messages);
    if (!prompt) return { blocks: [{ type: "text", text: "MOCK: no prompt found" }], stop: "end_turn" };
    const steps = opts.scripts?.[prompt.text.trim()]?.steps ?? stepsOf(prompt.text, opts.root);
    if (steps) {
      // how many calls of this turn were already made: tool_use blocks after the prompt
      const done = messages
        .slice(prompt.index + 1)
        .filter((m) => m.role === "assistant")
        .flatMap(blocksOf)
        .filter((b) => b.type === "tool_use").length;
      // the step those calls reach (a step makes its call and those in parallel with it)
      let k = 0;
      for (let calls = 0; k < steps.length && calls < done; k++) calls += 1 + (steps[k]!.with?.length ?? 0);
      const step = steps[k];
      if (step) {
        const uses: Block[] = [step, ...(step.with ?? [])].map((c) => ({
          type: "tool_use",
          id: `toolu_bcmock_${String(++ids).padStart(4, "0")}`,
          name: c.name,
          input: c.input,
        }));
        return { blocks: [{ type: "text", text: step.say ?? `Step ${k + 1} of ${steps.length}: ${step.name}.` }, ...uses], stop: "tool_use" };
      }
      const closing = opts.scripts?.[prompt.text.trim()]?.answer;
      return { blocks: [{ type: "text", text: closing ?? `MOCK DONE: ${steps.length} tool calls.` }], stop: "end_turn" };
    }
    const head = prompt.text.replace(/\s+/g, " ").slice(0, 60);
    return { blocks: [{ type: "text", text: `MOCK ANSWER to: ${head}` }], stop: "end_turn" };
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 120,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/messages") return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
      const body: any = await req.json().catch(() => undefined);
      const summarization = userTexts(body).includes(SUMMARIZE_MARK);
      const title = !summarization && systemText(body).includes(TITLE_MARK);
      const refused = opts.thinking === undefined || title ? undefined : thinkingRefusal(body, given);
      const r: MockRequest = { n: requests.length, body, summarization, title, ...(refused === undefined ? {} : { refused }) };
      requests.push(r);
      if (refused !== undefined) {
        const error = { type: "error", error: { type: "invalid_request_error", message: refused }, request_id: `req_bcmock_refused_${r.n}` };
        return new Response(JSON.stringify(error), { status: 400, headers: { "content-type": "application/json", "request-id": error.request_id } });
      }
      if (summarization && opts.failSummaries) {
        const error = { type: "error", error: { type: "invalid_request_error", message: "mock: summarization refused" } };
        return new Response(JSON.stringify(error), { status: 400, headers: { "content-type": "application/json" } });
      }
      const answered = title ? { blocks: [{ type: "text", text: '{"title":"Mock session"}' } as Block], stop: "end_turn" } : answer(body, summarization);
      const thought = summarization || title ? undefined : opts.thinking?.(r.n);
      const thinkingBlocks: Block[] = thought === undefined ? [] : [{ type: "thinking", thinking: thought, signature: signatureOf(thought) }];
      const blocks: Block[] = [...thinkingBlocks, ...answered.blocks];
      for (const b of answered.blocks) if (b.type === "tool_use" && b.id !== undefined) given.set(b.id, thinkingBlocks);
      const stop = answered.stop;
      const msgId = `msg_bcmock_${String(++ids).padStart(4, "0")}`;
      const events: [string, unknown][] = [
        [
          "message_start",
          {
            type: "message_start",
            message: {
              id: msgId,
              type: "message",
              role: "assistant",
              model: body?.model ?? "claude-mock",
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: tokensFor(body), output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
            },
          },
        ],
      ];
      blocks.forEach((b, index) => {
        if (b.type === "thinking") {
          events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }]);
          events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: b.thinking } }]);
          events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: b.signature } }]);
        } else if (b.type === "text") {
          events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
          events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } }]);
        } else {
          events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } }]);
          events.push([
            "content_block_delta",
            { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } },
          ]);
        }
        events.push(["content_block_stop", { type: "content_block_stop", index }]);
      });
      events.push(["message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } }]);
      events.push(["message_stop", { type: "message_stop" }]);
      const parallel = answered.blocks.filter((b) => b.type === "tool_use").length > 1;
      const stream = opts.parallelBlockDelayMs === undefined || !parallel ? sse(events) : slowSse(events, opts.parallelBlockDelayMs);
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": `req_${msgId}` } });
    },
  });
  const timer = setTimeout(() => server.stop(true), opts.lifetimeMs ?? 15 * 60_000);
  const port = server.port!;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    summarizations: () => requests.filter((r) => r.summarization),
    conversationRequests: () => requests.filter((r) => !r.summarization && !r.title),
    refusals: () => requests.filter((r) => r.refused !== undefined),
    thinkingFor: (id) => given.get(id),
    setInputTokens(v) {
      inputTokens = v ?? "estimate";
    },
    stop() {
      clearTimeout(timer);
      server.stop(true);
    },
  };
};
