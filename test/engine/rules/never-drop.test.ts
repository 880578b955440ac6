import { describe, expect, test } from "bun:test";
import { apply } from "../../../src/engine/apply.ts";
import { plan } from "../../../src/engine/plan.ts";
import { BEYOND_RECENT, SessionBuilder } from "../support/build.ts";
import { decisionFor, verdictFor } from "../support/decide.ts";

// output that no later message refers to, and large enough for the rules to drop (SMALL_CHARS):
// the referenced rule alone would drop it
const OUTPUT = [
  "Summary of the nightly job",
  "The quick brown fox jumps over the lazy dog while the scheduler waits patiently.",
  "Second stage finished without surprises",
  "",
  "Nothing else to report today, the queue is empty and the workers are idle.",
  "The weekly digest went out on time and nobody replied with questions about it.",
  "Disk usage stayed flat across every host in the pool during the whole run.",
  "The backup window closed early because there was little new data to copy.",
  "Three retries happened in the fetch stage and each one succeeded on its own.",
  "The report ends here and the next run is planned for tomorrow night as usual.",
].join("\n");

const scenario = (after: (b: SessionBuilder) => void, opts: { tool?: string; input?: unknown } = {}) => {
  const b = new SessionBuilder().user("please check the nightly job");
  const id = b.call(opts.tool ?? "Bash", opts.input ?? { command: "./nightly --report" }, OUTPUT);
  after(b);
  b.filler(BEYOND_RECENT);
  return { session: b.session(), id };
};

describe("never-drop", () => {
  test("without a reason to keep it, the output is dropped (the control case)", () => {
    const { session, id } = scenario((b) => b.assistant("Looks fine, moving on."));
    expect(verdictFor(session, id)).toBe("drop unreferenced");
  });

  test.each([
    ["a run of 40+ characters quoted later", "The log says: jumps over the lazy dog while the scheduler waits, fine.", "quoted at #3"],
    ["a whole short line quoted in backticks", "It printed `Second stage finished without surprises` earlier.", "quoted at #3"],
    ["a whole line quoted on its own line", "Output:\n> Summary of the nightly job\nok", "quoted at #3"],
  ])("%s: kept", (_name, reply, reason) => {
    const { session, id } = scenario((b) => b.assistant(reply));
    expect(decisionFor(session, id)).toMatchObject({ action: "keep", rule: "never-drop", reason });
  });

  test.each([
    ["a run of 37 characters", "It said jumps over the lazy dog while the sc and so on."],
    ["a whole line too short to count", "It printed `Nothing` then."],
  ])("%s: not a quote", (_name, reply) => {
    const { session, id } = scenario((b) => b.assistant(reply));
    expect(verdictFor(session, id)).toBe("drop unreferenced");
  });

  test("a quote from before the result does not count", () => {
    const b = new SessionBuilder().user("go");
    b.assistant("I expect: jumps over the lazy dog while the scheduler waits patiently.");
    const id = b.bash("./nightly --report", OUTPUT);
    b.assistant("done");
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), id)).toBe("drop unreferenced");
  });

  test.each([["must"], ["never"], ["always"], ["do not"], ["don't"], ["Don’t"]])("followed by a reply with the rule word %p: kept", (word) => {
    const { session, id } = scenario((b) => b.assistant(`Noted: we ${word} run the job twice.`));
    expect(decisionFor(session, id)).toMatchObject({ action: "keep", rule: "never-drop" });
    expect(decisionFor(session, id).reason).toStartWith("followed at #3 by a rule word");
  });

  test("a rule word inside another word does not count", () => {
    const { session, id } = scenario((b) => b.assistant("The mustard-colored dashboard is donotcall-free."));
    expect(verdictFor(session, id)).toBe("drop unreferenced");
  });

  test("a rule word after the next prompt (another turn) does not count", () => {
    const { session, id } = scenario((b) => {
      b.user("thanks");
      b.assistant("You must never do that.");
    });
    expect(verdictFor(session, id)).toBe("drop unreferenced");
  });

  test.each([
    ["AskUserQuestion", { questions: [{ question: "Which?" }] }],
    ["ExitPlanMode", { plan: "1. do it" }],
    ["request_user_input", { questions: [] }],
  ])("the result of %s (a person's answer) is kept", (tool, input) => {
    const { session, id } = scenario((b) => b.assistant("ok"), { tool, input });
    expect(decisionFor(session, id)).toMatchObject({ action: "keep", rule: "never-drop" });
  });

  test("a mutating call keeps its input; only its result may go", () => {
    const b = new SessionBuilder().user("go");
    const input = { file_path: "/repo/src/app.ts", old_string: "const a = 1;", new_string: "const a = 2;" };
    const id = b.call(
      "Edit",
      input,
      "The file /repo/src/app.ts has been updated. Here's the result of running `cat -n` on a snippet: const a = 2; and more text to be worth removing.",
    );
    b.filler(BEYOND_RECENT);
    const s = b.session();
    const p = plan(s);
    expect(p.decisions.find((d) => d.callId === id)).toMatchObject({ action: "drop" });
    const out = apply(s, p);
    const before = s.messages.find((m) => m.toolCalls[0]?.id === id)!;
    const after = out.find((m) => m.toolCalls[0]?.id === id)!;
    expect(after).toBe(before);
    expect(after.toolCalls[0]!.input).toEqual(input);
  });
});

describe("never-drop: results re-running would not reproduce", () => {
  test.each([
    ["Task", { description: "explore", subagent_type: "Explore", prompt: "map the repo" }],
    ["Agent", { description: "explore", prompt: "map the repo" }],
    ["WebSearch", { query: "rfc 8693 token exchange" }],
    ["WebFetch", { url: "https://example.org/spec", prompt: "summarize" }],
    ["exec", 'const r = await tools.web__run({"search_query":[{"q":"oauth token exchange"}]});'],
  ])("an unreferenced %s result is kept", (tool, input) => {
    const { session, id } = scenario((b) => b.assistant("ok"), { tool, input });
    expect(decisionFor(session, id)).toMatchObject({ action: "keep", rule: "never-drop", reason: `${tool} output: re-running would not reproduce it` });
  });

  test("a plain shell command's unreferenced result still goes", () => {
    const { session, id } = scenario((b) => b.assistant("ok"), { tool: "Bash", input: { command: "./nightly" } });
    expect(verdictFor(session, id)).toBe("drop unreferenced");
  });
});

describe("never-drop: the rule word must come right after the result", () => {
  test("a reply with a rule word after the assistant called another tool does not count", () => {
    const { session, id } = scenario((b) => {
      b.bash("./other-step", "unrelated output of another step, long enough to be worth removing here");
      b.assistant("You must never do that.");
    });
    expect(verdictFor(session, id)).toBe("drop unreferenced");
  });

  test("other results of the same batch may stand between the result and the reply", () => {
    const b = new SessionBuilder("codex").user("please check the nightly job");
    const first = "call_a";
    b.messages.push({
      role: "assistant",
      kind: "reply",
      text: "",
      toolCalls: [{ id: first, name: "exec_command", input: { cmd: "./nightly" }, inputText: '{"cmd":"./nightly"}' }],
      toolResults: [],
    });
    b.messages.push({
      role: "assistant",
      kind: "reply",
      text: "",
      toolCalls: [{ id: "call_b", name: "exec_command", input: { cmd: "./weekly" }, inputText: '{"cmd":"./weekly"}' }],
      toolResults: [],
    });
    b.messages.push({ role: "user", kind: "tool", text: "", toolCalls: [], toolResults: [{ callId: first, text: OUTPUT, isError: false, images: 0 }] });
    b.messages.push({ role: "user", kind: "tool", text: "", toolCalls: [], toolResults: [{ callId: "call_b", text: "weekly ok", isError: false, images: 0 }] });
    b.messages.push({ role: "assistant", kind: "reasoning", text: "thinking", toolCalls: [], toolResults: [] });
    b.assistant("The nightly job must always run first.");
    b.filler(BEYOND_RECENT);
    expect(decisionFor(b.session(), first)).toMatchObject({ action: "keep", rule: "never-drop" });
  });
});
