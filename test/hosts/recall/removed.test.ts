// bc recall --list on a fork of a fork: the file is read once, and its history replayed once, for
// the rules of both forks' notes.
import { afterAll, afterEach, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { enginePruner, type ForkResult, forkRollout } from "../../../src/hosts/codex/fork.ts";
import * as history from "../../../src/hosts/codex/history.ts";
import { readRollout } from "../../../src/hosts/codex/rollout.ts";
import { otherThreadFiles } from "../../../src/hosts/codex/rollout-files.ts";
import { appendLog } from "../../../src/hosts/codex/live/state.ts";
import { sightingsIn } from "../../../src/hosts/recall/records.ts";
import { dropNote } from "../../../src/engine/notes.ts";
import { removedIn } from "../../../src/hosts/recall/removed.ts";
import { byRule, planned } from "./fork-rules.ts";

const SOURCE = join(import.meta.dir, "../../../src/eval/demo/codex/rollout-2026-11-30T02-43-47-01a22a56-491b-7581-aca8-3d67346846f7.jsonl");
const dir = mkdtempSync(join(tmpdir(), "bc-removed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const spies: { mockRestore(): void }[] = [];
afterEach(() => {
  while (spies.length > 0) spies.pop()!.mockRestore();
});

const forkTo = (from: string, tokens: number): ForkResult =>
  forkRollout(from, { context: "fresh", pruner: enginePruner(undefined, { tokens }), outDir: dir, codexHome: join(dir, "codex") });

test("--list on a fork of a fork reads the file once and replays its history once, and names the rule of both forks' notes", () => {
  const first = forkTo(SOURCE, 2500);
  const again = forkTo(first.path, 2000);
  const records = readRollout(again.path).lines.filter((l) => l.kind === "compacted");
  expect(records.length).toBe(2);
  const reads = spyOn(fs, "readFileSync");
  const replays = spyOn(history, "rebuildHistory");
  spies.push(reads, replays);
  const listed = removedIn(again.path, "codex");
  expect(reads.mock.calls.filter(([p]) => p === again.path).length).toBe(1);
  expect(replays).toHaveBeenCalledTimes(1);
  // the rules of both forks' notes: those the second carries on, the first fork's; its own, its plan's
  const byId = new Map(removedIn(first.path, "codex").removed.map((x) => [x.id, x]));
  const carried = listed.removed.filter((x) => byId.get(x.id)?.charsRemoved === x.charsRemoved && byId.get(x.id)?.kind === x.kind);
  expect(carried.length).toBeGreaterThan(0);
  for (const x of carried) expect(x.rule).toBe(byId.get(x.id)!.rule!);
  expect(byRule(listed.removed.filter((x) => !carried.includes(x)))).toEqual(planned(again));
});

test("--list on a thread Codex went on in a new file after a revert (bc's live compaction): the notes are in that file, the originals in the thread's first one, and each is recallable", () => {
  const home = join(dir, "reverted");
  const first = join(home, "sessions", "2026", "11", "30", basename(SOURCE));
  mkdirSync(join(first, ".."), { recursive: true });
  copyFileSync(SOURCE, first);
  const lines = readFileSync(SOURCE, "utf8")
    .split("\n")
    .filter((l) => l !== "");
  // the first two outputs of the source, as a revert and injection would leave them: call kept, output cut
  const outputs = lines
    .map((l) => ({ l, s: sightingsIn(JSON.parse(l), "codex").find((x) => x.kind === "output") }))
    .filter((x) => x.s !== undefined)
    .slice(0, 2);
  expect(outputs.length).toBe(2);
  const injected = outputs.flatMap(({ l, s }) => {
    const call = lines.find((c) => c.includes(`"call_id":"${s!.id}"`) && c.includes('"type":"function_call"'))!;
    const cut = JSON.parse(l);
    cut.payload.output = dropNote(s!.kind === "output" ? s!.text.length : 0, s!.id);
    return [call, JSON.stringify(cut)];
  });
  const later = join(
    home,
    "sessions",
    "2026",
    "12",
    "01",
    `rollout-2026-12-01T00-00-00-01a22a56-491b-7581-aca8-3d67346846f7_01a30000-0000-7000-8000-000000000001.jsonl`,
  );
  mkdirSync(join(later, ".."), { recursive: true });
  writeFileSync(later, `${[lines[0], ...injected].join("\n")}\n`);
  expect(otherThreadFiles(later)).toEqual([first]);
  const texts = outputs.map(({ s }) => (s!.kind === "output" ? s!.text : ""));
  const listed = removedIn(later, "codex", undefined, otherThreadFiles(later));
  expect(listed.removed.map((x) => [x.id, x.kind, x.recallable, x.originalChars])).toEqual(
    outputs.map(({ s }, i) => [s!.id, "removed", true, texts[i]!.length]),
  );
  // the file alone does not hold them
  expect(removedIn(later, "codex").removed.map((x) => x.recallable)).toEqual([false, false]);
  // no live log: no rule is known
  expect(listed.removed.map((x) => x.rule)).toEqual([undefined, undefined]);

  // the rules come from bc's live log of the thread: what the applied replacements cut, the newest
  // cut winning; a vetoed compaction's plan, which changed nothing, does not count
  const [a, b] = outputs.map(({ s }) => s!.id);
  const thread = "01a22a56-491b-7581-aca8-3d67346846f7";
  const at = "2026-12-01T00:00:00.000Z";
  appendLog(home, { v: 1, at, threadId: thread, outcome: "applied", reason: "r", removed: [{ callId: a!, rule: "unreferenced", reason: "first" }] });
  appendLog(home, { v: 1, at, threadId: thread, outcome: "vetoed", reason: "r", removed: [{ callId: b!, rule: "superseded-read", reason: "not applied" }] });
  appendLog(home, {
    v: 1,
    at,
    threadId: thread,
    outcome: "applied",
    reason: "r",
    removed: [
      { callId: a!, rule: "escalation", reason: "second" },
      { callId: b!, rule: "re-runnable", reason: "second" },
    ],
  });
  const ruled = removedIn(later, "codex", undefined, otherThreadFiles(later));
  expect(ruled.removed.map((x) => [x.id, x.rule, x.reason])).toEqual([
    [a, "escalation", "second"],
    [b, "re-runnable", "second"],
  ]);
});
