import { describe, expect, test } from "bun:test";
import { SMALL_CHARS } from "../../../src/engine/rules/referenced.ts";
import { BEYOND_RECENT, SessionBuilder } from "../support/build.ts";
import { decisionFor, verdictFor } from "../support/decide.ts";

// a build log with one distinctive token of each kind, large enough for the rules to drop (SMALL_CHARS)
const LOG = [
  "building the project",
  "wrote artifacts to /build/out/bundle-main.js",
  "entry handler: processIncomingOrder",
  "build id 987654",
  'label "release candidate seven"',
  "done in a while, nothing more to say about this build at all",
  "the compiler took its time over the larger modules but finished them all in the end",
  "warnings were few and each one was about style rather than anything that matters",
  "the cache was warm so most of the smaller modules were skipped on this run",
  "the linker ran once and wrote a single bundle with everything it was asked for",
  "the whole build is done and the output folder holds what the next step reads",
].join("\n");

const scenario = (opts: { before?: (b: SessionBuilder) => void; after?: (b: SessionBuilder) => void; filler?: number; command?: string }) => {
  const b = new SessionBuilder().user("build it");
  opts.before?.(b);
  const id = b.bash(opts.command ?? "./build.sh", LOG);
  opts.after?.(b);
  b.filler(opts.filler ?? BEYOND_RECENT);
  return { session: b.session(), id };
};

describe("referenced", () => {
  test.each([
    ["a path", "Next I open /build/out/bundle-main.js"],
    ["an identifier", "The handler is processIncomingOrder."],
    ["a number of 4+ digits", "Build 987654 is the one."],
    ["a quoted string", 'It was tagged "release candidate seven".'],
  ])("%s used in a later reply: kept", (_name, reply) => {
    const { session, id } = scenario({ after: (b) => b.assistant(reply) });
    expect(verdictFor(session, id)).toBe("keep referenced");
  });

  test("a token used in a later tool input: kept, and the reason says where", () => {
    const { session, id } = scenario({ after: (b) => b.bash("node /build/out/bundle-main.js", "started") });
    expect(decisionFor(session, id)).toMatchObject({ action: "keep", rule: "referenced", reason: '"/build/out/bundle-main.js" used at #3' });
  });

  test("no token used later: dropped", () => {
    const { session, id } = scenario({ after: (b) => b.assistant("The build went fine.") });
    expect(decisionFor(session, id)).toMatchObject({ action: "drop", rule: "unreferenced", reason: "no token of it used later" });
  });

  test("a word piece is not a token: dropped", () => {
    const { session, id } = scenario({ after: (b) => b.assistant("Processing orders works; the bundle is built.") });
    expect(verdictFor(session, id)).toBe("drop unreferenced");
  });

  test("a token in the call's own input is known before the result: dropped", () => {
    const { session, id } = scenario({ command: "./build.sh --entry processIncomingOrder", after: (b) => b.assistant("processIncomingOrder is built.") });
    expect(decisionFor(session, id)).toMatchObject({ action: "drop", rule: "unreferenced", reason: "only known (1) or generic (0) tokens used later" });
  });

  test("a token the user gave before the result is known before it: dropped", () => {
    const { session, id } = scenario({ before: (b) => b.user("check build 987654"), after: (b) => b.assistant("987654 it is.") });
    expect(verdictFor(session, id)).toBe("drop unreferenced");
  });

  test.each([
    [10, "keep referenced"], // in exactly 10 results: still distinctive
    [11, "drop unreferenced"], // in more than 10 results: too generic
  ])("a token found in %i results: %s", (results, expected) => {
    const { session, id } = scenario({
      after: (b) => {
        for (let i = 1; i < results; i++) b.bash(`./step ${i}`, `step ${i} calls processIncomingOrder again`);
        b.assistant("processIncomingOrder is everywhere.");
      },
    });
    expect(verdictFor(session, id)).toBe(expected);
  });

  test.each([
    [19, "keep too-recent"],
    [20, "drop unreferenced"],
  ])("with %i tool results after it and a new prompt since: %s", (filler, expected) => {
    const { session, id } = scenario({ after: (b) => b.assistant("fine").user("now the docs"), filler });
    expect(verdictFor(session, id, { pinLastMessages: 0 })).toBe(expected);
  });

  test.each([
    [39, "keep too-recent"],
    [40, "drop unreferenced"],
  ])("of the current task (no prompt since), with %i tool results after it: %s", (filler, expected) => {
    const { session, id } = scenario({ after: (b) => b.assistant("fine"), filler });
    expect(verdictFor(session, id, { pinLastMessages: 0 })).toBe(expected);
  });

  test("the reason says when the current task kept it", () => {
    const { session, id } = scenario({ after: (b) => b.assistant("fine"), filler: 25 });
    expect(decisionFor(session, id, { pinLastMessages: 0 })).toMatchObject({
      action: "keep",
      rule: "too-recent",
      reason: "of the current task (no prompt since), only 25 tool results after it",
    });
  });

  test("a result of the current task that a later step uses is kept as referenced", () => {
    const { session, id } = scenario({ after: (b) => b.assistant("The handler is processIncomingOrder."), filler: 25 });
    expect(verdictFor(session, id, { pinLastMessages: 0 })).toBe("keep referenced");
  });

  test("a token used only before the result does not count", () => {
    const { session, id } = scenario({ before: (b) => b.assistant("Earlier I saw bundle-main somewhere."), after: (b) => b.assistant("ok") });
    expect(verdictFor(session, id)).toBe("drop unreferenced");
  });

  test("a result with no call is kept: nothing would re-run it", () => {
    const b = new SessionBuilder().user("go");
    b.messages.push({ role: "user", kind: "tool", text: "", toolCalls: [], toolResults: [{ callId: "orphan", text: LOG, isError: false, images: 0 }] });
    b.filler(BEYOND_RECENT);
    expect(decisionFor(b.session(), "orphan")).toMatchObject({ action: "keep", rule: "default-keep", tool: "?" });
  });
});

describe("referenced: a small search or listing is kept (later steps reach for its names)", () => {
  const LISTING = ["src/app/layout.tsx", "src/app/globals.css", "src/lib/session-store.ts"].join("\n");
  const discovered = (name: string, input: unknown, text = LISTING) => {
    const b = new SessionBuilder().user("where is the layout?");
    const id = b.call(name, input, text);
    b.assistant("Found the app folder.");
    b.filler(BEYOND_RECENT);
    return { session: b.session(), id };
  };

  test.each([
    ["Glob", { pattern: "src/**/*.tsx" }],
    ["Grep", { pattern: "createSession", output_mode: "files_with_matches" }],
    ["Bash", { command: "find src -name '*.ts'" }],
    ["Bash", { command: "cd /repo && rg -n createSession src | head -50" }],
    ["Bash", { command: "tree -L 2" }],
    ["Bash", { command: "git ls-files" }],
    ["Bash", { command: "mytool --help" }],
    ["exec_command", { cmd: "rg --files packages" }],
  ])("%s %j, unreferenced: kept", (name, input) => {
    const { session, id } = discovered(name, input);
    expect(decisionFor(session, id)).toMatchObject({ action: "keep", rule: "discovery" });
  });

  test("over discoveryKeepChars it is judged like any result: dropped when unreferenced", () => {
    const big = Array.from({ length: 400 }, (_, i) => `src/generated/file_${i}.ts`).join("\n");
    const { session, id } = discovered("Glob", { pattern: "src/**/*.ts" }, big);
    expect(big.length).toBeGreaterThan(4_000);
    expect(verdictFor(session, id)).toBe("drop unreferenced");
  });

  test("ls is a listing, not discovery: unreferenced, it is judged like any output (dropped, or kept when small)", () => {
    const lsLa = (files: number): string =>
      Array.from({ length: files }, (_, i) => `-rw-r--r--  1 dev  staff  1024 Nov 30 02:19 src/app/page_${i}.tsx`).join("\n");
    const large = discovered("Bash", { command: "ls -la src/app" }, lsLa(12));
    expect(lsLa(12).length).toBeGreaterThanOrEqual(SMALL_CHARS);
    expect(verdictFor(large.session, large.id)).toBe("drop unreferenced");
    const small = discovered("Bash", { command: "ls -la src/app" }, lsLa(3));
    expect(decisionFor(small.session, small.id)).toMatchObject({
      action: "keep",
      rule: "small",
      reason: `no token of it used later, but small (${lsLa(3).length} chars): only a sure need score drops it`,
    });
  });

  test("a search that writes (find -delete through a redirect) is not kept as discovery", () => {
    const { session, id } = discovered("Bash", { command: "find src -name '*.orig' > /tmp/orig-files.txt" });
    expect(verdictFor(session, id)).not.toBe("keep discovery");
  });
});
