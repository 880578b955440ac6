// The CLI's edge, driven as a user drives it: `bun src/main.ts ...` in a child process.
// Version, help listing every subcommand, and the one-line error + hint + exit 2 for misuse.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { CommandDef } from "citty";
import pkg from "../../package.json" with { type: "json" };
import { main } from "../../src/main.ts";

const REPO = join(import.meta.dir, "..", "..");
const MAIN = join(REPO, "src", "main.ts");

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const bc = (...args: string[]): Run => {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.BC_DEBUG;
  const r = Bun.spawnSync([process.execPath, MAIN, ...args], { cwd: REPO, env, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

const STACK_LINE = /^\s+at\s|\.ts:\d+:\d+|\bError:\s/m;
const ANSI = /\x1b\[/;

const subcommands = async (): Promise<[string, string][]> => {
  const subs = main.subCommands as Record<string, () => Promise<CommandDef<any>>>;
  const out: [string, string][] = [];
  for (const [name, load] of Object.entries(subs)) {
    const cmd = await load();
    const meta = typeof cmd.meta === "function" ? await cmd.meta() : await cmd.meta;
    out.push([name, meta?.description ?? ""]);
  }
  return out;
};

/** A misuse answers with exactly two lines on stderr: `bc: <what>` and `hint: <what to do>`. */
const expectOneLineError = (r: Run, message: string): void => {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(2);
  expect(lines[0]).toBe(`bc: ${message}`);
  expect(lines[1]).toMatch(/^hint: .*--help/);
  expect(r.stderr).not.toMatch(STACK_LINE);
};

describe("bc --version", () => {
  test("--version names the package version, the commit and the Bun runtime on stdout", () => {
    const r = bc("--version");
    expect({ ...r, stdout: "" }).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(r.stdout).toStartWith(`better-compaction ${pkg.version} (commit `);
    expect(r.stdout).toEndWith(`, bun ${Bun.version})\n`);
  });
});

describe("bc --help", () => {
  test.each(["--help", "-h", "help"])("%s lists every subcommand with its one-line description", async (arg) => {
    const r = bc(arg);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).not.toMatch(ANSI); // a pipe gets plain text
    const subs = await subcommands();
    expect(subs.length).toBeGreaterThanOrEqual(5);
    const lines = r.stdout.split("\n");
    for (const [name, description] of subs) {
      expect(description.length).toBeGreaterThan(0);
      const line = lines.find((l) => l.trim().startsWith(`${name} `));
      expect(line, `no line for '${name}' in:\n${r.stdout}`).toBeDefined();
      expect(line!.trim().replace(/\s+/g, " ")).toBe(`${name} ${description}`.replace(/\s+/g, " ").trim());
    }
  });

  test("every subcommand explains itself with --help", async () => {
    for (const [name, description] of await subcommands()) {
      const r = bc(name, "--help");
      expect(r.code, `bc ${name} --help: ${r.stderr}`).toBe(0);
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain(description);
      expect(r.stdout).toContain(`bc ${name}`);
    }
  });

  test("no subcommand at all (as better-compaction: never the calculator's): usage on stderr, exit 2, nothing on stdout", () => {
    const spawned = Bun.spawnSync([process.execPath, MAIN], { argv0: "better-compaction", cwd: REPO, stdout: "pipe", stderr: "pipe" });
    const r = { code: spawned.exitCode, stdout: spawned.stdout.toString(), stderr: spawned.stderr.toString() };
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("USAGE");
    expect(r.stderr).not.toMatch(STACK_LINE);
  });
});

describe("misuse: a one-line error, a hint, exit 2, no stack trace", () => {
  test("unknown subcommand", () => {
    expectOneLineError(bc("frobnicate"), "unknown command 'frobnicate'");
  });

  test("unknown subcommand with arguments after it", () => {
    expectOneLineError(bc("frobnicate", "--json", "x.jsonl"), "unknown command 'frobnicate'");
  });

  test.each([{ argv: ["--frob"] }, { argv: ["--frob", "inspect"] }, { argv: ["-x"] }])("unknown flag on bc itself: $argv", ({ argv }) => {
    expectOneLineError(bc(...argv), `unknown option '${argv[0]}' for 'bc'`);
  });

  test("unknown flag on each subcommand", async () => {
    for (const [name] of await subcommands()) {
      expectOneLineError(bc(name, "--no-such-flag"), `unknown option '--no-such-flag' for 'bc ${name}'`);
    }
  });
});
