// The thinking Claude Code's count holds, read from its messages in Messages API form
// ($.session.messages({ as: "api" })), shaped as Claude Code 2.1.328 and 2.1.332 answer it: one
// assistant message per response, its thinking block first, signed.
import { expect, test } from "bun:test";
import { lastAnswerCalls, thinkingInCount, thinkingThatStays } from "../../../src/hosts/claude/thinking.ts";
import { turnRows } from "../../e2e/support/claude-fixtures.ts";

const thought = (chars: number) => ({ type: "thinking", thinking: "t".repeat(chars), signature: "sig" });
const call = (id: string) => ({ type: "tool_use", id, name: "Read", input: { file_path: `/p/${id}` } });
const result = (id: string) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "x".repeat(4_000) }] });

test("every assistant message's thinking but the last's, which came with the response the count is of; and each answer's, with its calls", () => {
  const messages = [
    { role: "user", content: [{ type: "text", text: "READFILES a b" }] },
    { role: "assistant", content: [thought(400), { type: "text", text: "Step 1." }, call("a")] },
    result("a"),
    { role: "assistant", content: [thought(800), call("b")] },
    result("b"),
    { role: "assistant", content: [thought(4_000), { type: "text", text: "Done." }] },
  ];
  expect(thinkingInCount(messages)).toEqual({
    tokens: 300,
    answers: [
      { tokens: 100, callIds: ["a"], counted: true },
      { tokens: 200, callIds: ["b"], counted: true },
      { tokens: 1_000, callIds: [], counted: false },
    ],
  });
  // mid-turn (an automatic compaction): the last response's tool result follows it
  expect(thinkingInCount(messages.slice(0, 5))).toEqual({
    tokens: 100,
    answers: [
      { tokens: 100, callIds: ["a"], counted: true },
      { tokens: 200, callIds: ["b"], counted: false },
    ],
  });
});

test("no thinking, or only redacted thinking (its size is not known): none", () => {
  expect(thinkingInCount([])).toEqual({ tokens: 0, answers: [] });
  const messages = [
    { role: "user", content: [{ type: "text", text: "go" }] },
    { role: "assistant", content: [{ type: "redacted_thinking", data: "x".repeat(400) }, call("a")] },
    result("a"),
    { role: "assistant", content: [{ type: "text", text: "Done." }] },
  ];
  expect(thinkingInCount(messages)).toEqual({ tokens: 0, answers: [] });
});

test.each([
  ["a deny", { deny: "not yours" }, "denied"],
  ["not a list", "messages", "not a list"],
  ["undefined", undefined, "not a list"],
  ["a message that is not one", [{ role: "user", content: [] }, null], "message 1 is not { role, content: [blocks] }"],
  ["a message of another role", [{ role: "system", content: [] }], "message 0 is not"],
  ["content that is not blocks", [{ role: "assistant", content: "text" }], "message 0 is not"],
  [
    "a thinking block without text",
    [
      { role: "assistant", content: [{ type: "thinking", signature: "s" }] },
      { role: "assistant", content: [] },
    ],
    "a thinking block of Claude Code's message 0 has no text",
  ],
])("%s: not known, and why", (_, messages, problem) => {
  const got = thinkingInCount(messages);
  if (!("problem" in got)) throw new Error(`expected a problem, got ${JSON.stringify(got)}`);
  expect(got.problem).toContain(problem);
});

test("what stays after bc's answer: the answers whose calls the open tool loop's rows carry; the count's part at most what it holds; an answer without a call goes", () => {
  const step = (n: number) => ({ tool: "Bash", input: { command: `./s${n}.sh` }, text: `out ${n}` });
  // a finished turn (toolu_0001), then a loop still open (toolu_0002, toolu_0003)
  const rows = [...turnRows("first", [step(1)], 1, { thinking: true }), ...turnRows("go on", [step(2), step(3)], 2, { thinking: true, end: "open" })];
  const answers = [
    { tokens: 500, callIds: ["toolu_0001"], counted: true },
    { tokens: 70, callIds: [], counted: true },
    { tokens: 300, callIds: ["toolu_0002"], counted: true },
    { tokens: 400, callIds: ["toolu_0003"], counted: false },
  ];
  expect(thinkingThatStays({ tokens: 870, answers }, rows)).toEqual({ counted: 300, after: 400 });
  expect(thinkingThatStays({ tokens: 200, answers }, rows)).toEqual({ counted: 200, after: 400 });
  // the turn ended: nothing stays
  expect(thinkingThatStays({ tokens: 870, answers }, turnRows("first", [step(1)], 1, { thinking: true }))).toEqual({ counted: 0, after: 0 });
  expect(thinkingThatStays({ tokens: 870 }, rows)).toEqual({ counted: 0, after: 0 });
});

test("the last answer's calls: every call of the last assistant message, parallel ones too; none for a text answer; not known for messages of another shape", () => {
  const prompt = { role: "user", content: [{ type: "text", text: "READFILES a b c" }] };
  const parallel = { role: "assistant", content: [thought(400), { type: "text", text: "Reading two." }, call("b"), call("c")] };
  const messages = [prompt, { role: "assistant", content: [call("a")] }, result("a"), parallel, result("b"), result("c")];
  expect(lastAnswerCalls(messages)).toEqual(["b", "c"]);
  expect(lastAnswerCalls([...messages, { role: "assistant", content: [{ type: "text", text: "Done." }] }])).toEqual([]);
  expect(lastAnswerCalls([prompt])).toEqual([]);
  expect(lastAnswerCalls({ deny: "no" })).toBeUndefined();
  expect(lastAnswerCalls([prompt, { role: "assistant", content: "text" }])).toBeUndefined();
});
