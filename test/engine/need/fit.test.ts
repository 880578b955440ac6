import { describe, expect, test } from "bun:test";
import { FEATURE_NAMES } from "../../../src/engine/need/features.ts";
import {
  ESCALATION_MIN_CHARS,
  type Sample,
  auc,
  calibration,
  fitNeedModel,
  fitNeedModels,
  foldModelPairs,
  foldModels,
  foldOf,
  heldOutScore,
  scoreByTool,
} from "../../../src/engine/need/fit.ts";
import { bothOf, modelProblem, needOf, parseNeedModels } from "../../../src/engine/need/model.ts";

const K = FEATURE_NAMES.length;
/** Made-up samples whose label follows feature 0 through a known logistic curve (a fixed pseudo-random stream). */
const samples = (n: number, slope: number): Sample[] => {
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return Array.from({ length: n }, (_, i) => {
    const x = new Float64Array(K);
    for (let j = 0; j < K; j++) x[j] = rnd() * 4 - 2;
    const p = 1 / (1 + Math.exp(-slope * x[0]!));
    return { x, y: rnd() < p ? 1 : 0, group: `s${i % 17}` };
  });
};

describe("need model fitting", () => {
  test("auc: perfect, reversed, ties and a hand-counted case", () => {
    expect(auc([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1])).toBe(1);
    expect(auc([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1])).toBe(0);
    expect(auc([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1])).toBe(0.5);
    // pairs (pos, neg): (0.4 vs 0.3) win, (0.4 vs 0.6) lose, (0.7 vs both) win: 3 of 4
    expect(auc([0.3, 0.4, 0.6, 0.7], [0, 1, 0, 1])).toBe(0.75);
    expect(Number.isNaN(auc([0.1, 0.2], [1, 1]))).toBe(true);
  });

  test("the fit finds the feature that carries the label and ranks held-out sessions by it", () => {
    const data = samples(3000, 3);
    const m = fitNeedModel(data, { l2: 1, iterations: 50, source: "test" });
    expect(modelProblem(m)).toBeUndefined();
    const strongest = m.weights.map(Math.abs).indexOf(Math.max(...m.weights.map(Math.abs)));
    expect(strongest).toBe(0);
    expect(m.weights[0]!).toBeGreaterThan(0);
    const held = heldOutScore(data, { l2: 1, iterations: 50 }, 5);
    expect(held.auc).toBeGreaterThan(0.8);
    expect(held.ece).toBeLessThan(0.05);
    // calibrated: a sample at x0 = 0 is a coin flip
    const mid = new Float64Array(K);
    mid.set(m.mean);
    mid[0] = 0;
    expect(Math.abs(needOf(m, mid) - 0.5)).toBeLessThan(0.1);
  });

  test("deterministic: the same samples give the same weights, byte for byte", () => {
    const data = samples(800, 2);
    const a = fitNeedModel(data, { l2: 1, iterations: 50, source: "t" });
    const b = fitNeedModel([...data], { l2: 1, iterations: 50, source: "t" });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  test("grouped folds never split a session", () => {
    const data = samples(500, 1);
    const folds = new Map<string, Set<number>>();
    for (const s of data) (folds.get(s.group) ?? folds.set(s.group, new Set()).get(s.group)!).add(foldOf(s.group, 5));
    for (const f of folds.values()) expect(f.size).toBe(1);
  });

  test("held-out figures pool the folds a model was fitted without, and no others: none at all when every session is in one fold", () => {
    const opts = { l2: 1, iterations: 20 };
    const oneFold = samples(400, 2).map((s) => ({ ...s, group: "one session" }));
    const none = heldOutScore(oneFold, opts, 5);
    expect({ ...none, auc: String(none.auc), ece: String(none.ece) }).toEqual({
      folds: 5,
      scoredFolds: 0,
      samples: 0,
      auc: "NaN",
      foldAuc: [],
      ece: "NaN",
      bins: [],
    });
    // a fold given no model: its sessions are left out of the pooled figures, not scored 0
    const data = samples(400, 2);
    const models = foldModels(data, opts, 5);
    const missing = foldOf(data[0]!.group, 5);
    models[missing] = undefined;
    const rest = data.filter((s) => foldOf(s.group, 5) !== missing);
    const held = heldOutScore(data, opts, 5, models);
    expect(held.scoredFolds).toBe(4);
    expect(held.samples).toBe(rest.length);
    expect(held.foldAuc).toHaveLength(4);
    expect(held.auc).toBe(
      auc(
        rest.map((s) => needOf(models[foldOf(s.group, 5)]!, s.x)),
        rest.map((s) => s.y),
      ),
    );
  });

  test("both models: the need model fitted on every result, the escalation's on the large ones alone (the need model where those are all used or none)", () => {
    // the small results' label follows feature 0, the large ones' feature 1
    const small = samples(600, 3).map((s) => ({ ...s, chars: ESCALATION_MIN_CHARS - 1 }));
    const large = samples(600, 3).map((s) => {
      const x = Float64Array.from(s.x);
      [x[0], x[1]] = [s.x[1]!, s.x[0]!];
      return { ...s, x, chars: ESCALATION_MIN_CHARS };
    });
    const opts = { l2: 1, iterations: 20 };
    const named: string[] = [];
    const both = fitNeedModels([...small, ...large], opts, (what, fitted) => {
      named.push(`${what} ${fitted.length}`);
      return what;
    });
    expect(named).toEqual(["need 1200", "escalation 600"]);
    expect(both.need).toEqual(fitNeedModel([...small, ...large], { ...opts, source: "need" }));
    expect(both.escalation).toEqual(fitNeedModel(large, { ...opts, source: "escalation" }));
    // the escalation's model reads the feature the large results follow
    expect(Math.abs(both.escalation.weights[1]!)).toBeGreaterThan(Math.abs(both.escalation.weights[0]!));
    // large results all used: nothing to rank them by, the need model is both
    const allUsed = fitNeedModels([...small, ...large.map((s) => ({ ...s, y: 1 as const }))], opts);
    expect(allUsed.escalation).toBe(allUsed.need);
    // per fold, the same as a fit on the other folds' sessions
    const pairs = foldModelPairs([...small, ...large], opts, 5);
    const train = [...small, ...large].filter((s) => foldOf(s.group, 5) !== 2);
    expect(pairs[2]).toEqual(fitNeedModels(train, opts, () => "fold"));
  });

  test("the fold fits say how far they are, ending at all of them", () => {
    const seen: string[] = [];
    foldModels(samples(200, 1), { l2: 1, iterations: 5 }, 5, (done, total) => seen.push(`${done} of ${total}`));
    expect(seen).toEqual(["0 of 5", "1 of 5", "2 of 5", "3 of 5", "4 of 5", "5 of 5"]);
  });

  test("calibration bins count every score once", () => {
    const scores = [0, 0.05, 0.15, 0.5, 0.95, 1];
    const { bins } = calibration(scores, [0, 0, 0, 1, 1, 1]);
    expect(bins.reduce((a, b) => a + b.count, 0)).toBe(scores.length);
  });

  test("a weights file for other features, or with bad numbers, is refused with the reason", () => {
    const m = fitNeedModel(samples(200, 1), { l2: 1, iterations: 20, source: "t" });
    expect(modelProblem({ ...m, features: m.features.slice(1) })).toBe(
      `its features are not this version's: it lacks ${m.features[0]} (refit with bc calibrate --write)`,
    );
    expect(modelProblem({ ...m, features: [...m.features.slice(0, -1), "old_feature"] })).toBe(
      `its features are not this version's: it lacks ${m.features.at(-1)} and has old_feature, which this version does not (refit with bc calibrate --write)`,
    );
    expect(modelProblem({ ...m, features: [...m.features].reverse() })).toContain("lists them in another order");
    expect(modelProblem({ ...m, scale: m.scale.map(() => 0) })).toContain("not positive");
    expect(modelProblem({ ...m, weights: [...m.weights.slice(1), Number.NaN] })).toContain("finite");
    // finite, but no fit's: scores that overflow to NaN, or needs all 0% or 100%
    expect(modelProblem({ ...m, weights: m.weights.map((_, i) => (i % 2 ? 1e300 : -1e300)), scale: m.scale.map(() => 1e-300) })).toContain(
      "which no fit writes",
    );
    expect(modelProblem({ ...m, weights: m.weights.map(() => 5e3) })).toContain("beyond ±1000");
    expect(modelProblem({ ...m, intercept: -2e3 })).toContain("beyond ±1000");
    expect(modelProblem({ ...m, mean: m.mean.map(() => 1e300) })).toContain("which no feature reaches");
    expect(parseNeedModels(JSON.stringify({ ...m, padding: "x".repeat(2 << 20) }))).toMatchObject({
      problem: expect.stringContaining("far more than a weights file holds"),
    });
  });

  test("a weights file holds both models, { need, escalation }; one model alone (as earlier versions wrote) is both", () => {
    const need = fitNeedModel(samples(200, 1), { l2: 1, iterations: 20, source: "need" });
    const escalation = fitNeedModel(samples(200, 2), { l2: 1, iterations: 20, source: "escalation" });
    expect(parseNeedModels(JSON.stringify({ need, escalation }))).toEqual({ need, escalation });
    const one = parseNeedModels(JSON.stringify(need));
    expect(one).toEqual(bothOf(need));
    // one object for both: a plan scores it once
    if ("problem" in one) throw new Error(one.problem);
    expect(one.escalation).toBe(one.need);
    // the same model written twice is read as one
    const twice = parseNeedModels(JSON.stringify({ need, escalation: need }));
    if ("problem" in twice) throw new Error(twice.problem);
    expect(twice.escalation).toBe(twice.need);
    // each model is checked, and the one at fault named
    expect(parseNeedModels(JSON.stringify({ need, escalation: { ...escalation, scale: escalation.scale.map(() => 0) } }))).toEqual({
      problem: expect.stringMatching(/^escalation: .*not positive/),
    });
    expect(parseNeedModels(JSON.stringify({ need: { ...need, intercept: "x" }, escalation }))).toEqual({
      problem: "need: expected { source, features, mean, scale, weights, intercept }",
    });
    expect(parseNeedModels(JSON.stringify({ need }))).toEqual({ problem: "escalation: not a JSON object" });
    expect(parseNeedModels("[]")).toEqual({ problem: "not a JSON object" });
  });
});

describe("the model per tool", () => {
  // a model that reads feature 0 alone: need = sigmoid(x0)
  const m = {
    source: "test",
    features: [...FEATURE_NAMES],
    mean: Array(K).fill(0),
    scale: Array(K).fill(1),
    weights: [1, ...Array(K - 1).fill(0)],
    intercept: 0,
  };
  const sample = (tool: string, x0: number, y: 0 | 1, unknown = false) => {
    const x = new Float64Array(K);
    x[0] = x0;
    x[1] = unknown ? 1 : 0;
    return { tool, x, y, group: tool };
  };
  const data = [
    // ranked perfectly: used ones score higher
    ...Array.from({ length: 60 }, (_, i) => sample("Read", i < 30 ? -2 : 2, i < 30 ? 0 : 1)),
    // ranked backwards, and a tool bc knows no meaning for
    ...Array.from({ length: 50 }, (_, i) => sample("Mystery", i < 25 ? 2 : -2, i < 25 ? 0 : 1, true)),
    // never used: no AUC
    ...Array.from({ length: 80 }, () => sample("Edit", -3, 0)),
    // too few to say anything of
    ...Array.from({ length: 49 }, () => sample("Rare", 0, 1)),
  ];
  const tools = scoreByTool(m, data, (x) => x[1] === 1, 50);

  test("most results first; tools under the minimum left out", () => {
    expect(tools.map((t) => [t.tool, t.samples])).toEqual([
      ["Edit", 80],
      ["Read", 60],
      ["Mystery", 50],
    ]);
  });

  test("AUC, used share, mean need and whether the tool is known, per tool", () => {
    const [edit, read, mystery] = tools;
    expect(read).toMatchObject({ auc: 1, usedShare: 0.5, unknownTool: false });
    expect(read!.meanNeed).toBeCloseTo(0.5, 10);
    expect(mystery).toMatchObject({ auc: 0, usedShare: 0.5, unknownTool: true });
    expect(Number.isNaN(edit!.auc)).toBe(true);
    expect(edit!.usedShare).toBe(0);
    expect(edit!.meanNeed).toBeCloseTo(1 / (1 + Math.exp(3)), 10);
  });
});
