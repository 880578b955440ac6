// The shipped need model, fitted from a corpus: what build/fit-need.ts writes to
// src/engine/need/weights.ts, and what the corpus tests hold that file to (a change to the rules
// or the features that moves the fit must come with a refit).
import { FEATURE_NAMES } from "../src/engine/need/features.ts";
import { DEFAULT_FIT, ESCALATION_MIN_CHARS, type HeldOut, escalationSamples, fitNeedModels, heldOutScore } from "../src/engine/need/fit.ts";
import type { NeedModel } from "../src/engine/need/model.ts";
import { type CollectedSamples, FIT_CUTS } from "../src/eval/need-data.ts";

export interface ShippedFit {
  readonly model: NeedModel;
  /** the escalation's: fitted on the results of ESCALATION_MIN_CHARS or more */
  readonly escalation: NeedModel;
  readonly sessions: number;
  /** grouped 5-fold held-out scores, of each */
  readonly held: HeldOut;
  readonly heldEscalation: HeldOut;
}

/** Fit on the samples of a corpus (collectNeedSamples); they must hold results of ESCALATION_MIN_CHARS or more, some used later and some not. */
export const fitShippedModel = (dev: CollectedSamples): ShippedFit => {
  const sessions = new Set(dev.samples.map((s) => s.group)).size;
  const percent = (share: number): number => Math.round(share * 100);
  const cuts = `${percent(Math.min(...FIT_CUTS))}-${percent(Math.max(...FIT_CUTS))}%`;
  const held = heldOutScore(dev.samples, DEFAULT_FIT);
  const heldEscalation = heldOutScore(escalationSamples(dev.samples), DEFAULT_FIT);
  const models = fitNeedModels(dev.samples, DEFAULT_FIT, (what, samples) => {
    const h = what === "need" ? held : heldEscalation;
    const which = what === "need" ? "results" : `results of ${ESCALATION_MIN_CHARS.toLocaleString("en-US")}+ characters`;
    return `fitted by build/fit-need.ts on ${samples.length} ${which} of ${sessions} public sessions (corpus ${dev.fingerprint.slice(0, 12)}), cuts at ${cuts}; grouped 5-fold AUC ${h.auc.toFixed(3)}, ECE ${h.ece.toFixed(3)}`;
  });
  if (models.escalation === models.need)
    throw new Error(`the corpus holds no results of ${ESCALATION_MIN_CHARS}+ characters to fit the escalation's model on, used and not`);
  return { model: models.need, escalation: models.escalation, sessions, held, heldEscalation };
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
// ${FEATURE_NAMES.length} features (features.ts); a user's own (bc calibrate --write, both models) take their place.
import type { NeedModel, NeedModels } from "./model.ts";

/** Every result's need: what sharpens the rules, and what \`bc calibrate\` compares a refit with. */
export const SHIPPED_NEED_MODEL: NeedModel = ${literal(model)};

/** The escalation's ranking under a budget: the same features fitted on the large results alone. */
export const SHIPPED_ESCALATION_MODEL: NeedModel = ${literal(escalation, "SHIPPED_NEED_MODEL.features")};

/** Both, as a plan takes them. */
export const SHIPPED_NEED_MODELS: NeedModels = { need: SHIPPED_NEED_MODEL, escalation: SHIPPED_ESCALATION_MODEL };
`;
};
