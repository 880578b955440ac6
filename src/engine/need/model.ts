// The need model: a logistic regression over standardized features. It answers "how likely is
// it that the rest of the session uses this result's text", as a probability, deterministically.
import { FEATURE_NAMES } from "./features.ts";

export interface NeedModel {
  /** what the weights were fitted on and how, for `bc claude status` and reports */
  readonly source: string;
  /** the feature names, in the order of `mean`, `scale` and `weights` */
  readonly features: readonly string[];
  readonly mean: readonly number[];
  readonly scale: readonly number[];
  readonly weights: readonly number[];
  readonly intercept: number;
}

/**
 * The two models a plan uses: `need` scores every result (what sharpens the rules), `escalation`
 * ranks the cuts under a budget (fitted on the large results alone, whose order among
 * themselves is what a budget gets right or wrong). One model may be both.
 */
export interface NeedModels {
  readonly need: NeedModel;
  readonly escalation: NeedModel;
}

/** One model as both. */
export const bothOf = (m: NeedModel): NeedModels => ({ need: m, escalation: m });

/** Why a weights file cannot be used (undefined: it can). */
export const modelProblem = (m: NeedModel): string | undefined => {
  if (m.features.length !== FEATURE_NAMES.length || m.features.some((f, i) => f !== FEATURE_NAMES[i])) {
    const missing = FEATURE_NAMES.filter((f) => !m.features.includes(f));
    const extra = m.features.filter((f) => !(FEATURE_NAMES as readonly string[]).includes(f));
    const what = [
      ...(missing.length > 0 ? [`lacks ${missing.join(", ")}`] : []),
      ...(extra.length > 0 ? [`has ${extra.join(", ")}, which this version does not`] : []),
    ];
    return `its features are not this version's: it ${what.length > 0 ? what.join(" and ") : "lists them in another order"} (refit with bc calibrate --write)`;
  }
  for (const [name, list] of [
    ["mean", m.mean],
    ["scale", m.scale],
    ["weights", m.weights],
  ] as const) {
    if (list.length !== FEATURE_NAMES.length) return `${name} has ${list.length} values for ${FEATURE_NAMES.length} features`;
    if (list.some((v) => typeof v !== "number" || !Number.isFinite(v))) return `${name} holds a value that is not a finite number`;
  }
  if (m.scale.some((v) => v <= 0)) return "scale holds a value that is not positive";
  if (!Number.isFinite(m.intercept)) return "intercept is not a finite number";
  // what a fit can write (fit.ts: a scale of at least 1e-6, regularized weights): beyond these a
  // score overflows to NaN or every need reads 0% or 100%, and the file is no fit's
  if (m.scale.some((v) => v < MIN_SCALE)) return `scale holds a value under ${MIN_SCALE}, which no fit writes`;
  if (m.weights.some((v) => Math.abs(v) > MAX_WEIGHT) || Math.abs(m.intercept) > MAX_WEIGHT)
    return `a weight or the intercept is beyond ±${MAX_WEIGHT}, which no fit writes`;
  if (m.mean.some((v) => Math.abs(v) > MAX_MEAN)) return `mean holds a value beyond ±${MAX_MEAN}, which no feature reaches`;
  return undefined;
};

const MIN_SCALE = 1e-6;
const MAX_WEIGHT = 1000;
const MAX_MEAN = 1e6;
/** A weights file is a few kilobytes: anything near Claude Code's 4 MiB $.fs limit is not one. */
const MAX_WEIGHTS_CHARS = 1 << 20;

const sigmoid = (z: number): number => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/** The model's linear score (log-odds) for one feature vector. */
export const logOdds = (m: NeedModel, x: ArrayLike<number>): number => {
  let z = m.intercept;
  for (let i = 0; i < m.weights.length; i++) z += (m.weights[i]! * (x[i]! - m.mean[i]!)) / m.scale[i]!;
  return z;
};

/** The probability that the session still needs the result verbatim. */
export const needOf = (m: NeedModel, x: ArrayLike<number>): number => sigmoid(logOdds(m, x));

/** One model of a weights file, or why it cannot be used. */
const modelOf = (v: unknown): NeedModel | { problem: string } => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { problem: "not a JSON object" };
  const o = v as Record<string, unknown>;
  const list = (k: string): number[] | undefined => (Array.isArray(o[k]) ? (o[k] as number[]) : undefined);
  const features = Array.isArray(o.features) && o.features.every((f) => typeof f === "string") ? (o.features as string[]) : undefined;
  const mean = list("mean");
  const scale = list("scale");
  const weights = list("weights");
  if (typeof o.source !== "string" || !features || !mean || !scale || !weights || typeof o.intercept !== "number")
    return { problem: "expected { source, features, mean, scale, weights, intercept }" };
  const m: NeedModel = { source: o.source, features, mean, scale, weights, intercept: o.intercept };
  const problem = modelProblem(m);
  return problem === undefined ? m : { problem };
};

/**
 * A weights file's text as the two models, or why it cannot be used: `{ need, escalation }`, each
 * a model, as `bc calibrate --write` writes it; or one model (as earlier versions wrote it, and as
 * bc calibrate does where the escalation has no model of its own), which is then both.
 */
export const parseNeedModels = (text: string): NeedModels | { problem: string } => {
  if (text.length > MAX_WEIGHTS_CHARS) return { problem: `${text.length.toLocaleString("en-US")} characters, far more than a weights file holds` };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { problem: `not JSON (${(e as Error).message})` };
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { problem: "not a JSON object" };
  const o = v as Record<string, unknown>;
  if (!("need" in o) && !("escalation" in o)) {
    const one = modelOf(o);
    return "problem" in one ? one : bothOf(one);
  }
  const need = modelOf(o.need);
  if ("problem" in need) return { problem: `need: ${need.problem}` };
  const escalation = modelOf(o.escalation);
  if ("problem" in escalation) return { problem: `escalation: ${escalation.problem}` };
  // the same model twice is one model, scored once
  return JSON.stringify(need) === JSON.stringify(escalation) ? bothOf(need) : { need, escalation };
};

/** A need (or any share) as people read it: a whole percent. */
export const needPercent = (p: number): string => `${Math.round(p * 100)}%`;
