// install.sh end to end: the release binaries built by `npm run build:all` (once per run),
// served with SHA256SUMS by a local HTTP server on 127.0.0.1 laid out as GitHub's release
// downloads, installed with the real download path (curl), then the installed binary driven
// beside a stand-in calculator `bc` ahead of or behind it on PATH.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { hostTargetName } from "../../build/compile.ts";
import { ensureClaude } from "./support/claude-install.ts";

const REPO = join(import.meta.dir, "..", "..");
const DIST = join(REPO, "dist");
const INSTALLER = join(REPO, "install.sh");
const SESSION = join(REPO, "test", "fixtures", "codex", "fork-paginated-0.150.1.jsonl");
const ASSET = `bc-${hostTargetName()}`;
const supported = process.platform === "linux" || process.platform === "darwin";

setDefaultTimeout(60_000); // each install moves a ~100 MB binary through a local server

const tmp = mkdtempSync(join(tmpdir(), "bc-install-e2e-"));
const requests: string[] = [];
/** version -> file name -> bytes or a path under dist/ */
const releases = new Map<string, Map<string, string | Uint8Array>>();
let server: ReturnType<typeof Bun.serve> | undefined;
let base = "";

/** A folder with symlinks to the tools install.sh uses, and none named bc. */
const tools = join(tmp, "tools");
const TOOLS = [
  "sh",
  "uname",
  "curl",
  "awk",
  "sha256sum",
  "shasum",
  "mktemp",
  "grep",
  "cp",
  "mv",
  "ln",
  "rm",
  "chmod",
  "mkdir",
  "cut",
  "tail",
  "ls",
  "ldd",
  "sed",
  "cat",
  "sysctl",
];

/** A stand-in calculator: records its arguments and input (lines joined), answers, exits 7. */
const calcDir = join(tmp, "calc");
const CALLS = join(tmp, "calc-calls");

const dirOf = (name: string): string => {
  const d = join(tmp, name);
  mkdirSync(d, { recursive: true });
  return d;
};

beforeAll(() => {
  if (!supported) return;
  const built = Bun.spawnSync([process.execPath, join(REPO, "build", "compile.ts"), "--all"], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  if (built.exitCode !== 0) throw new Error(`npm run build:all failed:\n${built.stderr.toString()}`);
  const sums = readFileSync(join(DIST, "SHA256SUMS"), "utf8");
  const real = new Map<string, string | Uint8Array>([
    ["SHA256SUMS", sums],
    ["install.sh", INSTALLER],
  ]);
  for (const line of sums.trim().split("\n")) real.set(line.split(/\s+/)[1]!, join(DIST, line.split(/\s+/)[1]!));
  releases.set(pkg.version, real);
  // a release whose checksum for this platform is wrong
  const flipped = sums.replace(
    new RegExp(`^([0-9a-f])([0-9a-f]{63})  ${ASSET}$`, "m"),
    (_m, c: string, rest: string) => `${c === "0" ? "1" : "0"}${rest}  ${ASSET}`,
  );
  releases.set("0.0.1", new Map([...real, ["SHA256SUMS", flipped]]));
  // a release with no build for this platform
  releases.set(
    "0.0.2",
    new Map(
      [...real]
        .filter(([f]) => f !== ASSET)
        .map(([f, v]) => [
          f,
          f === "SHA256SUMS"
            ? sums
                .split("\n")
                .filter((l) => !l.endsWith(`  ${ASSET}`))
                .join("\n")
            : v,
        ]),
    ),
  );
  // a release whose SHA256SUMS lists the binary, but the binary is not there
  releases.set("0.0.3", new Map([...real].filter(([f]) => f !== ASSET)));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      requests.push(path);
      const m = /^\/releases\/(?:latest\/download|download\/v([^/]+))\/([^/]+)$/.exec(path);
      const file = m ? releases.get(m[1] ?? pkg.version)?.get(m[2]!) : undefined;
      if (file === undefined) return new Response("Not Found", { status: 404 });
      return new Response(typeof file === "string" && file.startsWith("/") ? Bun.file(file) : file);
    },
  });
  base = `http://127.0.0.1:${server.port}/releases`;
  mkdirSync(tools, { recursive: true });
  for (const t of TOOLS) {
    const p = Bun.which(t);
    if (p) symlinkSync(p, join(tools, t));
  }
  mkdirSync(calcDir, { recursive: true });
  writeFileSync(
    join(calcDir, "bc"),
    `#!/bin/sh\nin=""\nwhile IFS= read -r l; do in="$in$l"; done\nprintf '%s|%s\\n' "$*" "$in" >> '${CALLS}'\necho "calculator: $* [$in]"\nexit 7\n`,
  );
  chmodSync(join(calcDir, "bc"), 0o755);
}, 600_000);

afterAll(() => {
  server?.stop(true);
  rmSync(tmp, { recursive: true, force: true });
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run install.sh (spawned without blocking: the server answering it lives in this process). */
const install = async (opts: { dir: string; path: string[]; args?: string[]; env?: Record<string, string>; cwd?: string }): Promise<Run> => {
  requests.length = 0;
  const child = Bun.spawn(["/bin/sh", INSTALLER, ...(opts.args ?? [])], {
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    env: { PATH: opts.path.join(":"), HOME: join(tmp, "home"), BC_DOWNLOAD_URL: base, BC_INSTALL_DIR: opts.dir, ...opts.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 120_000,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
};

const run = (bin: string, args: string[], path: string[], stdin = ""): Run & { calls: string } => {
  rmSync(CALLS, { force: true });
  const r = Bun.spawnSync([bin, ...args], {
    env: { PATH: path.join(":"), HOME: join(tmp, "home") },
    stdin: new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString(), calls: existsSync(CALLS) ? readFileSync(CALLS, "utf8") : "" };
};

const same = (a: string, b: string): boolean => Buffer.compare(readFileSync(a), readFileSync(b)) === 0;

describe.skipIf(!supported)("install.sh", () => {
  const dir = join(tmp, "installed");

  test("the latest release for this platform: verified, installed under both names, PATH warned about", async () => {
    const r = await install({ dir, path: [tools] });
    expect(r.code).toBe(0);
    expect(requests).toEqual(["/releases/latest/download/SHA256SUMS", `/releases/latest/download/${ASSET}`]);
    expect(readdirSync(dir).sort()).toEqual(["bc", "better-compaction"]);
    expect(same(join(dir, "bc"), join(DIST, ASSET))).toBe(true);
    expect(lstatSync(join(dir, "better-compaction")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, "better-compaction"))).toBe("bc");
    expect(r.stderr).toContain(`installed better-compaction ${pkg.version} (commit `);
    expect(r.stderr).toContain(`warning: ${dir} is not on your PATH`);
    for (const name of ["bc", "better-compaction"])
      expect(run(join(dir, name), ["--version"], [tools]).stdout).toStartWith(`better-compaction ${pkg.version} (commit `);
  });

  test("a given version, again over the first install, with a calculator ahead on PATH: warned, nothing left behind", async () => {
    const r = await install({ dir, path: [calcDir, tools, dir], args: ["--version", pkg.version] });
    expect(r.code).toBe(0);
    expect(requests).toEqual([`/releases/download/v${pkg.version}/SHA256SUMS`, `/releases/download/v${pkg.version}/${ASSET}`]);
    expect(readdirSync(dir).sort()).toEqual(["bc", "better-compaction"]);
    expect(r.stderr).toContain(`warning: 'bc' runs ${calcDir}/bc, which comes before ${dir} on PATH`);
    expect(r.stderr).not.toContain("not on your PATH");
  });

  test("no warning when the install folder comes first", async () => {
    const r = await install({ dir, path: [dir, tools, calcDir] });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("warning:");
  });

  describe("refusals leave nothing half-installed: the earlier install stays as it was", () => {
    const cases: [string, { args?: string[]; env?: Record<string, string> }, RegExp][] = [
      ["wrong checksum", { args: ["--version", "0.0.1"] }, new RegExp(`checksum mismatch for ${ASSET}: .*nothing was installed`)],
      ["no build for this platform in the release", { args: ["--version", "0.0.2"] }, new RegExp(`the release has no ${ASSET}`)],
      [
        "the binary missing from the release",
        { args: ["--version", "0.0.3"] },
        new RegExp(`could not download http://127\\.0\\.0\\.1:\\d+/releases/download/v0\\.0\\.3/${ASSET}$`, "m"),
      ],
      ["no such release", { args: ["--version", "9.9.9"] }, /could not download .*\/v9\.9\.9\/SHA256SUMS/],
      [
        "no network",
        { env: { BC_DOWNLOAD_URL: "http://127.0.0.1:9/releases" } },
        /could not download http:\/\/127\.0\.0\.1:9\/releases\/latest\/download\/SHA256SUMS/,
      ],
    ];
    test.each(cases)("%s", async (_name, opts, message) => {
      const before = readFileSync(join(dir, "bc"));
      const fresh = join(tmp, `fresh-${Math.random().toString(36).slice(2)}`);
      for (const target of [dir, fresh]) {
        const r = await install({ dir: target, path: [tools], ...opts });
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(message);
        expect(r.stderr).not.toContain("installed better-compaction");
      }
      expect(existsSync(fresh)).toBe(false);
      expect(readdirSync(dir).sort()).toEqual(["bc", "better-compaction"]);
      expect(Buffer.compare(readFileSync(join(dir, "bc")), before)).toBe(0);
    });

    test("another OS (uname says Darwin arm64): that build is fetched and checked, and refused for not running here", async () => {
      const fake = dirOf("fake-uname");
      writeFileSync(join(fake, "uname"), `#!/bin/sh\ncase "$1" in -s) echo Darwin ;; -m) echo arm64 ;; esac\n`);
      chmodSync(join(fake, "uname"), 0o755);
      const fresh = join(tmp, "fresh-darwin");
      const r = await install({ dir: fresh, path: [fake, tools] });
      expect(requests).toEqual(["/releases/latest/download/SHA256SUMS", "/releases/latest/download/bc-darwin-arm64"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("the downloaded bc-darwin-arm64 does not run on this machine; nothing was installed");
      expect(existsSync(fresh)).toBe(false);
    });

    test("no HOME and no folder given: refused before anything is fetched (never /.local/bin)", async () => {
      const r = await install({ dir: "", path: [tools], env: { HOME: "", BC_INSTALL_DIR: "" } });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("no install folder: HOME is not set; pass --dir or set BC_INSTALL_DIR");
      expect(requests).toEqual([]);
    });

    test("interrupted while the new binary is staged in the install folder: the staged copy goes too", async () => {
      // a cp that copies, then interrupts the installer that ran it (as Ctrl-C would, right then)
      const slow = dirOf("interrupting-cp");
      writeFileSync(
        join(slow, "cp"),
        `#!/bin/sh
'${Bun.which("cp")}' "$@" && kill -INT $PPID && sleep 1\n`,
      );
      chmodSync(join(slow, "cp"), 0o755);
      const fresh = join(tmp, "fresh-interrupted");
      const r = await install({ dir: fresh, path: [slow, tools] });
      expect(r.code).toBe(130);
      expect(readdirSync(fresh)).toEqual([]);
    });

    test("a bc in the install folder that is not ours (the calculator) is never replaced", async () => {
      const theirs = dirOf("theirs");
      writeFileSync(join(theirs, "bc"), readFileSync(join(calcDir, "bc")));
      const r = await install({ dir: theirs, path: [tools] });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${theirs}/bc exists and is not better-compaction; not replacing it`);
      expect(readdirSync(theirs)).toEqual(["bc"]);
      expect(readFileSync(join(theirs, "bc"), "utf8")).toContain("calculator:");
    });
  });
});

test.skipIf(!supported)("install.sh --dir <relative folder> with CDPATH exported: the folder given, from where it runs", async () => {
  const work = dirOf("cdpath-work");
  const elsewhere = dirOf("cdpath-elsewhere");
  mkdirSync(join(elsewhere, "bin"), { recursive: true });
  const r = await install({ dir: "", path: [tools], args: ["--dir", "bin"], env: { CDPATH: elsewhere }, cwd: work });
  expect(r.code).toBe(0);
  expect(readdirSync(join(work, "bin")).sort()).toEqual(["bc", "better-compaction"]);
  expect(readdirSync(join(elsewhere, "bin"))).toEqual([]);
});

describe.skipIf(!supported)("the installed bc beside a calculator", () => {
  const dir = join(tmp, "installed");
  const bc = (): string => join(dir, "bc");

  test("piped arithmetic goes to the calculator behind it: same input, its output and exit code", () => {
    const r = run(bc(), [], [dir, calcDir, tools], "scale=2; 10/4\n");
    expect(r).toEqual({ code: 7, stdout: "calculator:  [scale=2; 10/4]\n", stderr: "", calls: "|scale=2; 10/4\n" });
  });

  test("-l with a math file goes to the calculator ahead of it", () => {
    const math = join(tmp, "sine.bc");
    writeFileSync(math, "s(1)\n");
    const r = run(bc(), ["-l", math], [calcDir, dir, tools]);
    expect(r).toEqual({ code: 7, stdout: `calculator: -l ${math} []\n`, stderr: "", calls: `-l ${math}|\n` });
  });

  test.each([
    ["ahead", [calcDir, dir]],
    ["behind", [dir, calcDir]],
  ])("a real session stays ours, calculator %s", (_where, path) => {
    const inspect = run(bc(), ["inspect", SESSION], [...path, tools]);
    expect(inspect.code).toBe(0);
    expect(inspect.stdout).toContain("01a22a47-0b02-7450-aa68-52b75b593b3d");
    const plan = run(bc(), ["plan", SESSION], [...path, tools]);
    expect(plan.code).toBe(0);
    const bare = run(bc(), [SESSION], [...path, tools], "1+1\n");
    expect(bare.code).toBe(2);
    expect(bare.stderr).toStartWith(`bc: ${SESSION}: a session needs a command`);
    expect(inspect.calls + plan.calls + bare.calls).toBe("");
  });

  test("as better-compaction it never hands over", () => {
    const r = run(join(dir, "better-compaction"), ["-l"], [calcDir, tools]);
    expect(r.code).toBe(2);
    expect(r.stderr).toStartWith("bc: unknown option '-l' for 'bc'");
    expect(r.calls).toBe("");
  });

  test("no calculator on PATH: one line, exit 127", () => {
    const r = run(bc(), ["-l"], [dir, tools]);
    expect(r.code).toBe(127);
    expect(r.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^bc: no calculator 'bc' on PATH/)]);
  });

  test.skipIf(!Bun.which("script"))("no arguments at a terminal: our help, then where the calculator is", () => {
    const r = run("/usr/bin/script", ["-qec", bc(), "/dev/null"], [calcDir, tools]);
    expect(r.stdout).toContain("Usage: bc <command>");
    expect(r.stdout).toContain(`The calculator: ${calcDir}/bc.`);
    expect(r.calls).toBe("");
  });
});

describe.skipIf(!supported)("Claude Code", () => {
  const dir = join(tmp, "installed");
  const claudeDir = (): string => {
    const d = dirOf("claude-bin");
    if (!existsSync(join(d, "claude"))) symlinkSync(ensureClaude(), join(d, "claude"));
    return d;
  };
  const quiet = { DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" };

  test("the plugin the installed bc writes passes 'claude plugin validate' with no warning", () => {
    const market = join(tmp, "market");
    const wrote = Bun.spawnSync([join(dir, "bc"), "claude", "install", "--no-register", "--dir", market], {
      env: { PATH: tools, HOME: join(tmp, "home") },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(wrote.exitCode).toBe(0);
    const plugin = join(market, "plugins", "better-compaction");
    expect(existsSync(join(plugin, ".claude-plugin", "icon.png"))).toBe(true);
    const r = Bun.spawnSync([join(claudeDir(), "claude"), "plugin", "validate", plugin], {
      env: { PATH: tools, HOME: join(tmp, "home"), ...quiet },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 120_000,
    });
    const out = r.stdout.toString() + r.stderr.toString();
    expect(out).toContain("Validation passed");
    expect(out).not.toMatch(/warning|⚠|TS\d{4}/i);
    expect(r.exitCode).toBe(0);
  }, 300_000);

  test("with Claude Code on PATH and no terminal, the installer says how to register and does not", async () => {
    const r = await install({ dir, path: [dir, claudeDir(), tools], env: quiet });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("Claude Code: run 'bc claude install' to use bc for its compaction.");
    expect(existsSync(join(tmp, "home", ".claude", "better-compaction", "marketplace"))).toBe(false);
  }, 300_000);

  test("--yes: the installer runs 'bc claude install' with the Claude Code on PATH", async () => {
    const r = await install({ dir, path: [dir, claudeDir(), tools], args: ["--yes"], env: quiet });
    expect(r.code).toBe(0);
    expect(existsSync(join(tmp, "home", ".claude", "better-compaction", "marketplace", "plugins", "better-compaction", "hooks", "register.ts"))).toBe(true);
    const list = Bun.spawnSync([join(claudeDir(), "claude"), "plugin", "list", "--json"], {
      env: { PATH: tools, HOME: join(tmp, "home"), ...quiet },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 120_000,
    });
    expect(list.stdout.toString()).toContain("better-compaction@better-compaction-local");
  }, 300_000);
});
