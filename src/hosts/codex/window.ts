// The model's context window as a rollout reports it, and the budget a fork is cut to.
import { BcError } from "../../util/errors.ts";
import type { Rollout } from "./rollout.ts";

/** The share of the window a fork is cut to by default: room to work before Codex compacts again. */
export const DEFAULT_FORK_BUDGET_PERCENT = 60;

/** The last `model_context_window` the rollout recorded (token_count or task_started), or undefined. */
export const modelWindowOf = (rollout: Rollout): number | undefined => {
  for (let i = rollout.lines.length - 1; i >= 0; i--) {
    const line = rollout.lines[i]!;
    if (line.kind !== "event_msg") continue;
    const p = line.payload as Record<string, unknown>;
    const info = p.type === "token_count" ? (p.info as Record<string, unknown> | null | undefined) : p.type === "task_started" ? p : undefined;
    const w = info?.model_context_window;
    if (typeof w === "number" && Number.isFinite(w) && w > 0) return w;
  }
  return undefined;
};

/** `--budget`: a number of tokens, or N% of the model's window; "none" turns escalation off. */
export type BudgetSpec = { readonly tokens: number } | { readonly percent: number } | "none";

export const parseBudget = (raw: string | undefined): BudgetSpec => {
  if (raw === undefined || raw === "") return { percent: DEFAULT_FORK_BUDGET_PERCENT };
  const s = raw.trim();
  if (s === "none") return "none";
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(s);
  if (pct) {
    const n = Number(pct[1]);
    if (n > 0 && n <= 100) return { percent: n };
  } else if (/^\d+$/.test(s) && Number(s) > 0) return { tokens: Number(s) };
  throw new BcError("usage", `--budget must be a number of tokens, a share of the window such as 60%, or none; got '${raw}'`);
};

export interface ForkBudget {
  /** tokens the pruned history is cut to (undefined: no escalation) */
  readonly tokens?: number;
  readonly window?: number;
  /** why there is no budget, when there is none */
  readonly why?: string;
}

export const budgetFor = (spec: BudgetSpec, rollout: Rollout): ForkBudget => {
  const window = modelWindowOf(rollout);
  if (spec === "none") return { ...(window === undefined ? {} : { window }), why: "--budget none" };
  if ("tokens" in spec) return { tokens: spec.tokens, ...(window === undefined ? {} : { window }) };
  if (window === undefined) return { why: "the rollout records no model_context_window, so no budget (pass --budget <tokens>)" };
  return { tokens: Math.floor((window * spec.percent) / 100), window };
};
