// hooks/register.ts driven by a small stand-in for Claude Code's hook API: `on` captures the hooks,
// `$` answers from memory, and every $.fs call yields first, as a real one does, so that
// dispatches running at once interleave.
import { expect, test } from "bun:test";
import { register } from "../../../hooks/register.ts";
import { parseLog } from "../../../src/hosts/claude/decision-log-read.ts";
import { readRows } from "../../e2e/support/claude-fixtures.ts";

type Hook = ($: unknown, e: unknown, next: unknown) => Promise<unknown>;

const host = () => {
  const hooks = new Map<string, Hook>();
  register(
    ((event: string, hook: Hook) => {
      hooks.set(event, hook);
      return { catch() {} };
    }) as never,
    {},
  );
  const files = new Map<string, string>();
  const tick = () => new Promise((r) => setTimeout(r, 1));
  const $ = {
    session: {
      usage: async () => ({ context: { tokens: 150_000, window: 200_000, percent: 75 } }),
      id: async () => "sess-1",
      info: async () => ({ transcriptPath: "/home/u/.claude/projects/-p/sess-1.jsonl" }),
      compact: async () => ({}),
    },
    fs: {
      exists: async (p: string) => {
        await tick();
        return files.has(p);
      },
      read: async (p: string) => {
        await tick();
        return files.get(p)!;
      },
      write: async (p: string, text: string) => {
        await tick();
        files.set(p, text);
      },
    },
    ui: { log() {} },
  };
  const next = Object.assign(async (e: unknown) => e, { called: false });
  const compact = (agentId?: string) =>
    hooks.get("session.compact")!($, { trigger: "auto", ...(agentId ? { agentId } : {}), messages: readRows(["a.txt", "b.txt", "a.txt"]) }, next);
  return { compact, files };
};

test("compactions of one session at once (the main thread and two subagents) each leave their line in its decision log", async () => {
  const { compact, files } = host();
  await Promise.all([compact(), compact("agent-a"), compact("agent-b")]);
  const log = files.get("/home/u/.claude/better-compaction/logs/sess-1.jsonl")!;
  expect(
    parseLog(log)
      .records.map((r) => r.agentId ?? "main")
      .sort(),
  ).toEqual(["agent-a", "agent-b", "main"]);
});
