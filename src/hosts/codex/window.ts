// The budget a fork (or a plan of a rollout) is cut to, from the window the rollout records.
import { beyondEstimate } from "../../engine/estimate.ts";
import { BcError } from "../../util/errors.ts";
import type { RecordedWindow } from "../types.ts";

/** The share of the window a fork is cut to by default: room to work before Codex compacts again. */
export const DEFAULT_FORK_BUDGET_PERCENT = 60;

/**
 * Tokens of Codex's requests the history does not show (its instructions, tool definitions, the
 * request's own form): its last recorded request size less `countedTokens`, bc's estimate of the
 * history that request held (the items before its response, as they stood then: rollout.ts
 * countedHistory; not the whole history, whose last response and what came after it, a large
 * output, are not in that size, and which a rollback since may have taken turns out of), at most
 * half of `share` (a count that is off cannot take the whole budget); 0 when nothing is recorded,
 * or when the history was compacted since.
 */
export const unseenTokens = (recorded: RecordedWindow, countedTokens: number, share: number): number =>
  recorded.lastInput === undefined ? 0 : beyondEstimate(recorded.lastInput, countedTokens, share);

/** `--budget`: a number of tokens, or N% of the model's window; "none" turns escalation off. */
export type BudgetSpec = { readonly tokens: number } | { readonly percent: number } | "none";

/** No model's window is near this: a budget beyond it is a typo. */
const MAX_BUDGET_TOKENS = 1_000_000_000;

export const parseBudget = (raw: string | undefined): BudgetSpec => {
  // not given, or given alone (`--budget` with no value): the default share
  if (raw === undefined || raw === "") return { percent: DEFAULT_FORK_BUDGET_PERCENT };
  const s = raw.trim();
  if (s === "none") return "none";
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(s);
  if (pct) {
    // under 1% of a window is no budget to work in
    const n = Number(pct[1]);
    if (n >= 1 && n <= 100) return { percent: n };
  } else if (/^\d+$/.test(s) && Number(s) > 0 && Number(s) <= MAX_BUDGET_TOKENS) return { tokens: Number(s) };
  throw new BcError(
    "usage",
    `--budget must be a number of tokens (up to ${MAX_BUDGET_TOKENS.toLocaleString("en-US")}), a share of the window from 1% to 100% such as 60%, or none; got '${raw}'`,
    "for example --budget 120000 or --budget 60%",
  );
};

export interface ForkBudget {
  /** tokens the pruned history is cut to (undefined: no escalation) */
  readonly tokens?: number;
  /** a share of the window: what Codex's requests carry besides the history, taken off it */
  readonly unseenTokens?: number;
  readonly window?: number;
  /** why there is no budget, when there is none */
  readonly why?: string;
}

/**
 * The budget for a history: a number of tokens is the history's own; a share of the window is for
 * Codex's whole request, so what the history does not show comes off it (unseenTokens, of
 * `countedTokens`: bc's estimate of the history Codex's last recorded request held).
 */
export const budgetFor = (spec: BudgetSpec, recorded: RecordedWindow, countedTokens: number): ForkBudget => {
  const { window } = recorded;
  if (spec === "none") return { ...(window === undefined ? {} : { window }), why: "--budget none" };
  if ("tokens" in spec) return { tokens: spec.tokens, ...(window === undefined ? {} : { window }) };
  if (window === undefined) return { why: "the rollout records no model_context_window, so no budget (pass --budget <tokens>)" };
  const share = Math.floor((window * spec.percent) / 100);
  const unseen = unseenTokens(recorded, countedTokens, share);
  return { tokens: share - unseen, ...(unseen > 0 ? { unseenTokens: unseen } : {}), window };
};
