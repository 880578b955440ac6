// The laws over every real session in ../shared/corpus and BC_EXTRA_CORPUS's folders (skipped
// cleanly without them). Each session is compacted as it grows: pass k plans the first
// 40/50/60/70/80/90% of its messages with the earlier passes' rewrites in place (so the 50/70/90%
// cuts are among them), and every pass must keep the laws. Each file is parsed once; passes share
// objects, so the engine's per-object caches keep this lean. What shown-elsewhere drops must
// stand elsewhere in each pass's output.
import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import type { Message, Session } from "../../src/engine/types.ts";
import { CORPUS_TIMEOUT_MS, SKIP_NOTE, corpusFiles, hasCorpus, loadCorpusSession } from "../support/shared.ts";
import { PassHistory, checkApply, checkDeterminism, checkFixedPoint, checkShownElsewhere, compactAsItGrows } from "./support/laws.ts";

const CUTS = [0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
/** a cold copy (no cache can help) costs a full re-tokenization: done on files up to this size */
const DETERMINISM_MAX_BYTES = 700_000;

describe.skipIf(!hasCorpus())("corpus sessions, compacted six times as they grow", () => {
  for (const host of ["claude", "codex"] as const) {
    test(
      `${host}: every pass keeps pairs, prose, a fixed point, only tightens; deterministic`,
      () => {
        const files = corpusFiles(host);
        expect(files.length).toBeGreaterThan(0);
        const bad: string[] = [];
        let removed = 0;
        let shownElsewhere = 0;
        for (const f of files) {
          const live = loadCorpusSession(f).live;
          const history = new PassHistory();
          const upTo = (cut: number): Session => ({ ...live, messages: live.messages.slice(0, Math.floor(live.messages.length * cut)) });
          const grown = (out: readonly Message[], n: number): Session | undefined => {
            const cut = CUTS[n + 1];
            if (cut === undefined) return undefined;
            return { ...live, messages: [...out, ...upTo(cut).messages.slice(out.length)] };
          };
          compactAsItGrows(upTo(CUTS[0]!), grown, ({ n, session: s, plan: p, out }) => {
            const cut = CUTS[n]!;
            const label = `${f.split("/").pop()} @${cut}`;
            removed += p.totals.resultsDropped + p.totals.resultsTruncated;
            bad.push(...checkApply(s, p, out, label), ...checkFixedPoint(s, out, label), ...history.check(p, out, label));
            bad.push(...checkShownElsewhere(s, p, out, label));
            shownElsewhere += p.decisions.filter((d) => d.rule === "shown-elsewhere").length;
            if (cut === 0.7 && statSync(f).size <= DETERMINISM_MAX_BYTES) bad.push(...checkDeterminism(s, p, label));
          });
        }
        expect(bad).toEqual([]);
        expect(removed).toBeGreaterThan(0);
        expect(shownElsewhere).toBeGreaterThan(0);
      },
      CORPUS_TIMEOUT_MS,
    );
  }
});

if (!hasCorpus()) test.skip(SKIP_NOTE, () => {});
