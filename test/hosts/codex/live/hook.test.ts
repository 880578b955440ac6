import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runPreCompact, STOP_REASON } from "../../../../src/hosts/codex/live/hook.ts";
import { logPath, markerPath, parseLiveLog, readMarker, writeMarker } from "../../../../src/hosts/codex/live/state.ts";
import { homePerTest, idleThread, RolloutBuilder, startFakeServer, THREAD, workTurn } from "./support.ts";

const homes = homePerTest();

const setUp = (opts: { limit?: number; originator?: string; legacy?: boolean } = {}) => {
  const world = homes.fresh();
  writeFileSync(join(world.home, "config.toml"), `model_auto_compact_token_limit = ${opts.limit ?? 100_000}\n`);
  const path = workTurn(new RolloutBuilder(THREAD, opts.originator, opts.legacy ? "legacy" : "paginated"), "turn-1").write(
    join(world.home, "sessions", "2026", "12", "01"),
  );
  const started: (readonly string[])[] = [];
  const deps = {
    codexHome: world.home,
    now: () => new Date("2026-12-01T14:00:00.000Z"),
    startApplier: (args: readonly string[]) => {
      started.push(args);
      return 4242;
    },
  };
  const input = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ session_id: THREAD, turn_id: "turn-c", transcript_path: path, trigger: "manual", ...extra });
  const server = (handlers = idleThread(path, ["turn-1", "turn-c"])) => {
    const s = startFakeServer(world.home, handlers);
    homes.track(s.stop);
    return s;
  };
  const log = () => parseLiveLog(readFileSync(logPath(world.home, THREAD), "utf8")).records;
  return { path, deps, started, input, server, log, home: world.home };
};

describe("bc codex-hook precompact", () => {
  test("vetoes and starts the applier when the pruned history fits and the app-server runs the thread", async () => {
    const w = setUp();
    const s = w.server();
    const r = await runPreCompact(w.input(), w.deps);
    expect(JSON.parse(r.stdout)).toEqual({ continue: false, stopReason: STOP_REASON });
    expect(w.started).toEqual([["--thread", THREAD, "--codex-home", w.home, "--trigger", "manual", "--turn", "turn-c"]]);
    expect(s.methods()).toEqual(["thread/loaded/list"]);
    expect(readMarker(w.home, THREAD)).toMatchObject({ state: "applying", turnId: "turn-c" });
    expect(w.log().map((x) => x.outcome)).toEqual(["vetoed"]);
  });

  const handedOver = async (w: ReturnType<typeof setUp>, input: string, reason: RegExp) => {
    const r = await runPreCompact(input, w.deps);
    expect(r.stdout).toBe("");
    expect(w.started).toEqual([]);
    expect(r.record.outcome).toBe("handed-over");
    expect(r.record.reason).toMatch(reason);
    expect(w.log().at(-1)).toMatchObject({ outcome: "handed-over" });
  };

  test("no app-server socket (codex exec, --no-daemon): no answer, Codex compacts", async () => {
    const w = setUp();
    await handedOver(w, w.input(), /no app-server socket/);
  });

  test("a codex exec thread, with an interactive session's socket there: no answer", async () => {
    const w = setUp({ originator: "codex_exec" });
    w.server({ ...idleThread(w.path, ["turn-1"]), "thread/loaded/list": () => ({ data: ["someone-else"], nextCursor: null }) });
    await handedOver(w, w.input(), /codex exec session runs in its own process/);
  });

  test("a session codex exec started, resumed in the interactive CLI (the app-server runs it): bc answers", async () => {
    const w = setUp({ originator: "codex_exec" });
    w.server();
    const r = await runPreCompact(w.input(), w.deps);
    expect(r.record.outcome).toBe("vetoed");
  });

  test("a legacy (unpaginated) thread, which Codex cannot revert: no answer", async () => {
    const w = setUp({ legacy: true });
    w.server();
    await handedOver(w, w.input(), /legacy/);
  });

  test("a thread the app-server does not run: no answer", async () => {
    const w = setUp();
    const handlers = idleThread(w.path, ["turn-1"]);
    w.server({ ...handlers, "thread/loaded/list": () => ({ data: ["someone-else"], nextCursor: null }) });
    await handedOver(w, w.input(), /does not run this thread/);
  });

  test("an app-server that refuses the question: no answer", async () => {
    const w = setUp();
    const handlers = idleThread(w.path, ["turn-1"]);
    w.server({
      ...handlers,
      "thread/loaded/list": () => {
        throw new Error("busy");
      },
    });
    await handedOver(w, w.input(), /cannot ask the app-server/);
  });

  test("a history that would not fit under the ceiling: no answer", async () => {
    const w = setUp({ limit: 16_000 });
    w.server();
    await handedOver(w, w.input(), /over the 12000-token ceiling/);
  });

  test("a history over the target but under the ceiling: vetoed, and the log says why", async () => {
    const w = setUp({ limit: 20_000 });
    w.server();
    const r = await runPreCompact(w.input(), w.deps);
    expect(JSON.parse(r.stdout)).toMatchObject({ continue: false });
    expect(w.started.length).toBe(1);
    expect(w.log()).toEqual([expect.objectContaining({ outcome: "vetoed", reason: expect.stringMatching(/under the 15000-token ceiling \(75%\): applied/) })]);
  });

  test("after a failed attempt the next compaction is Codex's, and the marker is cleared", async () => {
    const w = setUp();
    w.server();
    writeMarker(w.home, THREAD, { state: "failed", at: "2026-12-01T13:00:00.000Z", reason: "the revert was refused" });
    await handedOver(w, w.input(), /the last attempt failed \(the revert was refused\)/);
    expect(existsSync(markerPath(w.home, THREAD))).toBe(false);
    // and the one after is bc's again
    const r = await runPreCompact(w.input(), w.deps);
    expect(r.record.outcome).toBe("vetoed");
  });

  test("an applier still running: no second veto", async () => {
    const w = setUp();
    w.server();
    writeMarker(w.home, THREAD, { state: "applying", at: "2026-12-01T13:59:00.000Z", pid: process.pid });
    await handedOver(w, w.input(), /still applying/);
  });

  test("an applier that died: the compaction is Codex's and the marker is cleared", async () => {
    const w = setUp();
    w.server();
    const dead = Bun.spawnSync(["true"]).pid;
    writeMarker(w.home, THREAD, { state: "applying", at: "2026-12-01T13:59:00.000Z", pid: dead });
    await handedOver(w, w.input(), /stopped before it finished/);
    expect(existsSync(markerPath(w.home, THREAD))).toBe(false);
  });

  test("an applier that could not be started: no answer, no marker", async () => {
    const w = setUp();
    w.server();
    const r = await runPreCompact(w.input(), { ...w.deps, startApplier: () => undefined });
    expect(r.stdout).toBe("");
    expect(r.record.reason).toContain("could not start the applier");
    expect(existsSync(markerPath(w.home, THREAD))).toBe(false);
  });

  test("unreadable input or a missing transcript: no answer", async () => {
    const w = setUp();
    w.server();
    expect((await runPreCompact("not json", w.deps)).stdout).toBe("");
    await handedOver(w, w.input({ transcript_path: join(w.home, "missing.jsonl") }), /bc failed while planning/);
  });
});
