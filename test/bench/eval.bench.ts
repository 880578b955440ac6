#!/usr/bin/env bun
// The whole eval (every method, three cuts, the five repeated passes, the host compactions) over
// the shared corpus, beside the floor of reading the same files and JSON.parse-ing every line.
// 1. whole process: `bun src/main.ts eval <corpus> --json --out <tmp>`, start-up and report
//    writing included. Goal: the whole corpus in under 60 s on this machine.
// 2. in process, by stage: load (host readers) and replay+score, per host, in sessions per second.
//
//   bun test/bench/eval.bench.ts [--runs N]
//
// Figures, not assertions: nothing here fails because a machine is slow.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSessionFile } from "../../src/hosts/load.ts";
import type { LoadedSession } from "../../src/hosts/types.ts";
import { rulesCompactor } from "../../src/eval/methods/engine.ts";
import { DEFAULT_PASSES } from "../../src/eval/passes.ts";
import { METHOD_IDS, replaySession } from "../../src/eval/replay.ts";
import { CORPUS_DIR, SKIP_NOTE, corpusFiles, hasCorpus } from "../support/shared.ts";
import { median, runsArg as runsArgOf } from "./support.ts";

const REPO = join(import.meta.dir, "..", "..");
const GOAL_SECONDS = 60;

const runsArg = (): number => runsArgOf("eval.bench", 3);

const main = (): void => {
  if (!hasCorpus()) {
    process.stdout.write(`${SKIP_NOTE}\n`);
    return;
  }
  const runs = runsArg();
  const files = { claude: corpusFiles("claude"), codex: corpusFiles("codex") };
  const all = [...files.claude, ...files.codex];
  const mb = all.reduce((n, f) => n + readFileSync(f).length, 0) / 1e6;

  // floor: read + JSON.parse every line of every file
  const floorMs: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    for (const f of all) for (const line of readFileSync(f, "utf8").split("\n")) if (line.length > 0) JSON.parse(line);
    floorMs.push(performance.now() - t0);
  }

  // whole process
  const out = mkdtempSync(join(tmpdir(), "bc-eval-bench-"));
  const wholeMs: number[] = [];
  let sessions = 0;
  try {
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      const p = Bun.spawnSync(
        [process.execPath, join(REPO, "src", "main.ts"), "eval", join(CORPUS_DIR, "claude"), join(CORPUS_DIR, "codex"), "--json", "--out", join(out, String(r))],
        { cwd: REPO, stdout: "pipe", stderr: "pipe" },
      );
      wholeMs.push(performance.now() - t0);
      if (p.exitCode !== 0) throw new Error(`bc eval exited ${p.exitCode}: ${p.stderr.toString().trim().split("\n").at(-1)}`);
      sessions = JSON.parse(p.stdout.toString()).corpus.sessions;
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  const whole = median(wholeMs) / 1000;
  process.stdout.write(`corpus: ${all.length} files, ${mb.toFixed(1)} MB, ${sessions} sessions; ${METHOD_IDS.length} methods × 3 cuts + ${DEFAULT_PASSES.length} passes + host compactions\n`);
  process.stdout.write(`floor (read + JSON.parse every line): ${(median(floorMs) / 1000).toFixed(2)} s\n`);
  process.stdout.write(`whole process, median of ${runs}: ${whole.toFixed(2)} s = ${(sessions / whole).toFixed(1)} sessions/s (goal < ${GOAL_SECONDS} s)\n`);

  // in process, by stage and host
  for (const host of ["claude", "codex"] as const) {
    const t0 = performance.now();
    const loaded: LoadedSession[] = files[host].map((f) => loadSessionFile(f));
    const loadMs = performance.now() - t0;
    const t1 = performance.now();
    for (const s of loaded)
      replaySession(
        { host: s.host, id: s.id, file: s.path, timeline: s.timeline, compactions: s.compactions },
        { cuts: [0.5, 0.7, 0.9], methods: METHOD_IDS, passes: DEFAULT_PASSES, compact: rulesCompactor },
      );
    const replayMs = performance.now() - t1;
    process.stdout.write(
      `${host}: ${loaded.length} sessions; load ${(loadMs / 1000).toFixed(2)} s, replay+score ${(replayMs / 1000).toFixed(2)} s = ${(loaded.length / (replayMs / 1000)).toFixed(1)} sessions/s\n`,
    );
  }
  process.stdout.write(`summary: eval whole corpus ${whole.toFixed(1)} s (${(sessions / whole).toFixed(1)} sessions/s; floor ${(median(floorMs) / 1000).toFixed(2)} s; goal < ${GOAL_SECONDS} s)\n`);
};

main();
