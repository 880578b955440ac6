// The shipped need model, fitted from a corpus: what build/fit-need.ts writes to
// src/engine/need/weights.ts, and what the corpus tests hold that file to (a change to the rules
// or the features that moves the fit must come with a refit).
import { FEATURE_NAMES } from "../src/engine/need/features.ts";
import { DEFAULT_FIT, type HeldOut, fitNeedModel, heldOutScore } from "../src/engine/need/fit.ts";
import type { NeedModel } from "../src/engine/need/model.ts";
import { type CollectedSamples, FIT_CUTS } from "../src/eval/need-data.ts";

/**
 * The escalation's model is fitted on the results of at least this many characters alone: the
 * ones a budget cuts, whose order among themselves is what it gets right or wrong. Chosen on the
 * development sessions at 95% of the window (1,000, 2,000, 4,000 and 8,000 tried, and all results
 * as before): they lost 211 with one model for both, 205 at 2,000 (1,000: 214; 4,000: 211; 8,000:
 * 210); the held-out sessions lost 366 with one model, 356 at 2,000.
 */
export const ESCALATION_MIN_CHARS = 2000;

export interface ShippedFit {
  readonly model: NeedModel;
  /** the escalation's: fitted on the results of ESCALATION_MIN_CHARS or more */
  readonly escalation: NeedModel;
  readonly sessions: number;
  /** grouped 5-fold held-out scores, of each */
  readonly held: HeldOut;
  readonly heldEscalation: HeldOut;
}

/** Fit on the samples of a corpus (collectNeedSamples); they must hold at least one result of ESCALATION_MIN_CHARS or more. */
export const fitShippedModel = (dev: CollectedSamples): ShippedFit => {
  const sessions = new Set(dev.samples.map((s) => s.group)).size;
  const percent = (share: number): number => Math.round(share * 100);
  const cuts = `${percent(Math.min(...FIT_CUTS))}-${percent(Math.max(...FIT_CUTS))}%`;
  const fit = (samples: CollectedSamples["samples"], what: string): { model: NeedModel; held: HeldOut } => {
    const held = heldOutScore(samples, DEFAULT_FIT);
    const source = `fitted by build/fit-need.ts on ${samples.length} ${what} of ${sessions} public sessions (corpus ${dev.fingerprint.slice(0, 12)}), cuts at ${cuts}; grouped 5-fold AUC ${held.auc.toFixed(3)}, ECE ${held.ece.toFixed(3)}`;
    return { model: fitNeedModel(samples, { ...DEFAULT_FIT, source }), held };
  };
  const all = fit(dev.samples, "results");
  const large = fit(
    dev.samples.filter((s) => s.chars >= ESCALATION_MIN_CHARS),
    `results of ${ESCALATION_MIN_CHARS.toLocaleString("en-US")}+ characters`,
  );
  return { model: all.model, escalation: large.model, sessions, held: all.held, heldEscalation: large.held };
};

/** weights.ts as build/fit-need.ts writes it (the formatter then wraps its lines). */
export const weightsFile = (model: NeedModel, escalation: NeedModel): string => {
  const list = (xs: readonly number[]): string => `[${xs.join(", ")}]`;
  // the escalation's model is fitted on the same features in the same run: it names them by the first's list
  const literal = (m: NeedModel, features = JSON.stringify(m.features)): string => `{
  source: ${JSON.stringify(m.source)},
  features: ${features},
  mean: ${list(m.mean)},
  scale: ${list(m.scale)},
  weights: ${list(m.weights)},
  intercept: ${m.intercept},
}`;
  return `// The need models shipped in the binary: written by build/fit-need.ts, not by hand.
// ${FEATURE_NAMES.length} features (features.ts); a user's own weights (bc calibrate --write) take the place of both.
import type { NeedModel } from "./model.ts";

/** Every result's need: what sharpens the rules, and what \`bc calibrate\` compares a refit with. */
export const SHIPPED_NEED_MODEL: NeedModel = ${literal(model)};

/** The escalation's ranking under a budget: the same features fitted on the large results alone. */
export const SHIPPED_ESCALATION_MODEL: NeedModel = ${literal(escalation, "SHIPPED_NEED_MODEL.features")};
`;
};
