// Damaged copies of corpus sessions (cut short, a line lost, doubled, swapped, replaced by other
// JSON, a character changed, fields of the wrong type): every command's core either answers or
// fails with bc's own one-line error naming the file, never with a crash.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspectSession } from "../../src/cli/inspect.ts";
import { planReport } from "../../src/cli/plan.ts";
import { enginePruner, forkRollout } from "../../src/hosts/codex/fork.ts";
import { planLive } from "../../src/hosts/codex/live/plan.ts";
import { readRollout } from "../../src/hosts/codex/rollout.ts";
import { BcError } from "../../src/util/errors.ts";
import { CORPUS_TIMEOUT_MS, SKIP_NOTE, corpusFiles } from "../support/shared.ts";

const DAMAGED_PER_HOST = 40;
const MAX_SOURCE_BYTES = 1_500_000;

/** A seeded generator: the same damage on every run. */
const random = (seed: number) => () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};

const WRONG: unknown[] = [null, 0, -1, "", "x", [], {}, true, [null], { type: "x" }, 1e300];

const damageValue = (v: unknown, rand: () => number, depth = 0): unknown => {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  if (v === null || typeof v !== "object" || depth > 6) return pick(WRONG);
  const copy: Record<string, unknown> | unknown[] = Array.isArray(v) ? [...v] : { ...(v as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (keys.length === 0) return pick(WRONG);
  const k = pick(keys);
  const r = rand();
  const c = copy as Record<string, unknown>;
  if (r < 0.15 && !Array.isArray(copy)) delete c[k];
  else if (r < 0.5) c[k] = pick(WRONG);
  else c[k] = damageValue(c[k], rand, depth + 1);
  return copy;
};

/** One kind of damage, chosen by the generator; `how` says what was done. */
const damage = (text: string, rand: () => number): { text: string; how: string } => {
  const lines = text.split("\n");
  const n = Math.max(1, lines.length - 1);
  const i = Math.floor(rand() * n);
  const r = rand();
  if (r < 0.1) {
    const at = Math.floor(rand() * text.length);
    return { text: text.slice(0, at), how: `cut short at character ${at}` };
  }
  if (r < 0.2) {
    lines.splice(i, 1);
    return { text: lines.join("\n"), how: `line ${i + 1} removed` };
  }
  if (r < 0.27) {
    lines.splice(i, 0, lines[i]!);
    return { text: lines.join("\n"), how: `line ${i + 1} doubled` };
  }
  if (r < 0.34) {
    const j = Math.floor(rand() * n);
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
    return { text: lines.join("\n"), how: `lines ${i + 1} and ${j + 1} swapped` };
  }
  if (r < 0.4) {
    lines[i] = JSON.stringify(WRONG[Math.floor(rand() * WRONG.length)]);
    return { text: lines.join("\n"), how: `line ${i + 1} replaced by ${lines[i]}` };
  }
  if (r < 0.45) {
    const l = lines[i]!;
    const at = Math.floor(rand() * l.length);
    lines[i] = l.slice(0, at) + String.fromCharCode(Math.floor(rand() * 128)) + l.slice(at + 1);
    return { text: lines.join("\n"), how: `a character of line ${i + 1} changed` };
  }
  const changed: number[] = [];
  for (let t = 0, times = 1 + Math.floor(rand() * 3); t < times; t++) {
    const j = Math.floor(rand() * n);
    try {
      lines[j] = JSON.stringify(damageValue(JSON.parse(lines[j]!), rand));
      changed.push(j + 1);
    } catch {
      // not JSON: left as it is
    }
  }
  return { text: lines.join("\n"), how: `fields of line(s) ${changed.join(", ")} changed` };
};

const dir = mkdtempSync(join(tmpdir(), "bc-damaged-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const outcomes = { answered: 0, refused: 0 };

for (const host of ["claude", "codex"] as const) {
  const sources = corpusFiles(host).filter((f) => statSync(f).size <= MAX_SOURCE_BYTES);
  test.skipIf(sources.length === 0)(
    `${DAMAGED_PER_HOST} damaged ${host} sessions: an answer or bc's error, never a crash`,
    () => {
      const rand = random(host === "claude" ? 11 : 12);
      const crashes: string[] = [];
      for (let k = 0; k < DAMAGED_PER_HOST; k++) {
        const source = sources[Math.floor(rand() * sources.length)]!;
        const { text, how } = damage(readFileSync(source, "utf8"), rand);
        const name = host === "codex" ? `rollout-2026-01-01T00-00-00-0190b2c4-5e6f-7a8b-9c0d-${String(k).padStart(12, "0")}.jsonl` : `damaged-${k}.jsonl`;
        const path = join(dir, name);
        writeFileSync(path, text);
        const steps: [string, () => unknown][] = [
          ["inspect", () => inspectSession(path)],
          ["plan, two passes", () => planReport(path, { passes: 2 })],
          ["plan --budget 20000", () => planReport(path, { budget: { tokens: 20_000 } })],
          ["plan --timeline", () => planReport(path, { timeline: true })],
        ];
        if (host === "codex")
          steps.push(
            ["plan --budget 60%", () => planReport(path, { budget: { percent: 60 } })],
            [
              "codex-fork --dry-run",
              () => forkRollout(path, { context: "fresh", pruner: enginePruner(undefined, { percent: 60 }), dryRun: true, codexHome: dir }),
            ],
            ["the live plan", () => planLive(readRollout(path), { contextWindow: 200_000 })],
          );
        for (const [step, run] of steps) {
          try {
            run();
            outcomes.answered++;
          } catch (e) {
            if (e instanceof BcError && e.message.includes(path) && !e.message.includes("\n")) outcomes.refused++;
            else crashes.push(`${step} on ${source} (${how}): ${(e as Error).stack?.split("\n").slice(0, 3).join(" | ")}`);
          }
        }
      }
      expect(crashes).toEqual([]);
    },
    CORPUS_TIMEOUT_MS,
  );
}

test.skipIf(corpusFiles("claude").length + corpusFiles("codex").length === 0)(
  "most damaged sessions are still answered (the test above is not vacuous)",
  () => {
    expect(outcomes.answered).toBeGreaterThan(outcomes.refused);
  },
);

if (corpusFiles("claude").length + corpusFiles("codex").length === 0) test.skip(SKIP_NOTE, () => {});
