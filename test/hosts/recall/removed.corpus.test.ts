// bc recall --list on real forks (skipped without the corpus): every corpus rollout forked to a
// budget the history meets, to one it cannot meet, and forked again tighter; every removal is
// listed with a rule, and the rules count what the fork's plan counted. ../shared/corpus, plus
// the folders listed in BC_EXTRA_CORPUS.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { enginePruner, type ForkResult, forkRollout } from "../../../src/hosts/codex/fork.ts";
import { removedIn } from "../../../src/hosts/recall/removed.ts";
import { byRule, planned } from "./fork-rules.ts";
import { CORPUS_TIMEOUT_MS, SKIP_NOTE, corpusFiles } from "../../support/shared.ts";

const corpus = corpusFiles("codex");
const dir = mkdtempSync(join(tmpdir(), "bc-removed-corpus-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const forkTo = (from: string, percent: number): ForkResult =>
  forkRollout(from, { context: "fresh", pruner: enginePruner(undefined, { percent }), outDir: dir, codexHome: join(dir, "codex") });

describe.skipIf(corpus.length === 0)("bc recall --list names the rule of every removal in a fork", () => {
  if (corpus.length === 0) console.warn(SKIP_NOTE);
  test.each(corpus.map((f) => [basename(f), f]))(
    "%s",
    (_name, file) => {
      for (const percent of [60, 20]) {
        const r = forkTo(file, percent);
        expect(byRule(removedIn(r.path, "codex").removed)).toEqual(planned(r));
        // a later pass: the notes it carries on keep the first pass's rules, its own cuts its own
        const first = new Map(removedIn(r.path, "codex").removed.map((x) => [x.id, x]));
        const again = forkTo(r.path, percent / 2);
        const listed = removedIn(again.path, "codex").removed;
        const carried = listed.filter((x) => first.get(x.id)?.charsRemoved === x.charsRemoved && first.get(x.id)?.kind === x.kind);
        expect(carried.filter((x) => x.rule !== first.get(x.id)!.rule)).toEqual([]);
        expect(byRule(listed.filter((x) => !carried.includes(x)))).toEqual(planned(again));
      }
    },
    CORPUS_TIMEOUT_MS,
  );
});
