#!/usr/bin/env bun
// `npm run test:e2e`: the end-to-end suite. Builds dist/bc when it is missing or older than
// its sources, then runs each test/e2e/<name>.e2e.ts in its own `bun test` process, one after
// the other (they start real hosts and servers; two cores do not run them side by side well).
// The unit run never sees these files: their names do not match *.test.ts.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { CODEX_LIVE_VERSIONS, hostTargets } from "./support/versions.ts";

const REPO = join(import.meta.dir, "..", "..");
const E2E = import.meta.dir;
const BIN = join(REPO, "dist", process.platform === "win32" ? "bc.exe" : "bc");
/** What dist/bc is built from: a change to any of these makes it stale. */
const SOURCES = ["src", "hooks", "build", "package.json", "package-lock.json"];

const HELP = `Usage: bun test/e2e/run.ts [--only <name>] [--list]

Build dist/bc if it is missing or older than src/, hooks/, build/ or package.json, then run
every test/e2e/<name>.e2e.ts in its own 'bun test' process, in turn, and sum the results.
Exits non-zero if any file fails. Host binaries are installed into test/e2e/.cache by the tests.

  --only <name>  run one file (e.g. --only binary, or --only codex.e2e.ts); repeatable
  --list         print the e2e files and exit
  --help         this text
`;

const say = (msg: string): void => {
  process.stderr.write(`e2e: ${msg}\n`);
};

const fail = (msg: string, code = 2): never => {
  process.stderr.write(`e2e: ${msg}\n`);
  process.exit(code);
};

/** Newest modification time under a path (files only), skipping caches and generated output. */
const newest = (path: string): number => {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = 0;
  for (const d of readdirSync(path, { withFileTypes: true })) {
    if (d.name === ".cache" || d.name === "node_modules") continue;
    max = Math.max(max, newest(join(path, d.name)));
  }
  return max;
};

const ensureBinary = (): void => {
  const built = existsSync(BIN) ? statSync(BIN).mtimeMs : 0;
  const source = Math.max(...SOURCES.map((s) => newest(join(REPO, s))));
  if (built > source) return;
  say(built === 0 ? "dist/bc is missing; building it" : "dist/bc is older than its sources; rebuilding it");
  const r = Bun.spawnSync([process.execPath, join(REPO, "build", "compile.ts")], { cwd: REPO, stdout: "inherit", stderr: "inherit" });
  if (r.exitCode !== 0) fail("build failed; no e2e test was run", 1);
};

const e2eFiles = (): string[] =>
  readdirSync(E2E)
    .filter((f) => f.endsWith(".e2e.ts"))
    .sort((a, b) => (a === "binary.e2e.ts" ? -1 : b === "binary.e2e.ts" ? 1 : a.localeCompare(b)));

/**
 * Files run again when they fail, and how many attempts in all: they drive the interactive Codex
 * TUI through tmux, reading its screen, where a keystroke can race what the screen shows (an Enter
 * pressed while a fresh Codex was still starting used to be lost), and every later step of the
 * file waits on the one before. Each attempt is printed.
 */
const CODEX_LIVE_FILES: readonly string[] = ["codex-live.e2e.ts", "codex-live-failures.e2e.ts"];
const RETRIED: Readonly<Record<string, number>> = Object.fromEntries(CODEX_LIVE_FILES.map((f) => [f, 3]));
const RETRY_WHY = "it drives the interactive Codex TUI through tmux, where a keystroke can race the screen: running it again";

interface Result {
  readonly file: string;
  readonly pass: number;
  readonly fail: number;
  readonly skip: number;
  readonly code: number;
  readonly seconds: number;
}

/** Copy a child's stream to ours as it arrives, keeping the text to read bun test's totals. */
const tee = async (from: ReadableStream<Uint8Array>, to: NodeJS.WriteStream): Promise<string> => {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of from) {
    to.write(chunk);
    text += decoder.decode(chunk, { stream: true });
  }
  return text;
};

const count = (text: string, word: string): number => Number(new RegExp(`^\\s*(\\d+) ${word}$`, "m").exec(text)?.[1] ?? 0);

let child: ReturnType<typeof Bun.spawn> | undefined;

const runFile = async (file: string, env: Record<string, string> = {}): Promise<Result> => {
  const started = performance.now();
  child = Bun.spawn([process.execPath, "test", `./${relative(REPO, join(E2E, file))}`], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([
    tee(child.stdout as ReadableStream<Uint8Array>, process.stdout),
    tee(child.stderr as ReadableStream<Uint8Array>, process.stderr),
  ]);
  const code = await child.exited;
  child = undefined;
  const text = out + err;
  return {
    file,
    pass: count(text, "pass"),
    fail: count(text, "fail"),
    skip: count(text, "skip"),
    code,
    seconds: (performance.now() - started) / 1000,
  };
};

const parseArgs = (argv: readonly string[]): { only: string[]; list: boolean } => {
  const only: string[] = [];
  let list = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--help" || a === "-h") {
      process.stdout.write(HELP);
      process.exit(0);
    } else if (a === "--list") list = true;
    else if (a === "--only") {
      const v = argv[++i];
      if (v === undefined || v.startsWith("-")) fail("--only needs a name, e.g. --only binary");
      only.push(v!);
    } else if (a.startsWith("--only=")) only.push(a.slice("--only=".length));
    else fail(`unknown option '${a}' (try --help)`);
  }
  return { only, list };
};

const main = async (): Promise<void> => {
  const { only, list } = parseArgs(process.argv.slice(2));
  const all = e2eFiles();
  if (list) {
    process.stdout.write(`${all.map((f) => f.replace(/\.e2e\.ts$/, "")).join("\n")}\n`);
    return;
  }
  const wanted = only.map((n) => `${n.replace(/^.*\//, "").replace(/\.e2e\.ts$|\.ts$/, "")}.e2e.ts`);
  for (const w of wanted) if (!all.includes(w)) fail(`no test/e2e/${w} (have: ${all.map((f) => f.replace(/\.e2e\.ts$/, "")).join(", ")})`);
  const files = wanted.length > 0 ? all.filter((f) => wanted.includes(f)) : all;
  if (files.length === 0) fail("no test/e2e/*.e2e.ts files found", 1);

  process.on("SIGINT", () => {
    child?.kill("SIGINT");
    process.stderr.write("\ne2e: interrupted\n");
    process.exit(130);
  });

  ensureBinary();
  // claude.e2e.ts drives one Claude Code per process, and the live Codex files one Codex: each
  // runs once for each version in support/versions.ts
  const runs = files.flatMap((file) => {
    if (file === "claude.e2e.ts" && !process.env.BC_E2E_CLAUDE_BIN)
      return hostTargets("claude").map((t) => ({ file, label: `${file} (Claude Code ${t.version})`, env: { BC_E2E_CLAUDE_VERSIONS: t.version } }));
    if (CODEX_LIVE_FILES.includes(file) && !process.env.BC_CODEX_LIVE_VERSION)
      return CODEX_LIVE_VERSIONS.map((v) => ({ file, label: `${file} (Codex ${v})`, env: { BC_CODEX_LIVE_VERSION: v } }));
    return [{ file, label: file, env: {} }];
  });
  const results: Result[] = [];
  for (const [i, { file, label, env }] of runs.entries()) {
    say(`[${i + 1}/${runs.length}] ${label}`);
    let r = { ...(await runFile(file, env)), file: label };
    for (let attempt = 2; r.code !== 0 && attempt <= (RETRIED[file] ?? 1); attempt++) {
      say(`[${i + 1}/${runs.length}] ${label}: FAILED (${r.fail} fail); attempt ${attempt} of ${RETRIED[file]}: ${RETRY_WHY}`);
      r = { ...(await runFile(file, env)), file: `${label} (attempt ${attempt})` };
    }
    results.push(r);
    say(`[${i + 1}/${runs.length}] ${label}: ${r.code === 0 ? "ok" : "FAILED"}, ${r.pass} pass, ${r.fail} fail, ${r.skip} skip, ${r.seconds.toFixed(1)} s`);
  }

  const width = Math.max(...results.map((r) => r.file.length));
  const lines = results.map(
    (r) =>
      `  ${r.code === 0 ? "ok    " : "FAILED"}  ${r.file.padEnd(width)}  ${String(r.pass).padStart(4)} pass  ${String(r.fail).padStart(3)} fail  ${String(r.skip).padStart(3)} skip  ${r.seconds.toFixed(1).padStart(6)} s`,
  );
  const sum = (k: "pass" | "fail" | "skip"): number => results.reduce((n, r) => n + r[k], 0);
  const failed = results.filter((r) => r.code !== 0);
  const total = results.reduce((n, r) => n + r.seconds, 0);
  process.stderr.write(
    `\ne2e summary\n${lines.join("\n")}\n  ${failed.length === 0 ? "all passed" : `${failed.length} of ${results.length} files FAILED`}: ${sum("pass")} pass, ${sum("fail")} fail, ${sum("skip")} skip in ${total.toFixed(1)} s\n`,
  );
  if (failed.length > 0) process.exit(1);
};

await main();
