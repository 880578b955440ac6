// Where recall looks for "this project's sessions": Claude Code's folder for the working folder,
// as Claude Code names it, including the name it cuts and hashes for a long path.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { claudeProjectName, projectSessionFiles, recall } from "../../../src/hosts/recall/lookup.ts";

const TMP = mkdtempSync(join(tmpdir(), "bc-recall-lookup-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const write = (path: string, text: string): string => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
};

const OUTPUT = "line one\n\tline two\n";

/** A transcript holding one Bash call and its output. */
const transcript = (id: string): string =>
  [
    {
      type: "assistant",
      uuid: "a1",
      parentUuid: null,
      sessionId: "s",
      message: { role: "assistant", content: [{ type: "tool_use", id, name: "Bash", input: { command: "ls" } }] },
    },
    {
      type: "user",
      uuid: "u1",
      parentUuid: "a1",
      sessionId: "s",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: OUTPUT }] },
    },
  ]
    .map((r) => `${JSON.stringify(r)}\n`)
    .join("");

/** A working folder more than 200 characters long once every character but letters and digits is a "-". */
const longFolder = (root: string): string => join(root, ...["alpha", "beta", "gamma", "delta"].map((w) => `${w}-${"x".repeat(56)}`));

describe("claudeProjectName", () => {
  test("a short path: every character but letters and digits becomes a dash", () => {
    expect(claudeProjectName("/home/dev/my.project_2")).toBe("-home-dev-my-project-2");
  });

  test("a long path: cut at 200 characters and a hash added, as Claude Code 2.1.328 named this folder", () => {
    // the folder real Claude Code wrote for this working folder (the recall end-to-end test's run)
    const cwd = longFolder("/tmp/bc-e2e-recall-long-aMAOPE/project");
    const dashed = cwd.replace(/[^A-Za-z0-9]/g, "-");
    expect(claudeProjectName(cwd)).toBe(`${dashed.slice(0, 200)}-egg89f`);
  });
});

describe("this project's sessions, for a long working folder", () => {
  const claudeDir = join(TMP, "claude");
  const places = (cwd: string) => ({ home: TMP, claudeDir, codexHome: join(TMP, "codex"), cwd });

  test("its own folder (Claude Code's cut name and hash)", () => {
    const cwd = longFolder(join(TMP, "own"));
    const file = write(join(claudeDir, "projects", claudeProjectName(cwd), "s1.jsonl"), transcript("toolu_OWN"));
    // another project whose name is cut the same way, under another hash: not this project's
    write(join(claudeDir, "projects", `${claudeProjectName(cwd).slice(0, 200)}-zzzzz`, "s2.jsonl"), transcript("toolu_OTHER"));
    expect(projectSessionFiles(places(cwd))).toEqual([{ path: file, host: "claude" }]);
    const got = recall("toolu_OWN", places(cwd));
    expect(got.text).toBe(OUTPUT);
    expect(got.path).toBe(file);
  });

  test("no folder of its own: the folders with its cut name (another Claude Code version's hash)", () => {
    const cwd = longFolder(join(TMP, "other-version"));
    const file = write(join(claudeDir, "projects", `${claudeProjectName(cwd).slice(0, 200)}-1a2b3c`, "s3.jsonl"), transcript("toolu_VERSION"));
    expect(projectSessionFiles(places(cwd))).toEqual([{ path: file, host: "claude" }]);
    expect(recall("toolu_VERSION", places(cwd)).path).toBe(file);
  });
});
