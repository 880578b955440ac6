// The model-visible history, rebuilt as Codex rebuilds it on resume.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { dropLastUserTurns, rebuildHistory, type HistoryItem } from "../../../src/hosts/codex/history.ts";
import { contentText, sentForm, type MessageItem, type ResponseItem } from "../../../src/hosts/codex/items.ts";
import { parseRollout, readRollout, type Rollout } from "../../../src/hosts/codex/rollout.ts";

const fixture = (name: string): Rollout => readRollout(join(import.meta.dir, "..", "..", "fixtures", "codex", name));

/** A short readable form of an item: `user: text`, `call call_a`, `output call_a`, `compaction`. */
const describeItem = (item: ResponseItem): string => {
  switch (item.type) {
    case "message": {
      const text = contentText((item as MessageItem).content);
      return `${(item as MessageItem).role}: ${text.startsWith("Another language model") ? "<summary>" : text.split("\n")[0]!.slice(0, 30)}`;
    }
    case "function_call":
      return `call ${String(item.call_id)}`;
    case "function_call_output":
      return `output ${String(item.call_id)}`;
    default:
      return item.type;
  }
};

/** where each item came from: `L12` (a response_item line) or `L9[3]` (replacement_history block 3 of line 9); `*` when built by Codex's rules */
const describeOrigin = (h: HistoryItem): string =>
  `L${h.origin.line}${h.origin.block === undefined ? "" : `[${h.origin.block}]`}${h.origin.synthesized ? "*" : ""}`;

const lineOf = (r: Rollout, kind: string, nth = 0): number => r.lines.filter((l) => l.kind === kind)[nth]!.index;

describe("rebuildHistory: the newest compacted record is the base", () => {
  test("no compaction: every model-visible response item in file order", () => {
    const r = fixture("legacy-one-compaction.jsonl");
    const noCompaction = parseRollout(
      r.lines
        .slice(0, lineOf(r, "compacted"))
        .map((l) => l.raw)
        .join("\n"),
      "head",
    );
    const h = rebuildHistory(noCompaction);
    expect(h.baseLine).toBeUndefined();
    expect(h.compactions).toEqual([]);
    expect(h.items.map((x) => describeItem(x.item))).toEqual([
      "developer: <permissions instructions>",
      "user: # AGENTS.md instructions for /",
      "user: list the files",
      "call call_a",
      "output call_a",
      "assistant: Read the README.",
    ]);
    expect(h.items.map(describeOrigin)).toEqual(["L2", "L3", "L5", "L7", "L8", "L9"]);
  });

  test("one compaction: its replacement_history, then what follows", () => {
    const r = fixture("legacy-one-compaction.jsonl");
    const c = lineOf(r, "compacted");
    const h = rebuildHistory(r);
    expect(h.baseLine).toBe(c);
    expect(h.items.map((x) => describeItem(x.item))).toEqual([
      "user: list the files",
      "developer: <permissions instructions>",
      "user: # AGENTS.md instructions for /",
      "user: now run the tests",
      "call call_b",
      "output call_b",
      "assistant: All 12 tests pass.",
    ]);
    expect(h.items.slice(0, 3).map(describeOrigin)).toEqual([`L${c}[0]`, `L${c}[1]`, `L${c}[2]`]);
    expect(h.items.slice(3).every((x) => x.origin.line > c && x.origin.block === undefined)).toBe(true);
  });

  test("two compactions: the newest wins, nothing before it survives", () => {
    const r = fixture("legacy-two-compactions.jsonl");
    const second = lineOf(r, "compacted", 1);
    const h = rebuildHistory(r);
    expect(h.compactions.map((c) => c.line)).toEqual([lineOf(r, "compacted", 0), second]);
    expect(h.baseLine).toBe(second);
    expect(h.items.map((x) => describeItem(x.item))).toEqual([
      "user: list the files",
      "user: second prompt",
      "developer: <permissions instructions>",
      "user: # AGENTS.md instructions for /",
      "compaction",
      "user: third prompt",
      "call call_c",
      "output call_c",
      "assistant: 42 lines.",
    ]);
    expect(h.items.every((x) => x.origin.line >= second)).toBe(true);
  });

  test("paginated 0.169 native compaction: replacement_history with the summary message", () => {
    const r = fixture("paginated-native-compaction.jsonl");
    const c = lineOf(r, "compacted");
    const h = rebuildHistory(r);
    expect(h.items.map((x) => `${describeOrigin(x)} ${describeItem(x.item)}`)).toEqual([
      `L${c}[0] user: count the lines of main.ts`,
      `L${c}[1] user: <summary>`,
      `L${c + 7} user: and utils.ts?`,
      `L${c + 8} custom_tool_call`,
      `L${c + 9} custom_tool_call_output`,
    ]);
  });

  test("a summary-only (legacy) compaction becomes the user messages plus its message", () => {
    const r = fixture("legacy-summary-only-compaction.jsonl");
    const c = lineOf(r, "compacted");
    const h = rebuildHistory(r);
    expect(h.compactions[0]?.hasReplacementHistory).toBe(false);
    expect(h.items.map((x) => `${describeOrigin(x)} ${describeItem(x.item)}`)).toEqual([
      "L5* user: list the files",
      "L10* user: and the tests?",
      `L${c}* user: <summary>`,
      `L${c + 1} user: run them`,
      `L${c + 2} call call_b`,
      `L${c + 3} output call_b`,
    ]);
    // the rebuilt user messages are plain ones, as Codex builds them
    expect(h.items[0]!.item).toEqual({ type: "message", role: "user", content: [{ type: "input_text", text: "list the files" }] });
  });

  test("system messages, ghost snapshots and other never-sent items are left out", () => {
    const r = fixture("legacy-every-item-variant.jsonl");
    const types = rebuildHistory(r).items.map((x) => describeItem(x.item));
    expect(types).not.toContain("ghost_snapshot");
    expect(types.some((t) => t.startsWith("system:"))).toBe(false);
    expect(types).toContain("image_generation_call");
    expect(types).toContain("agent_message");
  });
});

test("an agent's message to another (inter_agent_communication) since the base is named as not rebuilt; one before the base is not", () => {
  const path = join(import.meta.dir, "..", "..", "fixtures", "codex", "legacy-summary-only-compaction.jsonl");
  const lines = readFileSync(path, "utf8").trimEnd().split("\n");
  const c = lines.findIndex((l) => JSON.parse(l).type === "compacted");
  const message = (content: string) =>
    JSON.stringify({
      timestamp: "2026-12-01T14:00:00.000Z",
      type: "inter_agent_communication",
      payload: { author: "/root/worker", recipient: "/root", other_recipients: [], content, trigger_turn: false },
    });
  const text = [...lines.slice(0, c), message("before"), ...lines.slice(c), message("after")].join("\n");
  const r = parseRollout(text, "rollout.jsonl");
  const h = rebuildHistory(r);
  expect(h.notRebuilt).toEqual([lines.length + 1]);
  expect(rebuildHistory(parseRollout(lines.join("\n"), "rollout.jsonl")).notRebuilt).toEqual([]);
});

describe("rollback", () => {
  test("thread_rolled_back drops the newest user turn and the context injected just before it", () => {
    const h = rebuildHistory(fixture("thread-rolled-back.jsonl"));
    expect(h.items.map((x) => describeItem(x.item))).toEqual([
      "developer: <permissions instructions>",
      "user: # AGENTS.md instructions for /",
      "user: list the files",
      "assistant: Listed.",
      "user: never mind, show the README",
    ]);
  });

  const item = (line: number, role: string, text: string): HistoryItem => ({
    item: { type: "message", role, content: [{ type: "input_text", text }] },
    origin: { line },
  });
  const h = [item(0, "developer", "dev"), item(1, "user", "one"), item(2, "assistant", "a"), item(3, "user", "two"), item(4, "assistant", "b")];
  test.each([
    [0, 5],
    [1, 3],
    [2, 1],
    [9, 1],
  ])("dropping %i turns keeps %i items", (turns, kept) => {
    expect(dropLastUserTurns(h, turns)).toEqual(h.slice(0, kept));
  });
});

describe("what is sent", () => {
  test("internal_chat_message_metadata_passthrough is stored but not sent", () => {
    const r = fixture("paginated-native-compaction.jsonl");
    const stored = r.lines.flatMap((l) => (l.kind === "response_item" ? [l.payload] : []));
    const withPassthrough = stored.find((i) => "internal_chat_message_metadata_passthrough" in i)!;
    const sent = sentForm(withPassthrough);
    expect("internal_chat_message_metadata_passthrough" in sent).toBe(false);
    const restored: unknown = { ...sent, internal_chat_message_metadata_passthrough: withPassthrough.internal_chat_message_metadata_passthrough };
    expect(restored).toEqual(withPassthrough);
    const plain = stored.find((i) => !("internal_chat_message_metadata_passthrough" in i))!;
    expect(sentForm(plain)).toBe(plain);
  });
});
