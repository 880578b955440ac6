// Test worlds for bc's live Codex integration: a temp $CODEX_HOME, paginated rollouts built line by
// line the way Codex 0.171 writes them, and a fake app-server on the control socket that answers
// from a table and records every call.
import { afterEach } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { controlSocketPath } from "../../../../src/hosts/codex/live/app-server.ts";

type Json = Record<string, any>;

export const THREAD = "01a23202-e152-7322-94c9-1c82fc5dd641";

export interface Home {
  readonly home: string;
  readonly root: string;
  cleanup(): void;
}

export const makeHome = (): Home => {
  const root = mkdtempSync(join(tmpdir(), "bc-live-"));
  const home = join(root, "codex-home");
  mkdirSync(home, { recursive: true });
  return { root, home, cleanup: () => rmSync(root, { recursive: true, force: true }) };
};

/**
 * A fresh home per test, and the fake servers started in it, all ended after each test: call once
 * at a test file's top level.
 */
export const homePerTest = (): { fresh: () => Home; track: (stop: () => void) => void } => {
  let world: Home | undefined;
  let stops: (() => void)[] = [];
  afterEach(() => {
    for (const s of stops) s();
    stops = [];
    world?.cleanup();
    world = undefined;
  });
  return {
    fresh: () => {
      world = makeHome();
      return world;
    },
    track: (stop) => stops.push(stop),
  };
};

/** Builds a paginated rollout: each call appends lines with ordinals. */
export class RolloutBuilder {
  readonly lines: Json[] = [];
  private calls = 0;
  constructor(
    readonly threadId = THREAD,
    originator = "codex-tui",
    readonly historyMode: "paginated" | "legacy" = "paginated",
  ) {
    this.push("session_meta", {
      id: threadId,
      session_id: threadId,
      originator,
      cli_version: "0.171.0",
      history_mode: historyMode,
      base_instructions: { text: "You are Codex." },
    });
  }
  push(type: string, payload: Json): this {
    const ordinal = this.historyMode === "paginated" ? { ordinal: this.lines.length } : {};
    this.lines.push({ timestamp: "2026-12-01T14:00:00.000Z", ...ordinal, type, payload });
    return this;
  }
  item(payload: Json): this {
    return this.push("response_item", payload);
  }
  turn(turnId: string): this {
    return this.push("event_msg", { type: "task_started", turn_id: turnId });
  }
  context(): this {
    this.item({
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text: "<permissions instructions>sandboxed</permissions instructions>" }],
    });
    return this.item({
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>" }],
    });
  }
  /** a hook's additional context, as Codex 0.163.0 to 0.171.0 record it: a developer message its metadata names a hook's */
  hook(text: string): this {
    return this.item({
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text }],
      internal_chat_message_metadata_passthrough: {
        content_item_kinds: ["hooks.additional_context"],
        content_item_metadata: [{ provenance: { type: "harness", hook: true } }],
      },
    });
  }
  user(text: string): this {
    return this.item({ type: "message", role: "user", content: [{ type: "input_text", text }] });
  }
  assistant(text: string): this {
    return this.item({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
  }
  /** a shell call and its output */
  shell(cmd: string, output: string): this {
    const id = `call_${++this.calls}`;
    this.item({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd }), call_id: id });
    return this.item({ type: "function_call_output", call_id: id, output });
  }
  tokens(lastInput: number, window = 258_400): this {
    const usage = { input_tokens: lastInput, cached_input_tokens: 0, output_tokens: 10, reasoning_output_tokens: 0, total_tokens: lastInput + 10 };
    return this.push("event_msg", { type: "token_count", info: { total_token_usage: usage, last_token_usage: usage, model_context_window: window } });
  }
  done(turnId: string): this {
    return this.push("event_msg", { type: "task_complete", turn_id: turnId });
  }
  text(): string {
    return `${this.lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
  }
  write(dir: string): string {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `rollout-2026-12-01T14-00-00-${this.threadId}.jsonl`);
    writeFileSync(path, this.text());
    return path;
  }
}

/** A file's text repeated to `chars` characters (a big tool output). */
export const bigText = (name: string, chars: number): string => {
  let s = "";
  for (let i = 0; s.length < chars; i++) s += `${name} line ${i}: some content of ${name}\n`;
  return s.slice(0, chars);
};

/** One turn of work: a prompt, reads of big files (a.txt read twice), an answer. */
export const workTurn = (b: RolloutBuilder, turnId: string, chars = 8_000): RolloutBuilder =>
  b
    .turn(turnId)
    .context()
    .user("RUN: cat a.txt RUN: cat b.txt RUN: cat a.txt")
    .item({ type: "reasoning", summary: [{ type: "summary_text", text: "Reading the files." }], content: null, encrypted_content: "gAAAAB-opaque-reasoning" })
    .shell("cat a.txt", bigText("a.txt", chars))
    .shell("cat b.txt", bigText("b.txt", chars))
    .shell("cat a.txt", bigText("a.txt", chars))
    .shell("echo one", "one\n")
    .shell("echo two", "two\n")
    .shell("echo three", "three\n")
    .assistant("Done.")
    .tokens(20_000)
    .done(turnId);

export interface Call {
  readonly method: string;
  readonly params: any;
}

export type Handler = (params: any, calls: readonly Call[]) => unknown;

/** A fake app-server on `$CODEX_HOME/app-server-control/app-server-control.sock`; a handler that throws answers an error. */
export const startFakeServer = (home: string, handlers: Record<string, Handler>) => {
  const path = controlSocketPath(home);
  mkdirSync(join(home, "app-server-control"), { recursive: true });
  const calls: Call[] = [];
  const server = Bun.serve({
    unix: path,
    fetch(req, srv) {
      if (srv.upgrade(req)) return;
      return new Response("websocket only", { status: 400 });
    },
    websocket: {
      message(ws, raw) {
        const v = JSON.parse(String(raw));
        if (v.id === undefined) return;
        calls.push({ method: v.method, params: v.params });
        const h = v.method === "initialize" ? () => ({ userAgent: "fake" }) : handlers[v.method];
        if (!h) return void ws.send(JSON.stringify({ id: v.id, error: { code: -32601, message: `unknown method ${v.method}` } }));
        try {
          ws.send(JSON.stringify({ id: v.id, result: h(v.params, calls) }));
        } catch (e) {
          ws.send(JSON.stringify({ id: v.id, error: { code: -32600, message: (e as Error).message } }));
        }
      },
    },
  });
  return {
    calls,
    methods: () => calls.map((c) => c.method).filter((m) => m !== "initialize"),
    stop: () => {
      server.stop(true);
      rmSync(path, { force: true });
    },
  };
};

/** Handlers for a thread that is idle and whose rollout is at `path`, with these turns. */
export const idleThread = (path: string, turns: readonly string[], status = () => ({ type: "idle" })): Record<string, Handler> => ({
  "thread/read": () => ({ thread: { id: THREAD, status: status(), path } }),
  "thread/turns/list": () => ({ data: turns.map((id) => ({ id, status: "completed" })), nextCursor: null }),
  "thread/loaded/list": () => ({ data: [THREAD], nextCursor: null }),
  "thread/revert": () => ({ thread: { id: THREAD } }),
  "thread/inject_items": () => ({}),
  "turn/start": () => ({ turn: { id: "t-new" } }),
});
