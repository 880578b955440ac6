// The compiled binary on its own: copied ALONE into an empty folder under the system temp
// dir (no node_modules, no package.json, no bunfig anywhere above it), run with a bare
// environment, it answers --version, --help and misuse the way the CLI promises.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CommandDef } from "citty";
import pkg from "../../package.json" with { type: "json" };
import { main } from "../../src/main.ts";

const REPO = join(import.meta.dir, "..", "..");
const EXE = process.platform === "win32" ? "bc.exe" : "bc";
const BUILT = join(REPO, "dist", EXE);

let dir = "";
let bin = "";

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run the copied binary from its folder with only PATH and HOME set. */
const bc = (...args: string[]): Run => {
  const env = { PATH: "/usr/bin:/bin", HOME: dir };
  const r = Bun.spawnSync([bin, ...args], { cwd: dir, env, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

const STACK_LINE = /^\s+at\s|\.ts:\d+:\d+|\bError:\s/m;

const expectOneLineError = (r: Run, message: string): void => {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines).toEqual([`bc: ${message}`, expect.stringMatching(/^hint: .*--help/)]);
  expect(r.stderr).not.toMatch(STACK_LINE);
};

beforeAll(() => {
  if (!existsSync(BUILT)) {
    const r = Bun.spawnSync([process.execPath, join(REPO, "build", "compile.ts")], { cwd: REPO, stdout: "inherit", stderr: "inherit" });
    if (r.exitCode !== 0) throw new Error("dist/bc is missing and 'npm run build' failed");
  }
  dir = mkdtempSync(join(tmpdir(), "bc-alone-"));
  bin = join(dir, EXE);
  copyFileSync(BUILT, bin);
  if (process.platform !== "win32") Bun.spawnSync(["chmod", "755", bin]);
  // a bunfig.toml beside it must be ignored: the binary is built with bunfig autoloading off.
  // (.env autoloading is off too, but nothing bc prints would show an .env value, so it is not asserted here.)
  writeFileSync(join(dir, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
  writeFileSync(join(dir, "preload.ts"), 'process.stderr.write("PRELOADED\\n");\n');
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the folder holds the binary alone, with no node_modules or package.json above it", () => {
  expect(readdirSync(dir).sort()).toEqual([EXE, "bunfig.toml", "preload.ts"].sort());
  for (let d = dir; ; d = dirname(d)) {
    expect(existsSync(join(d, "node_modules")), `${d}/node_modules`).toBe(false);
    expect(existsSync(join(d, "package.json")), `${d}/package.json`).toBe(false);
    if (dirname(d) === d) break;
  }
  expect(statSync(bin).size).toBeGreaterThan(1_000_000);
});

describe("answers", () => {
  test("--version: the version, commit and Bun runtime on stdout, nothing on stderr", () => {
    const r = bc("--version");
    expect({ ...r, stdout: "" }).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(r.stdout).toMatch(
      new RegExp(
        `^better-compaction ${pkg.version.replace(/\./g, "\\.")} \\(commit ([0-9a-f]{12}(-dirty)?|unknown), bun ${Bun.version.replace(/\./g, "\\.")}\\)\n$`,
      ),
    );
  });

  test("a bunfig.toml with a preload beside the binary is not loaded", () => {
    const r = bc("--version");
    expect(r.stderr).not.toContain("PRELOADED");
    expect(r.code).toBe(0);
  });

  test("--help lists every subcommand with one line each, on stdout only", async () => {
    const r = bc("--help");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).not.toMatch(/\x1b\[/);
    // the Commands block: "  name  description", wrapped lines indented under the description
    const entries = new Map<string, string>();
    let current: string | undefined;
    for (const l of r.stdout.slice(r.stdout.indexOf("Commands:")).split("\n").slice(1)) {
      const head = /^ {2}(\S+)\s+(.*)$/.exec(l);
      if (head) entries.set((current = head[1]!), head[2]!);
      else if (current !== undefined && /^\s{4,}\S/.test(l)) entries.set(current, `${entries.get(current)} ${l.trim()}`);
      else if (l.trim() === "") break;
    }
    const subs = main.subCommands as Record<string, () => Promise<CommandDef<any>>>;
    // the commands the hosts and bc itself run are named on one line after the others
    const unlisted = /^Run by the hosts or by bc itself, not by people: (.*)\.$/m.exec(r.stdout)?.[1]?.split(", ") ?? [];
    for (const [name, load] of Object.entries(subs)) {
      const cmd = await load();
      const meta = typeof cmd.meta === "function" ? await cmd.meta() : await cmd.meta;
      if (meta?.hidden) {
        expect(unlisted, `'${name}' is not named`).toContain(name);
        expect(entries.has(name)).toBe(false);
        continue;
      }
      expect(entries.get(name), `no entry for '${name}'`).toBeDefined();
      expect(entries.get(name)!.replace(/\s+/g, " ")).toBe(`${meta?.description ?? ""}`.trim().replace(/\s+/g, " "));
    }
    expect(unlisted.sort()).toEqual(["codex-hook", "eval-worker", "mcp"]);
    // it fits a terminal
    expect(r.stdout.split("\n").every((l) => l.length <= 80)).toBe(true);
    expect(r.stdout.trimEnd().split("\n").length).toBeLessThanOrEqual(45);
  });

  test("each subcommand's --help works from the binary (lazy subcommands are bundled)", () => {
    for (const name of Object.keys(main.subCommands as object)) {
      const r = bc(name, "--help");
      expect([name, r.code, r.stderr]).toEqual([name, 0, ""]);
      expect(r.stdout).toContain(`bc ${name}`);
    }
  });
});

test("bc eval in worker processes (the binary starting itself) writes the report one process writes", () => {
  const outs = mkdtempSync(join(tmpdir(), "bc-alone-eval-"));
  try {
    const reports = ["1", "2"].map((jobs) => {
      const r = bc("eval", "--demo", "--jobs", jobs, "--out", join(outs, jobs));
      expect([jobs, r.code]).toEqual([jobs, 0]);
      expect(r.stderr).not.toContain("worker process ended early");
      return readFileSync(join(outs, jobs, "report.json"), "utf8");
    });
    expect(reports[1]).toBe(reports[0]!);
    expect(JSON.parse(reports[0]!).corpus.sessions).toBeGreaterThan(1);
  } finally {
    rmSync(outs, { recursive: true, force: true });
  }
}, 120_000);

describe("misuse: one line and a hint on stderr, exit 2, no stack trace", () => {
  test("unknown subcommand", () => {
    expectOneLineError(bc("frobnicate"), "unknown command 'frobnicate'");
  });

  test("bad flag on bc", () => {
    expectOneLineError(bc("--frob"), "unknown option '--frob' for 'bc'");
  });

  test("bad flag on a subcommand", () => {
    expectOneLineError(bc("inspect", "--frob"), "unknown option '--frob' for 'bc inspect'");
  });

  test("no subcommand (as better-compaction, which never hands over to the calculator): usage on stderr, exit 2", () => {
    const spawned = Bun.spawnSync([bin], { argv0: "better-compaction", cwd: dir, env: { PATH: "/usr/bin:/bin", HOME: dir }, stdout: "pipe", stderr: "pipe" });
    const r = { code: spawned.exitCode, stdout: spawned.stdout.toString(), stderr: spawned.stderr.toString() };
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Usage: bc <command>");
  });
});
