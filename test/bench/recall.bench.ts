#!/usr/bin/env bun
// Speed of `bc recall <id>` among a few GB of sessions: a generated home with Claude Code
// transcripts (~10 MB each; one project of 20 sessions, the rest in other projects) and Codex
// rollouts, the id in one session of the project. Timed as whole processes (start-up included):
//   - the session given (--session <id>), or by its name (claude -n): from the project, whose
//     sessions are searched for the name first, and from elsewhere (every session's)
//   - the project known (run from the project's folder: its sessions are searched first)
//   - nothing known (from another folder: every session), for reference
// beside the floor measured in the same run: a bun process that reads the project's files and
// does nothing else. Goal: well under a second when the session or project is known.
//
//   bun test/bench/recall.bench.ts [--gb N] [--runs N]
//
// Uses dist/bc when it exists (build it with `npm run build`), else `bun src/main.ts`.
// Figures, not assertions: nothing here fails because a machine is slow.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { argNumber, median, runsArg as runsArgOf } from "./support.ts";

const REPO = join(import.meta.dir, "..", "..");
const BIN = join(REPO, "dist", process.platform === "win32" ? "bc.exe" : "bc");
const FILE_MB = 10;
const PROJECT_SESSIONS = 20;

const gb = argNumber("recall.bench", "--gb", 2);
const runs = runsArgOf("recall.bench", 7);

/** One transcript's text: prompts, tool calls and ~5 kB results, with ids unique to `tag`. */
const transcript = (tag: string, targetAt?: number): string => {
  const out: string[] = [];
  let bytes = 0;
  let n = 0;
  const body = (k: number): string =>
    Array.from({ length: 60 }, (_, i) => `line ${i} of output ${k}: value_${(k * 7919 + i * 104729) % 1_000_003} ok`).join("\n");
  while (bytes < FILE_MB * 1024 * 1024) {
    const id = n === targetAt ? "toolu_01BENCHTARGET" : `toolu_${tag}_${n}`;
    const call = JSON.stringify({
      type: "assistant",
      uuid: `${tag}-a${n}`,
      sessionId: tag,
      message: { role: "assistant", content: [{ type: "tool_use", id, name: "Bash", input: { command: `run step ${n}` } }] },
    });
    const result = JSON.stringify({
      type: "user",
      uuid: `${tag}-u${n}`,
      sessionId: tag,
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: body(n) }] },
    });
    out.push(call, result);
    bytes += call.length + result.length + 2;
    n++;
  }
  return `${out.join("\n")}\n`;
};

const rollout = (tag: string, cwd: string): string => {
  const out: string[] = [JSON.stringify({ timestamp: "2026-01-01T00:00:00.000Z", type: "session_meta", payload: { id: tag, cwd } })];
  let bytes = 0;
  for (let n = 0; bytes < FILE_MB * 1024 * 1024; n++) {
    const call = JSON.stringify({
      timestamp: "2026-01-01T00:00:01.000Z",
      type: "response_item",
      payload: { type: "function_call", name: "exec_command", arguments: `{"cmd":"step ${n}"}`, call_id: `call_${tag}_${n}` },
    });
    const output = JSON.stringify({
      timestamp: "2026-01-01T00:00:02.000Z",
      type: "response_item",
      payload: { type: "function_call_output", call_id: `call_${tag}_${n}`, output: `out ${n} `.repeat(700) },
    });
    out.push(call, output);
    bytes += call.length + output.length + 2;
  }
  return `${out.join("\n")}\n`;
};

const main = (): void => {
  const dir = mkdtempSync(join(tmpdir(), "bc-recall-bench-"));
  try {
    const home = join(dir, "home");
    const codexHome = join(dir, "codex");
    const project = join(dir, "work", "project");
    const elsewhere = join(dir, "elsewhere");
    mkdirSync(project, { recursive: true });
    mkdirSync(elsewhere, { recursive: true });
    const projects = join(home, ".claude", "projects");
    const projectDir = join(projects, project.replace(/[^A-Za-z0-9]/g, "-"));
    mkdirSync(projectDir, { recursive: true });
    const files = Math.round((gb * 1024) / FILE_MB);
    const claudeTemplate = transcript("TAG");
    const codexTemplate = rollout("TAG", join(dir, "other"));
    const t0 = performance.now();
    let written = 0;
    for (let i = 0; i < files; i++) {
      if (i < PROJECT_SESSIONS) {
        // one session of the project holds the id; the whole project is searched all the same (a second holder would make it ambiguous)
        // ...and is named (claude -n): the name is looked for in the project's sessions first, then in every one
        const text =
          i === PROJECT_SESSIONS - 1
            ? `${transcript(`s${i}`, 40)}${JSON.stringify({ type: "custom-title", customTitle: "bench target", sessionId: `s${i}` })}\n`
            : claudeTemplate.replaceAll("TAG", `s${i}`);
        writeFileSync(join(projectDir, `s${i}.jsonl`), text);
      } else if (i % 4 === 0) {
        const d = join(codexHome, "sessions", "2026", "01", String(1 + (i % 28)).padStart(2, "0"));
        mkdirSync(d, { recursive: true });
        writeFileSync(
          join(d, `rollout-2026-01-01T00-00-00-0190a000-0000-7000-8000-${String(i).padStart(12, "0")}.jsonl`),
          codexTemplate.replaceAll("TAG", `r${i}`),
        );
      } else {
        const d = join(projects, `-other-project-${i % 10}`);
        mkdirSync(d, { recursive: true });
        writeFileSync(join(d, `o${i}.jsonl`), claudeTemplate.replaceAll("TAG", `o${i}`));
      }
      written += FILE_MB;
    }
    const target = join(projectDir, `s${PROJECT_SESSIONS - 1}.jsonl`);
    process.stdout.write(
      `recall.bench: ${files} session files, ${(written / 1024).toFixed(1)} GB (${PROJECT_SESSIONS} in the project, ${PROJECT_SESSIONS * FILE_MB} MB), written in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );

    const bc = existsSync(BIN) ? [BIN] : [process.execPath, join(REPO, "src", "main.ts")];
    const env = { PATH: process.env.PATH ?? "", HOME: home, CODEX_HOME: codexHome };
    const floorScript = `const fs = require("node:fs"); let n = 0; for (const f of fs.readdirSync(${JSON.stringify(projectDir)})) n += fs.readFileSync(${JSON.stringify(projectDir)} + "/" + f).length; process.stdout.write(String(n));`;
    const probes: { name: string; cmd: string[]; cwd: string }[] = [
      { name: "session given", cmd: [...bc, "recall", "toolu_01BENCHTARGET", "--session", "s19"], cwd: elsewhere },
      { name: "session named, from the project", cmd: [...bc, "recall", "toolu_01BENCHTARGET", "--session", "bench target"], cwd: project },
      { name: "session named, from elsewhere", cmd: [...bc, "recall", "toolu_01BENCHTARGET", "--session", "bench target"], cwd: elsewhere },
      { name: "project known", cmd: [...bc, "recall", "toolu_01BENCHTARGET"], cwd: project },
      { name: "nothing known", cmd: [...bc, "recall", "toolu_01BENCHTARGET"], cwd: elsewhere },
      { name: "floor: read the project's files", cmd: [process.execPath, "-e", floorScript], cwd: elsewhere },
      { name: "floor: bc --version", cmd: [...bc, "--version"], cwd: elsewhere },
    ];
    const ms: number[][] = probes.map(() => []);
    for (let round = 0; round <= runs; round++)
      probes.forEach((p, k) => {
        const floor = p.name.startsWith("floor");
        // the warm-up asks for --json, to check where the output was found (a program gets no heading)
        const json = round === 0 && !floor;
        const s = performance.now();
        const r = Bun.spawnSync(json ? [...p.cmd, "--json"] : p.cmd, { cwd: p.cwd, env, stdout: "pipe", stderr: "pipe" });
        const took = performance.now() - s;
        if (r.exitCode !== 0) throw new Error(`${p.name}: exit ${r.exitCode}: ${r.stderr.toString().trim().split("\n").at(-2)}`);
        if (round > 0) ms[k]!.push(took);
        if (floor) return;
        const text = json ? (JSON.parse(r.stdout.toString()) as { text: string; path: string }) : { text: r.stdout.toString(), path: target };
        if (!text.text.startsWith("line 0 of output 40:")) throw new Error(`${p.name}: recall printed something else: ${text.text.slice(0, 80)}`);
        if (text.path !== target) throw new Error(`${p.name}: found in ${text.path}, not ${target}`);
      });
    for (const [k, p] of probes.entries())
      process.stdout.write(
        `  ${p.name.padEnd(32)} median ${median(ms[k]!).toFixed(0).padStart(6)} ms  best ${Math.min(...ms[k]!)
          .toFixed(0)
          .padStart(6)} ms\n`,
      );
    process.stdout.write(
      `summary: recall among ${(written / 1024).toFixed(1)} GB: session given ${median(ms[0]!).toFixed(0)} ms (by its name ${median(ms[1]!).toFixed(0)} ms from the project, ${median(ms[2]!).toFixed(0)} ms from elsewhere), project known ${median(ms[3]!).toFixed(0)} ms (reading its ${PROJECT_SESSIONS * FILE_MB} MB alone: ${median(ms[5]!).toFixed(0)} ms), nothing known ${median(ms[4]!).toFixed(0)} ms\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

main();
