// The live replacement planned over every corpus rollout (../shared/corpus and BC_EXTRA_CORPUS's
// folders; skipped without them), as PreCompact would plan it when Codex's last request reached
// its auto-compact limit: it never throws, and a plan that fits injects items Codex can take
// (every call with its output), each as the rollout holds it, or an output cut to bc's note.
import { describe, expect, test } from "bun:test";
import { basename } from "node:path";
import { isAlreadyCut } from "../../../../src/engine/notes.ts";
import { rebuildHistory } from "../../../../src/hosts/codex/history.ts";
import { isOutputItem, outputText, sentForm } from "../../../../src/hosts/codex/items.ts";
import { pairingProblem, planLive } from "../../../../src/hosts/codex/live/plan.ts";
import { readRollout } from "../../../../src/hosts/codex/rollout.ts";
import { recordedUsage } from "../../../../src/hosts/codex/rollout.ts";
import { CORPUS_TIMEOUT_MS, SKIP_NOTE, corpusFiles } from "../../../support/shared.ts";

type Json = Record<string, any>;

const files = corpusFiles("codex");
if (files.length === 0) console.warn(`codex live plan: ${SKIP_NOTE}`);

describe.skipIf(files.length === 0)("the live replacement on every corpus rollout, at Codex's limit", () => {
  test(
    "never throws; a plan that fits keeps every call paired and every item verbatim or cut to a note",
    () => {
      let planned = 0;
      let fits = 0;
      let overTarget = 0;
      for (const file of files) {
        const rollout = readRollout(file);
        const lastInput = recordedUsage(rollout).lastInput;
        if (lastInput === undefined) continue;
        planned++;
        const plan = planLive(rollout, { autoCompactLimit: lastInput });
        if (!plan.fits) continue;
        fits++;
        const where = basename(file);
        expect({ where, problem: pairingProblem(plan.items) }).toEqual({ where, problem: undefined });
        expect(plan.tokensAfter).toBeLessThanOrEqual(plan.ceiling!);
        if (plan.tokensAfter > plan.target!) overTarget++;
        const source = rebuildHistory(rollout).items.map((h) => sentForm(h.item) as Json);
        const verbatim = new Set(source.map((it) => JSON.stringify(it)));
        const outputs = new Map(source.filter((it) => isOutputItem(it as any)).map((it) => [it.call_id as string, it] as const));
        for (const it of plan.items) {
          if (verbatim.has(JSON.stringify(it))) continue;
          // not as the rollout holds it: only an output, cut, with everything else unchanged
          const src = outputs.get(it.call_id);
          expect({ where, cutOutput: isOutputItem(it as any) && src !== undefined }).toEqual({ where, cutOutput: true });
          expect({ ...it, output: null }).toEqual({ ...src!, output: null });
          expect(isAlreadyCut(outputText(it.output).text)).toBe(true);
        }
      }
      console.log(
        `codex live plan: ${planned} rollouts planned at their last request's size, ${fits} fit: ${fits - overTarget} under 60% of it, ${overTarget} over it but under 75%`,
      );
      expect(planned).toBeGreaterThan(0);
    },
    CORPUS_TIMEOUT_MS,
  );
});
