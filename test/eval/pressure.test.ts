// The pressure mode and the hindsight ceilings on small made-up sessions, sizes worked out by hand.
import { describe, expect, test } from "bun:test";
import { estimateMessageTokens, estimateTextTokens } from "../../src/engine/estimate.ts";
import type { Message } from "../../src/engine/types.ts";
import { compactRows, DEFAULT_PLUGIN_OPTIONS, rowsInCount } from "../../src/hosts/claude/plugin.ts";
import { rowsToSession } from "../../src/hosts/claude/rows.ts";
import { cutContext } from "../../src/eval/cut.ts";
import { labelCuts, usedAfterCut } from "../../src/eval/labels.ts";
import { CLEARED_PLACEHOLDER, REMOVAL_NOTE } from "../../src/eval/methods/baselines.ts";
import { BC_UNDER_PRESSURE, claudeCount, lastAnswerCallsOf, NEED_ORACLE, sessionToHookRows, thinkingOf } from "../../src/eval/methods/bc-pressure.ts";
import { modelOn } from "../engine/support/need-models.ts";
import { LARGEST_FIRST_TO_BUDGET, OLDEST_FIRST, ORACLE_TO_BUDGET, type BudgetInput } from "../../src/eval/methods/budget.ts";
import { ORACLE, ORACLE_HEAD, headThroughLastUsed } from "../../src/eval/methods/ceilings.ts";
import { rulesCompactor } from "../../src/eval/methods/engine.ts";
import { rewritesFrom } from "../../src/eval/methods/rules.ts";
import { droppedByHost, LEAST_LEFT_TOKENS, pressurePoint, untouchableTokens } from "../../src/eval/pressure.ts";
import { PRESSURE_IDS, replaySession } from "../../src/eval/replay.ts";
import { enforcePins, scoreCut } from "../../src/eval/score.ts";
import { indexSession } from "../../src/eval/session-index.ts";
import { spreadOf } from "../../src/eval/summary.ts";
import { filler, pair, prompt, reply, session } from "./build.ts";
import { bothOf } from "../../src/engine/need/model.ts";

/** a text of exactly `tokens` estimated tokens whose first line names `name` */
const sized = (name: string, tokens: number): string => `${name}\n`.padEnd(tokens * 4, "x");

/**
 * 0 prompt | results #0..#3 (messages 2, 4, 6, 8) | 9..14 filler (the pinned tail) | cut at 15 |
 * the continuation uses only #1's `used_helper_one` and #3's `used_helper_three`.
 */
const SIZES = [400, 1000, 200, 600];
const fixture = () => {
  const names = ["never_used_zero", "used_helper_one", "never_used_two", "used_helper_three"];
  const messages: Message[] = [
    prompt("start"),
    ...SIZES.flatMap((n, i) => pair(`c${i}`, "Bash", { command: `run ${i}` }, sized(names[i]!, n))),
    ...filler(6),
    reply("now calling used_helper_one and used_helper_three"),
  ];
  const index = indexSession(session(messages));
  const ctx = cutContext(index, 15 / messages.length, 15);
  return { ctx, used: usedAfterCut(ctx) };
};

const budgetInput = (toFree: number): BudgetInput => {
  const { ctx, used } = fixture();
  // a point that asks for exactly `toFree` tokens
  return {
    ...ctx,
    rulesFreedTokens: 0,
    used,
    point: { pressure: 0.95, tokensBefore: ctx.tokensBefore, window: 0, budget: ctx.tokensBefore - toFree, droppedTokens: 0, toFree },
  };
};

const saved = (text: string): number => estimateTextTokens(text) - estimateTextTokens(REMOVAL_NOTE(text.length));

test("the pressure window: window = history / pressure, budget = 60% of it rounded down, the rest must go", () => {
  expect(pressurePoint(9_500, 0.95)).toEqual({ pressure: 0.95, tokensBefore: 9_500, window: 10_000, budget: 6_000, droppedTokens: 0, toFree: 3_500 });
  expect(pressurePoint(1_001, 0.95)).toEqual({ pressure: 0.95, tokensBefore: 1_001, window: 1_054, budget: 632, droppedTokens: 0, toFree: 369 });
  // a light history is already under the budget: nothing to free
  expect(pressurePoint(1_000, 0.5)).toEqual({ pressure: 0.5, tokensBefore: 1_000, window: 2_000, budget: 1_200, droppedTokens: 0, toFree: 0 });
  // what the host drops by itself (Claude Code's thinking) is in the history at the pressure, not in what must be freed
  expect(pressurePoint(9_500, 0.95, { droppedTokens: 500 })).toEqual({
    pressure: 0.95,
    tokensBefore: 9_500,
    window: 10_000,
    budget: 6_000,
    droppedTokens: 500,
    toFree: 3_000,
  });
  expect(pressurePoint(6_500, 0.65, { droppedTokens: 800 }).toFree).toBe(0);
});

test("what the host drops by itself: Claude Code's thinking but the open tool loop's; Codex keeps its reasoning", () => {
  const thinking: Message = { role: "assistant", kind: "reasoning", text: "t".repeat(4_000), toolCalls: [], toolResults: [] };
  const messages: Message[] = [prompt("start"), thinking, ...pair("c0", "Bash", { command: "ls" }, "a\nb"), thinking, reply("done")];
  expect(droppedByHost(session(messages, "s1", "claude"))).toBe(2_000);
  expect(droppedByHost(session(messages, "s1", "codex"))).toBe(0);
  expect(droppedByHost(session([prompt("start"), reply("done")], "s1", "claude"))).toBe(0);
  // a history that ends in tool results: the loop since the last prompt goes back with its thinking
  const open: Message[] = [
    ...messages,
    prompt("next"),
    thinking,
    ...pair("c1", "Bash", { command: "pwd" }, "/"),
    thinking,
    ...pair("c2", "Bash", { command: "ls" }, "x"),
  ];
  expect(droppedByHost(session(open, "s1", "claude"))).toBe(2_000);
  // the same loop closed by an answer: its thinking goes too
  expect(droppedByHost(session([...open, reply("done")], "s1", "claude"))).toBe(4_000);
});

describe("labels", () => {
  test("a result is used after the cut when a counted token of it appears in a later reply or tool input", () => {
    const { ctx, used } = fixture();
    expect(ctx.pinned.size).toBe(0);
    expect(used).toEqual([[], ["used_helper_one"], [], ["used_helper_three"]]);
    const [cut] = labelCuts(ctx.index.session, [15 / 16]);
    expect(cut!.at).toBe(15);
    expect(cut!.results.map((r) => [r.ordinal, r.callId, r.message, r.used, r.tokens])).toEqual([
      [0, "c0", 2, false, []],
      [1, "c1", 4, true, ["used_helper_one"]],
      [2, "c2", 6, false, []],
      [3, "c3", 8, true, ["used_helper_three"]],
    ]);
  });
});

describe("ceilings", () => {
  test("oracle drops every never-used unpinned result and never a used one: zero misses", () => {
    const { ctx, used } = fixture();
    const rw = ORACLE.run({ results: ctx.results, pinned: ctx.pinned, used });
    expect([...rw.keys()]).toEqual([0, 2]);
    expect(scoreCut(ctx, rw, 0, { used }).tally).toMatchObject({ removed: 2, misses: 0, lost: 0, needed: 2 });
  });

  test("oracle leaves a never-used result shorter than its removal note: dropping it would free nothing", () => {
    const { ctx, used } = fixture();
    const short = { ...ctx.results[2]!, text: "ok", estTokens: 1 };
    const rw = ORACLE.run({ results: [ctx.results[0]!, short], pinned: ctx.pinned, used });
    expect([...rw.keys()]).toEqual([0]);
    expect([...ORACLE_HEAD.run({ results: [ctx.results[0]!, short], pinned: ctx.pinned, used }).keys()]).toEqual([0]);
  });

  test("oracle-head keeps each used result through the line of its last used token, and nothing after", () => {
    const text = "line one\nconst first_used_name = 1;\nmiddle\nthe second_used_name here\ntail line\nmore tail";
    expect(headThroughLastUsed({ text }, ["second_used_name", "first_used_name"])).toBe(
      "line one\nconst first_used_name = 1;\nmiddle\nthe second_used_name here",
    );
    // the last used token on the last line: the whole text stays
    expect(headThroughLastUsed({ text }, ["more_tail_x"])).toBeUndefined();
    const { ctx, used } = fixture();
    const rw = ORACLE_HEAD.run({ results: ctx.results, pinned: ctx.pinned, used });
    expect(rw.get(1)).toBe("used_helper_one");
    expect(rw.get(3)).toBe("used_helper_three");
    const score = scoreCut(ctx, rw, 0, { used });
    expect(score.tally).toMatchObject({ removed: 4, truncated: 2, misses: 0, lost: 0 });
    expect(score.tally.tokensFreed).toBeGreaterThan(
      scoreCut(ctx, ORACLE.run({ results: ctx.results, pinned: ctx.pinned, used }), 0, { used }).tally.tokensFreed,
    );
  });

  test("oracle-to-budget: never-used results largest first, then used ones with the fewest used tokens per character", () => {
    const { ctx } = fixture();
    const t = ctx.results.map((r) => saved(r.text));
    // never used: #0 (400) then #2 (200); then #1 (1 token in 4,000 chars) before #3 (1 in 2,400)
    const order = (toFree: number) => [...ORACLE_TO_BUDGET.run(budgetInput(toFree)).rewrites.keys()];
    expect(order(1)).toEqual([0]);
    expect(order(t[0]! + 1)).toEqual([0, 2]);
    expect(order(t[0]! + t[2]! + 1)).toEqual([0, 2, 1]);
    expect(order(t[0]! + t[2]! + t[1]! + 1)).toEqual([0, 2, 1, 3]);
  });
});

describe("budget methods stop at the first result that reaches the budget", () => {
  test("oldest-first", () => {
    const { ctx } = fixture();
    const t = ctx.results.map((r) => saved(r.text));
    const keys = (toFree: number) => [...OLDEST_FIRST.run(budgetInput(toFree)).rewrites.keys()];
    expect(keys(0)).toEqual([]);
    expect(keys(t[0]!)).toEqual([0]);
    expect(keys(t[0]! + 1)).toEqual([0, 1]);
    expect(keys(t[0]! + t[1]! + t[2]!)).toEqual([0, 1, 2]);
  });

  test("need-oracle: bc's engine with the need known cuts never-used results before used ones", () => {
    const { ctx } = fixture();
    const t = ctx.results.map((r) => saved(r.text));
    const run = (toFree: number) => {
      const input = budgetInput(toFree);
      const rw = NEED_ORACLE.run(input).rewrites;
      return { keys: [...rw.keys()], tally: scoreCut(ctx, rw, 0, { used: input.used, budget: input.point.budget }).tally };
    };
    // what the never-used #0 and #2 free is enough: only they go, and nothing used is missed
    const light = run(t[0]! + t[2]!);
    expect(light.keys).toEqual([0, 2]);
    expect(light.tally).toMatchObject({ misses: 0, lost: 0, reached: 1 });
    // more than that: a used one goes too, and the budget is reached
    const heavy = run(t[0]! + t[2]! + 100);
    expect(heavy.keys).toEqual(expect.arrayContaining([0, 2]));
    expect(heavy.keys.some((k) => k === 1 || k === 3)).toBe(true);
    expect(heavy.tally.reached).toBe(1);
  });

  test("largest-first", () => {
    const { ctx } = fixture();
    const t = ctx.results.map((r) => saved(r.text));
    const keys = (toFree: number) => [...LARGEST_FIRST_TO_BUDGET.run(budgetInput(toFree)).rewrites.keys()];
    expect(keys(t[1]!)).toEqual([1]);
    expect(keys(t[1]! + 1)).toEqual([1, 3]);
    expect(keys(t[1]! + t[3]! + 1)).toEqual([1, 3, 0]);
  });

  test("scored: reached counts the cuts where what is left is at or under the budget", () => {
    const input = budgetInput(500);
    const { rewrites, pinnedTouched } = enforcePins(input, OLDEST_FIRST.run(input).rewrites);
    expect(scoreCut(input, rewrites, pinnedTouched, { used: input.used, budget: input.point.budget }).tally.reached).toBe(1);
    expect(scoreCut(input, new Map(), 0, { used: input.used, budget: input.point.budget }).tally.reached).toBe(0);
  });
});

describe("where the budget can be reached", () => {
  test("untouchable: the history less every unpinned result, each but for the shortest placeholder (pins, prose and call inputs stay)", () => {
    const { ctx } = fixture();
    const unpinned = ctx.results.filter((r) => !ctx.pinned.has(r.ordinal));
    expect(unpinned.map((r) => r.ordinal)).toEqual([0, 1, 2, 3]);
    expect(LEAST_LEFT_TOKENS).toBe(estimateTextTokens(CLEARED_PLACEHOLDER));
    expect(untouchableTokens(ctx)).toBe(ctx.tokensBefore - unpinned.reduce((n, r) => n + r.estTokens - LEAST_LEFT_TOKENS, 0));
  });

  test("untouchable: a person's answer counts as any other result (the baselines clear it); a result shorter than a placeholder stays as it is", () => {
    const messages: Message[] = [
      prompt("start"),
      ...pair("c0", "AskUserQuestion", { question: "which?" }, sized("the_answer", 300)),
      ...pair("c1", "Bash", { command: "true" }, "ok"),
      ...pair("c2", "Bash", { command: "ls" }, sized("listing_output", 300)),
      ...filler(8),
    ];
    const ctx = cutContext(indexSession(session(messages)), 1, messages.length);
    const [answer, tiny, listing] = ctx.results;
    expect([answer, tiny, listing].map((r) => ctx.pinned.has(r!.ordinal))).toEqual([false, false, false]);
    expect(tiny!.estTokens).toBeLessThan(LEAST_LEFT_TOKENS);
    expect(untouchableTokens(ctx)).toBe(ctx.tokensBefore - (answer!.estTokens - LEAST_LEFT_TOKENS) - (listing!.estTokens - LEAST_LEFT_TOKENS));
  });

  const replayed = (messages: Message[]) =>
    replaySession(
      { host: "codex", id: "s1", file: "s1.jsonl", timeline: session(messages), compactions: [] },
      { cuts: [0.9], methods: ["rules"], passes: [], compact: rulesCompactor, pressure: 0.95 },
    ).cuts[0]!.pressure!.methods;

  test("prose alone over the budget: not reachable, for every method; results to cut: reachable", () => {
    const long = "a long explanation in prose ".repeat(400);
    const prosy = replayed([prompt(long), ...pair("c0", "Bash", { command: "ls" }, sized("listing_output", 50)), reply(long), ...filler(8), reply("done")]);
    for (const t of Object.values(prosy)) expect([t.reachable, t.reachedReachable]).toEqual([0, 0]);
    const tooly = replayed([
      prompt("start"),
      ...Array.from({ length: 12 }, (_, i) => pair(`c${i}`, "Bash", { command: `step ${i}` }, sized(`output_number_${i}`, 400))).flat(),
      ...filler(8),
      reply("done"),
    ]);
    expect(tooly.rules!.reachable).toBe(1);
    expect(tooly.rules!.reachedReachable).toBe(tooly.rules!.reached);
    expect(tooly["oldest-first"]!.reachedReachable).toBe(1);
  });

  test("a budget only clearing a person's answer reaches: reachable, so every method that reaches it counts it there; bc, which keeps the answer, does not", () => {
    const plan = "the plan to follow, as the person approved it ".repeat(300);
    const methods = replayed([
      prompt("start"),
      ...pair("c0", "ExitPlanMode", { plan: "see below" }, plan),
      ...pair("c1", "Bash", { command: "ls" }, sized("listing_output", 300)),
      ...filler(8),
      reply("done"),
    ]);
    expect(methods["oldest-first"]!.reached).toBe(1);
    for (const [id, t] of Object.entries(methods)) expect([id, t.reachable, t.reachedReachable]).toEqual([id, 1, t.reached]);
    expect(methods.rules!.reached).toBe(0);
  });
});

describe("bc under pressure is the product's own answer", () => {
  test.each(["claude", "codex"] as const)("%s: bc's row ranks by the need weights it is given", (host) => {
    const messages: Message[] = [
      prompt("start"),
      ...Array.from({ length: 14 }, (_, i) => pair(`c${i}`, "Bash", { command: `step ${i}` }, sized(`output_number_${i}`, 100 + 60 * i))).flat(),
      ...filler(6),
      reply("done"),
    ];
    const ctx = cutContext(indexSession(session(messages, "s1", host)), 0.9);
    const input = { ...ctx, rulesFreedTokens: 0, used: usedAfterCut(ctx), point: pressurePoint(ctx.tokensBefore, 0.95) };
    // the test's own weights, not the shipped ones: every result needed, or none
    const needed = BC_UNDER_PRESSURE.run({ ...input, needModels: bothOf(modelOn("log_chars", 0, 10)) });
    const unneeded = BC_UNDER_PRESSURE.run({ ...input, needModels: bothOf(modelOn("log_chars", 0, -10)) });
    // needed: only what the budget takes; none needed: every result the rules kept for want of evidence goes too
    expect(needed.reached).toBe(true);
    expect(unneeded.rewrites.size).toBeGreaterThan(needed.rewrites.size);
    expect([...needed.rules!.values()]).not.toContain("unneeded");
    expect([...unneeded.rules!.values()]).toContain("unneeded");
  });

  const claude = (): Message[] => [
    prompt("start"),
    ...Array.from({ length: 14 }, (_, i) => pair(`c${i}`, "Bash", { command: `step ${i}` }, sized(`output_number_${i}`, 300))).flat(),
    ...filler(6),
    reply("done"),
  ];

  test("Claude Code: exactly the rows the plugin's compactRows returns (trigger auto, the window of the pressure)", () => {
    const messages = claude();
    const index = indexSession(session(messages));
    const ctx = cutContext(index, 0.9);
    const point = pressurePoint(ctx.tokensBefore, 0.95);
    const got = BC_UNDER_PRESSURE.run({ ...ctx, rulesFreedTokens: 0, used: usedAfterCut(ctx), point });
    const rows = sessionToHookRows(ctx.prefix);
    const { answer, record } = compactRows({
      trigger: "auto",
      sessionId: "s1",
      rows,
      usage: { window: point.window },
      options: DEFAULT_PLUGIN_OPTIONS,
      now: () => 0,
    });
    const out = "messages" in answer ? answer.messages : "handover" in answer ? answer.handover : rows;
    expect(got.rewrites.size).toBeGreaterThan(0);
    expect(got.rewrites).toEqual(rewritesFrom(ctx.results, rowsToSession(out, "s1").messages));
    expect(got.reached).toBe("messages" in answer && record.tokensAfter <= record.budgetTokens!);
    expect(got.handedOver).toBe("handover" in answer);
  });

  test("Claude Code: an answer the plugin gives over the budget (under handOverAbovePercent) is neither a handover nor the budget reached", () => {
    // the history at 95% of a window the budget of which (60%) the rules cannot reach: a long
    // reply (~8,000 tokens) that no rule cuts beside ~4,200 of results, ~65% of the window when cut
    const messages = [prompt("start"), reply(sized("long_explanation", 8_000)), ...claude().slice(1)];
    const ctx = cutContext(indexSession(session(messages)), 0.9);
    const point = pressurePoint(ctx.tokensBefore, 0.95);
    const got = BC_UNDER_PRESSURE.run({ ...ctx, rulesFreedTokens: 0, used: usedAfterCut(ctx), point });
    const { answer, record } = compactRows({
      trigger: "auto",
      sessionId: "s1",
      rows: sessionToHookRows(ctx.prefix),
      usage: { window: point.window },
      options: DEFAULT_PLUGIN_OPTIONS,
      now: () => 0,
    });
    expect("messages" in answer).toBe(true);
    expect(record.tokensAfter).toBeGreaterThan(record.budgetTokens!);
    expect(got).toMatchObject({ reached: false, handedOver: false, answered: true });
    // replayed, the cut is tallied as answered over the budget: neither reached nor handed over
    const replay = replaySession(
      { host: "claude", id: "s1", file: "s1.jsonl", timeline: session(messages), compactions: [] },
      { cuts: [0.9], methods: ["rules"], passes: [], compact: rulesCompactor, pressure: 0.95 },
    );
    expect(replay.cuts[0]!.pressure!.methods.rules).toMatchObject({ cuts: 1, reached: 0, handovers: 0, answeredOver: 1 });
  });

  test("Claude Code: the rows hold no meta record and no thinking, as the host builds them, and bc still frees what the others free", () => {
    const thinking: Message = {
      role: "assistant",
      kind: "reasoning",
      text: `thinking about output_number_3 ${"y".repeat(4000)}`,
      toolCalls: [],
      toolResults: [],
    };
    const meta: Message = { role: "user", kind: "meta", text: `a reminder ${"z".repeat(2000)}`, toolCalls: [], toolResults: [] };
    const messages = claude();
    messages.splice(2, 0, meta);
    messages.splice(8, 0, thinking);
    const index = indexSession(session(messages));
    const ctx = cutContext(index, 0.9);
    const rows = sessionToHookRows(ctx.prefix);
    expect(rows).toHaveLength(ctx.prefix.messages.length - 1);
    expect(rows.some((r) => r.text.includes("reminder") || r.text.includes("thinking"))).toBe(false);
    // the thinking message is still a row (an assistant record), without its text
    expect(rows.filter((r) => r.role === "assistant" && r.text === "" && r.toolUses.length === 0)).toHaveLength(1);
    const point = pressurePoint(ctx.tokensBefore, 0.95, { droppedTokens: droppedByHost(ctx.prefix) });
    const got = BC_UNDER_PRESSURE.run({ ...ctx, rulesFreedTokens: 0, used: usedAfterCut(ctx), point });
    expect(got.reached).toBe(true);
    const scored = scoreCut(ctx, enforcePins(ctx, got.rewrites).rewrites, 0, { budget: point.budget, droppedTokens: point.droppedTokens });
    // what the rows leave out (~1,500 tokens) is not freed by the plugin: it must free the rest
    expect(scored.tally.tokensFreed).toBeGreaterThanOrEqual(point.toFree);
    expect(scored.tally.reached).toBe(1);
  });

  test("Claude Code: the thinking counts in the history at the pressure, in nothing a method leaves; bc, told it, frees to the budget, not the thinking's size past it", () => {
    // a thinking of ~150 tokens before each call
    const messages = claude().flatMap((m, i): Message[] =>
      m.toolCalls.length > 0
        ? [{ role: "assistant", kind: "reasoning", text: `weighing step ${i} ${"w".repeat(600)}`, toolCalls: [], toolResults: [] }, m]
        : [m],
    );
    const ctx = cutContext(indexSession(session(messages)), 0.9);
    const dropped = droppedByHost(ctx.prefix);
    expect(dropped).toBeGreaterThan(2_000);
    const point = pressurePoint(ctx.tokensBefore, 0.95, { droppedTokens: dropped });
    const input = { ...ctx, rulesFreedTokens: 0, used: usedAfterCut(ctx), point };
    const scored = (rewrites: ReadonlyMap<number, string>) =>
      scoreCut(ctx, enforcePins(ctx, rewrites).rewrites, 0, { budget: point.budget, droppedTokens: point.droppedTokens }).tally;
    const told = BC_UNDER_PRESSURE.run(input);
    expect(told.reached).toBe(true);
    expect(scored(told.rewrites)).toMatchObject({ reached: 1 });
    expect(scored(told.rewrites).tokensFreed).toBeGreaterThanOrEqual(point.toFree);
    // no more than the budget needs: the thinking the host drops is not freed again from the results
    expect(scored(told.rewrites).tokensFreed).toBeLessThan(point.toFree + dropped / 2);
    // every other method frees to the same budget under the same accounting
    const oldest = scored(OLDEST_FIRST.run(input).rewrites);
    expect(oldest.reached).toBe(1);
    expect(oldest.tokensFreed).toBeLessThan(point.toFree + 300);
    expect(scored(NEED_ORACLE.run(input).rewrites).reached).toBe(1);
    // bc eval's replay: the same point, its thinking in the report
    const replayed = replaySession(
      { host: "claude", id: "s1", file: "s1.jsonl", timeline: session(messages), compactions: [] },
      { cuts: [0.9], methods: ["rules"], passes: [], compact: rulesCompactor, pressure: 0.95 },
    ).cuts[0]!.pressure!;
    expect(replayed).toMatchObject({ window: point.window, budget: point.budget, droppedTokens: dropped, toFree: point.toFree });
    expect(replayed.methods.rules).toMatchObject({
      reached: 1,
      lost: scoreCut(ctx, enforcePins(ctx, told.rewrites).rewrites, 0, { used: input.used }).tally.lost,
    });
  });

  test("every cut has bc whole and in exactly one of its two rows; a Claude Code cut over budget is a handover", () => {
    const replay = replaySession(
      { host: "claude", id: "s1", file: "s1.jsonl", timeline: session(claude()), compactions: [] },
      { cuts: [0.5, 0.9], methods: ["rules"], passes: [], compact: rulesCompactor, pressure: 0.95 },
    );
    for (const c of replay.cuts) {
      const p = c.pressure!;
      expect(Object.keys(p.methods).filter((k) => k.startsWith("rules:"))).toHaveLength(1);
      const bc = p.methods.rules!;
      expect(p.methods[bc.reached === 1 ? "rules:reached" : "rules:over-budget"]).toEqual(bc);
      expect(bc.handovers).toBe(1 - bc.reached);
      expect(bc.answeredOver).toBe(0);
      for (const id of PRESSURE_IDS.filter((x) => !x.startsWith("rules:"))) expect(p.methods[id]).toBeDefined();
    }
  });

  test("shares that fall on the same message are one cut: nothing is counted twice", () => {
    const input = { host: "claude" as const, id: "s1", file: "s1.jsonl", timeline: session(claude()), compactions: [] };
    const run = (cuts: number[]) => replaySession(input, { cuts, methods: ["rules"], passes: [], compact: rulesCompactor, pressure: 0.95 });
    const n = input.timeline.messages.length;
    const once = run([0.5]);
    const twice = run([0.5, 0.5 + 0.4 / n]);
    expect(twice.cuts.map((c) => [c.share, c.at])).toEqual(once.cuts.map((c) => [c.share, c.at]));
    expect(twice.cuts).toEqual(once.cuts);
    expect(labelCuts(input.timeline, [0.5, 0.5 + 0.4 / n])).toEqual(labelCuts(input.timeline, [0.5]));
  });
});

test("per-session spread: the median and the share the worst tenth of sessions are at or below", () => {
  expect(spreadOf([])).toEqual({ sessions: 0, median: 1, worstTenth: 1 });
  expect(spreadOf([1, 0.5, 0.75])).toEqual({ sessions: 3, median: 0.75, worstTenth: 0.5 });
  const twenty = Array.from({ length: 20 }, (_, i) => (i + 1) / 20);
  expect(spreadOf(twenty)).toEqual({ sessions: 20, median: 0.525, worstTenth: 0.1 });
});

describe("Claude Code's count as the eval tells the plugin: the last request's, before its answer", () => {
  // an answer (one response, message.id "r2") that made two calls in parallel, its records between their results
  const asst = (response: string, over: Partial<Message>): Message => ({
    role: "assistant",
    kind: "reply",
    text: "",
    toolCalls: [],
    toolResults: [],
    ...over,
    source: { host: "claude", record: 0, response },
  });
  const call = (id: string) => ({ id, name: "Read", input: { file_path: `/p/${id}` }, inputText: `{"file_path":"/p/${id}"}` });
  const result = (id: string, tokens: number): Message => ({
    role: "user",
    kind: "tool",
    text: "",
    toolCalls: [],
    toolResults: [{ callId: id, text: sized(id, tokens), isError: false, images: 0 }],
  });
  const messages: Message[] = [
    prompt("read them"),
    asst("r1", { toolCalls: [call("a")] }),
    result("a", 100),
    asst("r2", { kind: "reasoning", text: "t".repeat(2_000) }),
    asst("r2", { text: "Reading two." }),
    asst("r2", { toolCalls: [call("b")] }),
    result("b", 3_000),
    { role: "user", kind: "meta", text: "a reminder", toolCalls: [], toolResults: [] },
    asst("r2", { toolCalls: [call("c")] }),
    result("c", 3_000),
  ];
  const s = session(messages, "s1", "claude");
  const whole = messages.reduce((n, m) => n + estimateMessageTokens(m).all, 0);

  test("the answer is the response's records across its results: its calls, its thinking not counted, and nothing from its first record on", () => {
    expect(lastAnswerCallsOf(s)).toEqual(["b", "c"]);
    expect(thinkingOf(s)).toEqual({ tokens: 0, answers: [{ tokens: 500, callIds: ["b", "c"], counted: false }] });
    const before = messages.slice(0, 3).reduce((n, m) => n + estimateMessageTokens(m).all, 0);
    expect(claudeCount(s, whole)).toBe(before);
  });

  test("the plugin, told those calls, finds the same answer among the rows it is handed", () => {
    const rows = sessionToHookRows(s);
    expect(rowsInCount(rows, lastAnswerCallsOf(s))).toBe(3);
    // without the response ids (records of another shape), each run of assistant records is an answer of its own
    const plain = session(
      messages.map((m) => (m.source === undefined ? m : { ...m, source: { host: "claude" as const, record: 0 } })),
      "s2",
      "claude",
    );
    expect(lastAnswerCallsOf(plain)).toEqual(["c"]);
  });
});
