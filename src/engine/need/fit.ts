// Fitting and judging the need model: L2-regularized logistic regression by Newton's method
// (deterministic: no random start, no sampling), the area under the ROC curve, calibration by
// bins, and grouped splits that hold out whole sessions.
import { FEATURE_NAMES } from "./features.ts";
import { type NeedModel, type NeedModels, needOf } from "./model.ts";

export interface Sample {
  readonly x: ArrayLike<number>;
  /** 1: the session used the result after the cut */
  readonly y: 0 | 1;
  /** the session it comes from: splits never put one session on both sides */
  readonly group: string;
}

export interface FitOptions {
  /** L2 penalty on the standardized weights */
  readonly l2: number;
  readonly iterations: number;
  readonly source: string;
}

export const DEFAULT_FIT: Omit<FitOptions, "source"> = { l2: 1, iterations: 50 };

/** Solve A v = b (A symmetric positive definite) by Gaussian elimination with partial pivoting. */
const solve = (a: number[][], b: number[]): number[] => {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    const d = m[c]![c]!;
    if (Math.abs(d) < 1e-12) continue;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / d;
      if (f === 0) continue;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => (Math.abs(row[i]!) < 1e-12 ? 0 : row[n]! / row[i]!));
};

/** Fit the model on samples. A feature that never varies gets weight 0 (and says so by scale 1). */
export const fitNeedModel = (samples: readonly Sample[], options: FitOptions): NeedModel => {
  const k = FEATURE_NAMES.length;
  const n = samples.length;
  const mean = new Array<number>(k).fill(0);
  const scale = new Array<number>(k).fill(0);
  for (const s of samples) for (let j = 0; j < k; j++) mean[j]! += s.x[j]! / Math.max(1, n);
  for (const s of samples) for (let j = 0; j < k; j++) scale[j]! += (s.x[j]! - mean[j]!) ** 2 / Math.max(1, n);
  for (let j = 0; j < k; j++) scale[j] = scale[j]! > 1e-12 ? Math.sqrt(scale[j]!) : 1;
  const z = samples.map((s) => Array.from({ length: k }, (_, j) => (s.x[j]! - mean[j]!) / scale[j]!));
  // parameters: [intercept, w_0 .. w_k-1]
  let beta = new Array<number>(k + 1).fill(0);
  for (let it = 0; it < options.iterations; it++) {
    const grad = new Array<number>(k + 1).fill(0);
    const hess = Array.from({ length: k + 1 }, () => new Array<number>(k + 1).fill(0));
    for (let i = 0; i < n; i++) {
      const zi = z[i]!;
      let eta = beta[0]!;
      for (let j = 0; j < k; j++) eta += beta[j + 1]! * zi[j]!;
      const p = eta >= 0 ? 1 / (1 + Math.exp(-eta)) : Math.exp(eta) / (1 + Math.exp(eta));
      const r = p - samples[i]!.y;
      const w = Math.max(p * (1 - p), 1e-9);
      grad[0]! += r;
      hess[0]![0]! += w;
      for (let j = 0; j < k; j++) {
        const v = zi[j]!;
        if (v === 0) continue;
        grad[j + 1]! += r * v;
        hess[0]![j + 1]! += w * v;
        for (let l = j; l < k; l++) hess[j + 1]![l + 1]! += w * v * zi[l]!;
      }
    }
    for (let j = 1; j <= k; j++) {
      hess[j]![0] = hess[0]![j]!;
      for (let l = 1; l < j; l++) hess[j]![l] = hess[l]![j]!;
      grad[j]! += options.l2 * beta[j]!;
      hess[j]![j]! += options.l2;
    }
    const step = solve(hess, grad);
    const next = beta.map((b, j) => b - step[j]!);
    const moved = Math.max(...step.map(Math.abs));
    beta = next;
    if (moved < 1e-9) break;
  }
  const round = (v: number): number => Number(v.toPrecision(8));
  return {
    source: options.source,
    features: [...FEATURE_NAMES],
    mean: mean.map(round),
    scale: scale.map(round),
    weights: beta.slice(1).map(round),
    intercept: round(beta[0]!),
  };
};

/**
 * The escalation's model is fitted on the results of at least this many characters alone: the
 * ones a budget cuts, whose order among themselves is what it gets right or wrong. Chosen on the
 * development sessions at 95% of the window (1,000, 2,000, 4,000 and 8,000 tried, and all results
 * as before): they lost 211 with one model for both, 205 at 2,000 (1,000: 214; 4,000: 211; 8,000:
 * 210); the held-out sessions lost 366 with one model, 356 at 2,000.
 */
export const ESCALATION_MIN_CHARS = 2000;

/** A sample with the size of its result. */
export interface SizedSample extends Sample {
  readonly chars: number;
}

/** The samples the escalation's model is fitted on: results of ESCALATION_MIN_CHARS or more. */
export const escalationSamples = <S extends SizedSample>(samples: readonly S[]): S[] => samples.filter((s) => s.chars >= ESCALATION_MIN_CHARS);

/** Whether a fit can tell anything from these samples: some used later and some not. */
const bothLabels = (samples: readonly Sample[]): boolean => samples.some((s) => s.y === 1) && samples.some((s) => s.y === 0);

/**
 * Both models, fitted on the samples: the need model on all of them, the escalation's on the
 * large results alone, or the need model again where those are all used or none (nothing to rank
 * them by). `source(what, samples)` names each: what it was fitted on, and how many.
 */
export const fitNeedModels = (
  samples: readonly SizedSample[],
  options: Omit<FitOptions, "source">,
  source: (what: "need" | "escalation", samples: readonly SizedSample[]) => string = () => "",
): NeedModels => {
  const need = fitNeedModel(samples, { ...options, source: source("need", samples) });
  const large = escalationSamples(samples);
  return { need, escalation: bothLabels(large) ? fitNeedModel(large, { ...options, source: source("escalation", large) }) : need };
};

/** Area under the ROC curve: the chance that a used result scores above an unused one (ties: half). */
export const auc = (scores: readonly number[], labels: readonly (0 | 1)[]): number => {
  const order = scores.map((_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let pos = 0;
  let neg = 0;
  let rankSum = 0;
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const midRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (labels[order[k]!] === 1) rankSum += midRank;
    i = j + 1;
  }
  for (const l of labels)
    if (l === 1) pos++;
    else neg++;
  if (pos === 0 || neg === 0) return Number.NaN;
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
};

export interface CalibrationBin {
  readonly from: number;
  readonly to: number;
  readonly count: number;
  readonly predicted: number;
  readonly observed: number;
}

/** Predicted against observed rate in ten equal-width bins, and the expected calibration error. */
export const calibration = (scores: readonly number[], labels: readonly (0 | 1)[], bins = 10): { bins: CalibrationBin[]; ece: number } => {
  const out: CalibrationBin[] = [];
  let ece = 0;
  for (let b = 0; b < bins; b++) {
    const from = b / bins;
    const to = (b + 1) / bins;
    let count = 0;
    let predicted = 0;
    let observed = 0;
    scores.forEach((s, i) => {
      if (s < from || (s >= to && b < bins - 1)) return;
      count++;
      predicted += s;
      observed += labels[i]!;
    });
    if (count === 0) continue;
    out.push({ from, to, count, predicted: predicted / count, observed: observed / count });
    ece += (count / Math.max(1, scores.length)) * Math.abs(predicted / count - observed / count);
  }
  return { bins: out, ece };
};

/** A small deterministic hash of a string, for assigning sessions to folds. */
const hashString = (s: string): number => {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
};

/** Fold of a session among `folds`: the same session always lands in the same fold. */
export const foldOf = (group: string, folds: number): number => hashString(group) % folds;

export interface HeldOut {
  readonly folds: number;
  /** folds whose sessions were scored by a model fitted without them: under two, there are no held-out figures (NaN) */
  readonly scoredFolds: number;
  /** samples scored by a model fitted without their session */
  readonly samples: number;
  readonly auc: number;
  /** AUC of each fold's held-out sessions */
  readonly foldAuc: readonly number[];
  readonly ece: number;
  readonly bins: readonly CalibrationBin[];
}

/**
 * Grouped k-fold: per fold, the model fitted on the other folds' sessions (undefined: they hold none).
 * `progress(done, folds)` before each fit and once all are done: a fit on a large corpus takes seconds.
 */
export const foldModels = (
  samples: readonly Sample[],
  options: Omit<FitOptions, "source">,
  folds = 5,
  progress: (done: number, total: number) => void = () => {},
): (NeedModel | undefined)[] => foldFits(samples, folds, progress, (train) => fitNeedModel(train, { ...options, source: "fold" }));

/** foldModels, both models of each fold (fitNeedModels). */
export const foldModelPairs = (
  samples: readonly SizedSample[],
  options: Omit<FitOptions, "source">,
  folds = 5,
  progress: (done: number, total: number) => void = () => {},
): (NeedModels | undefined)[] => foldFits(samples, folds, progress, (train) => fitNeedModels(train, options, () => "fold"));

const foldFits = <S extends Sample, M>(
  samples: readonly S[],
  folds: number,
  progress: (done: number, total: number) => void,
  fit: (train: S[]) => M,
): (M | undefined)[] => {
  const models = Array.from({ length: folds }, (_, f) => {
    progress(f, folds);
    const train = samples.filter((s) => foldOf(s.group, folds) !== f);
    return train.length === 0 ? undefined : fit(train);
  });
  progress(folds, folds);
  return models;
};

/**
 * Grouped k-fold: fit on the other folds' sessions (or take `models`, foldModels' answer), score
 * each fold's; AUC and calibration over the held-out scores. A fold without a model (every session
 * in it) scores nothing: pooling a made-up score for it would give figures no model earned.
 */
export const heldOutScore = (
  samples: readonly Sample[],
  options: Omit<FitOptions, "source">,
  folds = 5,
  models: readonly (NeedModel | undefined)[] = foldModels(samples, options, folds),
): HeldOut => {
  const fold = samples.map((s) => foldOf(s.group, folds));
  const score = samples.map((s, i) => {
    const m = models[fold[i]!];
    return m === undefined ? undefined : needOf(m, s.x);
  });
  const foldAuc: number[] = [];
  let scoredFolds = 0;
  for (let f = 0; f < folds; f++) {
    const testIdx = samples.flatMap((_, i) => (fold[i] === f && score[i] !== undefined ? [i] : []));
    if (testIdx.length === 0) continue;
    scoredFolds++;
    const a = auc(
      testIdx.map((i) => score[i]!),
      testIdx.map((i) => samples[i]!.y),
    );
    if (!Number.isNaN(a)) foldAuc.push(a);
  }
  if (scoredFolds < 2) return { folds, scoredFolds, samples: 0, auc: Number.NaN, foldAuc: [], ece: Number.NaN, bins: [] };
  const scored = samples.flatMap((_, i) => (score[i] === undefined ? [] : [i]));
  const scores = scored.map((i) => score[i]!);
  const labels = scored.map((i) => samples[i]!.y);
  const cal = calibration(scores, labels);
  return { folds, scoredFolds, samples: scored.length, auc: auc(scores, labels), foldAuc, ece: cal.ece, bins: cal.bins };
};

/** AUC and calibration of a given model on samples (e.g. the shipped weights on a user's sessions). */
export const scoreModel = (m: NeedModel, samples: readonly Sample[]): { auc: number; ece: number; bins: readonly CalibrationBin[] } => {
  const scores = samples.map((s) => needOf(m, s.x));
  const labels = samples.map((s) => s.y);
  const cal = calibration(scores, labels);
  return { auc: auc(scores, labels), ece: cal.ece, bins: cal.bins };
};

/** How the model does on one tool's results. */
export interface ToolScore {
  readonly tool: string;
  readonly samples: number;
  /** share of them the session used after the cut */
  readonly usedShare: number;
  /** the model's mean need for them: far from usedShare, it is off for this tool */
  readonly meanNeed: number;
  /** NaN when all of them were used, or none */
  readonly auc: number;
  /** bc knows no meaning for the tool (not a read, search, listing, shell, web or subagent call): scored by size and age alone */
  readonly unknownTool: boolean;
}

/**
 * The model per tool, most results first: tools with fewer than `minSamples` results are left
 * out (too few to say anything of). `unknown(x)`: whether a feature vector has no tool class.
 */
export const scoreByTool = (
  m: NeedModel,
  samples: readonly (Sample & { readonly tool: string })[],
  unknown: (x: ArrayLike<number>) => boolean,
  minSamples = 50,
): ToolScore[] => {
  const byTool = new Map<string, (Sample & { readonly tool: string })[]>();
  for (const s of samples) {
    const list = byTool.get(s.tool);
    if (list === undefined) byTool.set(s.tool, [s]);
    else list.push(s);
  }
  const out: ToolScore[] = [];
  for (const [tool, list] of byTool) {
    if (list.length < minSamples) continue;
    const scores = list.map((s) => needOf(m, s.x));
    const labels = list.map((s) => s.y);
    const used = labels.filter((y) => y === 1).length;
    out.push({
      tool,
      samples: list.length,
      usedShare: used / list.length,
      meanNeed: scores.reduce((a, b) => a + b, 0) / list.length,
      auc: used === 0 || used === list.length ? Number.NaN : auc(scores, labels),
      unknownTool: list.every((s) => unknown(s.x)),
    });
  }
  return out.sort((a, b) => b.samples - a.samples || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
};
