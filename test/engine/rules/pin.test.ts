import { describe, expect, test } from "bun:test";
import type { Message } from "../../../src/engine/types.ts";
import { BEYOND_RECENT, SessionBuilder, fileLines } from "../support/build.ts";
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
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), id, { pinLastMessages: 2 * BEYOND_RECENT + 6 })).toBe("keep pinned");
  });

  test("a result the host flags as an error is pinned however old, whatever the budget", () => {
    const b = new SessionBuilder().user("go");
    const id = b.bash("make", `Exit code 2\nmake: *** [all] Error 2 ${big}`, { isError: true });
    b.filler(20);
    expect(decisionFor(b.session(), id)).toMatchObject({ action: "keep", rule: "pinned", reason: "an error result" });
    expect(decisionFor(b.session(), id, { budgetTokens: 1 })).toMatchObject({ action: "keep", rule: "pinned" });
  });

  // a command that only exited non-zero (a grep that found nothing, a failing build) is no host error:
  // never dropped, and under a budget cut to its head at most, which keeps its exit status
  test.each([
    [
      "a Codex non-zero exit",
      (b: SessionBuilder) =>
        b.call(
          "exec_command",
          { cmd: "make" },
          `Chunk ID: ab12cd\nWall time: 0.1 seconds\nProcess exited with code 2\nOriginal token count: 9\nOutput:\n${big}`,
        ),
      "Process exited with code 2",
    ],
    [
      "a Codex apply_patch failure",
      (b: SessionBuilder) => b.call("apply_patch", { input: "*** Begin Patch" }, `Exit code: 1\nWall time: 0 seconds\nOutput:\n${big}`),
      "Exit code: 1",
    ],
  ])("%s is never dropped however old; under a budget only its head goes", (_name, add, status) => {
    const b = new SessionBuilder("codex").user("go");
    const id = add(b);
    b.filler(20);
    expect(decisionFor(b.session(), id)).toMatchObject({ action: "keep", rule: "never-drop", reason: "a command that exited non-zero" });
    const cut = decisionFor(b.session(), id, { budgetTokens: 1 });
    expect(cut).toMatchObject({ action: "truncate", rule: "escalation" });
    const text = b
      .session()
      .messages.flatMap((m) => m.toolResults)
      .find((r) => r.callId === id)!.text;
    expect(text.slice(0, cut.headChars)).toContain(status);
  });
});
