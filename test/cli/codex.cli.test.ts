// `bc codex log`, driven as a user drives it: `bun src/main.ts codex log ...` in a child process
// with its own $CODEX_HOME.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { appendLog } from "../../src/hosts/codex/live/state.ts";

const REPO = join(import.meta.dir, "..", "..");
const home = mkdtempSync(join(tmpdir(), "bc-codex-cli-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** `bc args` with only bun on PATH (no codex), and $CODEX_HOME at `codexHome`. */
const bc = (args: string[], codexHome = home) => {
  const r = Bun.spawnSync([process.execPath, join(REPO, "src", "main.ts"), ...args], {
    env: { PATH: dirname(process.execPath), HOME: home, CODEX_HOME: codexHome },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

test("log --json with no log yet prints a log's shape with no records and succeeds, as bc claude log does; without --json it is an error", () => {
  const empty = join(home, "no-logs-here");
  const r = bc(["codex", "log", "--json"], empty);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual({ threadId: null, path: null, records: [] });
  const plain = bc(["codex", "log"], empty);
  expect(plain.code).toBe(1);
  expect(plain.stderr.split("\n")[0]).toBe(`bc: no decision log under ${empty}/better-compaction/logs`);
});

test("log: a thread by its id, a prefix of it, or its name (session_index.jsonl: the newest thread so named that has a log)", () => {
  const A = "019f0000-aaaa-7000-8000-000000000001";
  const B = "019f0000-bbbb-7000-8000-000000000002";
  for (const threadId of [A, B]) appendLog(home, { v: 1, at: "2026-11-30T02:00:00.000Z", threadId, outcome: "handed-over", reason: `reason of ${threadId}` });
  const row = (id: string, name: string) => `${JSON.stringify({ id, thread_name: name, updated_at: "2026-11-30T02:00:00Z" })}\n`;
  // B is named "login fix" first, then A takes the name; B is renamed
  writeFileSync(join(home, "session_index.jsonl"), row(B, "login fix") + row(A, "login fix") + row(B, "docs"));
  const threadOf = (want: string) => JSON.parse(bc(["codex", "log", want, "--json"]).stdout).threadId;
  expect(threadOf(A)).toBe(A);
  expect(threadOf("019f0000-bbbb")).toBe(B);
  expect(threadOf("login fix")).toBe(A);
  expect(threadOf("docs")).toBe(B);
  const missing = bc(["codex", "log", "no such name"]);
  expect(missing.code).toBe(1);
  expect(missing.stderr.split("\n")[0]).toBe("bc: no decision log for a thread with the id or name 'no such name'");
});

test("the PreCompact hook fails safe on any input: a transcript_path of null, a number, or no JSON at all gives no answer and exit 0, without $CODEX_HOME too", () => {
  for (const input of ['{"session_id":"abc","transcript_path":null}', '{"session_id":"abc","transcript_path":42}', "not json", ""]) {
    const r = Bun.spawnSync([process.execPath, join(REPO, "src", "main.ts"), "codex-hook", "precompact"], {
      env: { PATH: dirname(process.execPath), HOME: home },
      stdin: new TextEncoder().encode(input),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect({ input, code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() }).toEqual({ input, code: 0, stdout: "", stderr: "" });
  }
});

test("log: a damaged line is said as every reader says one ('warning: file:line: why'), and the good records are shown", () => {
  const C = "019f0000-cccc-7000-8000-000000000003";
  appendLog(home, { v: 1, at: "2026-11-30T02:00:00.000Z", threadId: C, outcome: "applied", reason: "history replaced", ms: 812.3456 });
  const path = join(home, "better-compaction", "logs", `${C}.jsonl`);
  writeFileSync(path, `${readFileSync(path, "utf8")}{"v":1,"threadId":"${C}","outcome":"bogus","reason":{"a":1}}\n`);
  const r = bc(["codex", "log", C]);
  expect(r.code).toBe(0);
  expect(r.stderr).toStartWith(`warning: ${path}:2: not a better-compaction decision record (`);
  expect(r.stdout).toContain("applied  (812.3 ms)");
  expect(r.stdout).not.toContain("bogus");
});

test("install --trust that cannot trust (no codex on PATH) writes the hook and exits 1, so a script can tell; without --trust, 0", () => {
  const own = join(home, "trust-home");
  // PATH holds bun alone: no codex to ask for the trust key
  const failed = bc(["codex", "install", "--trust", "--json"], own);
  expect(failed.code).toBe(1);
  expect(JSON.parse(failed.stdout)).toMatchObject({ trusted: false });
  expect(readFileSync(join(own, "hooks.json"), "utf8")).toContain("codex-hook");
  expect(bc(["codex", "install"], own).code).toBe(0);
});
