// What bc loses under a budget with given need weights, beside the hindsight oracle-to-budget at
// the same budget: the pressure mode of `bc eval`, bc's row and that ceiling only. `bc calibrate`
// asks it of the sessions each fold held out, to compare the shipped weights with a refit in
// what matters (results lost), not only in how they rank.
import { foldOf } from "../engine/need/fit.ts";
import type { NeedModels } from "../engine/need/model.ts";
import type { Session } from "../engine/types.ts";
import { type CutContext, DEFAULT_CUTS, sessionCuts } from "./cut.ts";
import { usedAfterCut } from "./labels.ts";
import { loadSessionFile } from "../hosts/load.ts";
import { BC_UNDER_PRESSURE } from "./methods/bc-pressure.ts";
import { type BudgetMethod, ORACLE_TO_BUDGET } from "./methods/budget.ts";
import { DEFAULT_PRESSURE, droppedByHost, pressurePoint } from "./pressure.ts";
import { scoreRewrites } from "./score.ts";
import { indexSession } from "./session-index.ts";

export interface BudgetLosses {
  /** cuts scored */
  readonly cuts: number;
  /** results bc lost, per need model asked about, in the order given */
  readonly lost: readonly number[];
  /** cuts where bc reached the budget, per need model */
  readonly reached: readonly number[];
  /** results oracle-to-budget lost at the same cuts */
  readonly oracleLost: number;
}

export const NO_BUDGET_LOSSES = (models: number): BudgetLosses => ({
  cuts: 0,
  lost: new Array<number>(models).fill(0),
  reached: new Array<number>(models).fill(0),
  oracleLost: 0,
});

export const addBudgetLosses = (a: BudgetLosses, b: BudgetLosses): BudgetLosses => ({
  cuts: a.cuts + b.cuts,
  lost: a.lost.map((x, i) => x + b.lost[i]!),
  reached: a.reached.map((x, i) => x + b.reached[i]!),
  oracleLost: a.oracleLost + b.oracleLost,
});

/** A cut as bc eval's pressure mode makes it: the cut, its pressure point, and what the session used after it. */
export interface PressureCut {
  readonly ctx: CutContext;
  readonly point: ReturnType<typeof pressurePoint>;
  readonly used: ReturnType<typeof usedAfterCut>;
}

/** A session's cuts at `cuts` (but one with nothing before or after it) under `pressure` of the window. */
export const pressureCuts = (timeline: Session, cuts: readonly number[] = DEFAULT_CUTS, pressure = DEFAULT_PRESSURE): PressureCut[] => {
  return sessionCuts(indexSession(timeline), cuts).map((ctx) => ({
    ctx,
    point: pressurePoint(ctx.tokensBefore, pressure, { droppedTokens: droppedByHost(ctx.prefix) }),
    used: usedAfterCut(ctx),
  }));
};

/** A budget method's rewrites at a pressure cut, scored as bc eval scores them. */
export const runAtCut = (m: BudgetMethod, { ctx, point, used }: PressureCut, needModels?: NeedModels) => {
  const o = m.run({ ...ctx, rulesFreedTokens: 0, point, used, ...(needModels === undefined ? {} : { needModels }) });
  return { lost: scoreRewrites(ctx, o.rewrites, { used }).tally.lost, reached: o.reached === true ? 1 : 0 };
};

/**
 * One session cut at each of `cuts`, each cut compacted as an automatic compaction at `pressure`
 * of the window down to the plugin's budget, by bc with each of `models` (undefined: the shipped
 * weights) and by oracle-to-budget, each scored as bc eval scores it.
 */
export const budgetLosses = (
  timeline: Session,
  models: readonly (NeedModels | undefined)[],
  options: { cuts?: readonly number[]; pressure?: number } = {},
): BudgetLosses => {
  let total = NO_BUDGET_LOSSES(models.length);
  for (const cut of pressureCuts(timeline, options.cuts, options.pressure)) {
    const bc = models.map((m) => runAtCut(BC_UNDER_PRESSURE, cut, m));
    total = addBudgetLosses(total, {
      cuts: 1,
      lost: bc.map((s) => s.lost),
      reached: bc.map((s) => s.reached),
      oracleLost: runAtCut(ORACLE_TO_BUDGET, cut).lost,
    });
  }
  return total;
};

/**
 * Grouped k-fold under a budget: each session (as collectNeedSamples lists them) ranked by
 * `baseline` (undefined: the shipped weights, as bc runs them) and by the model of its fold
 * (`folds[foldOf(group)]`, fitted without it; a fold without a model is left out), summed.
 * Losses as budgetLosses counts them, baseline first.
 */
export const heldOutBudgetLosses = (
  sessions: readonly { readonly path: string; readonly group: string }[],
  folds: readonly (NeedModels | undefined)[],
  baseline: NeedModels | undefined,
  progress: (done: number, total: number) => void = () => {},
): BudgetLosses => {
  let total = NO_BUDGET_LOSSES(2);
  sessions.forEach((s, k) => {
    progress(k, sessions.length);
    const m = folds[foldOf(s.group, folds.length)];
    if (m !== undefined) total = addBudgetLosses(total, budgetLosses(loadSessionFile(s.path).timeline, [baseline, m]));
  });
  return total;
};
