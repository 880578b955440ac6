// Where recall looks for "this project's sessions": Claude Code's folder for the working folder,
// as Claude Code names it, including the name it cuts and hashes for a long path.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { claudeProjectName } from "../../../src/hosts/claude/home.ts";
import { projectSessionFiles, recall } from "../../../src/hosts/recall/lookup.ts";
import { linesContaining, PEEK_BYTES } from "../../../src/hosts/recall/scan.ts";
import { BcError } from "../../../src/util/errors.ts";

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

  test("a long path: cut at 200 characters and a hash added, as Claude Code names it", () => {
    // the name Claude Code 2.1.332's own naming function gives this path (the recall end-to-end
    // test checks the folder real Claude Code writes)
    const cwd = longFolder("/home/dev/projects");
    const dashed = cwd.replace(/[^A-Za-z0-9]/g, "-");
    expect(claudeProjectName(cwd)).toBe(`${dashed.slice(0, 200)}-7bib16`);
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

/** A Codex rollout holding one exec_command call and its output. */
const rollout = (id: string, callId: string, output: string): string =>
  [
    { timestamp: "2026-01-01T00:00:00.000Z", ordinal: 0, type: "session_meta", payload: { id, session_id: id, cwd: "/elsewhere", cli_version: "0.171.0" } },
    {
      timestamp: "2026-01-01T00:00:01.000Z",
      ordinal: 1,
      type: "response_item",
      payload: { type: "function_call", name: "exec_command", arguments: '{"cmd":"ls"}', call_id: callId },
    },
    { timestamp: "2026-01-01T00:00:02.000Z", ordinal: 2, type: "response_item", payload: { type: "function_call_output", call_id: callId, output } },
  ]
    .map((r) => `${JSON.stringify(r)}\n`)
    .join("");

describe("a project folder named by the environment ($CLAUDE_CODE_PROJECT_DIR_NAME, as Claude Code takes it)", () => {
  const claudeDir = join(TMP, "claude-named");
  const cwd = join(TMP, "named", "work");
  const places = { home: TMP, claudeDir, codexHome: join(TMP, "codex"), cwd };
  const named = write(join(claudeDir, "projects", "my-project_1", "n1.jsonl"), transcript("toolu_NAMED"));
  const usual = write(join(claudeDir, "projects", claudeProjectName(cwd), "n2.jsonl"), transcript("toolu_USUAL"));
  const withEnv = <T>(env: Record<string, string | undefined>, f: () => T): T => {
    const before = { CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR, CLAUDE_CODE_PROJECT_DIR_NAME: process.env.CLAUDE_CODE_PROJECT_DIR_NAME };
    const set = (vars: Record<string, string | undefined>) => {
      for (const [k, v] of Object.entries(vars)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    };
    set(env);
    try {
      return f();
    } finally {
      set(before);
    }
  };
  const paths = () =>
    projectSessionFiles(places)
      .map((f) => f.path)
      .sort();

  test("with $CLAUDE_CONFIG_DIR set: that folder's sessions, and those of the working directory's own folder", () => {
    expect(withEnv({ CLAUDE_CONFIG_DIR: claudeDir, CLAUDE_CODE_PROJECT_DIR_NAME: "my-project_1" }, paths)).toEqual([named, usual].sort());
  });

  test("without $CLAUDE_CONFIG_DIR, or with a name Claude Code would not take, only the working directory's own folder", () => {
    expect(withEnv({ CLAUDE_CONFIG_DIR: undefined, CLAUDE_CODE_PROJECT_DIR_NAME: "my-project_1" }, paths)).toEqual([usual]);
    for (const bad of ["../my-project_1", "my project", "x".repeat(65), "nul", ""])
      expect(withEnv({ CLAUDE_CONFIG_DIR: claudeDir, CLAUDE_CODE_PROJECT_DIR_NAME: bad }, paths)).toEqual([usual]);
  });
});

describe("Codex rollouts kept compressed (.jsonl.zst, as Codex keeps older ones) or archived", () => {
  const codexHome = join(TMP, "codex-zst");
  const day = join(codexHome, "sessions", "2026", "01", "01");
  const places = { home: TMP, claudeDir: join(TMP, "no-claude"), codexHome, cwd: join(TMP, "somewhere") };
  const compressed = (name: string, text: string): string => {
    mkdirSync(day, { recursive: true });
    const path = join(day, name);
    writeFileSync(path, Bun.zstdCompressSync(Buffer.from(text)));
    return path;
  };

  test("recall finds the original output in it, byte for byte, by searching every session or given it as --session", () => {
    const output = "total 2\n-rw-r--r-- 1 u u 12 a.txt\n\tüñí\n";
    const path = compressed(
      "rollout-2026-01-01T00-00-00-0190b000-0000-7000-8000-000000000001.jsonl.zst",
      rollout("0190b000-0000-7000-8000-000000000001", "call_ZST1", output),
    );
    const found = recall("call_ZST1", places);
    expect(found.text).toBe(output);
    expect(found.path).toBe(path);
    expect(found.lineNo).toBe(3);
    expect(recall("call_ZST1", { ...places, session: path }).text).toBe(output);
  });

  test("beside the plain rollout of the same name, the plain one is read (as Codex reads it)", () => {
    const name = "rollout-2026-01-01T00-00-00-0190b000-0000-7000-8000-000000000002.jsonl";
    const plain = write(join(day, name), rollout("0190b000-0000-7000-8000-000000000002", "call_ZST2", "plain\n"));
    compressed(`${name}.zst`, rollout("0190b000-0000-7000-8000-000000000002", "call_ZST2", "stale copy\n"));
    const found = recall("call_ZST2", places);
    expect(found.text).toBe("plain\n");
    expect(found.path).toBe(plain);
  });

  test("a thread Codex archived ($CODEX_HOME/archived_sessions): its outputs are found too", () => {
    const output = "archived output\n";
    const path = write(
      join(codexHome, "archived_sessions", "rollout-2026-01-01T00-00-00-0190b000-0000-7000-8000-000000000004.jsonl"),
      rollout("0190b000-0000-7000-8000-000000000004", "call_ARCH1", output),
    );
    const found = recall("call_ARCH1", places);
    expect(found.text).toBe(output);
    expect(found.path).toBe(path);
  });

  test("a .zst file that does not decompress: one line naming it, as for any unreadable session", () => {
    const path = join(day, "rollout-2026-01-01T00-00-00-0190b000-0000-7000-8000-000000000003.jsonl.zst");
    writeFileSync(path, Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), Buffer.from("not a frame")]));
    let error: unknown;
    try {
      recall("call_ZST3", { ...places, session: path });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BcError);
    expect((error as BcError).message).toStartWith(`${path}: cannot be`);
  });
});

describe("the byte search's hit lines", () => {
  test("a hit line's start is read with the search, its whole text when asked (CRLF ends taken off), in a file and in a compressed one", () => {
    const long = `{"type":"compacted","payload":{"note":"needle","pad":"${"x".repeat(5000)}"}}`;
    const text = `{"a":"no"}\r\n{"b":"needle"}\r\n${long}\n{"c":"no"}\n`;
    const plain = write(join(TMP, "scan", "hits.jsonl"), text);
    const packed = join(TMP, "scan", "hits.jsonl.zst");
    writeFileSync(packed, Bun.zstdCompressSync(Buffer.from(text)));
    for (const path of [plain, packed]) {
      const hits = linesContaining(path, "needle");
      expect(hits.map((h) => [h.lineNo, h.peek.length])).toEqual([
        [2, '{"b":"needle"}\r'.length],
        [3, PEEK_BYTES],
      ]);
      expect(hits[1]!.peek).toBe(long.slice(0, PEEK_BYTES));
      expect(hits.map((h) => h.text)).toEqual(['{"b":"needle"}', long]);
    }
  });
});
