#!/usr/bin/env bun
// `npm run bench`: run every test/bench/*.bench.ts, each a plain bun script printing its own
// figures beside a reference, in its own process, one after the other (two cores: running
// them side by side would make both figures wrong). Lines a bench starts with "summary:" are
// collected and printed again at the end.
import { readdirSync } from "node:fs";
import { join } from "node:path";

const REPO = join(import.meta.dir, "..", "..");
const BENCH = import.meta.dir;

const HELP = `Usage: bun test/bench/run.ts [--only <name>] [-- <args for each bench>]

Run every test/bench/<name>.bench.ts in its own process, in turn, then print each one's
"summary:" lines. Benchmarks print figures, never pass/fail on speed; a bench that
crashes or exits non-zero is reported as FAILED and makes the run exit 1.

  --only <name>  run one bench (e.g. --only read); repeatable
  --help         this text
`;

const fail = (msg: string): never => {
  process.stderr.write(`bench: ${msg}\n`);
  process.exit(2);
};

const parseArgs = (argv: readonly string[]): { only: string[]; rest: string[] } => {
  const only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") return { only, rest: argv.slice(i + 1) };
    if (a === "--help" || a === "-h") {
      process.stdout.write(HELP);
      process.exit(0);
    } else if (a === "--only") {
      const v = argv[++i];
      if (v === undefined || v.startsWith("-")) fail("--only needs a name, e.g. --only read");
      only.push(v!.replace(/\.bench\.ts$/, ""));
    } else fail(`unknown option '${a}' (try --help)`);
  }
  return { only, rest: [] };
};

const main = async (): Promise<void> => {
  const { only, rest } = parseArgs(process.argv.slice(2));
  const all = readdirSync(BENCH)
    .filter((f) => f.endsWith(".bench.ts"))
    .sort();
  const names = all.map((f) => f.replace(/\.bench\.ts$/, ""));
  for (const o of only) if (!names.includes(o)) fail(`no test/bench/${o}.bench.ts (have: ${names.join(", ")})`);
  const files = only.length > 0 ? all.filter((f) => only.includes(f.replace(/\.bench\.ts$/, ""))) : all;

  const results: { name: string; code: number; seconds: number; summary: string[] }[] = [];
  for (const [i, file] of files.entries()) {
    const name = file.replace(/\.bench\.ts$/, "");
    process.stderr.write(`bench: [${i + 1}/${files.length}] ${name}\n`);
    const started = performance.now();
    const child = Bun.spawn([process.execPath, join(BENCH, file), ...rest], { cwd: REPO, stdin: "ignore", stdout: "pipe", stderr: "inherit" });
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of child.stdout) {
      process.stdout.write(chunk);
      text += decoder.decode(chunk, { stream: true });
    }
    const code = await child.exited;
    const summary = text
      .split("\n")
      .filter((l) => l.startsWith("summary:"))
      .map((l) => l.slice("summary:".length).trim());
    results.push({ name, code, seconds: (performance.now() - started) / 1000, summary });
  }

  const width = Math.max(0, ...results.map((r) => r.name.length));
  process.stdout.write("\nbench summary\n");
  for (const r of results) {
    const head = `  ${r.code === 0 ? "ok    " : "FAILED"}  ${r.name.padEnd(width)}  ${r.seconds.toFixed(1).padStart(5)} s`;
    process.stdout.write(
      r.summary.length === 0 ? `${head}\n` : `${r.summary.map((s, j) => (j === 0 ? `${head}  ${s}` : `${" ".repeat(head.length)}  ${s}`)).join("\n")}\n`,
    );
  }
  if (results.length === 0) process.stdout.write("  no test/bench/*.bench.ts files\n");
  if (results.some((r) => r.code !== 0)) process.exit(1);
};

await main();
