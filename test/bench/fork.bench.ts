#!/usr/bin/env bun
// Speed of the whole `bc codex-fork` process (start-up included): --dry-run and a real fork, on
// the largest corpus rollout and on a generated 50 MB paginated rollout, beside two references
// measured in the same run on the same file: `cp` of the file, and a bun process that reads it and
// JSON.parses every line. Goal: under 1 s for the whole process.
//
//   bun test/bench/fork.bench.ts [--runs N] [--mb M]
//
// Uses dist/bc when it exists (build it with `npm run build`), else `bun src/main.ts`.
// Figures, not assertions: nothing here fails because a machine is slow.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { largestCorpusFile, SKIP_NOTE } from "../support/shared.ts";
import { FLOOR_SCRIPT, argNumber as argNumberOf, median } from "./support.ts";

const REPO = join(import.meta.dir, "..", "..");
const BIN = join(REPO, "dist", process.platform === "win32" ? "bc.exe" : "bc");
const GOAL_MS = 1000;

const argNumber = (name: string, fallback: number): number => argNumberOf("fork.bench", name, fallback);

/**
 * A paginated rollout (0.169 shape) of about `mb` MB: turns of a prompt, shell calls over a few
 * dozen files (re-read often, so the rules have work), their outputs, token counts.
 */
export const generateRollout = (mb: number): string => {
  const id = "01a30000-0000-7000-8000-000000000001";
  const lines: string[] = [];
  let ordinal = 0;
  let t = Date.UTC(2026, 10, 1, 10, 0, 0);
  const push = (type: string, payload: unknown, extra: Record<string, unknown> = {}): void => {
    lines.push(JSON.stringify({ timestamp: new Date(t++).toISOString(), ordinal: ordinal++, type, payload, ...extra }));
  };
  push("session_meta", {
    session_id: id,
    id,
    timestamp: new Date(t).toISOString(),
    cwd: "/home/user/project",
    originator: "codex_exec",
    cli_version: "0.169.0",
    source: "exec",
    model_provider: "openai",
    base_instructions: { text: "You are a coding agent running in the Codex CLI. ".repeat(200) },
    history_mode: "paginated",
  });
  push("response_item", {
    type: "message",
    id: "msg_dev",
    role: "developer",
    content: [{ type: "input_text", text: "<permissions instructions>\nsandbox: danger-full-access\n</permissions instructions>" }],
  });
  push("response_item", {
    type: "message",
    id: "msg_env",
    role: "user",
    content: [{ type: "input_text", text: "<environment_context>\n  <cwd>/home/user/project</cwd>\n</environment_context>" }],
  });
  const target = mb * 1024 * 1024;
  let bytes = lines.reduce((n, l) => n + l.length + 1, 0);
  let call = 0;
  let turn = 0;
  while (bytes < target) {
    turn++;
    push("response_item", {
      type: "message",
      id: `msg_u${turn}`,
      role: "user",
      content: [{ type: "input_text", text: `Step ${turn}: fix the failing test in module ${turn % 40}.` }],
    });
    for (let k = 0; k < 12; k++) {
      call++;
      const file = `src/module${(call * 7) % 40}.ts`;
      const cmd = k % 4 === 3 ? "npm test" : `cat ${file}`;
      const body =
        k % 4 === 3
          ? `FAIL test/module${turn % 40}.test.ts\n  expected 3, got 4\n`.repeat(20)
          : `// ${file}\nexport const value${call} = ${call};\n`.repeat(90);
      push("response_item", { type: "function_call", id: `fc_${call}`, name: "exec_command", arguments: JSON.stringify({ cmd }), call_id: `call_${call}` });
      push("response_item", {
        type: "function_call_output",
        id: `fco_${call}`,
        call_id: `call_${call}`,
        output: `Chunk ID: ${call}\nWall time: 0.0100 seconds\nProcess exited with code ${k % 4 === 3 ? 1 : 0}\nOutput:\n${body}`,
      });
      push("event_msg", {
        type: "token_count",
        info: {
          total_token_usage: {
            input_tokens: call * 1000,
            cached_input_tokens: 0,
            output_tokens: call * 10,
            reasoning_output_tokens: 0,
            total_tokens: call * 1010,
          },
          last_token_usage: { input_tokens: 50_000, cached_input_tokens: 0, output_tokens: 10, reasoning_output_tokens: 0, total_tokens: 50_010 },
          model_context_window: 258_400,
        },
        rate_limits: null,
      });
    }
    push("response_item", {
      type: "message",
      id: `msg_a${turn}`,
      role: "assistant",
      content: [{ type: "output_text", text: `Fixed module ${turn % 40}: the off-by-one in value().` }],
    });
    bytes = lines.reduce((n, l) => n + l.length + 1, 0);
  }
  return `${lines.join("\n")}\n`;
};

/** Time a command `runs` times after one warm-up run; `fresh()` gives a clean output folder each run. */
const time = (cmd: (run: number) => string[], runs: number): { medianMs: number; bestMs: number } => {
  const ms: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const argv = cmd(i);
    const t0 = performance.now();
    const r = Bun.spawnSync(argv, { cwd: REPO, stdout: "pipe", stderr: "pipe" });
    const elapsed = performance.now() - t0;
    if (r.exitCode !== 0) throw new Error(`'${argv.map((c) => basename(c)).join(" ")}' exited ${r.exitCode}: ${r.stderr.toString().trim().split("\n")[0]}`);
    if (i > 0) ms.push(elapsed);
  }
  return { medianMs: median(ms), bestMs: Math.min(...ms) };
};

const main = (): void => {
  const runs = argNumber("--runs", 5);
  const mb = argNumber("--mb", 50);
  const useBinary = existsSync(BIN);
  const bc = useBinary ? [BIN] : [process.execPath, join(REPO, "src", "main.ts")];
  const work = mkdtempSync(join(tmpdir(), "bc-fork-bench-"));
  try {
    process.stdout.write(
      `fork.bench: ${useBinary ? "dist/bc" : "bun src/main.ts"} codex-fork, median of ${runs} runs after a warm-up (goal < ${GOAL_MS} ms)\n`,
    );
    if (!useBinary) process.stdout.write("fork.bench: dist/bc not found; timing from source (run 'npm run build' to time the binary)\n");
    const files: [string, string][] = [];
    const corpus = largestCorpusFile("codex");
    if (corpus) files.push(["largest corpus rollout", corpus]);
    else process.stdout.write(`fork.bench: ${SKIP_NOTE}\n`);
    const generated = join(work, "rollout-2026-11-01T10-00-00-01a30000-0000-7000-8000-000000000001.jsonl");
    writeFileSync(generated, generateRollout(mb));
    files.push([`generated ${mb} MB rollout`, generated]);
    const floorScript = join(work, "floor.ts");
    writeFileSync(floorScript, FLOOR_SCRIPT);
    const rows: string[] = [];
    for (const [label, file] of files) {
      const size = statSync(file).size / 1024 / 1024;
      const cp = time((i) => ["cp", file, join(work, `copy-${i}.jsonl`)], runs);
      const floor = time(() => [process.execPath, floorScript, file], runs);
      const dry = time(() => [...bc, "codex-fork", file, "--dry-run", "--json"], runs);
      const real = time((i) => [...bc, "codex-fork", file, "--json", "--out-dir", join(work, `out-${label.length}-${i}`)], runs);
      const mark = (ms: number): string => (ms < GOAL_MS ? "ok" : "OVER GOAL");
      rows.push(
        `${label} (${size.toFixed(1)} MB, ${basename(file)})`,
        `  cp                          ${cp.medianMs.toFixed(0).padStart(6)} ms`,
        `  bun read + JSON.parse lines ${floor.medianMs.toFixed(0).padStart(6)} ms`,
        `  bc codex-fork --dry-run     ${dry.medianMs.toFixed(0).padStart(6)} ms  (best ${dry.bestMs.toFixed(0)})  ${mark(dry.medianMs)}`,
        `  bc codex-fork (writes)      ${real.medianMs.toFixed(0).padStart(6)} ms  (best ${real.bestMs.toFixed(0)})  ${mark(real.medianMs)}`,
      );
    }
    process.stdout.write(`${rows.join("\n")}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};

if (import.meta.main) main();
