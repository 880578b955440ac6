#!/usr/bin/env bun
// Codex rollout reading, beside the floor of reading the same file and JSON.parse-ing each line:
// 1. whole process: a bun process that runs loadCodexRollout (parse, history rebuild, session
//    model) on the largest corpus rollout, start-up included. Goal: >= 50 MB/s.
// 2. in process, by stage (parse / rebuild / map), on that file and on a generated ~50 MB rollout
//    (one large tool output per call, the shape that grows rollouts).
//
//   bun test/bench/codex-rollout.bench.ts [--runs N]
//
// Figures, not assertions: nothing here fails because a machine is slow.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { rebuildHistory } from "../../src/hosts/codex/history.ts";
import { parseRollout, toLoadedSession } from "../../src/hosts/codex/rollout.ts";
import { SKIP_NOTE, largestCorpusFile } from "../support/shared.ts";
import { FLOOR_SCRIPT, median, runsArg as runsArgOf } from "./support.ts";

const REPO = join(import.meta.dir, "..", "..");
const GOAL_MB_S = 50;

const runsArg = (): number => runsArgOf("codex-rollout.bench", 7);

const LOAD = `
import { loadCodexRollout } from ${JSON.stringify(join(REPO, "src", "hosts", "codex", "rollout.ts"))};
const s = loadCodexRollout(process.argv[1]);
process.stdout.write(JSON.stringify({ timeline: s.timeline.messages.length, live: s.live.messages.length }) + "\\n");
`;

/** Median wall time of a command, after one warm-up run. */
const timeProcess = (cmd: string[], runs: number): { ms: number; rssMiB: number } => {
  const ms: number[] = [];
  let rss = 0;
  for (let i = 0; i <= runs; i++) {
    const t0 = performance.now();
    const r = Bun.spawnSync(cmd, { cwd: REPO, stdout: "pipe", stderr: "pipe" });
    const elapsed = performance.now() - t0;
    if (r.exitCode !== 0) throw new Error(`exited ${r.exitCode}: ${r.stderr.toString().trim().split("\n")[0]}`);
    if (i === 0) continue;
    ms.push(elapsed);
    rss = Math.max(rss, (r.resourceUsage?.maxRSS ?? 0) / 1024 / 1024); // bytes in Bun
  }
  return { ms: median(ms), rssMiB: rss };
};

const timeInProcess = (f: () => void, runs: number): number => {
  f();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    ms.push(performance.now() - t0);
  }
  return median(ms);
};

const stages = (label: string, text: string, runs: number): void => {
  const mb = Buffer.byteLength(text) / 1e6;
  const floor = timeInProcess(() => {
    for (const line of text.split("\n")) if (line.length > 0) JSON.parse(line);
  }, runs);
  const parse = timeInProcess(() => parseRollout(text, label), runs);
  const r = parseRollout(text, label);
  const rebuild = timeInProcess(() => rebuildHistory(r), runs);
  const map = timeInProcess(() => toLoadedSession(r), runs);
  const rate = (ms: number): string => `${(mb / (ms / 1000)).toFixed(0)} MB/s`;
  process.stdout.write(
    `  in-process ${label} (${mb.toFixed(1)} MB): floor split+JSON.parse ${floor.toFixed(1)} ms (${rate(floor)}) | ` +
      `parseRollout ${parse.toFixed(1)} ms (${rate(parse)}) | rebuildHistory ${rebuild.toFixed(2)} ms | ` +
      `toLoadedSession (rebuild + map) ${map.toFixed(1)} ms | parse+load ${(parse + map).toFixed(1)} ms (${rate(parse + map)})\n`,
  );
};

/** A realistic large rollout: the corpus shape (meta, turn, call, big output, reasoning, reply). */
const generated = (targetBytes: number): string => {
  const out: string[] = [];
  const line = (type: string, payload: unknown): void => {
    out.push(JSON.stringify({ timestamp: "2026-07-01T10:00:00.000Z", type, payload }));
  };
  line("session_meta", { id: "019f0000-0000-7000-8000-000000000000", cli_version: "0.142.5", source: "cli" });
  const body = "src/file.ts:12: const value = compute(input); // a line of tool output\n".repeat(2_000);
  let size = 0;
  for (let i = 0; size < targetBytes; i++) {
    line("response_item", { type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: `rg value ${i}` }), call_id: `call_${i}` });
    line("response_item", { type: "function_call_output", call_id: `call_${i}`, output: `Chunk ID: ${i}\nProcess exited with code 0\nOutput:\n${body}` });
    line("response_item", { type: "reasoning", summary: [{ type: "summary_text", text: `step ${i}` }], encrypted_content: "gAAAA" });
    line("response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text: `Found it in call ${i}.` }] });
    line("event_msg", { type: "token_count", info: null });
    size += body.length + 600;
  }
  return `${out.join("\n")}\n`;
};

const main = (): void => {
  const runs = runsArg();
  const file = largestCorpusFile("codex");
  process.stdout.write(`codex-rollout.bench: median of ${runs} runs after a warm-up\n`);
  if (file === undefined) {
    process.stdout.write(`codex-rollout.bench: ${SKIP_NOTE}; the whole-process figure is skipped\n`);
  } else {
    const mb = statSync(file).size / 1e6;
    const floor = timeProcess([process.execPath, "-e", FLOOR_SCRIPT, file], runs);
    const load = timeProcess([process.execPath, "-e", LOAD, file], runs);
    const mbs = mb / (load.ms / 1000);
    process.stdout.write(
      `  whole process ${basename(file)} (${mb.toFixed(1)} MB): loadCodexRollout ${load.ms.toFixed(0)} ms, ${mbs.toFixed(1)} MB/s, rss ${load.rssMiB.toFixed(0)} MiB | ` +
        `floor ${floor.ms.toFixed(0)} ms, ${(mb / (floor.ms / 1000)).toFixed(1)} MB/s, rss ${floor.rssMiB.toFixed(0)} MiB\n`,
    );
    stages("largest corpus rollout", readFileSync(file, "utf8"), runs);
    process.stdout.write(
      `summary: codex rollout read ${mbs.toFixed(1)} MB/s whole process (goal ${GOAL_MB_S} MB/s: ${mbs >= GOAL_MB_S ? "met" : "NOT met"}; floor ${(mb / (floor.ms / 1000)).toFixed(1)} MB/s)\n`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "bc-bench-"));
  try {
    const text = generated(50e6);
    const path = join(dir, "rollout-generated.jsonl");
    writeFileSync(path, text);
    stages("generated rollout", text, Math.min(runs, 3));
    const mb = Buffer.byteLength(text) / 1e6;
    const load = timeProcess([process.execPath, "-e", LOAD, path], Math.min(runs, 3));
    process.stdout.write(
      `  whole process generated (${mb.toFixed(1)} MB): loadCodexRollout ${load.ms.toFixed(0)} ms, ${(mb / (load.ms / 1000)).toFixed(1)} MB/s, rss ${load.rssMiB.toFixed(0)} MiB\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

main();
