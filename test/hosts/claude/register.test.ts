// hooks/register.ts driven by a small stand-in for Claude Code's hook API: `on` captures the hooks,
// `$` answers from memory, and every $.fs call yields first, as a real one does, so that
// dispatches running at once interleave.
import { expect, jest, test } from "bun:test";
import { register } from "../../../hooks/register.ts";
import { parseLog } from "../../../src/hosts/claude/decision-log-read.ts";
import { readRows } from "../../e2e/support/claude-fixtures.ts";
import { estimateRowsInCount } from "../../../src/hosts/claude/plugin.ts";
import { rowsToSession } from "../../../src/hosts/claude/rows.ts";

type Hook = ($: unknown, e: unknown, next: unknown) => Promise<unknown>;

/** Claude Code's messages in Messages API form: one response with ~1,000 tokens of thinking, then the newest answer with its own. */
const API_MESSAGES = [
  { role: "user", content: [{ type: "text", text: "READFILES a.txt" }] },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "t".repeat(4_000), signature: "s" },
      { type: "tool_use", id: "toolu_0001", name: "Read", input: {} },
    ],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_0001", content: "1\tcontent of a.txt" }] },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "t".repeat(400), signature: "s" },
      { type: "text", text: "Done." },
    ],
  },
];

const host = (
  o: { readonly tokens?: number; readonly messages?: () => Promise<unknown>; readonly tick?: () => Promise<unknown>; readonly rows?: readonly unknown[] } = {},
) => {
  const hooks = new Map<string, Hook>();
  register(
    ((event: string, hook: Hook) => {
      hooks.set(event, hook);
      return { catch() {} };
    }) as never,
    {},
  );
  const files = new Map<string, string>();
  const tick = o.tick ?? (() => new Promise((r) => setTimeout(r, 1)));
  const $ = {
    session: {
      usage: async () => ({ context: { tokens: o.tokens ?? 150_000, window: 200_000, percent: 75 } }),
      messages: o.messages ?? (async () => API_MESSAGES),
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
    hooks.get("session.compact")!($, { trigger: "auto", ...(agentId ? { agentId } : {}), messages: o.rows ?? readRows(["a.txt", "b.txt", "a.txt"]) }, next);
  const records = () => parseLog(files.get("/home/u/.claude/better-compaction/logs/sess-1.jsonl") ?? "").records;
  return { compact, files, records };
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

test("the thinking in Claude Code's count, read from its messages, is logged and not counted against the budget; a subagent's compaction does not ask", async () => {
  let asked = 0;
  const { compact, records } = host({
    tokens: 12_000,
    messages: async () => {
      asked++;
      return API_MESSAGES;
    },
  });
  await compact();
  await compact("agent-a");
  expect(asked).toBe(1);
  const [main, agent] = records();
  // Claude Code's count: the rows before the last answer, the thinking, and what stays beside them
  expect(main!.thinkingTokens).toBe(1_000);
  const rows = readRows(["a.txt", "b.txt", "a.txt"]);
  expect(estimateRowsInCount(rowsToSession(rows, "s"), rows) + main!.thinkingTokens! + main!.unseenTokens!).toBe(12_000);
  expect(main!.budgetTokens).toBe(120_000 - main!.unseenTokens!);
  expect(agent!.thinkingTokens).toBeUndefined();
});

test("the calls of the last answer, read from Claude Code's messages, tell where it begins among rows that hold its records between their results", async () => {
  const use = (id: string) => ({ role: "assistant", text: "", toolUses: [{ tool_use_id: id, tool: "Read", input: { file_path: `/p/${id}` } }] });
  const res = (id: string, chars: number) => ({
    role: "user",
    text: "",
    toolUses: [],
    toolResults: [{ tool_use_id: id, text: "x".repeat(chars), isError: false }],
  });
  const rows = [
    { role: "user", text: "read b and c", toolUses: [] },
    { role: "assistant", text: "Reading two.", toolUses: [] },
    use("b"),
    res("b", 20_000),
    use("c"),
    res("c", 20_000),
  ];
  const messages = [
    { role: "user", content: [{ type: "text", text: "read b and c" }] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Reading two." },
        { type: "tool_use", id: "b", name: "Read", input: {} },
        { type: "tool_use", id: "c", name: "Read", input: {} },
      ],
    },
    { role: "user", content: ["b", "c"].map((id) => ({ type: "tool_result", tool_use_id: id, content: "x".repeat(20_000) })) },
  ];
  // the count: the prompt, and 3,000 tokens beside the rows
  const prompt = estimateRowsInCount(rowsToSession(rows as never, "s"), rows as never, ["b"]);
  const { compact, records } = host({ tokens: prompt + 3_000, messages: async () => messages, rows });
  await compact();
  expect(records()[0]!.unseenTokens).toBe(3_000);
});

test("messages that throw, or come malformed: the compaction goes on with the whole count against the budget, and the log says why", async () => {
  const failing = host({
    messages: async () => {
      throw new Error("session gone");
    },
  });
  await failing.compact();
  const malformed = host({ messages: async () => ({ deny: "no" }) });
  await malformed.compact();
  for (const [h, why] of [
    [failing, "Claude Code's messages were not read (session gone)"],
    [malformed, "Claude Code's messages are denied"],
  ] as const) {
    const [r] = h.records();
    expect(r!.outcome).not.toBe("skipped");
    expect(r!.thinkingTokens).toBeUndefined();
    expect(r!.thinkingProblem).toBe(why);
  }
});

test("messages that do not answer: the compaction goes on without them after 2 s", async () => {
  jest.useFakeTimers();
  try {
    const settle = async () => {
      for (let i = 0; i < 20; i++) await Promise.resolve();
    };
    const { compact, records } = host({ messages: () => new Promise(() => {}), tick: () => Promise.resolve() });
    let done = false;
    const run = compact().then(() => (done = true));
    await settle();
    jest.advanceTimersByTime(1_999);
    await settle();
    expect(done).toBe(false);
    jest.advanceTimersByTime(1);
    await run;
    expect(records()[0]!.thinkingProblem).toBe("Claude Code's messages were not read (no answer in 2000 ms)");
  } finally {
    jest.useRealTimers();
  }
});

test("a messages call that throws before it answers (a Claude Code without it): the compaction goes on with the whole count against the budget", async () => {
  const { compact, records } = host({
    messages: () => {
      throw new TypeError("$.session.messages is not a function");
    },
  });
  await compact();
  const [r] = records();
  expect(r!.outcome).not.toBe("skipped");
  expect(r!.thinkingTokens).toBeUndefined();
  expect(r!.thinkingProblem).toBe("Claude Code's messages were not read ($.session.messages is not a function)");
});
