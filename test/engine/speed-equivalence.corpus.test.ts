// Whole Plans of the fast lookup against the reference one on every corpus session, cut at 90%
// (the longest prefix: every result that an earlier cut sees, judged against the most later
// text; the generated sessions of speed-equivalence.slow.test.ts cover the other cuts). Folders:
// ../shared/corpus, plus any listed in BC_EXTRA_CORPUS (separated by ":"); skipped without them.
import { describe, expect, test } from "bun:test";
import { planWith } from "../../src/engine/plan.ts";
import type { Session } from "../../src/engine/types.ts";
import { CORPUS_FOLDERS, CORPUS_TIMEOUT_MS, SKIP_NOTE, hasCorpus, loadCorpusSession } from "../support/shared.ts";
import { sessionFiles } from "./support/decision-snapshot.ts";

const samePlans = (s: Session): boolean => JSON.stringify(planWith(s, undefined, "fast")) === JSON.stringify(planWith(s, undefined, "reference"));

const cut = (s: Session, share: number): Session => ({ ...s, messages: s.messages.slice(0, Math.floor(s.messages.length * share)) });

const folders = CORPUS_FOLDERS;

describe.skipIf(!hasCorpus())("plans on the corpus: the fast lookup equals the reference", () => {
  for (const host of ["claude", "codex"] as const) {
    test(
      `${host}: every session cut at 90%`,
      () => {
        const files = folders.flatMap(sessionFiles).filter((f) => f.includes(`/${host}/`));
        expect(files.length).toBeGreaterThan(0);
        const bad = files.filter((f) => !samePlans(cut(loadCorpusSession(f).live, 0.9))).map((f) => `${f.split("/").pop()} @0.9: plans differ`);
        expect(bad).toEqual([]);
      },
      CORPUS_TIMEOUT_MS,
    );
  }
});

if (!hasCorpus()) test.skip(SKIP_NOTE, () => {});
