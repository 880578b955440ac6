import { describe, expect, test } from "bun:test";
import { isAlreadyCut } from "../../../../src/engine/notes.ts";
import { isInjectedContext } from "../../../../src/hosts/codex/items.ts";
import { rebuildHistory } from "../../../../src/hosts/codex/history.ts";
import { isOutputItem, outputText, sentForm } from "../../../../src/hosts/codex/items.ts";
import { codexTokens } from "../../../../src/hosts/codex/codex-estimate.ts";
import { beforeOpenCall, compactLimit, pairingProblem, planLive } from "../../../../src/hosts/codex/live/plan.ts";
import { parseRollout } from "../../../../src/hosts/codex/rollout.ts";
import { bigText, RolloutBuilder, workTurn } from "./support.ts";

type Json = Record<string, any>;

const rollout = (b: RolloutBuilder) => parseRollout(b.text(), "rollout.jsonl");

/** Items the way bc re-injected them once before: a prompt and one pruned read, outside any turn. */
const injectedBlock = (b: RolloutBuilder, outputChars = 100): RolloutBuilder =>
  b
    .context()
    .user("RUN: cat old.txt")
    .shell("cat old.txt", outputChars > 100 ? bigText("old.txt", outputChars) : "[output removed by better-compaction: 9000 chars; re-run the call to see it]")
    .assistant("Done before.");

describe("planLive", () => {
  test("the first replacement: revert before turn 1, inject the pruned history verbatim, Codex's context left out", () => {
    const r = rollout(workTurn(new RolloutBuilder(), "turn-1"));
    const plan = planLive(r, { autoCompactLimit: 100_000 });
    expect(plan).toMatchObject({ fits: true, revertTurnId: "turn-1", fixedItems: 0, limit: 100_000, target: 60_000 });
    const source = rebuildHistory(r)
      .items.map((h) => sentForm(h.item) as Json)
      .filter((it) => !isInjectedContext(it as any));
    expect(plan.items.length).toBe(source.length);
    expect(plan.items.some((it) => isInjectedContext(it as any))).toBe(false);
    let cut = 0;
    plan.items.forEach((it, i) => {
      const src = source[i]!;
      if (isOutputItem(it as any) && outputText(it.output).text !== outputText(src.output).text) {
        expect({ ...it, output: null }).toEqual({ ...src, output: null });
        expect(isAlreadyCut(outputText(it.output).text)).toBe(true);
        cut++;
      } else expect(it).toEqual(src);
    });
    // the first read of a.txt is superseded by the second
    expect(cut).toBe(plan.resultsDropped + plan.resultsTruncated);
    expect(cut).toBeGreaterThan(0);
    expect(plan.tokensAfter).toBeLessThan(plan.tokensBefore);
    expect(pairingProblem(plan.items)).toBeUndefined();
    // reasoning stays as Codex wrote it, encrypted content included
    expect(plan.items.filter((it) => it.type === "reasoning")).toEqual([
      { type: "reasoning", summary: [{ type: "summary_text", text: "Reading the files." }], content: null, encrypted_content: "gAAAAB-opaque-reasoning" },
    ]);
  });

  test("a SessionStart hook's developer message opening a turn replaced is left out, as Codex writes it anew after the revert; the UserPromptSubmit and PostToolUse hooks' are injected again, verbatim and in place, each once", () => {
    // the rollout as Codex 0.163.0 and 0.171.0 write it: the SessionStart hook's context opens the
    // turn (after Codex's context in the first; the second is the first after an earlier revert),
    // a UserPromptSubmit hook's follows the prompt, a PostToolUse hook's stands between call and output
    const sent = (text: string) => ({ type: "message", role: "developer", content: [{ type: "input_text", text }] });
    const STARTED = "## Relevant Lessons\n\n### 1. Read before you write";
    const b = new RolloutBuilder()
      .turn("turn-1")
      .context()
      .hook(STARTED)
      .user("RUN: cat a.txt RUN: cat b.txt RUN: cat a.txt RUN: echo one")
      .hook("## Related Decisions\n\n### 1. Keep the cache")
      .shell("cat a.txt", bigText("a.txt", 8_000))
      .shell("cat b.txt", bigText("b.txt", 8_000))
      .shell("cat a.txt", bigText("a.txt", 8_000))
      .item({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "echo one" }), call_id: "call_hooked" })
      .hook("[bd prime] the output was read")
      .item({ type: "function_call_output", call_id: "call_hooked", output: "one\n" })
      .assistant("Done.")
      .done("turn-1")
      .turn("turn-2")
      .hook(STARTED)
      .user("RUN: echo two")
      .hook("## Related Decisions\n\n### 2. Keep the log")
      .shell("echo two", "two\n")
      .assistant("Done again.")
      .tokens(20_000)
      .done("turn-2");
    const r = rollout(b);
    const plan = planLive(r, { autoCompactLimit: 100_000 });
    expect(plan).toMatchObject({ fits: true, revertTurnId: "turn-1", fixedItems: 0 });
    expect(plan.resultsDropped + plan.resultsTruncated).toBeGreaterThan(0);
    const developer = plan.items.filter((it) => it.role === "developer");
    expect(developer).toEqual([
      sent("## Related Decisions\n\n### 1. Keep the cache"),
      sent("[bd prime] the output was read"),
      sent("## Related Decisions\n\n### 2. Keep the log"),
    ]);
    // in place: after the prompt, between the call and its output
    const at = (text: string) => plan.items.findIndex((it) => it.role === "developer" && it.content[0].text === text);
    expect(plan.items[at("## Related Decisions\n\n### 1. Keep the cache") - 1]!.role).toBe("user");
    expect(plan.items[at("[bd prime] the output was read") - 1]).toMatchObject({ type: "function_call", call_id: "call_hooked" });
    expect(plan.items[at("[bd prime] the output was read") + 1]).toMatchObject({ type: "function_call_output", call_id: "call_hooked" });
    // every other item is the source's, in order, but the two SessionStart messages and Codex's context
    const all = rebuildHistory(r).items.map((h) => sentForm(h.item) as Json);
    const source = all.filter((it) => !isInjectedContext(it as any) && !(it.role === "developer" && it.content[0].text === STARTED));
    expect(plan.items.map((it) => (isOutputItem(it as any) ? it.call_id : it))).toEqual(source.map((it) => (isOutputItem(it as any) ? it.call_id : it)));
    // what the next request holds: what it carries besides the history (the count less the history
    // before the answer it follows), Codex's context, the SessionStart hook's context Codex writes
    // anew (counted once, at its size), the items injected
    const overhead = 20_000 - codexTokens(all.slice(0, -1));
    const context = all.filter((it) => isInjectedContext(it as any));
    expect(plan.tokensAfter).toBe(overhead + codexTokens(context) + codexTokens([sent(STARTED)]) + codexTokens(plan.items));
  });

  test("what the request carries besides the history is the count less the history the counted request held: the output of its answer's call (Codex compacts mid-turn after it) takes nothing off it", () => {
    const history = (b: RolloutBuilder) => codexTokens(rebuildHistory(rollout(b)).items.map((h) => sentForm(h.item)));
    const b = new RolloutBuilder().turn("turn-1").context().user("RUN: cat a.txt RUN: cat b.txt").shell("cat a.txt", bigText("a.txt", 8_000));
    const held = history(b);
    b.item({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "cat b.txt" }), call_id: "call_b" })
      .tokens(held + 5_000)
      .item({ type: "function_call_output", call_id: "call_b", output: bigText("b.txt", 40_000) });
    const plan = planLive(rollout(b), { autoCompactLimit: 100_000 });
    // before, the ~10k-token output came off the count, leaving nothing (the base instructions' few tokens stood in)
    expect(plan.tokensBefore).toBe(5_000 + history(b));
  });

  test("a PostToolUse hook's context between the answer's call and its output is not in the counted request either: the output takes nothing off what the request carries besides", () => {
    const history = (b: RolloutBuilder) => codexTokens(rebuildHistory(rollout(b)).items.map((h) => sentForm(h.item)));
    const b = new RolloutBuilder().turn("turn-1").context().user("RUN: cat a.txt RUN: cat b.txt").shell("cat a.txt", bigText("a.txt", 8_000));
    const held = history(b);
    b.item({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "cat b.txt" }), call_id: "call_b" })
      .hook("HOOK: b.txt was read")
      .item({ type: "function_call_output", call_id: "call_b", output: bigText("b.txt", 40_000) })
      .tokens(held + 5_000);
    const plan = planLive(rollout(b), { autoCompactLimit: 100_000 });
    // before, the scan stopped at the hook's message: the ~10k-token output came off the count, leaving nothing
    expect(plan.tokensBefore).toBe(5_000 + history(b));
  });

  test("a rollback after the count: the turn it took out of the history is still in the count, and does not come off what the request carries besides", () => {
    const history = (b: RolloutBuilder) => codexTokens(rebuildHistory(rollout(b)).items.map((h) => sentForm(h.item)));
    const b = workTurn(new RolloutBuilder(), "turn-1");
    b.turn("turn-2").user("RUN: cat c.txt").shell("cat c.txt", bigText("c.txt", 40_000));
    const held = history(b);
    b.assistant("Read it.")
      .tokens(held + 5_000)
      .done("turn-2");
    b.push("event_msg", { type: "thread_rolled_back", num_turns: 1 });
    const plan = planLive(rollout(b), { autoCompactLimit: 100_000 });
    // before, the rolled-back turn's ~10k tokens stood in the next request as if it carried them besides
    expect(plan.tokensBefore).toBe(5_000 + history(b));
  });

  test("a developer message opening a turn that Codex's metadata does not name a hook's is injected again in place: bc cannot tell it a SessionStart hook's, and would rather hold it twice than lose it", () => {
    const unnamed = { type: "message", role: "developer", content: [{ type: "input_text", text: "## Relevant Lessons\n\n### 1. Read before you write" }] };
    const b = workTurn(new RolloutBuilder(), "turn-1");
    const at = b.lines.findIndex((l) => l.type === "response_item" && l.payload.role === "user" && !String(l.payload.content[0].text).startsWith("<"));
    b.lines.splice(at, 0, { ...b.lines[at]!, payload: unnamed });
    const plan = planLive(rollout(b), { autoCompactLimit: 100_000 });
    expect(plan).toMatchObject({ fits: true, revertTurnId: "turn-1" });
    expect(plan.items[0]).toEqual(unnamed);
    const texts = plan.items.filter((it) => it.type === "message").map((it) => it.content[0].text as string);
    expect(texts.filter((t) => t.startsWith("<permissions instructions>") || t.startsWith("<environment_context>"))).toEqual([]);
  });

  test("sizes are counted as Codex estimates them, by UTF-8 bytes: output in a non-Latin script counts for more than the same number of ASCII characters", () => {
    const turn = (name: string) =>
      new RolloutBuilder().turn("turn-1").context().user("RUN: cat notes").shell("cat notes", name.repeat(4000)).assistant("Done.");
    const ascii = planLive(rollout(turn("ab")), { autoCompactLimit: 100_000 });
    const cyrillic = planLive(rollout(turn("аб")), { autoCompactLimit: 100_000 });
    // 8,000 more bytes (two per Cyrillic letter), the same characters
    expect(cyrillic.tokensBefore! - ascii.tokensBefore!).toBe(2000);
  });

  test("after an earlier injection, that block stays in front and the revert starts at the first turn after it", () => {
    const b = injectedBlock(new RolloutBuilder());
    const plan = planLive(rollout(workTurn(b, "turn-2")), { autoCompactLimit: 100_000 });
    expect(plan).toMatchObject({ fits: true, revertTurnId: "turn-2", fixedItems: 4 });
    expect(plan.items[0]).toMatchObject({ type: "message", role: "user", content: [{ text: "RUN: cat a.txt RUN: cat b.txt RUN: cat a.txt" }] });
  });

  test("when only the earlier injected block is left, the compaction is Codex's", () => {
    const b = injectedBlock(new RolloutBuilder()).turn("turn-2").context();
    const plan = planLive(rollout(b), { autoCompactLimit: 100_000 });
    expect(plan.fits).toBe(false);
    expect(plan.reason).toContain("only the earlier injected block is left");
  });

  test("when the earlier injected block alone is over the target, only Codex's compaction can cut it", () => {
    const b = injectedBlock(new RolloutBuilder(), 200_000);
    const plan = planLive(rollout(workTurn(b, "turn-2")), { autoCompactLimit: 60_000 });
    expect(plan.fits).toBe(false);
    expect(plan.reason).toContain("only Codex's own compaction can cut them");
  });

  test("after Codex's own compaction, its summary is the fixed part and the revert starts after it", () => {
    const b = workTurn(new RolloutBuilder(), "turn-1").turn("turn-2");
    b.push("compacted", {
      message: "",
      replacement_history: [{ type: "message", role: "user", content: [{ type: "input_text", text: "SUMMARY of turn 1" }] }],
    });
    b.done("turn-2");
    const plan = planLive(rollout(workTurn(b, "turn-3")), { autoCompactLimit: 100_000 });
    expect(plan).toMatchObject({ fits: true, revertTurnId: "turn-3", fixedItems: 1 });
    expect(JSON.stringify(plan.items)).not.toContain("SUMMARY");
  });

  test("turns where the rules free nothing are not replaced (they would only become unrevertable)", () => {
    const b = new RolloutBuilder().turn("turn-1").context().user("hello").shell("echo hi", "hi\n").assistant("Hi.").tokens(15_000);
    const plan = planLive(rollout(b), { autoCompactLimit: 100_000 });
    expect(plan.fits).toBe(false);
    expect(plan.reason).toContain("free nothing");
  });

  test("without a known limit or window, nothing is planned", () => {
    const b = new RolloutBuilder().turn("turn-1").context().user("hi").assistant("OK");
    const plan = planLive(rollout(b), {});
    expect(plan.fits).toBe(false);
    expect(plan.reason).toContain("model_auto_compact_token_limit");
  });

  test("a history that cannot get under the ceiling is not injected", () => {
    // every output is recent and pinned: the engine cannot cut enough
    const b = new RolloutBuilder()
      .turn("turn-1")
      .context()
      .user("RUN: cat big.txt")
      .shell("cat big.txt", bigText("big.txt", 200_000))
      .assistant("Done.")
      .tokens(60_000);
    const plan = planLive(rollout(b), { autoCompactLimit: 70_000 });
    expect(plan.fits).toBe(false);
    expect(plan.reason).toMatch(/would still be ~\d+ tokens, over the 52500-token ceiling \(75% of the 70000 limit\)$/);
  });

  /** An old output the rules may cut (~30k tokens), then eight small ones, then a large pinned one (~50k): the rules can take the request to ~59k tokens, no lower. */
  const pinnedBeyondTarget = (): RolloutBuilder => {
    const b = new RolloutBuilder().turn("turn-1").context().user("RUN: cat old.txt, then big.txt").shell("cat old.txt", bigText("old.txt", 120_000));
    for (let k = 0; k < 8; k++) b.shell(`echo ${k}`, `${k}\n`);
    return b.shell("cat big.txt", bigText("big.txt", 200_000)).assistant("Done.").tokens(90_000);
  };

  test("a history the rules cannot get under the target, but under the ceiling (75% of the limit), is applied: the reason says so", () => {
    const plan = planLive(rollout(pinnedBeyondTarget()), { autoCompactLimit: 90_000 });
    expect(plan).toMatchObject({ fits: true, target: 54_000, ceiling: 67_500, resultsDropped: 1 });
    expect(plan.tokensAfter).toBeGreaterThan(plan.target!);
    expect(plan.tokensAfter).toBeLessThanOrEqual(plan.ceiling!);
    expect(plan.reason).toMatch(/the rules cannot reach the 54000-token target .* but this is under the 67500-token ceiling \(75%\): applied/);
    expect(pairingProblem(plan.items)).toBeUndefined();
    // the same history against a lower limit is over its ceiling too: the compaction is Codex's
    const lower = planLive(rollout(pinnedBeyondTarget()), { autoCompactLimit: 70_000 });
    expect(lower.fits).toBe(false);
    expect(lower.reason).toMatch(/over the 52500-token ceiling/);
  });

  test("Codex's context over the target but under the ceiling: the turns are pruned to fit under the ceiling", () => {
    // workTurn's Codex context alone is ~13.6k tokens: over the 12k target of a 20k limit, under its 15k ceiling
    const plan = planLive(rollout(workTurn(new RolloutBuilder(), "turn-1")), { autoCompactLimit: 20_000 });
    expect(plan).toMatchObject({ fits: true, target: 12_000, ceiling: 15_000 });
    expect(plan.tokensAfter).toBeLessThanOrEqual(15_000);
    expect(plan.resultsDropped + plan.resultsTruncated).toBeGreaterThan(0);
    expect(planLive(rollout(workTurn(new RolloutBuilder(), "turn-1")), { autoCompactLimit: 16_000 }).reason).toMatch(
      /Codex's context alone is ~\d+ tokens, over the 12000-token ceiling/,
    );
  });

  test("when the request (JSON) is still over after a pass, the next asks the engine for less than it left, not only less than it was asked", () => {
    // six large reads, then many small calls: the engine frees a whole read at a time, so a pass
    // can leave far less than it was asked for while the request, its JSON and many small
    // items, is still just over the target; asking for a little less than the last budget
    // brought back the same cuts pass after pass until the tries ran out
    const b = new RolloutBuilder().turn("turn-1").context().user("RUN: the big files, then many small commands");
    for (let k = 0; k < 6; k++) b.shell(`cat big${k}.txt`, bigText(`big${k}.txt`, 40_000));
    for (let k = 0; k < 40; k++) b.shell(`echo ${k}`, `${k}\n`);
    b.assistant("Done.").tokens(80_000);
    const plan = planLive(rollout(b), { autoCompactLimit: 82_000 });
    expect(plan.target).toBe(49_200);
    expect(plan.fits).toBe(true);
    expect(plan.tokensAfter).toBeLessThanOrEqual(plan.target!);
    expect(pairingProblem(plan.items)).toBeUndefined();
  });

  test("a call that never got its output stays in the part Codex keeps: the revert starts at the first turn after it", () => {
    const orphan = { type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "sed -n 1,80p big.rs" }), call_id: "call_interrupted" };
    const b = workTurn(new RolloutBuilder(), "turn-1").turn("turn-2").context().user("RUN: sed big.rs").item(orphan).assistant("Interrupted.").done("turn-2");
    const plan = planLive(rollout(workTurn(b, "turn-3")), { autoCompactLimit: 100_000 });
    expect(plan).toMatchObject({ fits: true, revertTurnId: "turn-3" });
    // turns 1 and 2 stay as Codex has them (their items, Codex's context messages aside)
    expect(plan.fixedItems).toBe(15 + 3);
    expect(JSON.stringify(plan.items)).not.toContain("call_interrupted");
    expect(pairingProblem(plan.items)).toBeUndefined();
    expect(plan.resultsDropped + plan.resultsTruncated).toBeGreaterThan(0);
  });

  test("a call without its output in the last turn: nothing to revert after it, the compaction is Codex's", () => {
    const orphan = { type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "sleep 100" }), call_id: "call_interrupted" };
    const b = workTurn(new RolloutBuilder(), "turn-1").turn("turn-2").context().user("RUN: sleep").item(orphan).tokens(20_000);
    const plan = planLive(rollout(b), { autoCompactLimit: 100_000 });
    expect(plan.fits).toBe(false);
    expect(plan.reason).toContain(`at line ${b.lines.length - 1} of the rollout, and no turn after it`);
    expect(plan.items).toEqual([]);
  });

  test("a session stopped mid-command: the history before its open calls (made together), the last Codex could have compacted; none where a turn follows", () => {
    const open = (id: string) => ({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: `sleep ${id}` }), call_id: id });
    const b = workTurn(new RolloutBuilder(), "turn-1").turn("turn-2").context().user("RUN: sleep");
    const kept = b.lines.length;
    b.item(open("call_a")).item(open("call_b")).tokens(20_000);
    const whole = rollout(b);
    const before = beforeOpenCall(whole)!;
    // both open calls go, and what followed them; every line before the first stays as it was
    expect(before.lines).toEqual(whole.lines.slice(0, kept));
    const left = JSON.stringify(rebuildHistory(before).items);
    expect([left.includes("call_a"), left.includes("call_b")]).toEqual([false, false]);
    expect(planLive(whole, { autoCompactLimit: 100_000 }).fits).toBe(false);
    expect(planLive(before, { autoCompactLimit: 100_000 }).fits).toBe(true);
    // a call that never got its output with a turn after it is left where it is (planLive keeps it)
    const later = workTurn(workTurn(new RolloutBuilder(), "turn-1").turn("turn-2").context().user("RUN").item(open("call_c")).done("turn-2"), "turn-3");
    expect(beforeOpenCall(rollout(later))).toBeUndefined();
    expect(beforeOpenCall(rollout(workTurn(new RolloutBuilder(), "turn-1")))).toBeUndefined();
  });

  test("an agent's message to another in the turns to revert: bc cannot rebuild it, so the compaction is Codex's", () => {
    const b = workTurn(new RolloutBuilder(), "turn-1").push("inter_agent_communication", {
      author: "/root/worker",
      recipient: "/root",
      other_recipients: [],
      content: "worker done",
      trigger_turn: false,
    });
    const plan = planLive(rollout(workTurn(b, "turn-2")), { autoCompactLimit: 100_000 });
    expect(plan.fits).toBe(false);
    expect(plan.reason).toContain("an agent's message to another at line");
    expect(plan.items).toEqual([]);
    // without it, the same turns are replaced
    expect(planLive(rollout(workTurn(workTurn(new RolloutBuilder(), "turn-1"), "turn-2")), { autoCompactLimit: 100_000 }).fits).toBe(true);
  });

  test("the limit: configured, else 90% of the recorded window", () => {
    expect(compactLimit({ autoCompactLimit: 50_000, contextWindow: 200_000 })).toBe(50_000);
    expect(compactLimit({ contextWindow: 200_000 })).toBe(180_000);
    expect(compactLimit({})).toBeUndefined();
    const plan = planLive(rollout(workTurn(new RolloutBuilder(), "turn-1")), {});
    expect(plan.limit).toBe(Math.floor(258_400 * 0.9));
  });

  test("pairingProblem names a call without output and an output without call", () => {
    expect(pairingProblem([{ type: "function_call", call_id: "a" }])).toBe("call a has no output");
    expect(pairingProblem([{ type: "custom_tool_call_output", call_id: "b" }])).toBe("output b has no call");
    expect(
      pairingProblem([
        { type: "function_call", call_id: "a" },
        { type: "function_call_output", call_id: "a" },
      ]),
    ).toBeUndefined();
  });
});
