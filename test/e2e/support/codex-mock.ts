// A scripted OpenAI Responses API for driving the real Codex offline.
// Binds 127.0.0.1 only, on a random port, and stops itself after a bounded time.
//
// Script, decided from the newest user prompt in the request's `input`:
// - "RUN: <cmd> RUN: <cmd> ...": one function_call for the offered shell tool per request, until every
//   command since that prompt has an output; then a final assistant message.
// - a compaction prompt ("CONTEXT CHECKPOINT COMPACTION"): a summary, and the request is counted.
// - a prompt mentioning "codeword": the CANARY-... token found anywhere else in the request, or "no codeword".
// - a prompt starting "LONG ANSWER": a final assistant message of LONG_ANSWER_CHARS characters of prose
//   (history that no pruning rule can cut, and a turn whose last answer alone can cross a limit).
// - anything else: "OK".
// Usage is reported as request bytes / 4, so Codex's context size follows the request size.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const COMPACTION_MARKER = "CONTEXT CHECKPOINT COMPACTION";
export const MOCK_SUMMARY = "MOCK-SUMMARY: the earlier work is summarized here.";
export const LONG_ANSWER = "LONG ANSWER";
export const LONG_ANSWER_CHARS = 60_000;
const CANARY_RE = /CANARY-[A-Za-z0-9-]+/;

export interface LoggedRequest {
  readonly n: number;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  /** parsed JSON body (undefined for a body that is not JSON) */
  readonly body: any;
  readonly kind: "run" | "final" | "compaction" | "title" | "codeword" | "long" | "other" | "not-responses";
}

export interface MockServer {
  readonly url: string;
  readonly port: number;
  readonly requests: LoggedRequest[];
  /** requests to /responses only */
  responses(): LoggedRequest[];
  compactionRequests(): LoggedRequest[];
  stop(): void;
}

export interface MockOptions {
  /** stop by itself after this long (default 15 min) */
  readonly lifetimeMs?: number;
  /** also write each request to <logDir>/req-NNN.json */
  readonly logDir?: string;
}

type Item = Record<string, any>;

const textOf = (item: Item): string => {
  const c = item.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c.map((b: any) => (typeof b?.text === "string" ? b.text : "")).join("\n");
};

const isUserPrompt = (item: Item): boolean => {
  if (item.type !== "message" || item.role !== "user") return false;
  const t = textOf(item).trimStart();
  // Codex's own context messages are user-role too
  return !(
    t.startsWith("<environment_context>") ||
    t.startsWith("<user_instructions>") ||
    t.startsWith("# AGENTS.md") ||
    t.startsWith("<skills_instructions>") ||
    t.startsWith("<permissions")
  );
};

export const parseRunCommands = (prompt: string): string[] =>
  prompt
    .split(/RUN:/)
    .slice(1)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

const shellCall = (tools: any[], cmd: string): { name: string; arguments: string } => {
  const names = new Set(tools.map((t) => t?.name));
  if (names.has("exec_command")) return { name: "exec_command", arguments: JSON.stringify({ cmd }) };
  if (names.has("shell_command")) return { name: "shell_command", arguments: JSON.stringify({ command: cmd }) };
  if (names.has("shell")) return { name: "shell", arguments: JSON.stringify({ command: ["bash", "-lc", cmd] }) };
  throw new Error(`no shell tool offered; tools: ${[...names].join(", ")}`);
};

let idCounter = 0;
const nextId = (prefix: string): string => `${prefix}_mock${++idCounter}`;

const sse = (events: { type: string; [k: string]: unknown }[]): string => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");

const respond = (output: Item[], inputBytes: number): string => {
  const id = nextId("resp");
  const events: { type: string; [k: string]: unknown }[] = [{ type: "response.created", response: { id } }];
  output.forEach((item, i) => {
    events.push({ type: "response.output_item.added", output_index: i, item });
    if (item.type === "message") {
      events.push({ type: "response.output_text.delta", output_index: i, item_id: item.id, content_index: 0, delta: textOf(item) });
    }
    events.push({ type: "response.output_item.done", output_index: i, item });
  });
  const input_tokens = Math.ceil(inputBytes / 4);
  const output_tokens = Math.ceil(JSON.stringify(output).length / 4);
  events.push({
    type: "response.completed",
    response: {
      id,
      usage: {
        input_tokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: input_tokens + output_tokens,
      },
    },
  });
  return sse(events);
};

const assistant = (text: string): Item => ({
  type: "message",
  id: nextId("msg"),
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [] }],
});

/** The response header that names the kind of a scripted answer. */
export const KIND_HEADER = "x-mock-kind";

/** How Codex's request for a thread title begins. */
const TITLE_REQUEST = "Generate a concise, single-line task title";

/** Decide the scripted answer for one /responses request body. */
export const script = (body: any): { kind: LoggedRequest["kind"]; output: Item[] } => {
  const input: Item[] = Array.isArray(body?.input) ? body.input : [];
  let last = -1;
  for (let i = input.length - 1; i >= 0; i--) {
    if (isUserPrompt(input[i]!)) {
      last = i;
      break;
    }
  }
  const prompt = last >= 0 ? textOf(input[last]!) : "";
  if (prompt.includes(COMPACTION_MARKER)) return { kind: "compaction", output: [assistant(MOCK_SUMMARY)] };
  // some Codex releases (0.163.0) ask the model for a thread title, quoting the first prompt
  if (prompt.startsWith(TITLE_REQUEST)) return { kind: "title", output: [assistant("Answer the question")] };
  const commands = parseRunCommands(prompt);
  if (commands.length > 0) {
    const done = input.slice(last + 1).filter((it) => it.type === "function_call_output" || it.type === "custom_tool_call_output").length;
    const cmd = commands[done];
    if (cmd !== undefined) {
      const call = shellCall(Array.isArray(body.tools) ? body.tools : [], cmd);
      return {
        kind: "run",
        output: [{ type: "function_call", id: nextId("fc"), call_id: nextId("call"), status: "completed", ...call }],
      };
    }
    return { kind: "final", output: [assistant(`Done: ran ${commands.length} command(s).`)] };
  }
  if (prompt.trimStart().startsWith(LONG_ANSWER)) {
    const lines: string[] = [];
    for (let n = 0; lines.join("\n").length < LONG_ANSWER_CHARS; n++)
      lines.push(`Paragraph ${n}: a long explanation, in plain prose, of step ${n} of the plan.`);
    return { kind: "long", output: [assistant(lines.join("\n").slice(0, LONG_ANSWER_CHARS))] };
  }
  if (/codeword/i.test(prompt)) {
    const rest = JSON.stringify({ ...body, input: input.filter((_, i) => i !== last) });
    const m = CANARY_RE.exec(rest);
    return { kind: "codeword", output: [assistant(m ? `The codeword is ${m[0]}.` : "no codeword")] };
  }
  return { kind: "other", output: [assistant("OK")] };
};

/** A request's text, and its JSON when it parses (undefined otherwise). */
export const readBody = async (req: Request): Promise<{ raw: string; body: any }> => {
  const raw = await req.text();
  try {
    return { raw, body: raw.length > 0 ? JSON.parse(raw) : undefined };
  } catch {
    return { raw, body: undefined };
  }
};

export const startMock = (options: MockOptions = {}): MockServer => {
  const requests: LoggedRequest[] = [];
  if (options.logDir) mkdirSync(options.logDir, { recursive: true });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(req) {
      const url = new URL(req.url);
      const { raw, body } = await readBody(req);
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k] = v));
      const isResponses = req.method === "POST" && url.pathname.endsWith("/responses");
      let answer: { kind: LoggedRequest["kind"]; output: Item[] } = { kind: "not-responses", output: [] };
      let error: string | undefined;
      if (isResponses) {
        try {
          answer = script(body);
        } catch (e) {
          error = (e as Error).message;
        }
      }
      const logged: LoggedRequest = { n: requests.length + 1, method: req.method, path: url.pathname, headers, body, kind: answer.kind };
      requests.push(logged);
      if (options.logDir) writeFileSync(join(options.logDir, `req-${String(logged.n).padStart(3, "0")}.json`), JSON.stringify(logged, null, 1));
      if (!isResponses) {
        // the built-in openai provider tries a Responses WebSocket first; refuse so it falls back to HTTPS
        if (req.headers.get("upgrade")?.toLowerCase() === "websocket") return new Response("websockets not supported", { status: 426 });
        if (url.pathname.endsWith("/models")) return Response.json({ object: "list", data: [], models: [] });
        return new Response("not found", { status: 404 });
      }
      if (error !== undefined) return new Response(JSON.stringify({ error: { message: error } }), { status: 400 });
      return new Response(respond(answer.output, Buffer.byteLength(raw)), {
        // the kind of this answer, for a relay in front: requests can overlap (a thread-title request beside a turn)
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache", [KIND_HEADER]: answer.kind },
      });
    },
  });
  const timer = setTimeout(() => server.stop(true), options.lifetimeMs ?? 15 * 60_000);
  timer.unref?.();
  const port = server.port!;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    responses: () => requests.filter((r) => r.kind !== "not-responses"),
    compactionRequests: () => requests.filter((r) => r.kind === "compaction"),
    stop: () => {
      clearTimeout(timer);
      server.stop(true);
    },
  };
};

if (import.meta.main) {
  // standalone: `bun test/e2e/support/codex-mock.ts <logDir> [lifetimeSeconds]`; prints the base URL
  const logDir = process.argv[2];
  const lifetime = Number(process.argv[3] ?? 900) * 1000;
  const m = startMock({ logDir, lifetimeMs: lifetime });
  console.log(m.url);
  setTimeout(() => process.exit(0), lifetime);
}
