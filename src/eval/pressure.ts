// The pressure mode's arithmetic: a cut compacted as an automatic compaction with the history
// at a given share of the window, down to the budget the Claude Code plugin uses by default.
import { DEFAULT_PLUGIN_OPTIONS } from "../hosts/claude/plugin.ts";
import { estimateTextTokens } from "../engine/estimate.ts";
import type { Session } from "../engine/types.ts";
import type { CutContext } from "./cut.ts";
import { CLEARED_PLACEHOLDER } from "./methods/baselines.ts";
import { sessionToHookRows, thinkingOf } from "./methods/bc-pressure.ts";
import { thinkingThatStays } from "../hosts/claude/thinking.ts";

/** the default report's pressure: the history at 95% of the window */
export const DEFAULT_PRESSURE = 0.95;

/** the budget, in percent of the window: the plugin's default `compactAtPercent` */
export const BUDGET_PERCENT = DEFAULT_PLUGIN_OPTIONS.compactAtPercent;

export interface PressurePoint {
  /** the history's share of the window */
  readonly pressure: number;
  /** estimated tokens of the history before the cut */
  readonly tokensBefore: number;
  /** the window that puts the history at `pressure`: tokensBefore / pressure, rounded */
  readonly window: number;
  /** BUDGET_PERCENT of the window, rounded down (as the plugin computes it) */
  readonly budget: number;
  /**
   * tokens of the history that no compaction in its host leaves, whatever the method: Claude Code's
   * thinking (droppedByHost). Not counted in what any method leaves, bc or other.
   */
  readonly droppedTokens: number;
  /** tokens a method must free to reach the budget (0 when already under it): the history less droppedTokens, less the budget */
  readonly toFree: number;
}

export const pressurePoint = (
  tokensBefore: number,
  pressure: number,
  options: { readonly budgetPercent?: number; readonly droppedTokens?: number } = {},
): PressurePoint => {
  const window = Math.max(1, Math.round(tokensBefore / pressure));
  const budget = Math.floor((window * (options.budgetPercent ?? BUDGET_PERCENT)) / 100);
  const droppedTokens = options.droppedTokens ?? 0;
  return { pressure, tokensBefore, window, budget, droppedTokens, toFree: Math.max(0, tokensBefore - droppedTokens - budget) };
};

/**
 * Tokens of a history that a compaction in its host leaves out by itself. Claude Code: the
 * thinking of every answer but those of the tool loop the history ends in. A compaction hook's
 * rows come back rebuilt without thinking, but for the open loop's answers, which must reach the
 * API with their thinking and go back as they were (hosts/claude/rows.ts); Claude Code's own
 * summary keeps the last round's too. The plugin is told the same thinking (thinkingOf) and counts
 * only what stays against the budget (hosts/claude/thinking.ts: thinkingThatStays), and so does
 * every other method here. Codex: none (a fork keeps the reasoning items it copies).
 */
export const droppedByHost = (history: Session): number => {
  if (history.host !== "claude") return 0;
  const thinking = thinkingOf(history);
  const stays = thinkingThatStays(thinking, sessionToHookRows(history));
  // every answer's thinking, the last's too (which Claude Code's count does not hold yet)
  const all = (thinking.answers ?? []).reduce((n, a) => n + a.tokens, 0);
  return all - stays.counted - stays.after;
};

/** The least any method leaves in a removed result's place (a call keeps its result): the shortest placeholder. */
export const LEAST_LEFT_TOKENS = estimateTextTokens(CLEARED_PLACEHOLDER);

/**
 * Tokens of what no method may touch at a cut: prose, call inputs and pinned results, and of every
 * other result the least a removal leaves (the shortest placeholder, or the result itself when
 * shorter). A person's answer counts as any other result: bc never cuts it, but the baselines
 * clear every unpinned result, and so reach budgets bc cannot. Above the budget, only a summary
 * can reach it.
 */
export const untouchableTokens = (ctx: Pick<CutContext, "tokensBefore" | "results" | "pinned">): number => {
  let tokens = ctx.tokensBefore;
  for (const r of ctx.results) if (!ctx.pinned.has(r.ordinal)) tokens -= r.estTokens - Math.min(r.estTokens, LEAST_LEFT_TOKENS);
  return tokens;
};
