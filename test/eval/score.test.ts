// Each metric on tiny hand-made sessions whose answer is worked out by hand in the comments.
import { describe, expect, test } from "bun:test";
import { estimateTextTokens } from "../../src/engine/estimate.ts";
import type { Message } from "../../src/engine/types.ts";
import { cutContext } from "../../src/eval/cut.ts";
import { REMOVAL_NOTE } from "../../src/eval/methods/baselines.ts";
import { enforcePins, isNumberLike, scoreCut } from "../../src/eval/score.ts";
import { indexSession } from "../../src/eval/session-index.ts";
import { filler, pair, prompt, reply, result, call, session } from "./build.ts";

const READ_TEXT = "export function computeTotal_v2() { return 8080 }";

/**
 * 0 prompt | 1-2 Read src/a.ts → result #0 | 3-4 Bash → result #1 | 5-11 filler | cut at 12 | continuation.
 * Pinned at the cut: message 0 and messages 6..11; results #0 (msg 2) and #1 (msg 4) are unpinned.
 */
const build = (opts: { first?: string; second?: string; continuation: Message[]; prompt?: string }) => {
  const messages = [
    prompt(opts.prompt ?? "fix the build please"),
    ...pair("c1", "Read", { file_path: "src/a.ts" }, opts.first ?? READ_TEXT),
    ...pair("c2", "Bash", { command: "ls" }, opts.second ?? "nothing here"),
    ...filler(7),
    ...opts.continuation,
  ];
  const index = indexSession(session(messages));
  return cutContext(index, 12 / messages.length, 12);
};

const drop = (ordinal: number, text: string) => new Map([[ordinal, REMOVAL_NOTE(text.length)]]);

/** `copies` shell results all holding shared_token_x, then filler and a last reply; cut before the reply. */
const sharedToken = (copies: number, last: string) => {
  const msgs: Message[] = [prompt("go")];
  for (let i = 0; i < copies; i++) msgs.push(...pair(`c${i}`, "Bash", { command: `run ${i}` }, `step ${i}: shared_token_x`));
  msgs.push(...filler(7), reply(last));
  return cutContext(indexSession(session(msgs)), 0, msgs.length - 1);
};

describe("misses and losses", () => {
  test("a removed result whose identifier is used after the cut is a miss, and lost when visible nowhere", () => {
    const ctx = build({ continuation: [reply("I will call computeTotal_v2 on port 8080")] });
    expect(ctx.at).toBe(12);
    expect([...ctx.pinned]).toEqual([]);
    const { tally, misses } = scoreCut(ctx, drop(0, READ_TEXT));
    // src/a.ts is in the call's input (known before); computeTotal_v2 and 8080 are used later
    expect(misses).toEqual([{ ordinal: 0, message: 2, tool: "Read", tokens: ["computeTotal_v2", "8080"], invisible: ["computeTotal_v2", "8080"] }]);
    expect(tally).toMatchObject({ results: 2, unpinned: 2, removed: 1, truncated: 0, misses: 1, numberOnlyMisses: 0, lost: 1, numberOnlyLost: 0 });
    expect(tally.tokensFreed).toBe(estimateTextTokens(READ_TEXT) - estimateTextTokens(REMOVAL_NOTE(READ_TEXT.length)));
  });

  test("a miss whose tokens are still visible in a kept result is not lost", () => {
    const ctx = build({ second: "computeTotal_v2 returns 8080", continuation: [reply("call computeTotal_v2 on 8080")] });
    const { tally } = scoreCut(ctx, drop(0, READ_TEXT));
    expect(tally).toMatchObject({ removed: 1, misses: 1, lost: 0 });
  });

  test("a miss is lost when only one of its used tokens is gone", () => {
    const ctx = build({ second: "port 8080", continuation: [reply("call computeTotal_v2 on 8080")] });
    const { misses, tally } = scoreCut(ctx, drop(0, READ_TEXT));
    expect(misses[0]!.invisible).toEqual(["computeTotal_v2"]);
    expect(tally).toMatchObject({ misses: 1, lost: 1, numberOnlyLost: 0 });
  });

  test("a miss matched only by a number-like token is counted apart", () => {
    const ctx = build({ continuation: [reply("the server listens on 8080")] });
    const { tally } = scoreCut(ctx, drop(0, READ_TEXT));
    expect(tally).toMatchObject({ misses: 1, numberOnlyMisses: 1, lost: 1, numberOnlyLost: 1 });
  });

  test("a token known before the result (its call's input, earlier prose) is no evidence", () => {
    const ctx = build({ prompt: "please fix computeTotal_v2", continuation: [reply("fixed computeTotal_v2 in src/a.ts")] });
    expect(scoreCut(ctx, drop(0, READ_TEXT)).tally).toMatchObject({ removed: 1, misses: 0, lost: 0 });
  });

  test("only assistant prose and tool inputs after the cut count as use", () => {
    const later = [prompt("what about computeTotal_v2?"), ...pair("c9", "Bash", { command: "true" }, "computeTotal_v2 8080")];
    const ctx = build({ continuation: later });
    expect(scoreCut(ctx, drop(0, READ_TEXT)).tally.misses).toBe(0);
    const viaInput = build({ continuation: [call("c9", "Grep", { pattern: "computeTotal_v2" })] });
    expect(scoreCut(viaInput, drop(0, READ_TEXT)).tally.misses).toBe(1);
  });

  test("use before the cut is not a miss: only the continuation counts", () => {
    const messages = [prompt("go"), ...pair("c1", "Read", { file_path: "src/a.ts" }, READ_TEXT), reply("computeTotal_v2 it is"), ...filler(7), reply("done")];
    const ctx = cutContext(indexSession(session(messages)), 0, 10);
    expect(scoreCut(ctx, drop(0, READ_TEXT)).tally).toMatchObject({ removed: 1, misses: 0 });
  });

  test("a token held by more than 10 results before the cut is too generic to count", () => {
    const make = (copies: number) => sharedToken(copies, "use shared_token_x now");
    // 11 results hold it: excluded. 10: counted (and not lost: 9 other results still show it)
    expect(scoreCut(make(11), drop(0, "step 0: shared_token_x")).tally).toMatchObject({ removed: 1, misses: 0 });
    expect(scoreCut(make(10), drop(0, "step 0: shared_token_x")).tally).toMatchObject({ removed: 1, misses: 1, lost: 0 });
  });
});

describe("scorable removals: those the yardstick could count as lost at all", () => {
  test("a removal holding a token new with it is scorable, used or not; one holding none is not", () => {
    // #0 holds computeTotal_v2 and 8080 (new with it); #1 ("nothing here") holds no token at all
    const ctx = build({ continuation: [reply("done")] });
    const both = new Map([...drop(0, READ_TEXT), ...drop(1, "nothing here")]);
    expect(scoreCut(ctx, both).tally).toMatchObject({ removed: 2, scorable: 1, misses: 0 });
  });

  test("a removal whose tokens were all known before it (earlier prose, its call's input) is not scorable", () => {
    const ctx = build({ prompt: "please fix computeTotal_v2 on 8080", continuation: [reply("done")] });
    expect(scoreCut(ctx, drop(0, READ_TEXT)).tally).toMatchObject({ removed: 1, scorable: 0 });
  });

  test("a token more than 10 results hold before the cut does not make a removal scorable", () => {
    const make = (copies: number) => sharedToken(copies, "done");
    expect(scoreCut(make(11), drop(0, "step 0: shared_token_x")).tally).toMatchObject({ removed: 1, scorable: 0 });
    expect(scoreCut(make(10), drop(0, "step 0: shared_token_x")).tally).toMatchObject({ removed: 1, scorable: 1 });
  });

  test("a truncation is scorable only for the tokens past its head", () => {
    const text = `alpha_token_one is first\n${"x".repeat(500)}\nplain words only`;
    const ctx = build({ first: text, continuation: [reply("done")] });
    expect(scoreCut(ctx, new Map([[0, text.slice(0, 30)]])).tally).toMatchObject({ removed: 1, truncated: 1, scorable: 0 });
    expect(scoreCut(ctx, new Map([[0, text.slice(0, 5)]])).tally).toMatchObject({ removed: 1, truncated: 1, scorable: 1 });
  });

  test("every miss is scorable", () => {
    const ctx = build({ continuation: [reply("I will call computeTotal_v2 on port 8080")] });
    const { tally } = scoreCut(ctx, drop(0, READ_TEXT));
    expect(tally).toMatchObject({ misses: 1, lost: 1, scorable: 1 });
  });
});

describe("truncation", () => {
  const TEXT = `alpha_token_one is first\n${"x".repeat(500)}\nbeta_token_two is last`;
  const head = new Map([[0, TEXT.slice(0, 30)]]);

  test("a token in the kept head is still visible: no miss", () => {
    const ctx = build({ first: TEXT, continuation: [reply("alpha_token_one")] });
    const { tally } = scoreCut(ctx, head);
    expect(tally).toMatchObject({ removed: 1, truncated: 1, misses: 0 });
    expect(tally.tokensFreed).toBe(estimateTextTokens(TEXT) - estimateTextTokens(TEXT.slice(0, 30)));
  });

  test("a token past the head counts as removed", () => {
    const ctx = build({ first: TEXT, continuation: [reply("beta_token_two")] });
    expect(scoreCut(ctx, head).tally).toMatchObject({ removed: 1, truncated: 1, misses: 1, lost: 1 });
  });
});

describe("pins", () => {
  test("first message, last six messages and errors are pinned; pinned rewrites are undone and counted", () => {
    const messages = [
      { ...result("c0", "first message result"), role: "user" as const },
      ...pair("c1", "Bash", { command: "make" }, "failed: build_error_x", { isError: true }),
      ...pair("c2", "Read", { file_path: "b.ts" }, "plain"),
      ...filler(6),
    ];
    const ctx = cutContext(indexSession(session(messages)), 1, messages.length);
    // result #0 in message 0, #1 an error, #2 at message 4 < 11 - 6: unpinned
    expect([...ctx.pinned].sort()).toEqual([0, 1]);
    const all = new Map([
      [0, "x"],
      [1, "x"],
      [2, "x"],
    ]);
    const { rewrites, pinnedTouched } = enforcePins(ctx, all);
    expect([...rewrites.keys()]).toEqual([2]);
    expect(pinnedTouched).toBe(2);
  });

  test("the last six messages before the cut are pinned", () => {
    const messages = [prompt("go"), ...pair("c1", "Read", { file_path: "a.ts" }, "A"), ...filler(3)];
    // cut at 6: pinned tail is messages 0..5, so result at message 2 is pinned
    expect([...cutContext(indexSession(session(messages)), 1, 6).pinned]).toEqual([0]);
  });
});

test("number-like tokens: years, versions, decimals, long numbers", () => {
  expect(["2024", "1.2.3", "v2.10.0", "3.14159", "123456"].every(isNumberLike)).toBe(true);
  expect(["computeTotal_v2", "src/a.ts", "2024-draft"].some(isNumberLike)).toBe(false);
});
