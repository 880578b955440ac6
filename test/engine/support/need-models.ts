// Need models of the tests' own, never the shipped weights: what a test asserts of the engine's
// use of a need must not hang on what a fit made.
import { FEATURE_NAMES } from "../../../src/engine/need/features.ts";
import type { NeedModel } from "../../../src/engine/need/model.ts";

/** A model that ranks by one feature alone: log-odds `intercept + weight × feature`. */
export const modelOn = (feature: (typeof FEATURE_NAMES)[number], weight: number, intercept = 0): NeedModel => ({
  source: "test",
  features: [...FEATURE_NAMES],
  mean: FEATURE_NAMES.map(() => 0),
  scale: FEATURE_NAMES.map(() => 1),
  weights: FEATURE_NAMES.map((f) => (f === feature ? weight : 0)),
  intercept,
});

/** The same need `p` (0 < p < 1) for every result. */
export const constantNeed = (p: number): NeedModel => modelOn("log_chars", 0, Math.log(p / (1 - p)));
