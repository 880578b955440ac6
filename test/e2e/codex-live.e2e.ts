// End to end, bc inside a running Codex: the real interactive CLI (pinned release) driven through
// tmux against the scripted mock on 127.0.0.1, with bc's hook installed and trusted by
// `bc codex install --trust`. `/compact` and an automatic compaction mid-task are answered by bc
// (no compaction request reaches the model; the next request carries the pruned history
// verbatim); `codex exec resume` keeps it; `codex exec` is left to Codex's own compaction. A thread
// Codex forked itself, resumed and compacted, keeps the part of its history in the parent's file.
// What the user's hooks added in the turns bc replaces is held once after the replacement.
//
// Run: bun test/e2e/run.ts --only codex-live
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlreadyCut } from "../../src/engine/notes.ts";
import { CONTINUE_TEXT } from "../../src/hosts/codex/live/applier.ts";
import { rebuildHistory } from "../../src/hosts/codex/history.ts";
import { contentText, isInjectedContext, isOutputItem, outputText, sentForm } from "../../src/hosts/codex/items.ts";
import { readRollout } from "../../src/hosts/codex/rollout.ts";
import { codexExec, codexResume, type CodexEnv, listRollouts, run } from "./support/codex-env.ts";
import { baseInstructionsOf, inputAfterBaseInstructions, requestHistory } from "./support/codex-requests.ts";
import type { InstalledCodex } from "./support/codex-install.ts";
import {
  addTrustedHook,
  AUTO_COMPACT_LIMIT,
  BIG,
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
  stopDaemon,
  threadIdOf,
  type Tui,
  waitFor,
} from "./support/codex-live-support.ts";

const SLOW = 120_000;
/** How the context the user's hooks add begins. */
const HOOK_MARK = "HOOK-LIVE-7c2e";
const BIG_TASK = bigReads(6);
const BIG_TASK_COMMANDS = 6 * BIG.length;

type Item = Record<string, any>;

const textOf = (item: Item): string => (Array.isArray(item.content) ? contentText(item.content) : "");

/** Keys sorted, nulls and Codex's own passthrough metadata set aside: Codex re-serializes what it reads. */
const normalize = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(normalize);
  if (typeof v !== "object" || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== null && x !== undefined && k !== "internal_chat_message_metadata_passthrough") out[k] = normalize(x);
  }
  return out;
};
const same = (a: unknown, b: unknown): boolean => JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));

/**
 * `sent` is `source` pruned verbatim: the same items in the same order, every one identical except
 * tool outputs, which are identical or carry bc's note. Returns how many outputs bc cut.
 */
const expectPrunedVerbatim = (sent: readonly Item[], source: readonly Item[]): number => {
  expect(sent.length).toBe(source.length);
  let cut = 0;
  for (let i = 0; i < sent.length; i++) {
    const a = sent[i]!;
    const b = source[i]!;
    if (isOutputItem(a as any) && isOutputItem(b as any)) {
      expect(same({ ...a, output: null }, { ...b, output: null })).toBe(true);
      const ta = outputText(a.output).text;
      if (ta !== outputText(b.output).text) {
        expect(isAlreadyCut(ta)).toBe(true);
        cut++;
      }
    } else if (!same(a, b))
      throw new Error(`item ${i} (${a.type}) differs from the source\n${JSON.stringify(a).slice(0, 400)}\n${JSON.stringify(b).slice(0, 400)}`);
  }
  return cut;
};

const records = (e: CodexEnv, threadId: string) => liveRecords(e.home, threadId);

/** The history a rollout holds, without Codex's context, as Codex sends it. */
const sourceHistoryOf = (path: string): Item[] =>
  rebuildHistory(readRollout(path))
    .items.map((h) => sentForm(h.item) as Item)
    .filter((it) => !isInjectedContext(it as any));

/**
 * `/compact` typed in the TUI, then, once it shows the interruption, a question: bc's record of
 * the compaction, and the request that carried the question.
 */
const compactThenAsk = async (w: { tui: Tui; mock: LiveMock; e: CodexEnv; threadId: string; screenDump: () => string }) => {
  await w.tui.type("/compact");
  const applied = await waitFor(
    "bc to apply",
    () => records(w.e, w.threadId).find((r) => r.outcome === "applied" || r.outcome === "failed" || r.outcome === "handed-over"),
    30_000,
    w.screenDump,
  );
  expect(applied.outcome).toBe("applied");
  await waitFor("the TUI to show the interruption", () => /Hook stopped|interrupted/.test(w.tui.screen()), 10_000, w.screenDump);
  const before = w.mock.sent.length;
  await w.tui.type("What is the codeword?");
  const req = await waitFor("the next request", () => w.mock.sent.slice(before).find((s) => s.kind === "codeword"), 30_000, w.screenDump);
  return { applied, req };
};

if (!hasTmux()) process.stderr.write("codex-live: tmux is not installed: the interactive Codex checks skip\n");

describe.skipIf(!hasTmux())(`bc answers Codex ${CODEX_LIVE_VERSION}'s compaction in a running session`, () => {
  let codex: InstalledCodex;
  let mock: LiveMock;
  let e: CodexEnv;
  let tui: Tui | undefined;
  let threadId = "";
  /** the base instructions the interactive Codex sends with each request of the thread */
  let base = "";
  const bc = (args: string[]) => runBc(e, args);
  const screenDump = () => `--- screen\n${tui?.screen() ?? ""}`;

  beforeAll(async () => {
    ({ codex, mock, e } = startLiveWorld());
  }, SLOW);

  afterAll(() => stopLiveWorld({ codex, mock, e }, tui));

  test(
    "bc codex install --trust: the hook is in hooks.json and Codex itself reports it trusted",
    async () => {
      const r = await bc(["codex", "install", "--trust", "--codex", codex.bin, "--json"]);
      expect(r.stderr).toBe("");
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ trusted: true, createdHooksFile: true });
      const s = await bc(["codex", "status", "--codex", codex.bin, "--json"]);
      expect(JSON.parse(s.stdout)).toMatchObject({
        installed: true,
        trusted: true,
        trustStatus: "trusted",
        codex: { version: CODEX_LIVE_VERSION },
        socket: false,
      });
    },
    SLOW,
  );

  test(
    "/compact is answered by bc: no compaction request, the next request carries the pruned history verbatim",
    async () => {
      tui = startTui("live", [codex.bin], e.work, { ...e.env, TERM: "xterm-256color" });
      await waitFor("the Codex prompt", () => isReady(tui!.screen()), 60_000, screenDump);
      const first = mock.sent.length;
      await tui.type("RUN: cat a.txt RUN: cat b.txt RUN: cat a.txt RUN: ls RUN: cat notes.md RUN: cat b.txt RUN: echo step-7");
      await waitFor("the task to finish", () => /Done: ran 7 command/.test(tui!.screen()), 60_000, screenDump);
      const [source] = listRollouts(e.home);
      threadId = threadIdOf(source!);
      base = baseInstructionsOf(mock.sent[first]!.body);
      const sourceHistory = sourceHistoryOf(source!);

      const { applied, req } = await compactThenAsk({ tui, mock, e, threadId, screenDump });
      expect(records(e, threadId).map((r) => `${r.trigger} ${r.outcome}`)).toEqual(["manual vetoed", "manual applied"]);
      expect(mock.compactions()).toBe(0);
      expect(textOf((req.body.input as Item[]).at(-1)!)).toBe("What is the codeword?");
      expect(JSON.stringify(req.body)).not.toContain("MOCK-SUMMARY");
      const cut = expectPrunedVerbatim(requestHistory(req.body, base), sourceHistory);
      expect(cut).toBeGreaterThan(0);
      expect(cut).toBe(applied.resultsDropped! + applied.resultsTruncated!);
      // nothing lost for good: the rollout now holds bc's pruned copy after the original, and
      // `bc recall`, run in the project as the agent would, prints each cut output whole
      const originals = new Map(sourceHistory.filter((it) => isOutputItem(it as any)).map((it) => [it.call_id as string, outputText(it.output).text]));
      const cutIds: string[] = [];
      for (const it of requestHistory(req.body, base)) {
        if (!isOutputItem(it as any) || outputText(it.output).text === originals.get(it.call_id as string)) continue;
        const r = await bc(["recall", it.call_id as string]);
        expect(r.exitCode).toBe(0);
        expect(r.stdout).toBe(originals.get(it.call_id as string)!);
        cutIds.push(it.call_id as string);
      }
      expect(cutIds.length).toBe(cut);
      // and `bc recall --list`, of the thread by its id and of this project's newest session, lists
      // exactly those, each one recallable: Codex goes on in a new file after the revert, so the
      // notes are in that file and the originals in the thread's first one
      const listed = async (args: string[]) => {
        const list = await bc(["recall", "--list", ...args, "--json"]);
        expect({ exitCode: list.exitCode, stderr: list.stderr }).toEqual({ exitCode: 0, stderr: "" });
        return JSON.parse(list.stdout) as { path: string; removed: { id: string; recallable: boolean; originalChars?: number; rule?: string }[] };
      };
      // (Codex writes the new file's records a moment after it sends them)
      const byId = await waitFor("the thread's new file to hold bc's notes", async () => {
        const l = await listed(["--session", threadId]);
        return l.removed.length > 0 ? l : undefined;
      });
      expect(byId.path).not.toBe(source);
      expect(await listed([])).toEqual(byId);
      const removed = byId.removed;
      expect(removed.map((x) => x.id).sort()).toEqual([...cutIds].sort());
      // each with the rule that cut it, as bc's live log of the thread records it
      const logged = new Map((records(e, threadId).find((r) => r.outcome === "applied")?.removed ?? []).map((d) => [d.callId, d.rule]));
      for (const x of removed) {
        expect(x.recallable).toBe(true);
        expect(x.originalChars).toBe(originals.get(x.id)!.length);
        expect(x.rule).toBe(logged.get(x.id)!);
        expect(x.rule).toBeString();
      }
      const s = await bc(["codex", "status", "--codex", codex.bin, "--json"]);
      expect(JSON.parse(s.stdout)).toMatchObject({ installed: true, trusted: true, socket: true });
    },
    SLOW,
  );

  test(
    "repeated /compact: the turns after bc's block are pruned again; with nothing left to free there, the compaction is Codex's",
    async () => {
      await tui!.type("RUN: cat notes.md RUN: cat notes.md RUN: echo w RUN: echo x RUN: echo y RUN: echo z");
      await waitFor("the task to finish", () => /Done: ran 6 command/.test(tui!.screen()), 60_000, screenDump);
      await tui!.type("/compact");
      await waitFor("bc to apply again", () => records(e, threadId).length >= 4 && records(e, threadId).at(-1)!.outcome !== "vetoed", 30_000, screenDump);
      expect(records(e, threadId).at(-1)).toMatchObject({ outcome: "applied", fixedItems: expect.any(Number) });
      expect(records(e, threadId).at(-1)!.fixedItems).toBeGreaterThan(0);
      expect(mock.compactions()).toBe(0);
      await waitFor("the prompt", () => isReady(tui!.screen()), 10_000, screenDump);
      await tui!.type("/compact");
      await waitFor("Codex's own compaction", () => mock.compactions() > 0, 30_000, screenDump);
      expect(records(e, threadId).at(-1)).toMatchObject({
        trigger: "manual",
        outcome: "handed-over",
        reason: expect.stringMatching(/only the earlier injected block is left|free nothing/),
      });
      await waitFor("the prompt", () => isReady(tui!.screen()), 30_000, screenDump);
    },
    SLOW,
  );

  test(
    "an automatic compaction mid-task (after Codex's own summary) is answered by bc and the task goes on",
    async () => {
      const before = mock.sent.length;
      const compactions = mock.compactions();
      await tui!.type(`${BIG_TASK} RUN: echo after-1 RUN: echo after-2`);
      const auto = await waitFor(
        "bc to answer the automatic compaction",
        () => records(e, threadId).find((r) => r.trigger === "auto" && (r.outcome === "applied" || r.outcome === "failed" || r.outcome === "handed-over")),
        90_000,
        screenDump,
      );
      // Codex's summary from the last test is the fixed part in front
      expect(auto).toMatchObject({ outcome: "applied", restarted: true, fixedItems: expect.any(Number) });
      await waitFor(
        "the task to finish after the restart",
        () => new RegExp(`Done: ran ${BIG_TASK_COMMANDS + 2} command`).test(tui!.screen()) && mock.sent.slice(before).some((s) => s.kind === "final"),
        60_000,
        screenDump,
      );
      expect(mock.compactions()).toBe(compactions);
      const after = mock.sent.slice(before);
      // the restarted turn: bc's message, after the pruned history, and it fits well under the limit
      const restart = after.find((s) => (s.body.input as Item[]).some((it) => textOf(it) === CONTINUE_TEXT))!;
      expect(restart).toBeDefined();
      expect(JSON.stringify(restart.body).length / 4).toBeLessThan(AUTO_COMPACT_LIMIT);
      // every command of the task ran, none twice
      const calls = (after.at(-1)!.body.input as Item[]).filter((it) => it.type === "function_call").map((it) => JSON.parse(it.arguments).cmd);
      expect(calls.slice(-2)).toEqual(["echo after-1", "echo after-2"]);
      process.stderr.write(`bc codex log (${threadId}):\n${(await bc(["codex", "log", threadId])).stdout}\n`);
    },
    SLOW,
  );

  test(
    "codex exec resume after both keeps the pruned history",
    async () => {
      const last = mock.sent.at(-1)!;
      tui!.stop();
      tui = undefined;
      // a later, separate process: the shared app-server is gone too
      await stopDaemon(codex.bin, e.work, e.env, e.root);
      const before = mock.sent.length;
      const r = await codexResume(codex.bin, e, threadId, "What is the codeword now?");
      expect({ exitCode: r.exitCode, stderr: r.exitCode === 0 ? "" : r.stderr.slice(-800) }).toEqual({ exitCode: 0, stderr: "" });
      const req = mock.sent.slice(before).find((s) => s.kind === "codeword")!;
      expect(req).toBeDefined();
      // codex exec sends base instructions of its own (the interactive CLI's leave out a section)
      const resumed = requestHistory(req.body, baseInstructionsOf(req.body));
      const lastHistory = inputAfterBaseInstructions(last.body, base).filter((it) => !isInjectedContext(it as any));
      // the resumed history is the live one (plus the final answer that came after the last request)
      expect(resumed.length).toBe(lastHistory.length + 1);
      for (let i = 0; i < lastHistory.length; i++) expect(same(resumed[i], lastHistory[i])).toBe(true);
      expect(resumed.filter((it) => isOutputItem(it as any) && isAlreadyCut(outputText(it.output).text)).length).toBeGreaterThan(0);

      // bc codex-fork by the thread's id forks the file Codex went on in (the history as bc left it),
      // and Codex resumes the fork with that history, pruned verbatim
      const fork = await bc(["codex-fork", threadId, "--json"]);
      expect({ exitCode: fork.exitCode, stderr: fork.stderr }).toEqual({ exitCode: 0, stderr: "" });
      const forked = JSON.parse(fork.stdout);
      expect(forked.sourcePath).toContain(`${threadId}_`);
      const atFork = mock.sent.length;
      const again = await codexResume(codex.bin, e, forked.newId, "What is the codeword now?");
      expect({ exitCode: again.exitCode, stderr: again.exitCode === 0 ? "" : again.stderr.slice(-800) }).toEqual({ exitCode: 0, stderr: "" });
      const forkReq = mock.sent.slice(atFork).find((s) => s.kind === "codeword")!;
      expect(mock.sent.slice(atFork).filter((s) => s.kind === "compaction").length).toBe(0);
      const forkHistory = requestHistory(forkReq.body, baseInstructionsOf(forkReq.body));
      expectPrunedVerbatim(forkHistory.slice(0, resumed.length), resumed);
    },
    SLOW,
  );

  test(
    "codex --no-daemon (no app-server socket) is left to Codex's own compaction, and the session still answers",
    async () => {
      const before = mock.compactions();
      const known = new Set(listRollouts(e.home));
      tui = startTui("nodaemon", [codex.bin, "--no-daemon"], e.work, { ...e.env, TERM: "xterm-256color" });
      await waitFor("the Codex prompt", () => isReady(tui!.screen()), 60_000, screenDump);
      await tui.type(BIG_TASK);
      await waitFor("Codex's own compaction", () => mock.compactions() > before, 60_000, screenDump);
      const thread = threadIdOf(listRollouts(e.home).find((p) => !known.has(p))!);
      await waitFor("the hook's hand-over in the log", () => records(e, thread).find((r) => r.trigger === "auto"), 30_000, screenDump);
      for (const rec of records(e, thread)) expect(rec).toMatchObject({ outcome: "handed-over", reason: expect.stringContaining("no app-server socket") });
      await waitFor("the turn to end", () => isReady(tui!.screen()), 60_000, screenDump);
      const sent = mock.sent.length;
      await tui.type("What is the codeword?");
      await waitFor("an answer after the compaction", () => mock.sent.slice(sent).some((x) => x.kind === "codeword"), 30_000, screenDump);
      tui.stop();
      tui = undefined;
    },
    SLOW,
  );

  test(
    "codex exec is left to Codex's own compaction, and the session still answers",
    async () => {
      const before = mock.compactions();
      const r = await codexExec(codex.bin, e, `${BIG_TASK} RUN: echo exec-done`);
      expect(r.exitCode).toBe(0);
      // the mock answers the turn after Codex's summary with "OK": the session goes on
      expect(mock.compactions()).toBeGreaterThan(before);
      expect(r.stdout.trim()).not.toBe("");
      const execThread = threadIdOf(
        listRollouts(e.home)
          .filter((p) => !p.includes(threadId))
          .at(-1)!,
      );
      const recs = records(e, execThread);
      expect(recs.length).toBeGreaterThan(0);
      for (const rec of recs) expect(rec.outcome).toBe("handed-over");
      const log = await bc(["codex", "log", execThread]);
      expect(log.exitCode).toBe(0);
      expect(log.stdout).toContain("handed-over");
    },
    SLOW,
  );

  test(
    "a thread Codex forked itself (its history before the fork in the parent's file), resumed and compacted: the parent's part stays as it was, the rest is pruned verbatim",
    async () => {
      const compactionsBefore = mock.compactions();
      const made = await codexExec(codex.bin, e, "NATIVE-PARENT-5e2b RUN: cat a.txt RUN: ls");
      expect(made.exitCode).toBe(0);
      const parentPath = listRollouts(e.home).at(-1)!;
      const forked = await run([codex.bin, "exec", "--skip-git-repo-check", "fork", threadIdOf(parentPath), "RUN: cat a.txt RUN: cat b.txt"], {
        cwd: e.work,
        env: e.env,
        timeoutMs: 120_000,
      });
      expect(forked.exitCode).toBe(0);
      const known = new Set([parentPath]);
      const nativePath = listRollouts(e.home)
        .filter((p) => !known.has(p))
        .at(-1)!;
      const nativeId = threadIdOf(nativePath);
      expect((readRollout(nativePath, { inherit: false }).lines[0] as Item).payload.history_base.thread_id).toBe(threadIdOf(parentPath));
      tui = startTui("nfork", [codex.bin, "resume", nativeId], e.work, { ...e.env, TERM: "xterm-256color" });
      await waitFor("the Codex prompt", () => isReady(tui!.screen()), 60_000, screenDump);
      const first = mock.sent.length;
      await tui.type("RUN: cat b.txt RUN: cat a.txt RUN: cat b.txt RUN: echo step-4");
      await waitFor("the task to finish", () => /Done: ran 4 command/.test(tui!.screen()), 60_000, screenDump);
      const sourceHistory = sourceHistoryOf(nativePath);
      expect(JSON.stringify(sourceHistory)).toContain("NATIVE-PARENT-5e2b");
      const { req } = await compactThenAsk({ tui, mock, e, threadId: nativeId, screenDump });
      expect(mock.compactions()).toBe(compactionsBefore);
      expect(expectPrunedVerbatim(requestHistory(req.body, baseInstructionsOf(mock.sent[first]!.body)), sourceHistory)).toBeGreaterThan(0);
      tui.stop();
      tui = undefined;
    },
    SLOW,
  );

  test(
    "bc codex uninstall removes exactly what install added",
    async () => {
      const r = await bc(["codex", "uninstall", "--json"]);
      expect(JSON.parse(r.stdout)).toMatchObject({ removedHook: true, removedHooksFile: true, removedTrust: true });
      expect(existsSync(join(e.home, "hooks.json"))).toBe(false);
      expect(readFileSync(join(e.home, "config.toml"), "utf8")).not.toContain("hooks.state");
    },
    SLOW,
  );
});

describe.skipIf(!hasTmux())(`a hook's context in the turns bc replaces in a running Codex ${CODEX_LIVE_VERSION}`, () => {
  let codex: InstalledCodex;
  let mock: LiveMock;
  let e: CodexEnv;
  let tui: Tui | undefined;
  const screenDump = () => `--- screen\n${tui?.screen() ?? ""}`;

  beforeAll(async () => {
    ({ codex, mock, e } = startLiveWorld());
  }, SLOW);

  afterAll(() => stopLiveWorld({ codex, mock, e }, tui));

  test(
    "a UserPromptSubmit and a PostToolUse hook's context is injected again in its place, once each; a SessionStart hook's is left to Codex, which runs the hook again after the revert: the next request holds each once",
    async () => {
      expect((await runBc(e, ["codex", "install", "--trust", "--codex", codex.bin])).exitCode).toBe(0);
      // each run of the user's hooks adds context naming its event, its source and its number
      const script = join(e.root, "hook-context.sh");
      writeFileSync(
        script,
        `#!/bin/sh\nsource=$(cat | sed -n 's/.*"source" *: *"\\([a-z]*\\)".*/\\1/p')\n` +
          `n=$(( $(cat '${e.root}/hook-runs' 2>/dev/null || echo 0) + 1 ))\necho $n > '${e.root}/hook-runs'\n` +
          `printf '{"hookSpecificOutput":{"hookEventName":"%s","additionalContext":"${HOOK_MARK} %s%s run %s"}}\\n' "$1" "$1" "\${source:+ $source}" "$n"\n`,
        { mode: 0o755 },
      );
      for (const event of ["SessionStart", "UserPromptSubmit", "PostToolUse"]) await addTrustedHook(codex.bin, e, event, `${script} ${event}`);
      tui = startTui("hooks", [codex.bin], e.work, { ...e.env, TERM: "xterm-256color" });
      await waitFor("the Codex prompt", () => isReady(tui!.screen()), 60_000, screenDump);
      const first = mock.sent.length;
      await tui.type("RUN: cat a.txt RUN: cat b.txt RUN: cat a.txt RUN: echo step-4");
      await waitFor("the task to finish", () => /Done: ran 4 command/.test(tui!.screen()), 60_000, screenDump);
      const [source] = listRollouts(e.home);
      const threadId = threadIdOf(source!);
      const sourceHistory = sourceHistoryOf(source!);
      const hookTexts = (items: readonly Item[]): string[] => items.filter((it) => it.role === "developer" && textOf(it).startsWith(HOOK_MARK)).map(textOf);
      const started = `${HOOK_MARK} SessionStart startup run 1`;
      expect(hookTexts(sourceHistory)).toEqual([
        started,
        `${HOOK_MARK} UserPromptSubmit run 2`,
        ...[3, 4, 5, 6].map((n) => `${HOOK_MARK} PostToolUse run ${n}`),
      ]);

      const { req } = await compactThenAsk({ tui, mock, e, threadId, screenDump });
      const input = inputAfterBaseInstructions(req.body, baseInstructionsOf(mock.sent[first]!.body));
      // Codex's context once, then the history bc injected: the source's pruned verbatim, but the
      // SessionStart hook's context, which Codex adds anew (source resume) with the next turn
      expect(input.filter((it) => isInjectedContext(it as any)).map((it) => it.role)).toEqual(["developer", "user"]);
      const history = input.filter((it) => !isInjectedContext(it as any));
      const resumed = `${HOOK_MARK} SessionStart resume run 7`;
      expect(history.slice(-3).map(textOf)).toEqual([resumed, "What is the codeword?", `${HOOK_MARK} UserPromptSubmit run 8`]);
      const replaced = sourceHistory.filter((it) => textOf(it) !== started);
      expect(expectPrunedVerbatim(history.slice(0, -3), replaced)).toBeGreaterThan(0);
      // every run's context once, none lost; the SessionStart hook's by its new run alone
      expect(hookTexts(input)).toEqual([...hookTexts(replaced), resumed, `${HOOK_MARK} UserPromptSubmit run 8`]);
      tui.stop();
      tui = undefined;
    },
    SLOW,
  );
});
