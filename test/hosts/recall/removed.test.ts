// bc recall --list on a fork of a fork: the file is read once, and its history replayed once, for
// the rules of both forks' notes.
import { afterAll, afterEach, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { enginePruner, type ForkResult, forkRollout } from "../../../src/hosts/codex/fork.ts";
import * as history from "../../../src/hosts/codex/history.ts";
import { readRollout } from "../../../src/hosts/codex/rollout.ts";
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
