// Response items -> session model messages, tool-call pairing, output rewriting, loadCodexRollout.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Message } from "../../../src/engine/types.ts";
import { replaceOutputText, type OutputItem } from "../../../src/hosts/codex/items.ts";
import { loadCodexRollout, readRollout, type Rollout } from "../../../src/hosts/codex/rollout.ts";
import { itemToMessage, outputIsError, pairToolItems } from "../../../src/hosts/codex/session-map.ts";

const path = (name: string): string => join(import.meta.dir, "..", "..", "fixtures", "codex", name);
const responseItems = (r: Rollout) => r.lines.flatMap((l) => (l.kind === "response_item" ? [l] : []));

describe("every item variant maps to one message", () => {
  const r = readRollout(path("legacy-every-item-variant.jsonl"));
  const byLine = new Map(responseItems(r).map((l) => [l.index, itemToMessage(l.payload, { host: "codex", record: l.index })]));
  const find = (pred: (m: Message) => boolean): Message => [...byLine.values()].find(pred)!;
  const callNamed = (name: string): Message => find((m) => m.toolCalls[0]?.name === name);
  const resultFor = (id: string): Message => find((m) => m.toolResults[0]?.callId === id);
  const src = (m: Message) => m.source;

  test.each<[string, () => Message, Omit<Message, "source">]>([
    [
      "developer message -> system meta",
      () => byLine.get(2)!,
      {
        role: "system",
        kind: "meta",
        text: "<permissions instructions>\nsandbox_mode is workspace-write.\n</permissions instructions>",
        toolCalls: [],
        toolResults: [],
      },
    ],
    [
      "AGENTS.md + environment_context user message -> meta",
      () => byLine.get(3)!,
      {
        role: "user",
        kind: "meta",
        text: "# AGENTS.md instructions for /home/dev/proj\n\n<INSTRUCTIONS>\nRun tests with npm test.\n</INSTRUCTIONS>\n<environment_context>\n  <cwd>/home/dev/proj</cwd>\n  <shell>bash</shell>\n</environment_context>",
        toolCalls: [],
        toolResults: [],
      },
    ],
    ["person's message -> prompt", () => byLine.get(5)!, { role: "user", kind: "prompt", text: "list the files", toolCalls: [], toolResults: [] }],
    [
      "reasoning -> summary texts",
      () => find((m) => m.kind === "reasoning"),
      { role: "assistant", kind: "reasoning", text: "**Listing files**", toolCalls: [], toolResults: [] },
    ],
    [
      "function_call -> parsed arguments",
      () => find((m) => m.toolCalls[0]?.id === "call_ls"),
      {
        role: "assistant",
        kind: "reply",
        text: "",
        toolCalls: [
          { id: "call_ls", name: "exec_command", input: { cmd: "ls", workdir: "/home/dev/proj" }, inputText: '{"cmd": "ls", "workdir": "/home/dev/proj"}' },
        ],
        toolResults: [],
      },
    ],
    [
      "function_call with arguments that are not JSON -> the raw text as input",
      () => find((m) => m.toolCalls[0]?.id === "call_bad"),
      {
        role: "assistant",
        kind: "reply",
        text: "",
        toolCalls: [{ id: "call_bad", name: "exec_command", input: "{not json", inputText: "{not json" }],
        toolResults: [],
      },
    ],
    [
      "custom_tool_call -> { input }",
      () => callNamed("apply_patch"),
      {
        role: "assistant",
        kind: "reply",
        text: "",
        toolCalls: [
          {
            id: "call_patch",
            name: "apply_patch",
            input: { input: "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n" },
            inputText: "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n",
          },
        ],
        toolResults: [],
      },
    ],
    [
      "local_shell_call -> action",
      () => callNamed("local_shell"),
      {
        role: "assistant",
        kind: "reply",
        text: "",
        toolCalls: [
          {
            id: "call_local",
            name: "local_shell",
            input: { type: "exec", command: ["echo", "x"], timeout_ms: 10000, working_directory: null, env: null, user: null },
            inputText: '{"type":"exec","command":["echo","x"],"timeout_ms":10000,"working_directory":null,"env":null,"user":null}',
          },
        ],
        toolResults: [],
      },
    ],
    [
      "web_search_call (no call_id, no id) -> an id from its place in the file",
      () => callNamed("web_search"),
      {
        role: "assistant",
        kind: "reply",
        text: "",
        toolCalls: [
          {
            id: "web_search@15",
            name: "web_search",
            input: { type: "search", query: "bun test docs" },
            inputText: '{"type":"search","query":"bun test docs"}',
          },
        ],
        toolResults: [],
      },
    ],
    [
      "tool_search_call -> arguments",
      () => callNamed("tool_search"),
      {
        role: "assistant",
        kind: "reply",
        text: "",
        toolCalls: [{ id: "call_ts", name: "tool_search", input: { query: "github issues", limit: 8 }, inputText: '{"query":"github issues","limit":8}' }],
        toolResults: [],
      },
    ],
    [
      "function_call_output string -> tool result",
      () => resultFor("call_ls"),
      {
        role: "user",
        kind: "tool",
        text: "",
        toolCalls: [],
        toolResults: [
          {
            callId: "call_ls",
            text: "Chunk ID: 8b1bdb\nWall time: 0.0383 seconds\nProcess exited with code 0\nOriginal token count: 4\nOutput:\nREADME.md\nsrc\n",
            isError: false,
            images: 0,
          },
        ],
      },
    ],
    [
      "function_call_output array -> text parts joined, images counted",
      () => resultFor("call_img"),
      { role: "user", kind: "tool", text: "", toolCalls: [], toolResults: [{ callId: "call_img", text: "screenshot.png", isError: false, images: 1 }] },
    ],
    [
      "custom_tool_call_output -> tool result",
      () => resultFor("call_patch"),
      {
        role: "user",
        kind: "tool",
        text: "",
        toolCalls: [],
        toolResults: [
          {
            callId: "call_patch",
            text: "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA notes.txt\n",
            isError: false,
            images: 0,
          },
        ],
      },
    ],
    [
      "tool_search_output -> the tools as JSON",
      () => resultFor("call_ts"),
      {
        role: "user",
        kind: "tool",
        text: "",
        toolCalls: [],
        toolResults: [{ callId: "call_ts", text: '[{"type":"function","name":"_list_issues","description":"List issues."}]', isError: false, images: 0 }],
      },
    ],
    [
      "failed to parse arguments -> an error result",
      () => resultFor("call_bad"),
      {
        role: "user",
        kind: "tool",
        text: "",
        toolCalls: [],
        toolResults: [{ callId: "call_bad", text: "failed to parse function arguments: key must be a string at line 1 column 2", isError: true, images: 0 }],
      },
    ],
    [
      "agent_message -> meta input",
      () => find((m) => m.text.startsWith("Message Type: FINAL_ANSWER")),
      { role: "user", kind: "meta", text: "Message Type: FINAL_ANSWER\nPayload:\nreviewed, no issues", toolCalls: [], toolResults: [] },
    ],
    [
      "assistant message -> reply",
      () => find((m) => m.text.startsWith("There are two")),
      { role: "assistant", kind: "reply", text: "There are two entries: README.md and src.", toolCalls: [], toolResults: [] },
    ],
  ])("%s", (_name, get, expected) => {
    const m = get();
    expect(m).toBeDefined();
    const { source, ...rest } = m;
    expect(rest).toEqual(expected);
    expect(source).toEqual({ host: "codex", record: source!.record });
    expect(r.lines[source!.record]?.kind).toBe("response_item");
  });

  test("a summary message and a server-side compaction item are summaries", () => {
    const summary = itemToMessage(
      {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: "Another language model started to solve this problem and produced a summary of its thinking process. Here: x" }],
      },
      { host: "codex", record: 1, block: 2 },
    );
    expect(summary.kind).toBe("summary");
    expect(summary.source).toEqual({ host: "codex", record: 1, block: 2 });
    expect(itemToMessage({ type: "compaction", encrypted_content: "e" }, { host: "codex", record: 0 }).kind).toBe("summary");
  });

  test("sources point at distinct response_item lines", () => {
    expect(new Set([...byLine.values()].map(src).map((s) => s?.record)).size).toBe(byLine.size);
  });
});

describe("tool output error flag (conservative: exit codes are not errors)", () => {
  test.each<[string, unknown, boolean]>([
    ["exit code 0", "Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\nok", false],
    ["exit code 1 (grep found nothing)", "Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 1\nOutput:\n", false],
    ["legacy JSON with exit_code 2", '{"output":"boom","metadata":{"exit_code":2,"duration_seconds":0.1}}', false],
    ["unparseable arguments", "failed to parse function arguments: missing field `cmd`", true],
    ["aborted", "aborted by user after 3.2s", true],
    ["rejected", "exec command rejected by user", true],
    ["sandbox denial", "Command blocked: sandbox denied write to /etc", true],
    ["apply_patch verification", "apply_patch verification failed: Failed to find expected lines in a.ts", true],
    ["write_stdin", "write_stdin failed: Unknown process id 33370", true],
    ["unsupported tool", "unsupported custom tool call: apply_patch", true],
    ["a word 'failed' later in the output", "Process exited with code 0\nOutput:\n3 tests failed: see log", false],
  ])("%s", (_name, output, isError) => {
    const item = { type: "function_call_output", call_id: "c", output } as OutputItem;
    const m = itemToMessage(item, { host: "codex", record: 0 });
    expect(m.toolResults[0]?.isError).toBe(isError);
    expect(outputIsError(m.toolResults[0]!.text)).toBe(isError);
  });
});

describe("pairing calls and outputs by call_id", () => {
  test("orphans on both sides are reported, never a crash", () => {
    const r = readRollout(path("unpaired-calls-and-outputs.jsonl"));
    const items = responseItems(r).map((l) => l.payload);
    const p = pairToolItems(items);
    const idx = (type: string, id: string, nth = 0) => items.map((x, i) => [x, i] as const).filter(([x]) => x.type === type && x.call_id === id)[nth]![1];
    expect([...p.pairs]).toEqual([["call_ok", [idx("function_call", "call_ok"), idx("function_call_output", "call_ok")]]]);
    expect(p.callsWithoutOutput).toEqual([{ callId: "call_open", index: idx("function_call", "call_open") }]);
    expect(p.outputsWithoutCall).toEqual([
      { callId: "call_stray", index: idx("function_call_output", "call_stray") },
      { callId: "call_ok", index: idx("function_call_output", "call_ok", 1) },
    ]);
    // and the session still loads, every output a tool message
    const s = loadCodexRollout(r.path);
    expect(s.live.messages.filter((m) => m.kind === "tool").map((m) => m.toolResults[0]?.callId)).toEqual(["call_stray", "call_ok", "call_ok"]);
  });

  test("every call in the item-variant fixture is answered (web search needs no output)", () => {
    const p = pairToolItems(responseItems(readRollout(path("legacy-every-item-variant.jsonl"))).map((l) => l.payload));
    expect([...p.pairs.keys()].sort()).toEqual(["call_bad", "call_grep", "call_img", "call_local", "call_ls", "call_patch", "call_ts"]);
    expect(p.callsWithoutOutput).toEqual([]);
    expect(p.outputsWithoutCall).toEqual([]);
  });
});

describe("replaceOutputText keeps everything but the text", () => {
  test.each<[string, OutputItem, OutputItem]>([
    [
      "string output",
      { type: "function_call_output", id: "fco_1", call_id: "c", output: "long text", internal_chat_message_metadata_passthrough: { turn_id: "t" } },
      { type: "function_call_output", id: "fco_1", call_id: "c", output: "[removed]", internal_chat_message_metadata_passthrough: { turn_id: "t" } },
    ],
    [
      "array output: first text part replaced, later text parts removed, images kept in place",
      {
        type: "custom_tool_call_output",
        call_id: "c",
        output: [
          { type: "input_text", text: "a" },
          { type: "input_image", image_url: "data:x" },
          { type: "input_text", text: "b" },
        ],
      },
      {
        type: "custom_tool_call_output",
        call_id: "c",
        output: [
          { type: "input_text", text: "[removed]" },
          { type: "input_image", image_url: "data:x" },
        ],
      },
    ],
    [
      "array output without text",
      { type: "function_call_output", call_id: "c", output: [{ type: "input_image", image_url: "data:x" }] },
      {
        type: "function_call_output",
        call_id: "c",
        output: [
          { type: "input_text", text: "[removed]" },
          { type: "input_image", image_url: "data:x" },
        ],
      },
    ],
  ])("%s", (_name, item, expected) => {
    const before = JSON.stringify(item);
    const next = replaceOutputText(item, "[removed]");
    expect(JSON.stringify(next)).toBe(JSON.stringify(expected)); // same fields, same key order
    expect(JSON.stringify(item)).toBe(before); // the input is not modified
  });
});

describe("loadCodexRollout", () => {
  test("timeline across compactions, live history, compactions with from/at/kept", () => {
    const s = loadCodexRollout(path("legacy-two-compactions.jsonl"));
    expect(s.host).toBe("codex");
    expect(s.id).toBe("019f1d32-d0a7-7331-bf87-3941f91a008a");
    expect(s.versions).toEqual(["0.142.2"]);
    expect(s.malformed).toEqual([]);
    const short = (m: Message) => `${m.kind}:${m.text || m.toolCalls[0]?.id || m.toolResults[0]?.callId || ""}`.split("\n")[0]!.slice(0, 28);
    expect(s.timeline.messages.map(short)).toEqual([
      "meta:<permissions instructio",
      "meta:# AGENTS.md instruction",
      "prompt:list the files",
      "reply:call_a",
      "tool:call_a",
      "prompt:second prompt",
      "reply:call_b",
      "tool:call_b",
      "prompt:third prompt",
      "reply:call_c",
      "tool:call_c",
      "reply:42 lines.",
    ]);
    expect(s.compactions.map((c) => ({ from: c.from, at: c.at, kept: c.kept.map(short) }))).toEqual([
      { from: 0, at: 5, kept: ["prompt:list the files", "meta:<permissions instructio", "meta:# AGENTS.md instruction", "summary:"] },
      { from: 5, at: 8, kept: ["prompt:list the files", "prompt:second prompt", "meta:<permissions instructio", "meta:# AGENTS.md instruction", "summary:"] },
    ]);
    expect(s.live.messages.map(short)).toEqual([...s.compactions[1]!.kept.map(short), ...s.timeline.messages.slice(8).map(short)]);
    // replacement copies point into the compacted record
    const secondCompacted = readRollout(s.path).lines.filter((l) => l.kind === "compacted")[1]!.index;
    expect(s.live.messages[0]!.source).toEqual({ host: "codex", record: secondCompacted, block: 0 });
  });

  test("a legacy summary-only compaction keeps its summary out of the timeline and in kept", () => {
    const s = loadCodexRollout(path("legacy-summary-only-compaction.jsonl"));
    expect(s.timeline.messages.some((m) => m.kind === "summary")).toBe(false);
    expect(s.compactions.map((c) => c.kept.map((m) => m.kind))).toEqual([["prompt", "prompt", "summary"]]);
    expect(s.live.messages.map((m) => m.kind)).toEqual(["prompt", "prompt", "summary", "prompt", "reply", "tool"]);
  });

  test("a rollout still being written loads up to its last complete line", () => {
    const s = loadCodexRollout(path("partial-last-line.jsonl"));
    expect(s.malformed).toHaveLength(1);
    expect(s.malformed[0]).toEndWith(": incomplete last line, cut mid-JSON (the file may still be being written)");
    expect(s.live.messages.at(-1)?.toolCalls[0]?.id).toBe("call_a");
  });
});
