// A session given as a pipe (`bc plan <(zstd -dc rollout.jsonl.zst)`, `… | bc plan /dev/stdin`):
// read once, whole, and handled as the same bytes in a file are. A pipe has no size until it is
// read and cannot be read twice or from another process.
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REPO = join(import.meta.dir, "..", "..");
const MAIN = join(REPO, "src", "main.ts");
const TMP = mkdtempSync(join(tmpdir(), "bc-pipes-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const CODEX = join(REPO, "test", "fixtures", "codex", "legacy-one-compaction.jsonl");
const CLAUDE = join(REPO, "test", "fixtures", "claude", "compacted-twice.jsonl");

const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * bc run by bash with `stdin` piped in by `cat` (a real pipe: /dev/stdin cannot be sought or read
 * twice), and with no $HOME sessions to find.
 */
const bc = (args: string[], stdin: Uint8Array) => {
  const input = join(TMP, `stdin-${Bun.hash(stdin).toString(16)}`);
  writeFileSync(input, stdin);
  const env = { ...process.env, HOME: TMP, CODEX_HOME: join(TMP, "codex-home"), CLAUDE_CONFIG_DIR: join(TMP, "claude") };
  const line = `cat ${quote(input)} | ${[process.execPath, MAIN, ...args].map(quote).join(" ")}`;
  const r = Bun.spawnSync(["bash", "-c", line], { cwd: TMP, env, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

const bytesOf = (path: string): Uint8Array => new Uint8Array(readFileSync(path));

describe("a session read from a pipe", () => {
  test.each([
    ["a Codex rollout", CODEX],
    ["a Claude Code transcript", CLAUDE],
  ])("plan and inspect: %s piped gives what the file gives", (_name, path) => {
    const copy = join(TMP, `copy-${_name.replaceAll(" ", "-")}.jsonl`);
    copyFileSync(path, copy);
    for (const cmd of ["plan", "inspect"]) {
      const fromFile = bc([cmd, copy, "--json"], new Uint8Array());
      const fromPipe = bc([cmd, "/dev/stdin", "--json"], bytesOf(path));
      expect(fromPipe.stderr).toBe(fromFile.stderr.replaceAll(copy, "/dev/stdin"));
      expect(fromPipe.code).toBe(0);
      const strip = (o: Record<string, unknown>) => ({ ...o, path: undefined, file: undefined });
      expect(strip(JSON.parse(fromPipe.stdout))).toEqual(strip(JSON.parse(fromFile.stdout)));
    }
  });

  test("compressed with zstd, as Codex keeps older rollouts: decompressed", () => {
    const r = bc(["plan", "/dev/stdin", "--json"], Bun.zstdCompressSync(bytesOf(CODEX)));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).host).toBe("codex");
  });

  test("codex-fork --dry-run and eval take a pipe; eval replays it in this process (no other can read it)", () => {
    const fork = bc(["codex-fork", "/dev/stdin", "--dry-run", "--json"], bytesOf(CODEX));
    expect(fork.code).toBe(0);
    expect(JSON.parse(fork.stdout).historyItems).toBeGreaterThan(0);
    // two sessions, each a process substitution, where eval would otherwise hand them to workers
    const out = join(TMP, "eval");
    const line = `${[process.execPath, MAIN, "eval"].map(quote).join(" ")} <(cat ${quote(CLAUDE)}) <(cat ${quote(CODEX)}) --out ${quote(out)} --pressure off --jobs 4 --json`;
    const ev = Bun.spawnSync(["bash", "-c", line], { cwd: TMP, env: { ...process.env, HOME: TMP }, stdout: "pipe", stderr: "pipe" });
    expect(ev.stderr.toString()).not.toContain("skipped");
    expect(ev.exitCode).toBe(0);
    expect(JSON.parse(ev.stdout.toString()).hosts.map((h: { host: string }) => h.host)).toEqual(["claude", "codex"]);
    expect(readdirSync(out).sort()).toEqual(["report.html", "report.json", "report.md"]);
  });

  test("a pipe that gives nothing: one line saying so, not 'the file is empty'", () => {
    const r = bc(["plan", "/dev/stdin"], new Uint8Array());
    expect(r.code).not.toBe(0);
    expect(r.stderr.split("\n")[0]).toBe("bc: /dev/stdin: nothing to read (a pipe that gave no data, or was read already)");
  });
});
