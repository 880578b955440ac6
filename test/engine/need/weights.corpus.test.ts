// The shipped need weights are what build/fit-need.ts fits on the corpus they name: a change to
// the rules or the features that moves the fit must come with a refit (and the figures quoted
// from it). Skipped without that corpus: the weights name it by its fingerprint.
import { describe, expect, test } from "bun:test";
import { SHIPPED_ESCALATION_MODEL, SHIPPED_NEED_MODEL } from "../../../src/engine/need/weights.ts";
import { collectNeedSamples } from "../../../src/eval/need-data.ts";
import { fitShippedModel } from "../../../build/need-model.ts";
import { CORPUS_DIR, SKIP_NOTE, hasCorpus } from "../../support/shared.ts";

const samples = hasCorpus() ? collectNeedSamples([CORPUS_DIR], () => {}) : undefined;
const named = samples !== undefined && SHIPPED_NEED_MODEL.source.includes(`(corpus ${samples.fingerprint.slice(0, 12)})`);

describe.skipIf(!named)("the shipped need weights", () => {
  test("are the fit of the corpus they name, as build/fit-need.ts writes it: every result's, and the escalation's", () => {
    const { model, escalation } = fitShippedModel(samples!);
    expect(model).toEqual(SHIPPED_NEED_MODEL);
    expect(escalation).toEqual(SHIPPED_ESCALATION_MODEL);
  }, 120_000);
});

if (!hasCorpus()) test.skip(SKIP_NOTE, () => {});
else if (!named) test.skip("the corpus found is not the one the shipped need weights name; their refit is not checked", () => {});
