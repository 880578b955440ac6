// End to end, the ways bc's answer to a Codex compaction can fail, with the real interactive CLI
// (pinned release) driven through tmux against the scripted mock. Each leaves the session
// answering, bc's decision log (and the per-thread marker) says what happened, and where the
// contract says so the next compaction is Codex's. The conditions are real ones:
// - the thread busy past bc's wait: a slow PreCompact hook of the user's (Codex runs all PreCompact
//   hooks at once and ends the vetoed turn after the last), with BC_CODEX_IDLE_WAIT set short;
// - the applier killed while it waits for that turn to end;
// - a history that would not fit: long prose, which no rule cuts;
// - a session an older Codex wrote in the legacy history format, resumed.
// And an automatic compaction before a turn, answered by bc: the person's message goes out again.
//
// Run: bun test/e2e/run.ts --only codex-live-failures
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlreadyCut } from "../../src/engine/notes.ts";
import { CONTINUE_TEXT, IDLE_WAIT_ENV } from "../../src/hosts/codex/live/applier.ts";
import { readMarker } from "../../src/hosts/codex/live/state.ts";
import { contentText, isOutputItem, outputText } from "../../src/hosts/codex/items.ts";
import { readRollout } from "../../src/hosts/codex/rollout.ts";
import { codexExec, type CodexEnv, listRollouts } from "./support/codex-env.ts";
import { type InstalledCodex, installCodex } from "./support/codex-install.ts";
import {
  addTrustedHook,
  AUTO_COMPACT_LIMIT,
  bigReads,
  CODEX_LIVE_VERSION,
  hasTmux,
  isReady,
  type LiveMock,
  liveRecords,
  runBc,
  startLiveWorld,
  startTui,
  stopLiveWorld,
  threadIdOf,
  type Tui,
  waitFor,
} from "./support/codex-live-support.ts";
import { LONG_ANSWER, MOCK_SUMMARY } from "./support/codex-mock.ts";
import { CODEX_LEGACY_FORMAT } from "./support/versions.ts";

const SLOW = 120_000;
/** bc's wait for an idle thread in this world (BC_CODEX_IDLE_WAIT), seconds */
const IDLE_WAIT_S = 3;
/** a task bc can prune: each big file read twice */
const TWICE = "RUN: cat big1.txt RUN: cat big2.txt RUN: cat big1.txt RUN: cat big2.txt RUN: echo done";
const TWICE_COMMANDS = 5;
const QUESTION = "What is the codeword?";

type Item = Record<string, any>;

const textOf = (item: Item): string => (Array.isArray(item.content) ? contentText(item.content) : "");
const outputsOf = (body: Item): Item[] => (body.input as Item[]).filter((it) => isOutputItem(it as any));
const cutOutputs = (body: Item): number => outputsOf(body).filter((it) => isAlreadyCut(outputText(it.output).text)).length;

if (!hasTmux()) process.stderr.write("codex-live-failures: tmux is not installed: the interactive Codex checks skip\n");

describe.skipIf(!hasTmux())(`every failure of bc's answer leaves Codex ${CODEX_LIVE_VERSION}'s session answering`, () => {
  let codex: InstalledCodex;
  let mock: LiveMock;
  let e: CodexEnv;
  let tui: Tui | undefined;
  let threadId = "";
  let legacyPath = "";
  const screen = () => tui?.screen() ?? "";
  const screenDump = () => `--- screen\n${screen()}`;
  const records = (id = threadId) => liveRecords(e.home, id);
  const slowHookFile = () => join(e.root, "slow-hook-seconds");
  const setSlowHook = (seconds: number) => writeFileSync(slowHookFile(), `${seconds}\n`);
  const ready = (what = "the prompt") => waitFor(what, () => isReady(screen()), 60_000, screenDump);

  /** Type a prompt and wait until the mock has answered it (a request of that kind) and the turn is over. */
  const prompt = async (text: string, kind: string, timeoutMs = 60_000) => {
    const before = mock.sent.length;
    await tui!.type(text);
    const req = await waitFor(`the answer to '${text.slice(0, 40)}'`, () => mock.sent.slice(before).find((s) => s.kind === kind), timeoutMs, screenDump);
    await ready();
    return req;
  };

  /**
   * Wait until the turn bc vetoed is over: Codex's rollout says it was aborted, and the prompt is
   * back. (The screen alone can show the prompt before Codex draws the running hooks, and a message
   * typed then is queued, and put back in the input box when the turn is aborted.)
   */
  const vetoedTurnOver = async () => {
    const turnId = records().findLast((r) => r.outcome === "vetoed")!.turnId;
    const path = listRollouts(e.home).find((p) => p.includes(threadId))!;
    await waitFor(
      "the vetoed turn to end",
      () => readRollout(path).lines.some((l) => l.kind === "event_msg" && l.payload.type === "turn_aborted" && l.payload.turn_id === turnId),
      60_000,
      screenDump,
    );
    await ready();
  };

  /** A new thread (`/new`) whose first prompt is `text`, answered with a request of `kind`: the thread of the test. */
  const newThread = async (text: string, kind: string) => {
    const known = new Set(listRollouts(e.home));
    await tui!.type("/new");
    await ready();
    await prompt(text, kind);
    threadId = threadIdOf(listRollouts(e.home).find((p) => !known.has(p))!);
  };

  /** `/compact`, answered by Codex itself: the mock gets a compaction request. */
  const codexCompacts = async () => {
    const before = mock.compactions();
    await tui!.type("/compact");
    await waitFor("Codex's own compaction", () => mock.compactions() > before, 30_000, screenDump);
    await ready();
  };

  beforeAll(async () => {
    ({ codex, mock, e } = startLiveWorld({ [IDLE_WAIT_ENV]: String(IDLE_WAIT_S) }));
    // a session from before the upgrade, in the legacy history format
    const old = installCodex(CODEX_LEGACY_FORMAT);
    const r = await codexExec(old.bin, e, `${TWICE} RUN: echo legacy`);
    if (r.exitCode !== 0) throw new Error(`codex ${CODEX_LEGACY_FORMAT} exec failed (${r.exitCode}):\n${r.stderr.slice(-2000)}`);
    legacyPath = listRollouts(e.home)[0] ?? "";
    expect(readRollout(legacyPath).format).toBe("legacy");
    const i = await runBc(e, ["codex", "install", "--trust", "--codex", codex.bin, "--json"]);
    expect({ exitCode: i.exitCode, stderr: i.stderr }).toEqual({ exitCode: 0, stderr: "" });
    // the user's own PreCompact hook, as slow as the test makes it
    await addTrustedHook(codex.bin, e, "PreCompact", `sh -c 'sleep "$(cat ${slowHookFile()} 2>/dev/null || echo 0)"'`);
    tui = startTui("failures", [codex.bin], e.work, { ...e.env, TERM: "xterm-256color" });
    await waitFor("the Codex prompt", () => isReady(screen()), 60_000, screenDump);
  }, SLOW);

  afterAll(() => stopLiveWorld({ codex, mock, e }, tui));

  /** Ask the codeword: the session answers, with the thread's whole history (no output cut by bc). */
  const answersWithWholeHistory = async (outputs: number) => {
    const req = await prompt(QUESTION, "codeword");
    expect(outputsOf(req.body)).toHaveLength(outputs);
    expect(cutOutputs(req.body)).toBe(0);
  };

  test(
    "the applier killed while it waits: the thread keeps its history, the session answers, the next compaction is Codex's",
    async () => {
      await newThread(TWICE, "final");
      setSlowHook(IDLE_WAIT_S + 2);
      await tui!.type("/compact");
      const marker = await waitFor(
        "the applier to wait for the vetoed turn",
        () => {
          const m = readMarker(e.home, threadId);
          return m?.state === "applying" && m.pid !== undefined ? m : undefined;
        },
        30_000,
        screenDump,
      );
      const pid = (marker as { pid: number }).pid;
      expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")).toEqual(expect.arrayContaining(["codex-hook", "apply", threadId]));
      process.kill(pid, "SIGKILL");
      setSlowHook(0);
      await vetoedTurnOver();
      expect(records().map((r) => `${r.trigger} ${r.outcome}`)).toEqual(["manual vetoed"]);
      expect(readMarker(e.home, threadId)).toMatchObject({ state: "applying", pid });
      await answersWithWholeHistory(TWICE_COMMANDS);
      await codexCompacts();
      expect(records().at(-1)).toMatchObject({
        trigger: "manual",
        outcome: "handed-over",
        reason: expect.stringContaining("the previous applier stopped before it finished"),
      });
      expect(readMarker(e.home, threadId)).toBeUndefined();
    },
    SLOW,
  );

  test(
    `the thread busy past ${IDLE_WAIT_ENV} (a slow PreCompact hook of the user's): nothing changed, the session answers, the next compaction is Codex's`,
    async () => {
      await newThread(TWICE, "final");
      setSlowHook(IDLE_WAIT_S + 3);
      await tui!.type("/compact");
      const failed = await waitFor("the applier to give up", () => records().find((r) => r.outcome !== "vetoed"), 30_000, screenDump);
      setSlowHook(0);
      expect(failed).toMatchObject({ trigger: "manual", outcome: "failed", reason: `the thread stayed busy for ${IDLE_WAIT_S} s; nothing was changed` });
      expect(readMarker(e.home, threadId)).toMatchObject({ state: "failed", reason: failed.reason });
      await vetoedTurnOver();
      await answersWithWholeHistory(TWICE_COMMANDS);
      await codexCompacts();
      expect(records().at(-1)).toMatchObject({
        trigger: "manual",
        outcome: "handed-over",
        reason: `the last attempt failed (${failed.reason}); this compaction is left to Codex`,
      });
      expect(readMarker(e.home, threadId)).toBeUndefined();
      const log = await runBc(e, ["codex", "log", threadId]);
      expect(log.exitCode).toBe(0);
      for (const line of ["manual  vetoed", "manual  failed", "the thread stayed busy", "manual  handed-over", "the last attempt failed"])
        expect(log.stdout).toContain(line);
    },
    SLOW,
  );

  test(
    "a history that would not fit (long prose, which no rule cuts): bc leaves the automatic compaction before a turn to Codex, and the turn is answered",
    async () => {
      const compactions = mock.compactions();
      // each answer adds ~15k tokens; a turn that ends on one is not compacted, the next one starts with it
      await newThread(`${LONG_ANSWER} 1`, "long");
      for (let i = 2; i <= 6 && records().length === 0; i++) await prompt(`${LONG_ANSWER} ${i}`, "long");
      expect(records()).toEqual([
        expect.objectContaining({
          trigger: "auto",
          outcome: "handed-over",
          reason: expect.stringMatching(/would still be ~\d+ tokens, over the \d+-token ceiling/),
        }),
      ]);
      expect(mock.compactions()).toBe(compactions + 1);
      const req = await prompt(QUESTION, "codeword");
      expect(JSON.stringify(req.body)).toContain(MOCK_SUMMARY);
    },
    SLOW,
  );

  test(
    "an automatic compaction before a turn is answered by bc: the person's message goes out again as the turn's input, after the pruned history",
    async () => {
      const compactions = mock.compactions();
      // ~50k tokens with the reads (under the limit: no compaction inside the task), then an answer that crosses it
      await newThread(`${bigReads(4)} RUN: echo CANARY-PRETURN`, "final");
      await prompt(`${LONG_ANSWER} after the reads`, "long");
      expect(records()).toEqual([]);
      const before = mock.sent.length;
      await tui!.type(QUESTION);
      const applied = await waitFor("bc to answer the compaction", () => records().find((r) => r.outcome !== "vetoed"), 30_000, screenDump);
      expect(records().map((r) => `${r.trigger} ${r.outcome}`)).toEqual(["auto vetoed", "auto applied"]);
      expect(applied.restarted).toBe(true);
      const req = await waitFor("the question answered", () => mock.sent.slice(before).find((s) => s.kind === "codeword"), 30_000, screenDump);
      await waitFor("the answer on screen", () => /The codeword is CANARY-PRETURN/.test(screen()), 30_000, screenDump);
      expect(mock.compactions()).toBe(compactions);
      const input = req.body.input as Item[];
      // the question, once and last: sent again as the new turn's input, not injected as well
      expect(textOf(input.at(-1)!)).toBe(QUESTION);
      expect(input.filter((it) => it.type === "message" && it.role === "user" && textOf(it) === QUESTION)).toHaveLength(1);
      expect(JSON.stringify(req.body)).not.toContain(CONTINUE_TEXT);
      // after the pruned history, which fits
      expect(cutOutputs(req.body)).toBeGreaterThan(0);
      expect(cutOutputs(req.body)).toBe(applied.resultsDropped! + applied.resultsTruncated!);
      expect(JSON.stringify(req.body).length / 4).toBeLessThan(AUTO_COMPACT_LIMIT);
      await ready();
    },
    SLOW,
  );

  test(
    `a session Codex ${CODEX_LEGACY_FORMAT} wrote (legacy history format), resumed: bc leaves /compact to Codex, and the session answers`,
    async () => {
      const legacyId = threadIdOf(legacyPath);
      tui!.stop();
      tui = startTui("legacy", [codex.bin, "resume", legacyId], e.work, { ...e.env, TERM: "xterm-256color" });
      await waitFor("the resumed session", () => isReady(screen()) && /echo legacy/.test(screen()), 60_000, screenDump);
      await codexCompacts();
      expect(records(legacyId)).toEqual([
        expect.objectContaining({ trigger: "manual", outcome: "handed-over", reason: expect.stringContaining("older (legacy) history format") }),
      ]);
      await prompt(QUESTION, "codeword");
      expect(readRollout(legacyPath).format).toBe("legacy");
    },
    SLOW,
  );
});
