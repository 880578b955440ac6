// What bc loses under a budget with given need weights, beside the hindsight oracle-to-budget at
// the same budget: the pressure mode of `bc eval`, bc's row and that ceiling only. `bc calibrate`
// asks it of the sessions each fold held out, to compare the shipped weights with a refit in
// what matters (results lost), not only in how they rank.
import { foldOf } from "../engine/need/fit.ts";
import type { NeedModel } from "../engine/need/model.ts";
import type { Session } from "../engine/types.ts";
import { cutContext, DEFAULT_CUTS } from "./cut.ts";
import { usedAfterCut } from "./labels.ts";
import { loadSessionFile } from "../hosts/load.ts";
import { BC_UNDER_PRESSURE } from "./methods/bc-pressure.ts";
import { type BudgetMethod, ORACLE_TO_BUDGET } from "./methods/budget.ts";
import { DEFAULT_PRESSURE, pressurePoint } from "./pressure.ts";
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

/**
 * One session cut at each of `cuts`, each cut compacted as an automatic compaction at `pressure`
 * of the window down to the plugin's budget, by bc with each of `models` (undefined: the shipped
 * weights) and by oracle-to-budget, each scored as bc eval scores it.
 */
export const budgetLosses = (
  timeline: Session,
  models: readonly (NeedModel | undefined)[],
  options: { cuts?: readonly number[]; pressure?: number } = {},
): BudgetLosses => {
  const index = indexSession(timeline);
  const n = timeline.messages.length;
  let total = NO_BUDGET_LOSSES(models.length);
  for (const share of options.cuts ?? DEFAULT_CUTS) {
    const ctx = cutContext(index, share);
    if (ctx.at <= 0 || ctx.at >= n) continue;
    const point = pressurePoint(ctx.tokensBefore, options.pressure ?? DEFAULT_PRESSURE);
    const used = usedAfterCut(ctx);
    const score = (m: BudgetMethod, needModel: NeedModel | undefined) => {
      const o = m.run({ ...ctx, rulesFreedTokens: 0, point, used, ...(needModel === undefined ? {} : { needModel }) });
      return { lost: scoreRewrites(ctx, o.rewrites, { used }).tally.lost, reached: o.reached === true ? 1 : 0 };
    };
    const bc = models.map((m) => score(BC_UNDER_PRESSURE, m));
    total = addBudgetLosses(total, {
      cuts: 1,
      lost: bc.map((s) => s.lost),
      reached: bc.map((s) => s.reached),
      oracleLost: score(ORACLE_TO_BUDGET, undefined).lost,
    });
  }
  return total;
};

/**
 * Grouped k-fold under a budget: each session (as collectNeedSamples lists them) ranked by
 * `baseline` and by the model of its fold (`folds[foldOf(group)]`, fitted without it; a fold
 * without a model is left out), summed. Losses as budgetLosses counts them, baseline first.
 */
export const heldOutBudgetLosses = (
  sessions: readonly { readonly path: string; readonly group: string }[],
  folds: readonly (NeedModel | undefined)[],
  baseline: NeedModel,
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
