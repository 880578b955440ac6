// The ladder as plan() walks it: the rules in order, a locking rule's verdict final, the first
// decision winning, a keep still becoming a truncate, and a guard keeping a cut.
import { describe, expect, test } from "bun:test";
import { LADDER } from "../../../src/engine/rules/ladder.ts";
import { SMALL_CHARS } from "../../../src/engine/rules/referenced.ts";
import { BEYOND_RECENT, SessionBuilder } from "../support/build.ts";
import { verdictFor } from "../support/decide.ts";

const LONG = Array.from({ length: 30 }, (_, i) => `\tmodified:   src/module_number_${i}.ts`).join("\n");

describe("the ladder", () => {
  test("lists the rules in order; the locking ones first", () => {
    expect(LADDER.map((r) => r.id)).toEqual(["pinned", "never-drop", "superseded-read", "superseded-run", "latest-read", "referenced", "re-runnable"]);
    expect(LADDER.map((r) => r.locks === true)).toEqual([true, true, false, false, false, false, false]);
  });

  test("a pin is final: an error result a later rule would truncate stays whole", () => {
    const b = new SessionBuilder().user("go");
    const id = b.bash("git status", `On branch main\n${LONG}`, { isError: true });
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), id)).toBe("keep pinned");
  });

  test("never-drop is final: a person's answer no later message uses is kept", () => {
    const b = new SessionBuilder().user("go");
    const id = b.call("AskUserQuestion", { questions: [{ question: "Which?" }] }, `The user answered: the second one, please. ${"x".repeat(300)}`);
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), id)).toBe("keep never-drop");
  });

  test("a keep still becomes a truncate: a referenced listing is cut to its head", () => {
    const b = new SessionBuilder().user("go");
    const id = b.bash("git status", `On branch main\n${LONG}`);
    b.assistant("I will edit src/module_number_7.ts next.");
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), id)).toBe("truncate re-runnable");
  });

  test("a small unreferenced output is kept for the need score to judge, and a later rule may still cut it to its head", () => {
    const b = new SessionBuilder().user("go");
    const status = `On branch main\n${"  modified:   src/module_number.ts\n".repeat(8)}`;
    const id = b.bash("git status", status);
    b.filler(BEYOND_RECENT);
    expect(status.length).toBeLessThan(SMALL_CHARS);
    expect(verdictFor(b.session(), id)).toBe("truncate re-runnable");
  });

  test("the first cut wins: an unreferenced listing is dropped, not truncated", () => {
    const b = new SessionBuilder().user("go");
    const id = b.bash("git status", `On branch main\n${LONG}`);
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), id)).toBe("drop unreferenced");
  });

  test("a guard keeps a cut: an unreferenced output quoted later is kept by never-drop", () => {
    const b = new SessionBuilder().user("go");
    const id = b.bash("./report", `nothing of note here\nthe quick brown fox jumps over the lazy dog, twice over\n${"z".repeat(700)}`);
    b.assistant("It said: the quick brown fox jumps over the lazy dog, twice over.");
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), id)).toBe("keep never-drop");
  });
});
