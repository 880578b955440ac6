#!/usr/bin/env bun
// Records a small example Claude Code session with the real Claude Code 2.1.328 and the scripted
// mock: a two-turn task over a tiny real repo in a temp folder (ls, reads, a re-read, git status,
// a failing test, an edit, the test passing, a second change). Writes the transcript, with the
// temp paths replaced by /home/demo and the request journal left out, to src/eval/demo/claude/recorded-sum-fix.jsonl: an example
// session the bc project made itself, for `bc eval --demo`.
//
//   bun test/e2e/record-demo-claude.ts [--out <file>]
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureClaude } from "./support/claude-install.ts";
import { startMock, type ToolStep } from "./support/claude-mock.ts";
import { claudeEnv, HeadlessSession, makeSandbox, transcriptPath } from "./support/claude-session.ts";

const REPO = join(import.meta.dir, "..", "..");
const outArg = process.argv.indexOf("--out");
const OUT = outArg !== -1 && process.argv[outArg + 1] ? process.argv[outArg + 1]! : join(REPO, "src", "eval", "demo", "claude", "recorded-sum-fix.jsonl");

const FILES: Record<string, string> = {
  "README.md":
    "# sum-utils\n\nTiny helpers for adding up numbers.\n\n- `sum(list)`: the total of a list of numbers\n- `mean(list)`: the average, 0 for an empty list\n\nRun the tests with `node test.js`.\n",
  "sum.js":
    "// sum-utils\nexport function sum(list) {\n  let total = 0;\n  for (let i = 1; i < list.length; i++) total += list[i];\n  return total;\n}\n\nexport function mean(list) {\n  return list.length === 0 ? 0 : sum(list) / list.length;\n}\n",
  "test.js":
    'import assert from "node:assert/strict";\nimport { sum, mean } from "./sum.js";\n\nassert.equal(sum([1, 2, 3]), 6);\nassert.equal(sum([]), 0);\nassert.equal(mean([2, 4]), 3);\nconsole.log("all tests passed");\n',
  "package.json": '{ "name": "sum-utils", "version": "1.0.0", "type": "module" }\n',
};

const TASK = "The tests in this repo fail. Find out why and fix sum.js; keep the change minimal.";
const FOLLOW_UP = "Add a test for negative numbers too, and check everything still passes.";

const main = async (): Promise<void> => {
  const bin = ensureClaude();
  const sb = makeSandbox("demo");
  const p = (f: string) => join(sb.project, f);
  for (const [f, text] of Object.entries(FILES)) writeFileSync(p(f), text);
  const git = (...args: string[]) =>
    Bun.spawnSync(["git", ...args], {
      cwd: sb.project,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "demo",
        GIT_AUTHOR_EMAIL: "demo@example.com",
        GIT_COMMITTER_NAME: "demo",
        GIT_COMMITTER_EMAIL: "demo@example.com",
        GIT_AUTHOR_DATE: "2025-06-01T09:00:00Z",
        GIT_COMMITTER_DATE: "2025-06-01T09:00:00Z",
      },
    });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "sum-utils");

  const turn1: ToolStep[] = [
    { name: "Bash", input: { command: "ls", description: "List the repo" }, say: "Let me look at the repo first." },
    { name: "Read", input: { file_path: p("README.md") } },
    { name: "Bash", input: { command: "node test.js", description: "Run the tests" }, say: "Running the tests to see the failure." },
    { name: "Read", input: { file_path: p("sum.js") }, say: "The total is off; reading sum.js." },
    { name: "Read", input: { file_path: p("test.js") } },
    { name: "Bash", input: { command: "git status", description: "Check the working tree" } },
    { name: "Read", input: { file_path: p("sum.js") }, say: "The loop in `sum` starts at index 1, so it skips the first element. Re-reading before the edit." },
    {
      name: "Edit",
      input: { file_path: p("sum.js"), old_string: "for (let i = 1; i < list.length; i++)", new_string: "for (let i = 0; i < list.length; i++)" },
    },
    { name: "Bash", input: { command: "node test.js", description: "Run the tests again" } },
    { name: "Bash", input: { command: "git diff --stat", description: "Show what changed" } },
  ];
  const turn2: ToolStep[] = [
    { name: "Read", input: { file_path: p("test.js") } },
    {
      name: "Edit",
      input: { file_path: p("test.js"), old_string: "assert.equal(sum([]), 0);", new_string: "assert.equal(sum([]), 0);\nassert.equal(sum([-1, -2, 3]), 0);" },
    },
    { name: "Bash", input: { command: "node test.js", description: "Run the tests" } },
    { name: "Bash", input: { command: "git status", description: "Check the working tree" } },
  ];
  const mock = startMock({
    root: sb.project,
    lifetimeMs: 5 * 60_000,
    scripts: {
      [TASK]: {
        steps: turn1,
        answer: "Fixed: `sum` started its loop at index 1 and skipped the first element. It now starts at 0, and `node test.js` passes.",
      },
      [FOLLOW_UP]: { steps: turn2, answer: "Added `assert.equal(sum([-1, -2, 3]), 0)`; all tests pass." },
    },
  });
  const session = new HeadlessSession({
    bin,
    sandbox: sb,
    env: claudeEnv(sb, mock.url),
    debugFile: join(sb.dir, "debug.log"),
    extraArgs: ["--allowedTools", "Bash,Read,Edit"],
  });
  try {
    await session.send(TASK);
    await session.send(FOLLOW_UP);
    const sid = session.sessionId!;
    await session.close();
    // the request journal (api-request*: Claude Code's system prompt and tool schemas, no uuid, no
    // part of the chain) is left out; every other record is kept as Claude Code wrote it
    const text = readFileSync(transcriptPath(sb, sid), "utf8")
      .split("\n")
      .filter((l) => !/^\{"type":"api-request/.test(l) && !/"type":"api-request(-blob|-shape)?"/.test(l.slice(0, 200)))
      .join("\n")
      .replaceAll(sb.dir, "/home/demo");
    const check = readFileSync(join(sb.project, "sum.js"), "utf8");
    if (!check.includes("let i = 0")) throw new Error("the edit did not land; the recording is not the intended session");
    writeFileSync(OUT, text);
    process.stdout.write(`${OUT}: ${text.split("\n").filter(Boolean).length} records, session ${sid}\n`);
  } finally {
    await session.close();
    mock.stop();
    sb.cleanup();
  }
};

await main();
