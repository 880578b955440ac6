// Living beside the calculator `bc`: which arguments are the calculator's, and the hand-over
// itself, driven through `bc` wrappers of src/main.ts and a stand-in calculator on PATH.
// (The compiled binary is driven the same way by test/e2e/install.e2e.ts.)
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileKind, findCalculator, routeOf, type FileKind, type RouteContext } from "../../src/cli/calculator.ts";

const REPO = join(import.meta.dir, "..", "..");
const SESSION = join(REPO, "test", "fixtures", "codex", "fork-paginated-0.150.1.jsonl");
const tmp = mkdtempSync(join(tmpdir(), "bc-calculator-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const SUBS = ["inspect", "plan", "codex-fork", "eval", "claude"];
const noRead = (): FileKind => {
  throw new Error("read a file for one of our commands");
};
const ctx = (over: Partial<RouteContext> = {}): RouteContext => ({ subcommands: SUBS, stdinIsTerminal: false, asBc: true, fileKind: noRead, ...over });
const kinds =
  (table: Record<string, FileKind>) =>
  (p: string): FileKind =>
    table[p] ?? "missing";

describe("routeOf", () => {
  test.each([
    ["no arguments, piped input", [], {}, "calculator"],
    ["no arguments at a terminal", [], { stdinIsTerminal: true }, "help"],
    ["no arguments, piped, started as better-compaction", [], { asBc: false }, "help"],
    ["-l", ["-l"], {}, "calculator"],
    ["-lq (flags combined)", ["-lq"], {}, "calculator"],
    ["-v (the calculator's version)", ["-v"], {}, "calculator"],
    ["--mathlib --quiet", ["--mathlib", "--quiet"], {}, "calculator"],
    ["-e with an expression", ["-e", "2+2"], {}, "calculator"],
    ["-l, started as better-compaction", ["-l"], { asBc: false }, "ours"],
    ["--help", ["--help"], {}, "ours"],
    ["--version", ["--version"], {}, "ours"],
    ["a subcommand with a session", ["plan", "x.jsonl"], {}, "ours"],
    ["a subcommand with a calculator flag after it", ["inspect", "-l"], {}, "ours"],
    ["an option only we know", ["--json"], {}, "ours"],
  ] as const)("%s", (_name, argv, over, want) => {
    expect(routeOf(argv, ctx(over)).to).toBe(want);
  });

  const files = kinds({ "math.bc": "other", "s.jsonl": "session", dir: "session" });
  test.each([
    ["a file that is not a session", ["math.bc"], "calculator"],
    ["-l and a math file", ["-l", "math.bc"], "calculator"],
    ["a session with no command", ["s.jsonl"], "session"],
    ["a calculator flag and a session", ["-l", "s.jsonl"], "session"],
    ["a folder", ["dir"], "session"],
    ["a word that is no file (a mistyped command)", ["inpsect"], "ours"],
    ["a math file and an unknown flag", ["math.bc", "--json"], "ours"],
  ] as const)("%s", (_name, argv, want) => {
    expect(routeOf(argv, ctx({ fileKind: files })).to).toBe(want);
  });

  test("a file that is not a session stays ours when started as better-compaction", () => {
    expect(routeOf(["math.bc"], ctx({ fileKind: files, asBc: false })).to).toBe("ours");
  });
});

describe("fileKind", () => {
  const write = (name: string, data: string | Uint8Array): string => {
    const p = join(tmp, name);
    writeFileSync(p, data);
    return p;
  };
  test.each([
    ["a Codex rollout", SESSION, "session"],
    ["JSON Lines under another name", () => write("log.txt", '{"type":"user"}\n'), "session"],
    ["JSON Lines after a BOM and blank lines", () => write("bom.txt", '\uFEFF\n\n  {"a":1}\n'), "session"],
    ["a zstd-compressed rollout under another name", () => write("z.bin", new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0, 0])), "session"],
    ["an empty .jsonl", () => write("empty.jsonl", ""), "session"],
    ["a folder", () => tmp, "session"],
    ["a math file", () => write("math.bc", "scale=2\n10/4\n"), "other"],
    ["an empty file", () => write("empty", ""), "other"],
    ["no such file", () => join(tmp, "nope"), "missing"],
  ] as const)("%s", (_name, path, want) => {
    expect(fileKind(typeof path === "function" ? path() : path)).toBe(want);
  });
});

// --- the hand-over, through the CLI ---

/** A folder holding one executable `bc` with the given script. */
const binDir = (name: string, script: string): string => {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "bc"), script);
  chmodSync(join(dir, "bc"), 0o755);
  return dir;
};
const CALLS = join(tmp, "calls");
/** Records its arguments and input (lines joined), answers like a calculator, exits 7. */
const calculator = binDir(
  "calc",
  `#!/bin/sh\nin=""\nwhile IFS= read -r l; do in="$in$l"; done\nprintf '%s|%s\\n' "$*" "$in" >> '${CALLS}'\necho "calculator: $* [$in]"\nexit 7\n`,
);
/** Ours, from source. */
const ours = binDir("ours", `#!/bin/sh\nexec '${process.execPath}' '${join(REPO, "src", "main.ts")}' "$@"\n`);
const ours2 = binDir("ours2", `#!/bin/sh\nexec '${process.execPath}' '${join(REPO, "src", "main.ts")}' "$@"\n`);

const run = (path: string[], args: string[], stdin = "") => {
  rmSync(CALLS, { force: true });
  const r = Bun.spawnSync([join(ours, "bc"), ...args], {
    env: { PATH: path.join(":"), HOME: tmp }, // the stand-ins use shell built-ins only
    stdin: new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString(), calls: existsSync(CALLS) ? readFileSync(CALLS, "utf8") : "" };
};

describe("hand-over", () => {
  test("findCalculator passes over the paths to skip and files that are not executable", () => {
    const plain = join(tmp, "plain");
    mkdirSync(plain, { recursive: true });
    writeFileSync(join(plain, "bc"), "not executable");
    expect(findCalculator([plain, ours, calculator].join(":"), new Set([join(ours, "bc")]))).toBe(join(calculator, "bc"));
    expect(findCalculator([plain, ours].join(":"), new Set([join(ours, "bc")]))).toBeUndefined();
  });

  test("piped arithmetic reaches the calculator behind ours: same input, its output and exit code", () => {
    const r = run([ours, calculator], [], "scale=2; 10/4\n");
    expect(r).toMatchObject({ code: 7, stdout: "calculator:  [scale=2; 10/4]\n", stderr: "", calls: "|scale=2; 10/4\n" });
  });

  test("-l with a math file, through two copies of ours ahead of the calculator (no loop)", () => {
    const math = join(tmp, "s.bc");
    writeFileSync(math, "s(1)\n");
    const r = run([ours, ours2, calculator], ["-l", math]);
    expect(r).toMatchObject({ code: 7, stdout: `calculator: -l ${math} []\n`, calls: `-l ${math}|\n` });
  });

  test("a session with our command stays ours, with the calculator ahead on PATH", () => {
    const r = run([calculator, ours], ["inspect", SESSION]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("01a22a47-0b02-7450-aa68-52b75b593b3d");
    expect(r.calls).toBe("");
  });

  test("a session with no command: a usage error, never the calculator", () => {
    const r = run([ours, calculator], [SESSION]);
    expect(r).toMatchObject({ code: 2, stdout: "", calls: "" });
    expect(r.stderr.split("\n")[0]).toBe(`bc: ${SESSION}: a session needs a command`);
  });

  test("no calculator on PATH: one line, exit 127", () => {
    const r = run([ours], ["-l"]);
    expect(r.code).toBe(127);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toStartWith("bc: no calculator 'bc' on PATH");
  });
});
