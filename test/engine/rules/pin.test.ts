import { describe, expect, test } from "bun:test";
import type { Message } from "../../../src/engine/types.ts";
import { SessionBuilder, fileLines } from "../support/build.ts";
import { decisionFor, verdictFor } from "../support/decide.ts";

const big = fileLines("pinned", 40).join("\n");

describe("pin", () => {
  test("a result in the first message is pinned", () => {
    const first: Message = {
      role: "assistant",
      kind: "reply",
      text: "",
      toolCalls: [{ id: "c0", name: "Bash", input: { command: "cat notes" }, inputText: "" }],
      toolResults: [{ callId: "c0", text: big, isError: false, images: 0 }],
    };
    const b = new SessionBuilder();
    b.messages.push(first);
    b.filler(20);
    expect(decisionFor(b.session(), "c0")).toMatchObject({ action: "keep", rule: "pinned", reason: "in the first message" });
  });

  test.each([
    // [results after the one under test, expected]: each filler result adds two messages
    [0, "keep pinned"],
    [1, "keep pinned"],
    [2, "keep pinned"], // its result message is the 5th from the end: within the last 6
    [3, "keep too-recent"], // 7th from the end: no longer pinned, still too recent
  ])("a result with %i results after it: %s", (after, expected) => {
    const b = new SessionBuilder().user("go");
    const id = b.bash("./gen-report", big);
    b.filler(after);
    expect(verdictFor(b.session(), id)).toBe(expected);
  });

  test("pinLastMessages is an option", () => {
    const b = new SessionBuilder().user("go");
    const id = b.bash("./gen-report", big);
    b.filler(12);
    expect(verdictFor(b.session(), id, { pinLastMessages: 30 })).toBe("keep pinned");
  });

  test.each([
    ["a Claude error result", (b: SessionBuilder) => b.bash("make", `Exit code 2\nmake: *** [all] Error 2 ${big}`, { isError: true })],
    [
      "a Codex non-zero exit",
      (b: SessionBuilder) =>
        b.call(
          "exec_command",
          { cmd: "make" },
          `Chunk ID: ab12cd\nWall time: 0.1 seconds\nProcess exited with code 2\nOriginal token count: 9\nOutput:\n${big}`,
        ),
    ],
    [
      "a Codex apply_patch failure",
      (b: SessionBuilder) => b.call("apply_patch", { input: "*** Begin Patch" }, `Exit code: 1\nWall time: 0 seconds\nOutput:\n${big}`),
    ],
  ])("%s is pinned however old", (_name, add) => {
    const b = new SessionBuilder().user("go");
    const id = add(b);
    b.filler(20);
    expect(decisionFor(b.session(), id)).toMatchObject({ action: "keep", rule: "pinned", reason: "an error result" });
  });
});
