#!/usr/bin/env bun
// Read speed of the whole process: `bc inspect <file> --json` on the largest corpus file of
// each host, start-up included, beside the floor measured in the same run on the same file:
// a bun process that only reads the file and JSON.parses each line. Goal: >= 50 MB/s.
//
//   bun test/bench/read.bench.ts [--runs N]
//
// Uses dist/bc when it exists (build it with `npm run build`), else `bun src/main.ts`.
// Figures, not assertions: nothing here fails because a machine is slow.
import { existsSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { CORPUS_DIR, SKIP_NOTE, largestCorpusFile } from "../support/shared.ts";

const REPO = join(import.meta.dir, "..", "..");
const BIN = join(REPO, "dist", process.platform === "win32" ? "bc.exe" : "bc");
const GOAL_MB_S = 50;
const HOSTS = ["claude", "codex"] as const;

const FLOOR = `
const text = await Bun.file(process.argv[1]).text();
let n = 0;
for (const line of text.split("\\n")) if (line.length > 0) { JSON.parse(line); n++; }
process.stdout.write(String(n) + "\\n");
`;

const runsArg = (): number => {
  const i = process.argv.indexOf("--runs");
  const n = i === -1 ? 7 : Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write("read.bench: --runs needs a positive whole number\n");
    process.exit(2);
  }
  return n;
};

interface Timing {
  readonly medianMs: number;
  readonly bestMs: number;
  readonly maxRssMiB: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Time a command `runs` times after one warm-up run (file cache, JIT of the bun binary). */
const time = (cmd: string[], runs: number, check: (stdout: string) => void): Timing => {
  const ms: number[] = [];
  let rss = 0;
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const r = Bun.spawnSync(cmd, { cwd: REPO, stdout: "pipe", stderr: "pipe" });
    const elapsed = performance.now() - t0;
    if (r.exitCode !== 0) throw new Error(`'${cmd.map((c) => basename(c)).join(" ")}' exited ${r.exitCode}: ${r.stderr.toString().trim().split("\n")[0]}`);
    if (i === 0) {
      check(r.stdout.toString());
      continue;
    }
    ms.push(elapsed);
    rss = Math.max(rss, (r.resourceUsage?.maxRSS ?? 0) / 1024 / 1024); // bun reports maxRSS in bytes
  }
  return { medianMs: median(ms), bestMs: Math.min(...ms), maxRssMiB: rss };
};

const main = (): void => {
  const runs = runsArg();
  const useBinary = existsSync(BIN);
  const bc = useBinary ? [BIN] : [process.execPath, join(REPO, "src", "main.ts")];
  const label = useBinary ? "dist/bc inspect --json" : "bun src/main.ts inspect --json";
  process.stdout.write(`read.bench: ${label} vs floor (bun: read + JSON.parse each line), median of ${runs} runs after a warm-up\n`);
  if (!useBinary) process.stdout.write("read.bench: dist/bc not found; timing from source (run 'npm run build' to time the binary)\n");

  // start-up alone (`--version`), to tell a slow reader from a slow start on small files
  const startup = time([...bc, "--version"], runs, () => {});
  process.stdout.write(`read.bench: start-up alone (${useBinary ? "dist/bc" : "bun src/main.ts"} --version): ${startup.medianMs.toFixed(0)} ms median\n`);
  const rows: string[] = [];
  let worst = Infinity;
  let failed = false;
  for (const host of HOSTS) {
    const file = largestCorpusFile(host);
    if (!file) {
      process.stdout.write(`read.bench: ${host}: ${existsSync(CORPUS_DIR) ? "no corpus files" : SKIP_NOTE}; skipped\n`);
      continue;
    }
    const mb = statSync(file).size / 1e6;
    try {
      const floor = time([process.execPath, "-e", FLOOR, file], runs, (out) => {
        if (!/^\d+\n$/.test(out)) throw new Error(`floor printed '${out.trim()}'`);
      });
      const read = time([...bc, "inspect", file, "--json"], runs, (out) => {
        JSON.parse(out); // a fast error message must not pass for a fast read
      });
      const mbs = mb / (read.medianMs / 1000);
      const floorMbs = mb / (floor.medianMs / 1000);
      worst = Math.min(worst, mbs);
      rows.push(
        [
          host.padEnd(7),
          `${mb.toFixed(1).padStart(6)} MB`,
          `bc ${read.medianMs.toFixed(0).padStart(5)} ms (best ${read.bestMs.toFixed(0)})`,
          `${mbs.toFixed(1).padStart(6)} MB/s`,
          `(${(mb / (Math.max(1, read.medianMs - startup.medianMs) / 1000)).toFixed(0)} MB/s after start-up)`,
          `rss ${read.maxRssMiB.toFixed(0).padStart(4)} MiB`,
          `| floor ${floor.medianMs.toFixed(0).padStart(5)} ms`,
          `${floorMbs.toFixed(1).padStart(6)} MB/s`,
          `rss ${floor.maxRssMiB.toFixed(0).padStart(4)} MiB`,
          `| bc/floor time ${(read.medianMs / floor.medianMs).toFixed(2)}x`,
          mbs >= GOAL_MB_S ? `goal ${GOAL_MB_S} MB/s: met` : `goal ${GOAL_MB_S} MB/s: NOT met`,
          `(${basename(file)})`,
        ].join("  "),
      );
    } catch (e) {
      failed = true;
      rows.push(`${host.padEnd(7)}  ${mb.toFixed(1).padStart(6)} MB  ERROR: ${(e as Error).message}`);
    }
  }
  for (const r of rows) process.stdout.write(`  ${r}\n`);
  if (worst !== Infinity) process.stdout.write(`summary: read ${worst.toFixed(1)} MB/s on the slower host (goal ${GOAL_MB_S} MB/s, whole process, ${label})\n`);
  else if (!failed) process.stdout.write("summary: read skipped (no corpus)\n");
  if (failed) {
    process.stdout.write("summary: read FAILED (see ERROR lines)\n");
    process.exit(1);
  }
};

main();
