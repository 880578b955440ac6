// bc eval's worker processes: the same report as one process, whatever order the files are
// replayed in (copies, broken and empty files, another host's files among them); a worker that
// fails leaves its files to this process and says so; an interruption writes nothing.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { collectFiles } from "../../src/eval/corpus.ts";
import { DEMO_FILES } from "../../src/eval/demo/index.ts";
import { METHOD_IDS } from "../../src/eval/replay.ts";
import { type RunEvalOptions, runEval } from "../../src/eval/run.ts";
import { BcError } from "../../src/util/errors.ts";
import { REPO_DIR } from "../support/shared.ts";

const tmp = mkdtempSync(join(tmpdir(), "bc-pool-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const BC = [process.execPath, join(REPO_DIR, "src", "main.ts")];

// the example corpus, one of its sessions again under another name (a copy: replayed once, and
// which one is the copy depends on the files' order, not on which was replayed first), a broken
// file and an empty one
const dir = join(tmp, "corpus");
const demo = Object.entries(DEMO_FILES);
const [firstName, firstText] = demo[0]!;
for (const [file, text] of [
  ...demo,
  [firstName.replace(/\.jsonl$/, "-copy.jsonl"), firstText],
  ["demo/claude/broken.jsonl", "{not json\n"],
  ["demo/claude/empty.jsonl", ""],
] as const) {
  const path = join(dir, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
const { files, skipped } = collectFiles([dir]);
const base: RunEvalOptions = { files, skipped, kind: "files", cuts: [0.5, 0.7, 0.9], passes: [0.5, 0.7, 0.9], methods: METHOD_IDS, pressure: 0.95 };

test("two worker processes give the report one process gives, byte for byte", async () => {
  const alone = await runEval(base);
  const done: number[] = [];
  const pooled = await runEval({ ...base, workers: { count: 2, command: BC }, onProgress: (n) => done.push(n) });
  expect(JSON.stringify(pooled)).toBe(JSON.stringify(alone));
  // what the comparison covers
  expect(alone.corpus.sessions).toBeGreaterThan(1);
  const reasons = alone.corpus.skipped.map((s) => s.reason).join("\n");
  for (const why of ["a copy of", "broken.jsonl:1: not valid JSON", "empty.jsonl: the file is empty"]) expect(reasons).toContain(why);
  expect(done.at(-1)).toBe(files.length);
  // one file at a time when no two fit in the bytes allowed in flight: the same report
  const narrow = await runEval({ ...base, workers: { count: 2, command: BC, inFlightBytes: 1 } });
  expect(JSON.stringify(narrow)).toBe(JSON.stringify(alone));
  // --host leaves out the other host's files the same way
  const claude = await runEval({ ...base, host: "claude" });
  const claudePooled = await runEval({ ...base, host: "claude", workers: { count: 2, command: BC } });
  expect(claude.corpus.filteredOut).toBeGreaterThan(0);
  expect(JSON.stringify(claudePooled)).toBe(JSON.stringify(claude));
}, 60_000);

/** A run whose two workers run `script` instead of bc: its report must be one process's; what it warned. */
const withWorkersRunning = async (script: string): Promise<string[]> => {
  const warnings: string[] = [];
  const r = await runEval({ ...base, workers: { count: 2, command: [process.execPath, "-e", script] }, onWarn: (m) => warnings.push(m) });
  expect(JSON.stringify(r)).toBe(JSON.stringify(await runEval(base)));
  expect(warnings).toHaveLength(2);
  return warnings;
};

test("a worker that cannot run leaves every file to this process, with a warning", async () => {
  const warnings = await withWorkersRunning("process.stderr.write('no such worker\\n'); process.exit(3)");
  expect(warnings[0]).toBe("a worker process ended early (exit 3: no such worker); the sessions it left are replayed in this process");
}, 60_000);

test("a worker that answers something else is stopped, not waited on; its files are replayed here", async () => {
  // answers garbage, then would stay alive for good
  const warnings = await withWorkersRunning("console.log('not an outcome'); setInterval(() => {}, 1000)");
  expect(warnings[0]).toMatch(/^a worker process ended early \(exit \d+\); the sessions it left are replayed in this process$/);
}, 60_000);

test("an interruption stops the workers and writes nothing", async () => {
  let answered = 0;
  const run = runEval({ ...base, workers: { count: 2, command: BC }, onProgress: () => answered++, shouldStop: () => answered >= 1 });
  await expect(run).rejects.toThrow(BcError);
  await expect(run).rejects.toThrow(/^interrupted after \d+ of \d+ files; no report written$/);
}, 60_000);
