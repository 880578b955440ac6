#!/usr/bin/env bun
// Records a small, real Codex session for the example corpus (`bc eval --demo`): the pinned Codex
// 0.169.0 driven by the scripted mock over a tiny git repo made in a temp folder: a look around
// (ls, git status), reads, a failing test, an edit, a re-read, the passing test, git diff; two
// turns (exec, then exec resume). The rollout is written to src/eval/demo/codex/ with the temp
// paths replaced by a neutral one. Everything in it was made by this script: ours to ship.
//
//   bun test/e2e/record-demo-codex.ts [--out <dir>]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { codexExec, codexResume, listRollouts, makeCodexEnv, run } from "./support/codex-env.ts";
import { installCodex } from "./support/codex-install.ts";
import { HOST_VERSIONS } from "./support/versions.ts";
import { startMock } from "./support/codex-mock.ts";

const REPO = join(import.meta.dir, "..", "..");
const NEUTRAL_ROOT = "/home/demo/sum-fix";

const FILES: Record<string, string> = {
  "package.json": `${JSON.stringify({ name: "sum-fix", version: "1.0.0", private: true, scripts: { test: "node test/sum.test.js" } }, null, 2)}\n`,
  "README.md": "# sum-fix\n\nA tiny library: `sum(a, b)` and `mean(xs)`.\n\nRun the tests with `node test/sum.test.js`.\n",
  "src/sum.js": [
    "// Adds two numbers.",
    "function sum(a, b) {",
    "  return a - b;",
    "}",
    "",
    "// The arithmetic mean of a list of numbers.",
    "function mean(xs) {",
    "  if (xs.length === 0) throw new Error('mean of an empty list');",
    "  return xs.reduce(sum, 0) / xs.length;",
    "}",
    "",
    "module.exports = { sum, mean };",
    "",
  ].join("\n"),
  "test/sum.test.js": [
    "const assert = require('node:assert');",
    "const { sum, mean } = require('../src/sum.js');",
    "",
    "assert.strictEqual(sum(2, 3), 5, 'sum(2, 3)');",
    "assert.strictEqual(sum(-1, 1), 0, 'sum(-1, 1)');",
    "assert.strictEqual(mean([1, 2, 3, 4]), 2.5, 'mean([1, 2, 3, 4])');",
    "assert.throws(() => mean([]), /empty/);",
    "console.log('4 tests passed');",
    "",
  ].join("\n"),
};

const TURN_1 = ["ls", "git status --short", "cat README.md", "cat src/sum.js", "cat test/sum.test.js", "node test/sum.test.js", "grep -n 'a - b' src/sum.js"];
const TURN_2 = [
  "sed -i 's/return a - b;/return a + b;/' src/sum.js",
  "cat src/sum.js",
  "node test/sum.test.js",
  "git diff",
  "git status --short",
  "cat src/sum.js",
];

const main = async (): Promise<void> => {
  const i = process.argv.indexOf("--out");
  const outDir = i === -1 ? join(REPO, "src", "eval", "demo", "codex") : process.argv[i + 1]!;
  const codex = installCodex(HOST_VERSIONS.find((v) => v.host === "codex" && v.pinned)!);
  const mock = startMock({ lifetimeMs: 5 * 60_000 });
  const e = makeCodexEnv(mock.url);
  try {
    for (const [name, text] of Object.entries(FILES)) {
      mkdirSync(join(e.work, name, ".."), { recursive: true });
      writeFileSync(join(e.work, name), text);
    }
    for (const f of ["a.txt", "b.txt", "notes.md"]) await run(["rm", "-f", f], { cwd: e.work, env: e.env });
    const git = (...args: string[]) => run(["git", "-c", "user.name=demo", "-c", "user.email=demo@example.invalid", ...args], { cwd: e.work, env: e.env });
    await git("init", "-q");
    await git("add", ".");
    await git("commit", "-q", "-m", "sum and mean");
    const first = await codexExec(codex.bin, e, `The tests fail; find out why. ${TURN_1.map((c) => `RUN: ${c}`).join(" ")}`);
    if (first.exitCode !== 0) throw new Error(`codex exec failed:\n${first.stderr.slice(-2000)}`);
    const [rollout] = listRollouts(e.home);
    if (!rollout) throw new Error("codex wrote no rollout");
    const id = /([0-9a-f-]{36})\.jsonl$/.exec(rollout)![1]!;
    const second = await codexResume(codex.bin, e, id, `Fix it and check. ${TURN_2.map((c) => `RUN: ${c}`).join(" ")}`);
    if (second.exitCode !== 0) throw new Error(`codex exec resume failed:\n${second.stderr.slice(-2000)}`);
    const text = readFileSync(rollout, "utf8").replaceAll(e.work, NEUTRAL_ROOT).replaceAll(e.root, "/home/demo");
    JSON.parse(text.split("\n")[0]!); // still JSON after the path change
    mkdirSync(outDir, { recursive: true });
    const out = join(outDir, basename(rollout));
    writeFileSync(out, text);
    process.stdout.write(`${out}\n`);
  } finally {
    mock.stop();
    e.cleanup();
  }
};

if (import.meta.main) await main();
