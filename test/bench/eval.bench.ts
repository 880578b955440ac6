#!/usr/bin/env bun
// The whole eval (every method and ceiling, light and under pressure, three cuts, the five
// repeated passes, the host compactions) over the dev corpus and the validation corpus
// (unpacked by ../shared/corpus-extra.sh), beside the floor of reading the same files and
// JSON.parse-ing every line.
// 1. whole process: `bc eval <dev> <extra> --split --json --out <tmp>` (both modes, the default),
//    start-up and report writing included. Goal: under 90 s on this machine.
// 2. in process, by host: load, then replay+score light only and light + pressure.
//
//   bun test/bench/eval.bench.ts [--runs N]
//
// Figures, not assertions: nothing here fails because a machine is slow.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSessionFile } from "../../src/hosts/load.ts";
import type { LoadedSession } from "../../src/hosts/types.ts";
import { rulesCompactor } from "../../src/eval/methods/engine.ts";
import { DEFAULT_PASSES } from "../../src/eval/passes.ts";
import { DEFAULT_PRESSURE } from "../../src/eval/pressure.ts";
import { METHOD_IDS, PRESSURE_IDS, replaySession } from "../../src/eval/replay.ts";
import { CORPUS_DIR, SHARED_DIR, SKIP_NOTE, hasCorpus } from "../support/shared.ts";
import { median, runsArg as runsArgOf } from "./support.ts";

const REPO = join(import.meta.dir, "..", "..");
const GOAL_SECONDS = 90;

const runsArg = (): number => runsArgOf("eval.bench", 1);

/** The validation corpus's folder, unpacked by the shared script (undefined when absent). */
const extraCorpus = (): string | undefined => {
  const script = join(SHARED_DIR, "corpus-extra.sh");
  if (!existsSync(script)) return undefined;
  const p = Bun.spawnSync(["bash", script], { stdout: "pipe", stderr: "pipe" });
  const dir = p.stdout.toString().trim();
  return p.exitCode === 0 && dir !== "" && existsSync(dir) ? dir : undefined;
};

const jsonlUnder = (dir: string): string[] => {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...jsonlUnder(p));
    else if (e.name.endsWith(".jsonl")) out.push(p);
  }
  return out.sort();
};

const main = (): void => {
  if (!hasCorpus()) {
    process.stdout.write(`${SKIP_NOTE}\n`);
    return;
  }
  const runs = runsArg();
  const extra = extraCorpus();
  if (extra === undefined) process.stdout.write("validation corpus not found (../shared/corpus-extra.sh); the dev corpus alone\n");
  const dirs = [CORPUS_DIR, ...(extra === undefined ? [] : [extra])];
  const all = dirs.flatMap(jsonlUnder);
  const mb = all.reduce((n, f) => n + statSync(f).size, 0) / 1e6;

  // floor: read + JSON.parse every line of every file
  const t0 = performance.now();
  for (const f of all) for (const line of readFileSync(f, "utf8").split("\n")) if (line.length > 0) JSON.parse(line);
  const floorS = (performance.now() - t0) / 1000;

  // whole process, both modes
  const out = mkdtempSync(join(tmpdir(), "bc-eval-bench-"));
  const wholeMs: number[] = [];
  const cpuMs: number[] = [];
  let sessions = 0;
  try {
    for (let r = 0; r < runs; r++) {
      const start = performance.now();
      const p = Bun.spawnSync([process.execPath, join(REPO, "src", "main.ts"), "eval", ...dirs, "--split", "--json", "--out", join(out, String(r))], {
        cwd: REPO,
        stdout: "pipe",
        stderr: "pipe",
      });
      wholeMs.push(performance.now() - start);
      // CPU time as well: on a shared machine the wall time also counts waiting for a core
      const cpu = p.resourceUsage?.cpuTime;
      if (cpu) cpuMs.push(Number(cpu.total) / 1000);
      if (p.exitCode !== 0) throw new Error(`bc eval exited ${p.exitCode}: ${p.stderr.toString().trim().split("\n").at(-1)}`);
      sessions = JSON.parse(p.stdout.toString()).corpus.sessions;
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  const whole = median(wholeMs) / 1000;
  process.stdout.write(
    `corpus: ${dirs.length} folders, ${all.length} files, ${mb.toFixed(1)} MB, ${sessions} sessions; light: ${METHOD_IDS.length} methods + 2 ceilings, pressure ${DEFAULT_PRESSURE}: ${PRESSURE_IDS.length} rows; 3 cuts + ${DEFAULT_PASSES.length} passes + host compactions\n`,
  );
  process.stdout.write(`floor (read + JSON.parse every line): ${floorS.toFixed(2)} s\n`);
  const cpu = cpuMs.length > 0 ? `, CPU ${(median(cpuMs) / 1000).toFixed(1)} s` : "";
  process.stdout.write(`whole process, both modes, median of ${runs}: ${whole.toFixed(1)} s${cpu} (goal < ${GOAL_SECONDS} s)\n`);

  // in process, by host: light alone, then light + pressure
  for (const host of ["claude", "codex"] as const) {
    const files = dirs.flatMap((d) => (existsSync(join(d, host)) ? jsonlUnder(join(d, host)) : []));
    const tl = performance.now();
    const loaded: LoadedSession[] = files.map((f) => loadSessionFile(f));
    const loadS = (performance.now() - tl) / 1000;
    const replay = (pressure?: number): number => {
      const ts = performance.now();
      for (const s of loaded)
        replaySession(
          { host: s.host, id: s.id, file: s.path, timeline: s.timeline, compactions: s.compactions },
          { cuts: [0.5, 0.7, 0.9], methods: METHOD_IDS, passes: DEFAULT_PASSES, compact: rulesCompactor, ...(pressure === undefined ? {} : { pressure }) },
        );
      return (performance.now() - ts) / 1000;
    };
    const light = replay();
    const both = replay(DEFAULT_PRESSURE);
    process.stdout.write(
      `${host}: ${loaded.length} sessions; load ${loadS.toFixed(2)} s; replay+score light ${light.toFixed(2)} s, light + pressure ${both.toFixed(2)} s (pressure adds ${(both - light).toFixed(2)} s)\n`,
    );
  }
  process.stdout.write(
    `summary: eval dev + validation corpus, both modes ${whole.toFixed(1)} s${cpu} (${sessions} sessions; floor ${floorS.toFixed(2)} s; goal < ${GOAL_SECONDS} s)\n`,
  );
};

main();
