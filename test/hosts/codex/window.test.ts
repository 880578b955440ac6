// What Codex's requests carry besides the history, from the rollout's newest token_count.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codexTokens } from "../../../src/hosts/codex/codex-estimate.ts";
import { engineFork } from "../../../src/hosts/codex/fork.ts";
import { rebuildHistory } from "../../../src/hosts/codex/history.ts";
import { sentForm } from "../../../src/hosts/codex/items.ts";
import { parseRollout, readRollout, recordedWindow, uncountedFrom } from "../../../src/hosts/codex/rollout.ts";
import { unseenTokens } from "../../../src/hosts/codex/window.ts";
import { loadSessionFile } from "../../../src/hosts/load.ts";
import { bigText, RolloutBuilder } from "./live/support.ts";

const LEGACY = join(import.meta.dir, "..", "..", "fixtures", "codex", "fork-legacy-0.140.jsonl");
const CLAUDE = join(import.meta.dir, "..", "..", "fixtures", "claude", "parallel-tool-calls.jsonl");
const dir = mkdtempSync(join(tmpdir(), "bc-window-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (type: string, payload: object): string => JSON.stringify({ timestamp: "2026-06-01T10:00:01.000Z", type, payload });
const count = (input: number): string =>
  line("event_msg", {
    type: "token_count",
    info: {
      total_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 1, reasoning_output_tokens: 0, total_tokens: input + 1 },
      last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 1, reasoning_output_tokens: 0, total_tokens: input + 1 },
      model_context_window: 272_000,
    },
    rate_limits: null,
  });
const rolloutWith = (name: string, ...extra: string[]) => {
  const file = join(dir, `rollout-${name}.jsonl`);
  writeFileSync(file, `${readFileSync(LEGACY, "utf8").trimEnd()}\n${extra.join("\n")}\n`);
  return readRollout(file);
};

test("the newest request's size less the history's estimate, at most half the share", () => {
  const r = rolloutWith("count", count(50_000));
  expect(unseenTokens(recordedWindow(r), 30_000, 100_000)).toBe(20_000);
  expect(unseenTokens(recordedWindow(r), 60_000, 100_000)).toBe(0);
  expect(unseenTokens(recordedWindow(r), 1_000, 60_000)).toBe(30_000);
});

test("nothing when the history was compacted after the newest count: that count is of a history no longer there", () => {
  const r = rolloutWith("compacted", count(50_000), line("compacted", { message: "", replacement_history: [] }));
  expect(unseenTokens(recordedWindow(r), 30_000, 100_000)).toBe(0);
});

test("a loaded rollout carries what it records of the window; a loaded Claude Code transcript carries none", () => {
  const r = rolloutWith("loaded", count(50_000));
  expect(loadSessionFile(r.path).recordedWindow).toEqual({ window: 272_000, lastInput: 50_000 });
  const compacted = rolloutWith("loaded-compacted", count(50_000), line("compacted", { message: "", replacement_history: [] }));
  expect(loadSessionFile(compacted.path).recordedWindow).toEqual({ window: 272_000 });
  expect(loadSessionFile(CLAUDE).recordedWindow).toBeUndefined();
});

describe("Codex's count holds the history before the response to the request it counted, not that response nor what came after", () => {
  /** what Codex's requests carry besides the history (instructions, tools), in these rollouts */
  const BESIDES = 5_000;
  const WINDOW = 258_400;
  const share = Math.floor(WINDOW * 0.6);
  const parse = (b: RolloutBuilder) => parseRollout(b.text(), "rollout.jsonl");
  /** bc's estimate of the history so far, as Codex counts it */
  const historyOf = (b: RolloutBuilder): number => codexTokens(rebuildHistory(parse(b)).items.map((h) => sentForm(h.item)));
  /** the request Codex sends now: the history so far and what it carries besides */
  const request = (b: RolloutBuilder): number => historyOf(b) + BESIDES;
  const budgetOf = (b: RolloutBuilder) => {
    const r = parse(b);
    return engineFork(rebuildHistory(r).items, r, undefined, { percent: 60 }, "fresh").pruning.budget;
  };
  const prompt = () => new RolloutBuilder().turn("turn-1").context().user("read big.txt");
  const reasoning = { type: "reasoning", summary: [{ type: "summary_text", text: "Reading it." }], content: null, encrypted_content: null };
  const call = { type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "cat big.txt" }), call_id: "call_big" };
  /** ~10k tokens */
  const big = { type: "function_call_output", call_id: "call_big", output: bigText("big.txt", 40_000) };

  test.each([
    ["the count, then the output, as Codex 0.118 and 0.119 write them", (b: RolloutBuilder, sent: number) => b.tokens(sent, WINDOW).item(big)],
    ["the output, then the count, as Codex 0.140 and later write them", (b: RolloutBuilder, sent: number) => b.item(big).tokens(sent, WINDOW)],
  ])("a turn interrupted after its last call's large output (%s): the output takes nothing off what Codex sends besides", (_, answer) => {
    const b = prompt();
    const sent = request(b);
    answer(b.item(reasoning).item(call), sent);
    // the history now holds ~10k tokens more than the counted request did: they were its answer
    expect(historyOf(b) - (sent - BESIDES)).toBeGreaterThan(10_000);
    // before, that answer came off the count: nothing was left besides, and the budget was ~5k too large
    expect(budgetOf(b)).toMatchObject({ tokens: share - BESIDES, unseenTokens: BESIDES, window: WINDOW });
  });

  test.each([
    ["a PostToolUse hook's context", (b: RolloutBuilder) => b.hook("HOOK: big.txt was read")],
    [
      "Codex's own note of a command prefix the person approved",
      (b: RolloutBuilder) =>
        b.item({ type: "message", role: "developer", content: [{ type: "input_text", text: 'Approved command prefix saved:\n- ["cat"]' }] }),
    ],
  ])("a developer message between the call and its output (%s) is not the request's: the output takes nothing off what Codex sends besides", (_, note) => {
    const b = prompt();
    const sent = request(b);
    note(b.item(reasoning).item(call)).item(big).tokens(sent, WINDOW);
    // before, the scan stopped at the message: the call, the message and the ~10k-token output came off the count
    expect(budgetOf(b)).toMatchObject({ tokens: share - BESIDES, unseenTokens: BESIDES, window: WINDOW });
  });

  test("a finished turn: its last answer is not in the count, nor a new prompt before a count Codex repeats unchanged", () => {
    const b = prompt();
    b.item(reasoning)
      .item(call)
      .tokens(request(b), WINDOW)
      .item({ ...big, output: "a short file\n" });
    b.tokens(request(b), WINDOW).assistant("Done: big.txt holds a short file.").done("turn-1");
    expect(budgetOf(b)).toMatchObject({ tokens: share - BESIDES, unseenTokens: BESIDES });
    // Codex repeats its last count as the next turn starts: it is of the same request
    const last = b.lines.filter((l) => l.payload.type === "token_count").at(-1)!;
    b.turn("turn-2").user("now read small.txt").push("event_msg", last.payload);
    expect(budgetOf(b)).toMatchObject({ tokens: share - BESIDES, unseenTokens: BESIDES });
  });

  test("a rollback after the count: the turn it took out of the history is still in the count, and comes off it", () => {
    const b = prompt();
    const turn1 = () =>
      b
        .item(reasoning)
        .item(call)
        .item({ ...big, output: "a short file\n" });
    turn1().tokens(request(b), WINDOW);
    const answered = request(b);
    b.assistant("Done: big.txt holds a short file.").tokens(answered, WINDOW).done("turn-1");
    const before = historyOf(b);
    // the next turn reads ~10k tokens and answers: the newest count is of the request holding them
    b.turn("turn-2")
      .user("now read big2.txt")
      .item(reasoning)
      .item({ ...call, call_id: "call_big2" })
      .item({ ...big, call_id: "call_big2" });
    const read = request(b);
    b.assistant("Read it.").tokens(read, WINDOW).done("turn-2");
    // the person edits that turn's prompt (Esc Esc): Codex rolls it back, and counts nothing until the next answer
    b.push("event_msg", { type: "thread_rolled_back", num_turns: 1 });
    expect(historyOf(b)).toBe(before);
    // before, the rolled-back turn (~10k tokens) came off the count as if the request carried it besides
    expect(budgetOf(b)).toMatchObject({ tokens: share - BESIDES, unseenTokens: BESIDES, window: WINDOW });
  });

  test("the line the uncounted history starts at", () => {
    const b = prompt();
    const from = b.lines.length;
    b.item(reasoning).item(call).tokens(request(b), WINDOW).item(big);
    expect(uncountedFrom(parse(b))).toBe(from);
    // a count that no response precedes (a fork's own) holds everything before it
    const fork = prompt().tokens(40_000, WINDOW);
    expect(uncountedFrom(parse(fork))).toBe(fork.lines.length - 1);
    // no count: nothing is known to be uncounted
    expect(uncountedFrom(parse(prompt()))).toBe(prompt().lines.length);
  });
});
