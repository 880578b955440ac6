import { expect, test } from "bun:test";
import type { Message } from "../../src/engine/types.ts";
import { unpairedResults, unpairedText } from "../../src/hosts/pairing.ts";

const call = (id: string): Message => ({
  role: "assistant",
  kind: "reply",
  text: "",
  toolCalls: [{ id, name: "Bash", input: {}, inputText: "{}" }],
  toolResults: [],
});
const result = (id: string): Message => ({
  role: "user",
  kind: "tool",
  text: "",
  toolCalls: [],
  toolResults: [{ callId: id, text: "x", isError: false, images: 0 }],
});

test("a result before its call, or with none, and a second result are unpaired; a call without a result is not asked", () => {
  const u = unpairedResults([call("a"), result("a"), result("b"), call("b"), result("a"), call("c")]);
  expect(u).toEqual([
    { index: 2, callId: "b", second: false },
    { index: 4, callId: "a", second: true },
  ]);
  expect(u.map((x) => unpairedText(x, "output"))).toEqual(["output b has no call before it", "a second output for a"]);
  expect(unpairedResults([call("a"), call("b"), result("b"), result("a")])).toEqual([]);
});
