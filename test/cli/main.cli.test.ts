// The CLI's edge, driven as a user drives it: `bun src/main.ts ...` in a child process.
// Version, help listing every subcommand, and the one-line error + hint + exit 2 for misuse.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CommandDef } from "citty";
import pkg from "../../package.json" with { type: "json" };
import { helpWidth, renderHelp } from "../../src/cli/help.ts";
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

/** Every subcommand's name and description, and whether it is hidden (run by the hosts or by bc itself). */
const subcommands = async (): Promise<[string, string, boolean][]> => {
  const subs = main.subCommands as Record<string, () => Promise<CommandDef<any>>>;
  const out: [string, string, boolean][] = [];
  for (const [name, load] of Object.entries(subs)) {
    const cmd = await load();
    const meta = typeof cmd.meta === "function" ? await cmd.meta() : await cmd.meta;
    out.push([name, meta?.description ?? "", meta?.hidden === true]);
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
  test("bc help <command> is that command's help, as bc <command> --help gives it", () => {
    const r = bc("help", "plan");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(bc("plan", "--help").stdout);
    expect(bc("help", "codex", "install").stdout).toBe(bc("codex", "install", "--help").stdout);
    expectOneLineError(bc("help", "frobnicate"), "unknown command 'frobnicate'");
  });

  test.each(["--help", "-h", "help"])("%s lists every subcommand with its one-line description", async (arg) => {
    const r = bc(arg);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).not.toMatch(ANSI); // a pipe gets plain text
    const subs = await subcommands();
    expect(subs.length).toBeGreaterThanOrEqual(5);
    // a description wraps onto the lines below its command, indented
    const flat = r.stdout.replace(/\s+/g, " ");
    for (const [name, description, hidden] of subs) {
      expect(description.length).toBeGreaterThan(0);
      if (hidden) expect(flat).not.toContain(` ${name} ${description}`.replace(/\s+/g, " "));
      else expect(flat, `no entry for '${name}' in:\n${r.stdout}`).toContain(` ${name} ${description}`.replace(/\s+/g, " "));
    }
    // the hidden ones are named, on one line
    const hidden = subs.filter(([, , h]) => h).map(([name]) => name);
    expect(hidden.length).toBeGreaterThan(0);
    expect(flat).toContain(`Run by the hosts or by bc itself, not by people: ${hidden.join(", ")}.`);
  });

  test("every subcommand explains itself with --help", async () => {
    for (const [name, description] of await subcommands()) {
      const r = bc(name, "--help");
      expect(r.code, `bc ${name} --help: ${r.stderr}`).toBe(0);
      expect(r.stderr).toBe("");
      expect(r.stdout.replace(/\s+/g, " ")).toContain(description.replace(/\s+/g, " "));
      expect(r.stdout).toStartWith(`Usage: bc ${name} `);
    }
  });

  test("no subcommand at all (as better-compaction: never the calculator's): usage on stderr, exit 2, nothing on stdout", () => {
    const spawned = Bun.spawnSync([process.execPath, MAIN], { argv0: "better-compaction", cwd: REPO, stdout: "pipe", stderr: "pipe" });
    const r = { code: spawned.exitCode, stdout: spawned.stdout.toString(), stderr: spawned.stderr.toString() };
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toStartWith("Usage: bc <command>");
    expect(r.stderr).not.toMatch(STACK_LINE);
  });
});

/** Every command path under bc: ["inspect"], ["claude", "install"], ... */
const commandPaths = async (): Promise<string[][]> => {
  const out: string[][] = [];
  const walk = async (cmd: CommandDef<any>, path: string[]): Promise<void> => {
    const subs = (typeof cmd.subCommands === "function" ? await cmd.subCommands() : await cmd.subCommands) as
      | Record<string, CommandDef<any> | (() => Promise<CommandDef<any>>)>
      | undefined;
    for (const [name, sub] of Object.entries(subs ?? {})) {
      const c = typeof sub === "function" ? await sub() : sub;
      out.push([...path, name]);
      await walk(c, [...path, name]);
    }
  };
  await walk(main, []);
  return out;
};

/** bc in a pseudo-terminal of `cols` columns (script(1)): what a person sees. */
const inTerminal = (cols: number, ...args: string[]): string => {
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = `stty cols ${cols}; ${[process.execPath, MAIN, ...args].map(q).join(" ")}`;
  const r = Bun.spawnSync(["/usr/bin/script", "-qefc", cmd, "/dev/null"], {
    cwd: REPO,
    env: { HOME: process.env.HOME ?? "/", SHELL: "/bin/sh", NO_COLOR: "1" },
    stdin: "ignore",
    stdout: "pipe",
  });
  return r.stdout.toString().replace(/\r\n/g, "\n");
};

describe("help fits the terminal and speaks as users type", () => {
  test("every command's help: 80 columns through a pipe, a usage line starting with 'bc', flags in kebab-case", async () => {
    const paths = await commandPaths();
    expect(paths.map((p) => p.join(" "))).toContain("claude install");
    expect(helpWidth({ isTTY: false, columns: 200 })).toBe(80);
    for (const path of [[], ...paths]) {
      let cmd: CommandDef<any> = main;
      for (const word of path) {
        const subs = (await (cmd.subCommands as any)) as Record<string, any>;
        cmd = typeof subs[word] === "function" ? await subs[word]() : subs[word];
      }
      const text = await renderHelp(cmd, ["bc", ...path], helpWidth({ isTTY: false }));
      const lines = text.split("\n");
      expect(lines[0]).toStartWith(`Usage: ${["bc", ...path].join(" ")}`);
      for (const l of lines) expect(l.length, `bc ${path.join(" ")} --help: '${l}'`).toBeLessThanOrEqual(80);
      expect(text).not.toMatch(/--[a-z]+[A-Z]/); // no --dryRun
    }
    const fork = bc("codex-fork", "--help").stdout; // through a pipe, as a script reads it
    expect(fork).toMatch(/^ {2}--dry-run /m);
    expect(fork).toMatch(/^ {2}--out-dir <dir> /m);
  });

  test("in a terminal, help wraps to its width, never padded past it", () => {
    for (const cols of [100]) {
      const lines = inTerminal(cols, "--help").trimEnd().split("\n");
      expect(lines[0]).toBe("Usage: bc <command> [options]");
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(cols);
      // the long descriptions use the room there is
      expect(Math.max(...lines.map((l) => l.length))).toBeGreaterThan(cols - 12);
    }
  });

  test("an unknown command gets 'did you mean'", () => {
    const r = bc("inpsect", "x.jsonl");
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe("bc: unknown command 'inpsect'; did you mean 'bc inspect'?");
    expect(bc("claude", "instal").stderr.split("\n")[0]).toBe("bc: unknown command 'instal'; did you mean 'bc claude install'?");
  });

  test("bc completion bash completes commands, flags and enum values in bash", () => {
    const script = bc("completion", "bash");
    expect(script.code).toBe(0);
    const complete = (...words: string[]): string => {
      const r = Bun.spawnSync(
        [
          "bash",
          "-c",
          `source /dev/stdin; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _bc_better_compaction; echo "\${COMPREPLY[*]}"`,
        ],
        { stdin: Buffer.from(script.stdout), stdout: "pipe", stderr: "pipe" },
      );
      return r.stdout.toString().trim();
    };
    expect(complete("bc", "pl")).toBe("plan");
    // the commands the hosts and bc itself run are not offered, as help does not describe them
    expect(complete("bc", "e")).toBe("eval");
    expect(complete("bc", "m")).toBe("");
    expect(complete("bc", "codex")).toBe("codex-fork codex");
    expect(complete("bc", "codex-fork", "--d")).toBe("--dry-run");
    expect(complete("bc", "codex-fork", "--context", "")).toBe("fresh keep");
    expect(complete("bc", "claude", "")).toBe("install uninstall status log --help");
    expect(complete("bc", "claude", "install", "--no")).toBe("--no-register");
    // the shells, not files; a flag taking a path completes files, one taking a number nothing
    expect(complete("bc", "completion", "")).toBe("bash zsh fish --help");
    expect(complete("bc", "eval", "--need-weights", "package.j")).toBe("package.json");
    expect(complete("bc", "recall", "--session", "package.j")).toBe("package.json");
    expect(complete("bc", "plan", "--budget", "package.j")).toBe("");
  });

  test.each(["zsh", "fish"])("bc completion %s prints a script for that shell", (shell) => {
    const r = bc("completion", shell);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(shell === "zsh" ? "bashcompinit" : "complete -c bc -n '__bc_at codex-fork' -l dry-run");
    // fish: its own completion for the bc calculator is erased first; the shells are offered
    if (shell === "fish") {
      expect(r.stdout).toContain("complete -c bc -e\n");
      expect(r.stdout).toContain("complete -c bc -n '__bc_at completion' -a 'bash zsh fish'");
      // a description is its first clause, not cut at a dot inside a name; --version; the second name completes as bc
      expect(r.stdout).toContain("-l out -r -F -d 'Folder for report.md, report.json and report.html'");
      expect(r.stdout).toContain("complete -c bc -n __fish_use_subcommand -l version");
      expect(r.stdout).toContain("complete -c better-compaction -w bc\n");
    } else expect(r.stdout).toContain("complete -o filenames -F _bc_better_compaction bc better-compaction\n");
    // where the shell is installed, the script loads in a bare one (zsh: before compinit ran)
    const bin = Bun.which(shell);
    if (bin !== null) {
      const run = Bun.spawnSync(shell === "zsh" ? [bin, "-f", "-c", "source /dev/stdin"] : [bin, "--no-config", "-c", "source"], {
        stdin: Buffer.from(r.stdout),
        stdout: "pipe",
        stderr: "pipe",
      });
      expect({ code: run.exitCode, stderr: run.stderr.toString() }).toEqual({ code: 0, stderr: "" });
    }
  });

  // fish itself, where installed: what it offers for a command line (complete -C)
  test.skipIf(Bun.which("fish") === null)("fish: the command is where the line's words put it, not any word anywhere", () => {
    const dir = mkdtempSync(join(tmpdir(), "bc-fish-"));
    const script = join(dir, "bc.fish");
    writeFileSync(script, bc("completion", "fish").stdout);
    const offered = (line: string): string[] => {
      const run = Bun.spawnSync([Bun.which("fish")!, "--no-config", "-c", `source ${script}; complete -C ${JSON.stringify(line)}`], {
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(run.stderr.toString()).toBe("");
      return run.stdout
        .toString()
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => l.split("\t")[0]!);
    };
    expect(offered("bc claude ")).toEqual(["install", "log", "status", "uninstall"]);
    expect(offered("bc claude log --j")).toEqual(["--json"]);
    // a folder named claude given to eval is a path, not the claude command
    expect(offered("bc eval claude ")).not.toContain("install");
    expect(offered("bc eval claude --ho")).toEqual(["--host"]);
    expect(offered("better-compaction codex ")).toEqual(["install", "log", "status", "uninstall"]);
    rmSync(dir, { recursive: true, force: true });
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

  test.each([
    { argv: ["recall", "toolu_1", "toolu_2"], said: "unexpected argument 'toolu_2': bc recall takes one argument" },
    { argv: ["claude", "status", "extra"], said: "unexpected argument 'extra': bc claude status takes no arguments" },
    { argv: ["claude", "install", "x"], said: "unexpected argument 'x': bc claude install takes no arguments" },
    { argv: ["claude", "uninstall", "x"], said: "unexpected argument 'x': bc claude uninstall takes no arguments" },
    { argv: ["claude", "log", "a", "b"], said: "unexpected argument 'b': bc claude log takes one argument" },
    { argv: ["completion", "bash", "extra"], said: "unexpected argument 'extra': bc completion takes one argument" },
  ])("an argument more than a command takes: $argv", ({ argv, said }) => {
    expectOneLineError(bc(...argv), said);
  });

  test.each(["no", "0", "off", "yes"])("a switch given a value other than true or false (--json=%s): refused, not taken as on", (value) => {
    expectOneLineError(bc("claude", "status", `--json=${value}`), `--json is a switch: give it alone, or =true or =false, not '${value}'`);
  });

  test("unknown flag on each subcommand", async () => {
    for (const [name] of await subcommands()) {
      expectOneLineError(bc(name, "--no-such-flag"), `unknown option '--no-such-flag' for 'bc ${name}'`);
    }
  });
});
