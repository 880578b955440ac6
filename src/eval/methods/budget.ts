// The pressure mode's methods: each frees tool output until the history is at the budget, and
// stops at the first result that reaches it. The hindsight ceiling `oracle-to-budget` is here
// too, beside them, because it is run the same way (it is never reported as a method).
import { estimateTextTokens } from "../../engine/estimate.ts";
import type { NeedModels } from "../../engine/need/model.ts";
import type { PressurePoint } from "../pressure.ts";
import type { ResultInfo } from "../session-index.ts";
import { CLEARED_PLACEHOLDER, OBSERVATION_PLACEHOLDER, REMOVAL_NOTE } from "./baselines.ts";
import type { MethodInput, Rewrites } from "./method.ts";

export interface BudgetInput extends MethodInput {
  readonly point: PressurePoint;
  /** by ordinal: the counted tokens the session uses after the cut (labels.ts) */
  readonly used: readonly (readonly string[])[];
  /** the need weights bc ranks by (undefined: the shipped ones); only bc's own row reads them */
  readonly needModels?: NeedModels;
}

export interface BudgetOutcome {
  readonly rewrites: Rewrites;
  /** bc only: the method's own verdict; baselines are judged by the scored tokens */
  readonly reached?: boolean;
  /** bc for Claude Code only: the plugin handed its pruned rows to Claude Code's summary */
  readonly handedOver?: boolean;
  /** bc for Claude Code only: the plugin answered with its own rows (over the budget too) */
  readonly answered?: boolean;
  /** bc only: call id → the rule that decided the result */
  readonly rules?: ReadonlyMap<string, string>;
}

export interface BudgetMethod {
  readonly id: string;
  readonly kind: "method" | "ceiling";
  readonly summary: string;
  readonly run: (input: BudgetInput) => BudgetOutcome;
}

/** Replace results in `order` until `toFree` tokens are freed; the result that reaches it is the last. */
export const removeUntil = (order: readonly ResultInfo[], toFree: number, leave: (r: ResultInfo) => string): Map<number, string> => {
  const out = new Map<number, string>();
  let freed = 0;
  for (const r of order) {
    if (freed >= toFree) break;
    const after = leave(r);
    const saved = r.estTokens - estimateTextTokens(after);
    if (saved <= 0) continue;
    out.set(r.ordinal, after);
    freed += saved;
  }
  return out;
};

const unpinned = (input: BudgetInput): ResultInfo[] => input.results.filter((r) => !input.pinned.has(r.ordinal));

const note = (r: ResultInfo): string => REMOVAL_NOTE(r.text.length);

export const OLDEST_FIRST: BudgetMethod = {
  id: "oldest-first",
  kind: "method",
  summary: "drop unpinned results oldest first until the history is at the budget",
  run: (input) => ({ rewrites: removeUntil(unpinned(input), input.point.toFree, note) }),
};

export const LARGEST_FIRST_TO_BUDGET: BudgetMethod = {
  id: "largest-first",
  kind: "method",
  summary: "drop unpinned results largest first until the history is at the budget",
  run: (input) => ({
    rewrites: removeUntil(
      unpinned(input).sort((a, b) => b.estTokens - a.estTokens || a.ordinal - b.ordinal),
      input.point.toFree,
      note,
    ),
  }),
};

// keep-last-N and observation masking clear everything but the newest N results; with N the
// largest that reaches the budget, they clear the same oldest results oldest-first drops and
// differ from it only in what they leave in place (and so in how many results they must clear).
export const KEEP_LAST_N: BudgetMethod = {
  id: "keep-last-n",
  kind: "method",
  summary: `keep the newest N tool results, clear the older ones ("${CLEARED_PLACEHOLDER}", as clear_tool_uses); N chosen per cut, the largest that reaches the budget`,
  run: (input) => ({ rewrites: removeUntil(unpinned(input), input.point.toFree, () => CLEARED_PLACEHOLDER) }),
};

export const OBSERVATION_MASK_N: BudgetMethod = {
  id: "observation-mask-n",
  kind: "method",
  summary:
    'observation masking: keep the newest N tool results, older ones become "Old environment output: (k lines omitted)"; N chosen per cut, the largest that reaches the budget',
  run: (input) => ({ rewrites: removeUntil(unpinned(input), input.point.toFree, (r) => OBSERVATION_PLACEHOLDER(r.text)) }),
};

/** Hindsight ceiling: never-used results largest first, then used ones with the fewest used tokens per character. */
export const ORACLE_TO_BUDGET: BudgetMethod = {
  id: "oracle-to-budget",
  kind: "ceiling",
  summary:
    "hindsight ceiling: drop never-used unpinned results, largest first, then used ones with the fewest used tokens per character, until the history is at the budget",
  run: (input) => {
    const rs = unpinned(input);
    const usedCount = (r: ResultInfo): number => input.used[r.ordinal]?.length ?? 0;
    const never = rs.filter((r) => usedCount(r) === 0).sort((a, b) => b.estTokens - a.estTokens || a.ordinal - b.ordinal);
    const density = (r: ResultInfo): number => usedCount(r) / Math.max(1, r.text.length);
    const used = rs.filter((r) => usedCount(r) > 0).sort((a, b) => density(a) - density(b) || b.estTokens - a.estTokens || a.ordinal - b.ordinal);
    return { rewrites: removeUntil([...never, ...used], input.point.toFree, note) };
  },
};

export const BUDGET_BASELINES: readonly BudgetMethod[] = [OLDEST_FIRST, LARGEST_FIRST_TO_BUDGET, KEEP_LAST_N, OBSERVATION_MASK_N];
