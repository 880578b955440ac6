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
import { FLOOR_SCRIPT, median, runsArg as runsArgOf } from "./support.ts";

const REPO = join(import.meta.dir, "..", "..");
const BIN = join(REPO, "dist", process.platform === "win32" ? "bc.exe" : "bc");
const GOAL_MB_S = 50;
const HOSTS = ["claude", "codex"] as const;

const runsArg = (): number => runsArgOf("read.bench", 11);

interface Timing {
  readonly medianMs: number;
  readonly bestMs: number;
  readonly maxRssMiB: number;
}

interface Probe {
  readonly cmd: string[];
  /** checks the warm-up run's stdout, so that a fast error cannot pass for a fast read */
  readonly check: (stdout: string) => void;
}

const once = (cmd: string[]): { ms: number; stdout: string; rssMiB: number } => {
  const t0 = performance.now();
  const r = Bun.spawnSync(cmd, { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`'${cmd.map((c) => basename(c)).join(" ")}' exited ${r.exitCode}: ${r.stderr.toString().trim().split("\n")[0]}`);
  return { ms, stdout: r.stdout.toString(), rssMiB: (r.resourceUsage?.maxRSS ?? 0) / 1024 / 1024 }; // bun reports maxRSS in bytes
};

/**
 * Time several commands `runs` times each after one warm-up round, interleaved round by round
 * so that all of them see the same load on a shared machine (their ratio stays meaningful).
 */
const timeTogether = (probes: readonly Probe[], runs: number): Timing[] => {
  const ms: number[][] = probes.map(() => []);
  const rss: number[] = probes.map(() => 0);
  for (let round = 0; round <= runs; round++) {
    probes.forEach((p, k) => {
      const r = once(p.cmd);
      if (round === 0) return p.check(r.stdout);
      ms[k]!.push(r.ms);
      rss[k] = Math.max(rss[k]!, r.rssMiB);
    });
  }
  return ms.map((xs, k) => ({ medianMs: median(xs), bestMs: Math.min(...xs), maxRssMiB: rss[k]! }));
};

const main = (): void => {
  const runs = runsArg();
  const useBinary = existsSync(BIN);
  const bc = useBinary ? [BIN] : [process.execPath, join(REPO, "src", "main.ts")];
  const label = useBinary ? "dist/bc inspect --json" : "bun src/main.ts inspect --json";
  process.stdout.write(`read.bench: ${label} vs floor (bun: read + JSON.parse each line), median of ${runs} interleaved runs after a warm-up\n`);
  if (!useBinary) process.stdout.write("read.bench: dist/bc not found; timing from source (run 'npm run build' to time the binary)\n");

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
      const [floor, read, startup] = timeTogether(
        [
          {
            cmd: [process.execPath, "-e", FLOOR_SCRIPT, file],
            check: (out) => {
              if (!/^\d+\n$/.test(out)) throw new Error(`floor printed '${out.trim()}'`);
            },
          },
          { cmd: [...bc, "inspect", file, "--json"], check: (out) => void JSON.parse(out) },
          // start-up alone, to tell a slow reader from a slow start on a file of a few MB
          { cmd: [...bc, "--version"], check: () => {} },
        ],
        runs,
      ) as [Timing, Timing, Timing];
      const mbs = mb / (read.medianMs / 1000);
      const floorMbs = mb / (floor.medianMs / 1000);
      worst = Math.min(worst, mbs);
      rows.push(
        [
          host.padEnd(7),
          `${mb.toFixed(1).padStart(6)} MB`,
          `bc ${read.medianMs.toFixed(0).padStart(5)} ms (best ${read.bestMs.toFixed(0)})`,
          `${mbs.toFixed(1).padStart(6)} MB/s`,
          `(start-up ${startup.medianMs.toFixed(0)} ms; ${(mb / (Math.max(1, read.medianMs - startup.medianMs) / 1000)).toFixed(0)} MB/s after it)`,
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
