// Whole Plans of the fast lookup against the "reference" one on every corpus session
// (skipped without the corpus).
import { describe, expect, test } from "bun:test";
import { planWith } from "../../src/engine/plan.ts";
import type { Session } from "../../src/engine/types.ts";
import { SKIP_NOTE, corpusFiles, hasCorpus, loadCorpusSession } from "../support/shared.ts";

const samePlans = (s: Session, label: string): string[] =>
  JSON.stringify(planWith(s, undefined, "fast")) === JSON.stringify(planWith(s, undefined, "reference")) ? [] : [`${label}: plans differ`];

const cut = (s: Session, share: number): Session => ({ ...s, messages: s.messages.slice(0, Math.floor(s.messages.length * share)) });

// The corpus: every session, cut at 90% (the longest prefix: every result that an earlier cut
// sees, judged against the most later text). The generated sessions above cover the other cuts.
describe.skipIf(!hasCorpus())("plans on the corpus: fast mode equals reference mode", () => {
  for (const host of ["claude", "codex"] as const) {
    test(`${host}: every session cut at 90%`, () => {
      const files = corpusFiles(host);
      expect(files.length).toBeGreaterThan(0);
      const bad: string[] = [];
      for (const f of files) {
        const live = loadCorpusSession(f).live;
        bad.push(...samePlans(cut(live, 0.9), `${f.split("/").pop()} @0.9`));
      }
      expect(bad).toEqual([]);
    });
  }
});

if (!hasCorpus()) test.skip(SKIP_NOTE, () => {});
