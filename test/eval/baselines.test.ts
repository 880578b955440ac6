// Each baseline's behaviour on a small session, against what its source says it does.
import { describe, expect, test } from "bun:test";
import type { Message } from "../../src/engine/types.ts";
import { cutContext } from "../../src/eval/cut.ts";
import { BASELINES, CLEARED_PLACEHOLDER, MICROCOMPACT_PLACEHOLDER, OPENCODE_PLACEHOLDER, REMOVAL_NOTE } from "../../src/eval/methods/baselines.ts";
import type { MethodInput, Rewrites } from "../../src/eval/methods/method.ts";
import { indexSession } from "../../src/eval/session-index.ts";
import { filler, pair, prompt, session } from "./build.ts";

const method = (id: string) => {
  const m = BASELINES.find((b) => b.id === id);
  if (!m) throw new Error(`no baseline ${id}`);
  return m;
};

/** Cut after all messages (the whole list is the prefix). */
const input = (messages: readonly Message[], rulesFreedTokens = 0): MethodInput => ({
  ...cutContext(indexSession(session(messages)), 1, messages.length),
  rulesFreedTokens,
});

const run = (id: string, messages: readonly Message[], rulesFreedTokens = 0): Rewrites => method(id).run(input(messages, rulesFreedTokens));

/** n results of one tool, `chars` long each, then `tail` filler messages */
const results = (n: number, tool: string, chars: number, tail = 6): Message[] => [
  prompt("go"),
  ...Array.from({ length: n }, (_, i) => pair(`c${i}`, tool, { n: i }, `${i}:`.padEnd(chars, "x"))).flat(),
  ...filler(tail),
];

test("every published baseline is there, once", () => {
  expect(BASELINES.map((b) => b.id)).toEqual([
    "keep-all",
    "drop-unpinned",
    "clear-tool-uses",
    "clear-tool-uses-always",
    "microcompact",
    "opencode-prune",
    "observation-mask",
    "size-cap",
    "largest-first",
  ]);
});

test("keep-all removes nothing", () => {
  expect(run("keep-all", results(5, "Read", 100)).size).toBe(0);
});

test("drop-unpinned replaces every unpinned result with a removal note, pinned ones untouched", () => {
  const msgs = [...results(3, "Read", 100, 0), ...pair("e", "Bash", { c: 1 }, "boom", { isError: true }), ...filler(6)];
  const out = run("drop-unpinned", msgs);
  expect([...out.entries()]).toEqual([0, 1, 2].map((o) => [o, REMOVAL_NOTE(100)]));
});

describe("clear-tool-uses", () => {
  test("under the 100k trigger nothing is cleared; the always-variant clears all but the newest 3", () => {
    const msgs = results(6, "Read", 400);
    expect(run("clear-tool-uses", msgs).size).toBe(0);
    expect([...run("clear-tool-uses-always", msgs).entries()]).toEqual([0, 1, 2].map((o) => [o, CLEARED_PLACEHOLDER]));
  });

  test("over 100k tokens it clears all but the newest 3", () => {
    const msgs = results(6, "Read", 80_000); // 6 × 20k tokens
    expect([...run("clear-tool-uses", msgs).keys()]).toEqual([0, 1, 2]);
  });
});

describe("microcompact", () => {
  test("keeps the newest 12 compactable results; acts only if it saves 20k tokens", () => {
    expect(run("microcompact", results(14, "Read", 8_000)).size).toBe(0); // 2 × 2k tokens: too little
    const out = run("microcompact", results(14, "Read", 48_000)); // 2 × 12k tokens
    expect([...out.entries()]).toEqual([
      [0, MICROCOMPACT_PLACEHOLDER],
      [1, MICROCOMPACT_PLACEHOLDER],
    ]);
  });

  test("only its tool set is touched; Codex shell tools count as Bash", () => {
    expect(run("microcompact", results(14, "TaskUpdate", 48_000)).size).toBe(0);
    expect(run("microcompact", results(14, "exec_command", 48_000)).size).toBe(2);
  });
});

describe("opencode-prune", () => {
  // turn A: 3 results of 30k tokens | turn B: 1 result | turn C: 1 result (the last two turns are protected)
  const turn = (name: string, n: number, chars: number): Message[] => [
    prompt(`turn ${name}`),
    ...Array.from({ length: n }, (_, i) => pair(`${name}${i}`, "Bash", { i }, "y".repeat(chars))).flat(),
  ];

  test("protects the last 2 user turns and the newest 40k tokens, prunes older if over 20k", () => {
    const msgs = [...turn("A", 3, 120_000), ...turn("B", 1, 400_000), ...turn("C", 1, 400_000)];
    // walking back from turn B's start: A2 (30k, total 30k), A1 (60k > 40k: pruned), A0 (pruned)
    expect([...run("opencode-prune", msgs).entries()].sort((a, b) => a[0] - b[0])).toEqual([
      [0, OPENCODE_PLACEHOLDER],
      [1, OPENCODE_PLACEHOLDER],
    ]);
  });

  test("skill results are never pruned, whether the tool is opencode's `skill` or Claude Code's `Skill`", () => {
    for (const name of ["skill", "Skill"]) {
      const msgs = [
        prompt("turn A"),
        ...pair("s0", name, { skill: "x" }, "z".repeat(120_000)),
        ...pair("b0", "Bash", { i: 0 }, "y".repeat(120_000)),
        ...pair("b1", "Bash", { i: 1 }, "y".repeat(120_000)),
        ...turn("B", 1, 400_000),
        ...turn("C", 1, 400_000),
      ];
      // walking back from turn B: b1 (30k), b0 (60k > 40k: pruned); the skill result is passed over
      expect([...run("opencode-prune", msgs).keys()]).toEqual([1]);
    }
  });

  test("nothing when the prunable total is at most 20k", () => {
    const msgs = [...turn("A", 2, 4_000), ...turn("B", 1, 400_000), ...turn("C", 1, 400_000)];
    expect(run("opencode-prune", msgs).size).toBe(0);
  });
});

test("observation-mask keeps the newest 10 results", () => {
  const out = run("observation-mask", results(12, "Read", 50));
  expect([...out.keys()]).toEqual([0, 1]);
  expect(out.get(0)).toBe("Old environment output: (1 lines omitted)");
});

test("size-cap cuts results over 8,000 characters to their first 8,000", () => {
  const msgs = [prompt("go"), ...pair("a", "Read", {}, "z".repeat(9_000)), ...pair("b", "Read", {}, "short"), ...filler(6)];
  const out = run("size-cap", msgs);
  expect([...out.keys()]).toEqual([0]);
  expect(out.get(0)).toBe("z".repeat(8_000));
});

test("largest-first drops the largest unpinned results until the rules' budget is met", () => {
  const msgs = [
    prompt("go"),
    ...pair("a", "Read", {}, "a".repeat(4_000)),
    ...pair("b", "Read", {}, "b".repeat(40_000)),
    ...pair("c", "Read", {}, "c".repeat(20_000)),
    ...filler(6),
  ];
  // result tokens: a 1k, b 10k, c 5k (each drop frees its size less the note's ~15 tokens)
  expect(run("largest-first", msgs, 0).size).toBe(0);
  expect([...run("largest-first", msgs, 10_000).keys()]).toEqual([1]);
  expect([...run("largest-first", msgs, 15_000).keys()].sort()).toEqual([1, 2]);
  // 9k: b would overshoot, so c (5k) then a (1k)
  expect([...run("largest-first", msgs, 9_000).keys()].sort()).toEqual([0, 2]);
});
