import { describe, expect, test } from "bun:test";
import { SessionFacts } from "../../../src/engine/session-facts.ts";
import { reRunnable } from "../../../src/engine/rules/re-runnable.ts";
import { DEFAULT_OPTIONS } from "../../../src/engine/types.ts";
import { BEYOND_RECENT, SessionBuilder } from "../support/build.ts";
import { decisionFor, verdictFor } from "../support/decide.ts";

const LISTING = Array.from({ length: 40 }, (_, i) => `-rw-r--r--  1 dev  staff  ${1000 + i} Jan  1 12:00 file${i}.txt`).join("\n");
const PASSING = `bun test v1.4.5\n\n${"(pass) something works [0.1ms]\n".repeat(20)}\n 20 pass\n 0 fail\nRan 20 tests across 3 files.`;
const FAILING = `bun test v1.4.5\n\n${"(pass) something works [0.1ms]\n".repeat(20)}(fail) the widget renders\n 20 pass\n 1 fail`;

const scenario = (command: string, output: string, after: (b: SessionBuilder) => void = (b) => b.assistant("ok"), isError = false, filler = BEYOND_RECENT) => {
  const b = new SessionBuilder().user("go");
  const id = b.bash(command, output, { isError });
  after(b);
  b.filler(filler);
  return { session: b.session(), id };
};

/** The rule on its own (in a plan, an unreferenced result is dropped before this rule is asked). */
const ruleVerdict = (command: string, output: string) => {
  const { session, id } = scenario(command, output);
  const facts = new SessionFacts(session, DEFAULT_OPTIONS);
  return reRunnable.decide({ facts, item: facts.items.find((i) => i.result.callId === id)! });
};

describe("re-runnable", () => {
  test.each([
    ["git status", `On branch main\n${"\tmodified:   src/file.ts\n".repeat(20)}`],
    ["git log --oneline | head -30", "abc1234 commit message\n".repeat(30)],
    ["git diff --stat", " src/a.ts | 2 +-\n".repeat(30)],
    ["git branch -a", "  feature/x\n".repeat(30)],
    ["cd /repo && bun test", PASSING],
    ["npm test 2>&1", PASSING],
    ["pytest -q", `${"....................\n".repeat(15)}300 passed in 2.1s`],
    ["cargo test", "test result: ok. 40 passed; 0 failed; 0 ignored\n".repeat(8)],
    ["go test ./...", "ok  \texample.com/pkg/a\t0.01s\n".repeat(20)],
  ])("`%s` is cut to its first 200 characters", (command, output) => {
    expect(ruleVerdict(command, output)).toMatchObject({ action: "truncate", rule: "re-runnable", headChars: 200 });
  });

  test.each([
    ["a failing test run (no exit status, failures in the output)", "bun test", FAILING],
    ["cat of a file", "cat notes.txt", LISTING],
    ["ls written to a file", "ls -la > listing.txt", LISTING],
    ["ls then something else", "ls && ./deploy", LISTING],
    ["git branch -D", "git branch -D old", LISTING],
    // as cheap to re-run, but the agent goes on to use the names a listing shows: judged like any output
    ["a listing (ls)", "ls -la", LISTING],
    ["a listing (pwd)", "pwd", "/Users/dev/projects/some/deeply/nested/folder/".repeat(6)],
  ])("%s is not re-runnable output", (_name, command, output) => {
    expect(ruleVerdict(command, output)).toBeUndefined();
  });

  test("a failing run with a non-zero exit is an error result: pinned", () => {
    const { session, id } = scenario("npm test", `Exit code 1\n${FAILING}`, undefined, true);
    expect(verdictFor(session, id)).toBe("keep pinned");
  });

  test("short output that a truncation would not shorten is kept", () => {
    const { session, id } = scenario("git status", "On branch main\nnothing to commit, working tree clean", (b) => b.assistant("ok"), false, 5);
    expect(decisionFor(session, id)).toMatchObject({ action: "keep", rule: "re-runnable" });
  });

  test("referenced git output moves from keep to truncate (the one move a later rule may make)", () => {
    const { session, id } = scenario("git status", LISTING, (b) => b.assistant("I will open file39.txt next."));
    expect(verdictFor(session, id)).toBe("truncate re-runnable");
  });

  test("a referenced listing stays whole: the names it shows are what the agent goes on to use", () => {
    const { session, id } = scenario("ls -la", LISTING, (b) => b.assistant("I will open file39.txt next."));
    expect(verdictFor(session, id)).toBe("keep referenced");
  });

  test("an unreferenced git output stays dropped (a later rule cannot soften a drop)", () => {
    const { session, id } = scenario("git status", LISTING, (b) => b.assistant("nothing there"));
    expect(verdictFor(session, id)).toBe("drop unreferenced");
  });

  test("Codex: exec_command git status with a zero exit status", () => {
    const b = new SessionBuilder("codex").user("go");
    const id = b.call(
      "exec_command",
      { cmd: "git status", workdir: "/repo" },
      `Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\n${LISTING}`,
    );
    b.assistant("I will open file39.txt next.");
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), id)).toBe("truncate re-runnable");
  });
});
