import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONTINUE_TEXT, IDLE_TIMEOUT_MS, idleWaitMs, restartPlan, runApplier } from "../../../../src/hosts/codex/live/applier.ts";
import { planLive } from "../../../../src/hosts/codex/live/plan.ts";
import { logPath, parseLiveLog, readMarker } from "../../../../src/hosts/codex/live/state.ts";
import { readRollout } from "../../../../src/hosts/codex/rollout.ts";
import { bigText, homePerTest, idleThread, RolloutBuilder, startFakeServer, THREAD, workTurn } from "./support.ts";

const homes = homePerTest();

const setUp = () => {
  const world = homes.fresh();
  writeFileSync(join(world.home, "config.toml"), "model_auto_compact_token_limit = 100000\n");
  const path = workTurn(new RolloutBuilder(), "turn-1").write(join(world.home, "sessions", "2026", "12", "01"));
  const home = world.home;
  const server = (handlers: ReturnType<typeof idleThread>) => {
    const s = startFakeServer(home, handlers);
    homes.track(s.stop);
    return s;
  };
  const apply = (trigger = "manual", extra = {}) =>
    runApplier({ codexHome: home, threadId: THREAD, trigger, turnId: "turn-c" }, { sleep: async () => {}, ...extra });
  const log = () => parseLiveLog(readFileSync(logPath(home, THREAD), "utf8")).records;
  return { path, home, server, apply, log };
};

describe("the applier", () => {
  test("/compact: waits for idle, reverts before the first turn, injects the planned items; the marker is cleared", async () => {
    const w = setUp();
    const s = w.server(idleThread(w.path, ["turn-1", "turn-c"]));
    const r = await w.apply();
    expect(r).toMatchObject({ outcome: "applied", revertTurnId: "turn-1", restarted: false });
    expect(s.methods()).toEqual(["thread/read", "thread/turns/list", "thread/turns/list", "thread/read", "thread/revert", "thread/inject_items"]);
    const revert = s.calls.find((c) => c.method === "thread/revert")!;
    expect(revert.params).toEqual({ threadId: THREAD, beforeTurnId: "turn-1" });
    const inject = s.calls.find((c) => c.method === "thread/inject_items")!;
    expect(inject.params.items).toEqual(planLive(readRollout(w.path), { autoCompactLimit: 100_000 }).items);
    expect(readMarker(w.home, THREAD)).toBeUndefined();
    expect(w.log().map((x) => x.outcome)).toEqual(["applied"]);
    // the log names each output the injected history cut, and the rule that cut it
    const cut = new Set(
      (inject.params.items as { type: string; call_id: string; output?: unknown }[])
        .filter((i) => i.type === "function_call_output" && /\[bc (?:removed|cut)/.test(JSON.stringify(i.output)))
        .map((i) => i.call_id),
    );
    expect(cut.size).toBeGreaterThan(0);
    const removed = w.log()[0]!.removed ?? [];
    expect(new Set(removed.map((d) => d.callId))).toEqual(cut);
    for (const d of removed) expect(d.rule).not.toBe("");
  });

  test("an automatic compaction: the turn is started again after the injection", async () => {
    const w = setUp();
    const s = w.server(idleThread(w.path, ["turn-1"]));
    const r = await w.apply("auto");
    expect(r).toMatchObject({ outcome: "applied", restarted: true });
    expect(s.methods().slice(-2)).toEqual(["thread/inject_items", "turn/start"]);
    expect(s.calls.at(-1)!.params).toEqual({ threadId: THREAD, input: [{ type: "text", text: CONTINUE_TEXT, text_elements: [] }] });
  });

  /** An automatic compaction before turn 2, whose person's message is "What is the codeword?", against a server with `extra` handlers. */
  const beforeATurn = async (extra: Partial<ReturnType<typeof idleThread>> = {}) => {
    const world = homes.fresh();
    writeFileSync(join(world.home, "config.toml"), "model_auto_compact_token_limit = 100000\n");
    const path = workTurn(new RolloutBuilder(), "turn-1")
      .turn("turn-2")
      .user("What is the codeword?")
      .push("event_msg", { type: "turn_aborted", turn_id: "turn-2" })
      .write(join(world.home, "sessions"));
    const s = startFakeServer(world.home, { ...idleThread(path, ["turn-1", "turn-2"]), ...extra } as ReturnType<typeof idleThread>);
    homes.track(s.stop);
    const r = await runApplier({ codexHome: world.home, threadId: THREAD, trigger: "auto", turnId: "turn-2" }, { sleep: async () => {} });
    return { s, r };
  };

  test("an automatic compaction before a turn: the person's new message is sent again as the turn's input, not injected", async () => {
    const { s, r } = await beforeATurn();
    expect(r).toMatchObject({ outcome: "applied", restarted: true });
    const injected = s.calls.find((c) => c.method === "thread/inject_items")!.params.items;
    expect(JSON.stringify(injected)).not.toContain("What is the codeword?");
    expect(injected.at(-1)).toMatchObject({ role: "assistant" });
    expect(s.calls.at(-1)!.params.input).toEqual([{ type: "text", text: "What is the codeword?", text_elements: [] }]);
  });

  test("an automatic compaction before a turn whose restart is refused: the person's message held back goes into the history, not lost", async () => {
    const { s, r } = await beforeATurn({
      "turn/start": () => {
        throw new Error("thread is busy");
      },
    });
    expect(r.outcome).toBe("applied");
    expect(r.reason).toContain("your last message is in the history; send a message to go on");
    expect(s.methods().slice(-3)).toEqual(["thread/inject_items", "turn/start", "thread/inject_items"]);
    const injects = s.calls.filter((c) => c.method === "thread/inject_items").map((c) => c.params.items);
    expect(JSON.stringify(injects[0])).not.toContain("What is the codeword?");
    expect(injects[1]).toEqual([{ type: "message", role: "user", content: [{ type: "input_text", text: "What is the codeword?" }] }]);
  });

  test("a turn the rollout did not hold when bc planned (a message sent meanwhile) is not reverted: nothing is changed", async () => {
    const w = setUp();
    let lists = 0;
    const s = w.server({
      ...idleThread(w.path, []),
      "thread/turns/list": () => {
        const ids = ++lists >= 2 ? ["turn-1", "turn-c", "turn-u"] : ["turn-1", "turn-c"];
        return { data: ids.map((id) => ({ id, status: "completed" })), nextCursor: null };
      },
    });
    const r = await w.apply();
    expect(r).toMatchObject({ outcome: "failed" });
    expect(r.reason).toBe("turn turn-u began after bc read the rollout (a new message?); nothing was changed");
    expect(s.methods()).not.toContain("thread/revert");
    expect(s.methods()).not.toContain("thread/inject_items");
  });

  test("restartPlan: a last person message becomes the input; anything else restarts with the continue text", () => {
    const user = { type: "message", role: "user", content: [{ type: "input_text", text: "next?" }] };
    const output = { type: "function_call_output", call_id: "c", output: "x" };
    expect(restartPlan([output, user])).toEqual({ items: [output], text: "next?" });
    expect(restartPlan([user, output])).toEqual({ items: [user, output], text: CONTINUE_TEXT });
    const aborted = { type: "message", role: "user", content: [{ type: "input_text", text: "<turn_aborted>x</turn_aborted>" }] };
    expect(restartPlan([output, aborted])).toEqual({ items: [output, aborted], text: CONTINUE_TEXT });
    const image = {
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "see" },
        { type: "input_image", image_url: "data:" },
      ],
    };
    expect(restartPlan([image]).text).toBe(CONTINUE_TEXT);
  });

  test("a revert refused (a legacy thread): nothing injected, the marker says failed", async () => {
    const w = setUp();
    const s = w.server({
      ...idleThread(w.path, ["turn-1"]),
      "thread/revert": () => {
        throw new Error("thread/revert only supports paginated threads");
      },
    });
    const r = await w.apply();
    expect(r.outcome).toBe("failed");
    expect(r.reason).toContain("only supports paginated threads");
    expect(s.methods()).not.toContain("thread/inject_items");
    expect(readMarker(w.home, THREAD)).toMatchObject({ state: "failed" });
  });

  test("a thread busy for too long: nothing changed, the marker says failed", async () => {
    const w = setUp();
    const s = w.server(idleThread(w.path, ["turn-1"], () => ({ type: "active", activeFlags: [] })));
    let t = 0;
    const r = await w.apply("manual", { idleTimeoutMs: 1_000, now: () => new Date(Date.UTC(2026, 11, 1) + (t += 300)) });
    expect(r.outcome).toBe("failed");
    expect(r.reason).toContain("stayed busy");
    expect(s.methods().filter((m) => m !== "thread/read" && m !== "thread/turns/list")).toEqual([]);
    expect(readMarker(w.home, THREAD)).toMatchObject({ state: "failed" });
  });

  test("BC_CODEX_IDLE_WAIT sets that wait in seconds; anything else leaves the minute", () => {
    expect(idleWaitMs({ BC_CODEX_IDLE_WAIT: "5" })).toBe(5_000);
    expect(idleWaitMs({ BC_CODEX_IDLE_WAIT: " 2.5 " })).toBe(2_500);
    expect(idleWaitMs({ BC_CODEX_IDLE_WAIT: "600" })).toBe(600_000);
    for (const v of [undefined, "", "0", "-3", "0.5", "abc", "5s", "7200"]) expect(idleWaitMs({ BC_CODEX_IDLE_WAIT: v })).toBe(IDLE_TIMEOUT_MS);
  });

  /** The applier where the app-server refuses the first injection: what it did, and the injections it sent (the planned items, then the restore). */
  const failFirstInjection = async (w: ReturnType<typeof setUp>) => {
    let injections = 0;
    const s = w.server({
      ...idleThread(w.path, ["turn-1"]),
      "thread/inject_items": () => {
        if (++injections === 1) throw new Error("boom");
        return {};
      },
    });
    const r = await w.apply();
    expect(r.outcome).toBe("failed");
    expect(r.reason).toContain("the original items were put back");
    return s.calls.filter((c) => c.method === "thread/inject_items");
  };

  test("an injection that fails after the revert puts the original items back", async () => {
    const w = setUp();
    const [, restore] = await failFirstInjection(w);
    // the restore carries every output whole
    expect(JSON.stringify(restore!.params.items)).not.toContain("better-compaction");
    expect(restore!.params.items.length).toBe(planLive(readRollout(w.path), { autoCompactLimit: 100_000 }).items.length);
  });

  test("a hook's developer message in the turns replaced is injected with them, and put back with them should the injection fail; a SessionStart hook's, which Codex writes anew after the revert, is in neither", async () => {
    const w = setUp();
    const hook = { type: "message", role: "developer", content: [{ type: "input_text", text: "## Related Decisions\n\n### 1. Keep the cache" }] };
    const started = "## Relevant Lessons\n\n### 1. Read before you write";
    const b = new RolloutBuilder().turn("turn-1").context().hook(started).user("RUN: cat a.txt RUN: cat b.txt RUN: cat a.txt").item(hook);
    for (const [cmd, out] of [
      ["cat a.txt", bigText("a.txt", 8_000)],
      ["cat b.txt", bigText("b.txt", 8_000)],
      ["cat a.txt", bigText("a.txt", 8_000)],
      ["echo one", "one\n"],
      ["echo two", "two\n"],
      ["echo three", "three\n"],
    ])
      b.shell(cmd!, out!);
    writeFileSync(w.path, b.assistant("Done.").tokens(20_000).done("turn-1").text());
    const [injected, restore] = await failFirstInjection(w);
    for (const call of [injected!, restore!]) {
      expect(call.params.items[1]).toEqual(hook);
      expect(JSON.stringify(call.params.items)).not.toContain("Relevant Lessons");
    }
    expect(injected!.params.items.map((it: { type: string }) => it.type)).toEqual(restore!.params.items.map((it: { type: string }) => it.type));
  });

  test("a revert point the app-server does not know: nothing changed", async () => {
    const w = setUp();
    const s = w.server(idleThread(w.path, ["another-turn"]));
    const r = await w.apply();
    expect(r.outcome).toBe("failed");
    expect(s.methods()).not.toContain("thread/revert");
  });

  test("no app-server: the marker says failed", async () => {
    const w = setUp();
    const r = await w.apply();
    expect(r.outcome).toBe("failed");
    expect(r.reason).toContain("cannot reach the app-server");
    expect(readMarker(w.home, THREAD)).toMatchObject({ state: "failed" });
  });
});
