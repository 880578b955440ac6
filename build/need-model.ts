// The shipped need model, fitted from a corpus: what build/fit-need.ts writes to
// src/engine/need/weights.ts, and what the corpus tests hold that file to (a change to the rules
// or the features that moves the fit must come with a refit).
import { FEATURE_NAMES } from "../src/engine/need/features.ts";
import { DEFAULT_FIT, type HeldOut, fitNeedModel, heldOutScore } from "../src/engine/need/fit.ts";
import type { NeedModel } from "../src/engine/need/model.ts";
import { type CollectedSamples, FIT_CUTS } from "../src/eval/need-data.ts";

export interface ShippedFit {
  readonly model: NeedModel;
  readonly sessions: number;
  /** grouped 5-fold held-out scores */
  readonly held: HeldOut;
}

/** Fit on the samples of a corpus (collectNeedSamples); they must hold at least one result. */
export const fitShippedModel = (dev: CollectedSamples): ShippedFit => {
  const sessions = new Set(dev.samples.map((s) => s.group)).size;
  const held = heldOutScore(dev.samples, DEFAULT_FIT);
  const percent = (share: number): number => Math.round(share * 100);
  const cuts = `${percent(Math.min(...FIT_CUTS))}-${percent(Math.max(...FIT_CUTS))}%`;
  const source = `fitted by build/fit-need.ts on ${dev.samples.length} results of ${sessions} public sessions (corpus ${dev.fingerprint.slice(0, 12)}), cuts at ${cuts}; grouped 5-fold AUC ${held.auc.toFixed(3)}, ECE ${held.ece.toFixed(3)}`;
  return { model: fitNeedModel(dev.samples, { ...DEFAULT_FIT, source }), sessions, held };
};

/** weights.ts as build/fit-need.ts writes it (the formatter then wraps its lines). */
export const weightsFile = (model: NeedModel): string => {
  const list = (xs: readonly number[]): string => `[${xs.join(", ")}]`;
  return `// The need model shipped in the binary: written by build/fit-need.ts, not by hand.
// ${FEATURE_NAMES.length} features (features.ts); a user's own weights (bc calibrate --write) take its place.
import type { NeedModel } from "./model.ts";

export const SHIPPED_NEED_MODEL: NeedModel = {
  source: ${JSON.stringify(model.source)},
  features: ${JSON.stringify(model.features)},
  mean: ${list(model.mean)},
  scale: ${list(model.scale)},
  weights: ${list(model.weights)},
  intercept: ${model.intercept},
};
`;
};
