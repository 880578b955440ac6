// Every corpus rollout forks with the rules engine, its own check passing (skipped without the
// corpus): ../shared/corpus, plus the folders listed in BC_EXTRA_CORPUS.
import { describe, expect, test } from "bun:test";
import { basename } from "node:path";
import { enginePruner, forkRollout } from "../../../src/hosts/codex/fork.ts";
import { readRollout } from "../../../src/hosts/codex/rollout.ts";
import { SKIP_NOTE, corpusFiles } from "../../support/shared.ts";

const corpus = corpusFiles("codex");
describe.skipIf(corpus.length === 0)("every corpus rollout forks with its check passing", () => {
  if (corpus.length === 0) console.warn(SKIP_NOTE);
  test.each(corpus.map((f) => [basename(f), f]))("%s", (_name, file) => {
    const r = forkRollout(file, { context: "fresh", pruner: enginePruner(), codexHome: "/nonexistent-bc-test-home", dryRun: true });
    // the dry run ran the same strict check a real fork runs on its temp file
    // the fork keeps the source's format (the corpus rollouts are legacy ones)
    expect(r.format).toBe(readRollout(file).format);
    expect(r.bytes.at(-1)).toBe(10);
    expect(r.historyItems).toBe(r.replacementHistory.length);
  });
});
