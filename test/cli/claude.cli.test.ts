// `bc claude install | uninstall | status | log` without Claude Code on PATH (the e2e suite
// runs them with the real one): the folder written, refusals, the log printed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { appendRecord, type DecisionRecord } from "../../src/hosts/claude/decision-log.ts";
import { bcDir, install, MARKETPLACE_NAME, readLog, status, uninstall } from "../../src/hosts/claude/install.ts";
import { testedOf } from "../../src/hosts/tested-versions.ts";
import { folderContent, underFileSizeLimit } from "../support/file-size-limit.ts";

const REPO = join(import.meta.dir, "..", "..");
let tmp = "";
let saved: string | undefined;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "bc-claude-cli-"));
  saved = process.env.CLAUDE_CONFIG_DIR;
  process.env.CLAUDE_CONFIG_DIR = join(tmp, "claude");
});
afterAll(() => {
  if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
  else process.env.CLAUDE_CONFIG_DIR = saved;
  rmSync(tmp, { recursive: true, force: true });
});

/** bc from source, with no claude on PATH */
const bc = (args: string[]) => {
  const r = Bun.spawnSync([process.execPath, join(REPO, "src", "main.ts"), ...args], {
    env: { PATH: dirname(process.execPath), HOME: join(tmp, "home"), CLAUDE_CONFIG_DIR: join(tmp, "claude") },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

test("install --dir writes a marketplace with the plugin and prints the two commands when claude is not on PATH", () => {
  const dir = join(tmp, "mp");
  const r = bc(["claude", "install", "--dir", dir]);
  expect(r.code).toBe(0);
  expect(r.stdout.trim().split("\n")).toEqual([`claude plugin marketplace add ${dir}`, `claude plugin install better-compaction@${MARKETPLACE_NAME}`]);
  expect(r.stderr).toContain("claude is not on PATH");
  const market = JSON.parse(readFileSync(join(dir, ".claude-plugin", "marketplace.json"), "utf8"));
  expect(market.name).toBe(MARKETPLACE_NAME);
  expect(market.plugins[0].source).toBe("./plugins/better-compaction");
  const plugin = join(dir, "plugins", "better-compaction");
  for (const f of [".claude-plugin/plugin.json", "hooks/hooks.json", "hooks/register.ts", "hooks/better-compaction.js"])
    expect(existsSync(join(plugin, f))).toBe(true);
  expect(readFileSync(join(plugin, "hooks", "register.ts"), "utf8")).toContain('from "./better-compaction.js"');
});

test("install again updates the same folder; a foreign non-empty folder is refused", async () => {
  const dir = join(tmp, "mp2");
  const a = await install({ dir, register: false });
  // a file an earlier install wrote that this one does not: recorded as written, then gone
  const state = join(tmp, "claude", "better-compaction", "install.json");
  const s = JSON.parse(readFileSync(state, "utf8"));
  s.installs.find((i: { dir: string }) => i.dir === dir).files.push("plugins/better-compaction/stale.txt");
  writeFileSync(state, JSON.stringify(s));
  writeFileSync(join(a.pluginDir, "stale.txt"), "x");
  writeFileSync(join(a.pluginDir, "mine.txt"), "a file of the user's");
  const b = await install({ dir, register: false });
  expect(b.pluginDir).toBe(a.pluginDir);
  expect(existsSync(join(b.pluginDir, "stale.txt"))).toBe(false);
  expect(readFileSync(join(b.pluginDir, "mine.txt"), "utf8")).toBe("a file of the user's");
  const foreign = join(tmp, "foreign");
  mkdirSync(foreign);
  writeFileSync(join(foreign, "notes.md"), "mine");
  await expect(install({ dir: foreign, register: false })).rejects.toThrow(/not empty and not a better-compaction marketplace/);
  expect(readFileSync(join(foreign, "notes.md"), "utf8")).toBe("mine");
});

test("status reports the folder written; uninstall deletes it and prints the commands", async () => {
  const dir = join(tmp, "mp3");
  await install({ dir, register: false });
  const s = status();
  expect(s.marketplaceDir).toBe(dir);
  expect(s.written).toBe(JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version);
  const u = uninstall({ register: false });
  expect(u).toMatchObject({ dir, removedDir: true, ran: false, notRun: "no-register" });
  expect(u.commands).toEqual([`claude plugin uninstall better-compaction@${MARKETPLACE_NAME}`, `claude plugin marketplace remove ${MARKETPLACE_NAME}`]);
  expect(existsSync(dir)).toBe(false);
});

test("status without claude on PATH says what to do: install Claude Code, or, with the folder written, run install again once claude is there", () => {
  const before = bc(["claude", "status"]);
  expect(before.code).toBe(0);
  expect(before.stderr).toContain("claude is not on PATH: install Claude Code, then run 'bc claude install'");
  expect(bc(["claude", "install", "--dir", join(tmp, "mp7")]).code).toBe(0);
  const after = bc(["claude", "status"]);
  expect(after.stdout).toContain(`marketplace:      ${join(tmp, "mp7")}`);
  expect(after.stderr).toContain("claude is not on PATH: once it is, 'bc claude install' registers the plugin");
  expect(after.stderr).not.toContain("install it with");
  uninstall({ register: false });
});

test("uninstall removes only what install wrote, in every folder it installed into", async () => {
  const one = join(tmp, "mp4");
  const two = join(tmp, "mp5");
  await install({ dir: one, register: false });
  await install({ dir: two, register: false });
  writeFileSync(join(one, "README.md"), "my notes about this marketplace");
  const r = bc(["claude", "uninstall", "--no-register"]);
  expect(r.code).toBe(0);
  expect(existsSync(two)).toBe(false);
  expect(readdirSync(one)).toEqual(["README.md"]);
  expect(readFileSync(join(one, "README.md"), "utf8")).toBe("my notes about this marketplace");
  expect(r.stderr).toContain(`deleted ${two}`);
  expect(r.stderr).toContain(`kept what bc did not write: README.md`);
  // --no-register is not a missing claude
  expect(r.stderr).toContain("(--no-register)");
  expect(r.stderr).not.toContain("not on PATH");
  const i = bc(["claude", "install", "--dir", join(tmp, "mp6"), "--no-register"]);
  expect(i.code).toBe(0);
  expect(i.stderr).toContain("(--no-register)");
  expect(i.stderr).not.toContain("not on PATH");
  uninstall({ register: false });
});

test("a folder flag given without a folder is a usage error, not the current folder", () => {
  for (const args of [
    ["claude", "install", "--dir"],
    ["claude", "uninstall", "--dir="],
    ["codex-fork", join(REPO, "test", "fixtures", "codex", "fork-legacy-0.140.jsonl"), "--out-dir"],
  ]) {
    const r = bc(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")[0]).toMatch(/^bc: --(dir|out-dir) needs a path, got ''$/);
  }
  // the next flag taken for the folder: refused, nothing written
  const r = bc(["codex-fork", join(REPO, "test", "fixtures", "codex", "fork-legacy-0.140.jsonl"), "--out-dir", "--json"]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr.split("\n")[0]).toBe("bc: --out-dir needs a path, not another flag (write ./--x for a folder so named), got '--json'");
});

test("log --json with no log yet prints a log's shape with no records and succeeds", () => {
  const r = Bun.spawnSync([process.execPath, join(REPO, "src", "main.ts"), "claude", "log", "--json"], {
    env: { PATH: dirname(process.execPath), HOME: join(tmp, "home"), CLAUDE_CONFIG_DIR: join(tmp, "no-logs-here") },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(r.exitCode).toBe(0);
  expect(JSON.parse(r.stdout.toString())).toEqual({ sessionId: null, path: null, records: [] });
});

const record = (trigger: string, results: DecisionRecord["results"]): DecisionRecord => ({
  v: 1,
  at: "2026-11-30T02:00:00.000Z",
  sessionId: "abc-123",
  trigger,
  outcome: "compacted",
  reason: "1 results dropped",
  rowsIn: 10,
  rowsOut: 10,
  tokensBefore: 5000,
  tokensAfter: 3000,
  escalated: false,
  ms: 1.5,
  results,
});

test("log: the newest session's records, by id or prefix; a one-line error for an unknown id", () => {
  const logs = join(tmp, "claude", "better-compaction", "logs");
  mkdirSync(logs, { recursive: true });
  const drop = { callId: "toolu_9", tool: "Read", action: "drop", rule: "superseded-read", reason: "re-read at #8, unchanged" } as const;
  writeFileSync(join(logs, "abc-123.jsonl"), `${appendRecord(appendRecord("", record("manual", [drop])), record("auto", []))}not json\n`);
  const { records, problems } = readLog("abc");
  expect(records.map((r) => r.trigger)).toEqual(["manual", "auto"]);
  expect(problems).toEqual([`${join(logs, "abc-123.jsonl")}:3: not valid JSON`]);

  const shown = bc(["claude", "log"]);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain("manual  compacted: 1 results dropped");
  expect(shown.stdout).toContain("drop     Read         superseded-read  toolu_9  re-read at #8, unchanged");
  const asJson = JSON.parse(bc(["claude", "log", "abc-123", "--json"]).stdout);
  expect(asJson.records.length).toBe(2);

  // a log of no readable record: said on stderr, nothing (not an empty line) on stdout
  writeFileSync(join(logs, "bad-999.jsonl"), "not json\n");
  const none = bc(["claude", "log", "bad-999"]);
  expect(none.code).toBe(0);
  expect(none.stdout).toBe("");
  expect(none.stderr).toContain("0 compactions");
  rmSync(join(logs, "bad-999.jsonl"));

  const missing = bc(["claude", "log", "zzz"]);
  expect(missing.code).toBe(1);
  expect(missing.stderr.split("\n")[0]).toBe(`bc: no decision log for a session with the id or name 'zzz' under ${logs}`);
  expect(missing.stderr).not.toContain("    at ");
});

test("log: a session given by its name (claude -n, /rename: the transcript's last custom-title)", () => {
  const logs = join(tmp, "claude", "better-compaction", "logs");
  mkdirSync(logs, { recursive: true });
  writeFileSync(join(logs, "def-456.jsonl"), appendRecord("", { ...record("auto", []), sessionId: "def-456" }));
  const project = join(tmp, "claude", "projects", "-home-dev-shop");
  mkdirSync(project, { recursive: true });
  const title = (name: string) => `${JSON.stringify({ type: "custom-title", customTitle: name, sessionId: "def-456" })}\n`;
  writeFileSync(
    join(project, "def-456.jsonl"),
    `${JSON.stringify({ type: "user", sessionId: "def-456", message: { role: "user", content: "hi" } })}\n${title("old name")}${title("checkout flow")}`,
  );
  const byName = JSON.parse(bc(["claude", "log", "checkout flow", "--json"]).stdout);
  expect(byName.sessionId).toBe("def-456");
  const old = bc(["claude", "log", "old name"]);
  expect(old.code).toBe(1);
  expect(old.stderr.split("\n")[0]).toBe(`bc: no decision log for a session with the id or name 'old name' under ${logs}`);
});

test("uninstall with a settings.json bc cannot read: the plugin's files still go, exit 0, and the settings file is named with what to remove by hand", async () => {
  const dir = join(tmp, "mp-settings");
  await install({ dir, register: false });
  const settings = join(tmp, "claude", "settings.json");
  mkdirSync(dirname(settings), { recursive: true });
  writeFileSync(settings, "{ not json");
  const r = bc(["claude", "uninstall", "--no-register"]);
  expect(r.code).toBe(0);
  expect(existsSync(dir)).toBe(false);
  expect(r.stderr).toContain(`${settings}: not valid JSON`);
  expect(r.stderr).toContain('remove ["mcp__plugin_better-compaction_bc__recall","Bash(bc recall:*)"] from permissions.allow by hand');
  expect(readFileSync(settings, "utf8")).toBe("{ not json");
  rmSync(settings);
});

test("install --allow-recall with a settings.json bc cannot read: refused before anything is written, the file named", () => {
  const dir = join(tmp, "mp-bad-settings");
  const settings = join(tmp, "claude", "settings.json");
  mkdirSync(dirname(settings), { recursive: true });
  writeFileSync(settings, "{ not json");
  const state = folderContent(bcDir());
  const r = bc(["claude", "install", "--dir", dir, "--no-register", "--allow-recall"]);
  expect(r.code).toBe(1);
  expect(r.stderr.split("\n")[0]).toStartWith(`bc: ${settings}: not valid JSON`);
  expect(existsSync(dir)).toBe(false);
  expect(folderContent(bcDir())).toEqual(state);
  expect(readFileSync(settings, "utf8")).toBe("{ not json");
  rmSync(settings);
});

test("a decision logs' folder that is a file, or a log that is a folder: one line naming the path (log), unknown with why (status), never an internal error", () => {
  const config = join(tmp, "odd-logs");
  const logs = join(config, "better-compaction", "logs");
  mkdirSync(dirname(logs), { recursive: true });
  const run = (args: string[]) => {
    const r = Bun.spawnSync([process.execPath, join(REPO, "src", "main.ts"), ...args], {
      env: { PATH: dirname(process.execPath), HOME: join(tmp, "home"), CLAUDE_CONFIG_DIR: config },
      stdout: "pipe",
      stderr: "pipe",
    });
    return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  };
  writeFileSync(logs, "not a folder");
  for (const args of [
    ["claude", "log"],
    ["claude", "log", "--json"],
  ]) {
    const r = run(args);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(`bc: ${logs}: cannot be read as the decision logs' folder (ENOTDIR)`);
  }
  const status = run(["claude", "status"]);
  expect(status.code).toBe(0);
  expect(status.stdout).toContain(`decision logs:    unknown (${logs}: cannot be read as the decision logs' folder (ENOTDIR))`);
  rmSync(logs);
  // a folder named like a log is passed over
  mkdirSync(join(logs, "s-folder.jsonl"), { recursive: true });
  const r = run(["claude", "log"]);
  expect(r.code).toBe(1);
  expect(r.stderr.split("\n")[0]).toBe(`bc: no decision log under ${logs}`);
});

/** A stand-in `claude` on PATH: answers `--version` and the two list commands as given, logs every call. */
const fakeClaude = (name: string, answers: { marketplaces?: string; plugins?: string; version?: string }) => {
  const bin = join(tmp, name);
  mkdirSync(bin, { recursive: true });
  const calls = join(bin, "calls.txt");
  writeFileSync(
    join(bin, "claude"),
    `#!/bin/sh
echo "$*" >> '${calls}'
case "$*" in
  "--version") echo "${answers.version ?? "2.1.332"} (Claude Code)";;
  "plugin marketplace list --json") echo '${answers.marketplaces ?? "[]"}';;
  "plugin list --json") echo '${answers.plugins ?? "[]"}';;
esac
exit 0
`,
    { mode: 0o755 },
  );
  const run = (args: string[]) => {
    const r = Bun.spawnSync([process.execPath, join(REPO, "src", "main.ts"), ...args], {
      env: { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: join(tmp, "home"), CLAUDE_CONFIG_DIR: join(tmp, "claude") },
      stdout: "pipe",
      stderr: "pipe",
    });
    return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  };
  return { run, calls: () => (existsSync(calls) ? readFileSync(calls, "utf8") : "") };
};

test("status says where the claude on PATH stands against the versions bc is tested with", () => {
  const listed = testedOf("claude");
  const newest = [...listed].sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1)!;
  for (const [name, version, said] of [
    ["fake-tested", listed[0]!, "tested"],
    ["fake-newer", "99.0.0", `newer than bc is tested with (up to ${newest})`],
  ] as const) {
    const claude = fakeClaude(name, { version });
    const text = claude.run(["claude", "status"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`claude on PATH:   ${version} (${join(tmp, name, "claude")}; ${said})`);
    expect(JSON.parse(claude.run(["claude", "status", "--json"]).stdout).claude).toEqual({ path: join(tmp, name, "claude"), version, tested: said });
  }
});

test("status with a claude that cannot say what it has installed: 'unknown', with why, not 'no' and 'install it'", () => {
  for (const [name, pluginList, why] of [
    ["fake-failing", "echo boom >&2; exit 3", "'claude plugin list --json' failed: boom"],
    ["fake-garbled", "echo 'not json'", "'claude plugin list --json' answered no list of plugins"],
  ] as const) {
    const bin = join(tmp, name);
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, "claude"),
      `#!/bin/sh\ncase "$*" in\n  "--version") echo "2.1.332 (Claude Code)";;\n  "plugin list --json") ${pluginList};;\nesac\n`,
      { mode: 0o755 },
    );
    const env = { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: join(tmp, "home"), CLAUDE_CONFIG_DIR: join(tmp, "claude") };
    const run = (args: string[]) => Bun.spawnSync([process.execPath, join(REPO, "src", "main.ts"), ...args], { env, stdout: "pipe", stderr: "pipe" });
    const text = run(["claude", "status"]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout.toString()).toContain(`installed:        unknown (${why})`);
    expect(text.stdout.toString()).toContain("claude on PATH:   2.1.332 (");
    expect(text.stderr.toString()).toContain("run 'claude plugin list' to see what Claude Code says");
    expect(text.stderr.toString()).not.toContain("install it");
    const json = JSON.parse(run(["claude", "status", "--json"]).stdout.toString());
    expect(json.installedUnknown).toBe(why);
    expect(json.installed).toBeUndefined();
  }
});

test("install into a Claude Code where the plugin is disabled says so, instead of 'takes effect' (and does not enable it)", () => {
  const claude = fakeClaude("fake-disabled", { plugins: `[{"id":"better-compaction@${MARKETPLACE_NAME}","version":"0.1.0","enabled":false}]` });
  const r = claude.run(["claude", "install", "--dir", join(tmp, "mp-disabled")]);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain(`but it is disabled there: 'claude plugin enable better-compaction@${MARKETPLACE_NAME}' turns it on`);
  expect(r.stderr).not.toContain("takes effect");
  expect(claude.calls()).not.toContain("enable");
  uninstall({ register: false });
});

test("uninstall --dir of a folder Claude Code does not run the plugin from: that folder is cleaned up, the plugin stays registered", async () => {
  const active = join(tmp, "mp-active");
  const old = join(tmp, "mp-old");
  await install({ dir: old, register: false });
  await install({ dir: active, register: false });
  const claude = fakeClaude("fake-elsewhere", {
    marketplaces: `[{"name":"${MARKETPLACE_NAME}","path":"${active}"}]`,
    plugins: `[{"id":"better-compaction@${MARKETPLACE_NAME}","version":"0.1.0","enabled":true}]`,
  });
  const r = claude.run(["claude", "uninstall", "--dir", old]);
  expect(r.code).toBe(0);
  expect(existsSync(old)).toBe(false);
  expect(existsSync(active)).toBe(true);
  expect(claude.calls()).not.toContain("plugin uninstall");
  expect(claude.calls()).not.toContain("marketplace remove");
  expect(r.stderr).toContain(`Claude Code runs the plugin from ${active}, not ${old}: left installed there`);
  uninstall({ register: false });
});

/** `bc args` from source, no claude on PATH, in a child the system lets grow no file past 512 bytes (a full disk). */
const bcMidway = (args: string[]) =>
  underFileSizeLimit([process.execPath, join(REPO, "src", "main.ts"), ...args], {
    env: { PATH: dirname(process.execPath), HOME: join(tmp, "home"), CLAUDE_CONFIG_DIR: join(tmp, "claude") },
  });
const TOO_LARGE = ": cannot be written (larger than the system lets a file grow)";

test("an install that fails midway leaves the plugin Claude Code reads, and bc's install.json, byte for byte with nothing beside them", async () => {
  const dir = join(tmp, "mp-midway");
  await install({ dir, register: false });
  const before = [folderContent(dir), folderContent(bcDir())];
  const r = bcMidway(["claude", "install", "--dir", dir, "--no-register"]);
  expect([folderContent(dir), folderContent(bcDir())]).toEqual(before);
  expect(r.code).toBe(1);
  expect(r.stderr.split("\n")[0]).toStartWith(`bc: ${dir}/`);
  expect(r.stderr.split("\n")[0]).toEndWith(TOO_LARGE);
  uninstall({ register: false });
});

test("an uninstall whose install.json cannot be written whole leaves it byte for byte: the other folders bc installed into stay recorded", async () => {
  const [gone, ...others] = ["mp-gone", "mp-kept-1", "mp-kept-2"].map((name) => join(tmp, name));
  for (const dir of [gone!, ...others]) await install({ dir, register: false });
  const before = folderContent(bcDir());
  const r = bcMidway(["claude", "uninstall", "--dir", gone!, "--no-register"]);
  expect(folderContent(bcDir())).toEqual(before);
  expect(r.code).toBe(1);
  expect(r.stderr.split("\n")[0]).toBe(`bc: ${join(bcDir(), "install.json")}${TOO_LARGE}`);
  expect(existsSync(gone!)).toBe(false);
  expect(
    uninstall({ register: false })
      .folders.filter((f) => f.removedDir)
      .map((f) => f.dir),
  ).toEqual(others.reverse());
});
