// On every real session of the corpus, at every cut and after repeated passes: every result bc
// removed or truncated comes back byte for byte from `bc recall`'s lookup over the file the host
// keeps after the compaction (the session's own lines, then the compacted history appended).
import { describe, expect, test } from "bun:test";
import { apply } from "../../src/engine/apply.ts";
import { plan } from "../../src/engine/plan.ts";
import type { Message, Session } from "../../src/engine/types.ts";
import { checkRecall } from "../../src/eval/recall-check.ts";
import { corpusFiles, hasCorpus, loadCorpusSession, SKIP_NOTE } from "../support/shared.ts";

const CUTS = [0.5, 0.7, 0.9];
const PASSES = [0.5, 0.6, 0.7, 0.8, 0.9];
const compact = (s: Session): Message[] => apply(s, plan(s));
// Bound by the disk, not the engine: every removed result is recalled from the rewritten file, read
// afresh each time. With the validation corpus too (BC_EXTRA_CORPUS), Codex's repeated passes took
// 174-187 s on a machine whose disk read 200 MB in about half a second.
const TIMEOUT = 480_000;

describe.skipIf(!hasCorpus())("bc recall gives back every removed result, on the corpus", () => {
  for (const host of ["claude", "codex"] as const) {
    test(
      `${host}: every session at every cut (50/70/90% of messages)`,
      () => {
        let removed = 0;
        const misses: string[] = [];
        for (const path of corpusFiles(host)) {
          const loaded = loadCorpusSession(path);
          const timeline = loaded.timeline.messages;
          for (const share of CUTS) {
            const at = Math.round(share * timeline.length);
            const out = compact({ ...loaded.timeline, messages: timeline.slice(0, at) });
            const r = checkRecall(loaded, [out]);
            removed += r.removed;
            for (const m of r.misses) misses.push(`${path} cut ${share}: ${m.callId}: ${m.why}`);
          }
        }
        console.log(
          `recall, ${host}, ${corpusFiles(host).length} sessions x 3 cuts: ${removed - misses.length} of ${removed} removed results back byte for byte`,
        );
        expect(misses).toEqual([]);
        expect(removed).toBeGreaterThan(100);
      },
      TIMEOUT,
    );

    test(
      `${host}: every session after repeated passes (50, 60, 70, 80, 90%), each over the previous output`,
      () => {
        let removed = 0;
        const misses: string[] = [];
        for (const path of corpusFiles(host)) {
          const loaded = loadCorpusSession(path);
          const timeline = loaded.timeline.messages;
          const outputs: Message[][] = [];
          let history: readonly Message[] = [];
          let prev = 0;
          for (const share of PASSES) {
            const at = Math.round(share * timeline.length);
            if (at <= prev) continue;
            const out = compact({ ...loaded.timeline, messages: [...history, ...timeline.slice(prev, at)] });
            outputs.push(out);
            history = out;
            prev = at;
          }
          const r = checkRecall(loaded, outputs);
          removed += r.removed;
          for (const m of r.misses) misses.push(`${path} pass ${m.pass}: ${m.callId}: ${m.why}`);
        }
        console.log(
          `recall, ${host}, ${corpusFiles(host).length} sessions x ${PASSES.length} passes: ${removed - misses.length} of ${removed} removed results back byte for byte`,
        );
        expect(misses).toEqual([]);
        expect(removed).toBeGreaterThan(100);
      },
      TIMEOUT,
    );
  }
});

if (!hasCorpus()) test.skip(SKIP_NOTE, () => {});
