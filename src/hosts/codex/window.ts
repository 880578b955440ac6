// The model's context window as a rollout reports it, and the budget a fork is cut to.
import { beyondEstimate } from "../../engine/estimate.ts";
import { BcError } from "../../util/errors.ts";
import { lastTokenCount, type Rollout } from "./rollout.ts";

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

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined);

/** The window and last request size Codex recorded in its newest token_count. */
export const recordedUsage = (rollout: Rollout): { window?: number; lastInput?: number } => {
  const info = lastTokenCount(rollout)?.payload.info as { model_context_window?: unknown; last_token_usage?: { input_tokens?: unknown } } | null | undefined;
  if (!info || typeof info !== "object") return {};
  return { window: num(info.model_context_window), lastInput: num(info.last_token_usage?.input_tokens) };
};

/** Whether the history was replaced (a compaction) after the newest token_count: that count is of a history no longer there. */
const compactedSinceCount = (rollout: Rollout): boolean => {
  for (let i = rollout.lines.length - 1; i >= 0; i--) {
    const l = rollout.lines[i]!;
    if (l.kind === "compacted") return true;
    if (l.kind === "event_msg" && l.payload.type === "token_count") return false;
  }
  return false;
};

/**
 * Tokens of Codex's requests the history does not show (its instructions, tool definitions, the
 * request's own form): its last recorded request size less bc's estimate of the history, at most
 * half of `share` (a count that is off cannot take the whole budget); 0 when nothing is recorded,
 * or when the history was compacted since.
 */
export const unseenTokens = (rollout: Rollout, historyTokens: number, share: number): number => {
  const last = recordedUsage(rollout).lastInput;
  return last === undefined || compactedSinceCount(rollout) ? 0 : beyondEstimate(last, historyTokens, share);
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
  throw new BcError(
    "usage",
    `--budget must be a number of tokens, a share of the window such as 60%, or none; got '${raw}'`,
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
 * The budget for a history of `historyTokens` (bc's estimate): a number of tokens is the history's
 * own; a share of the window is for Codex's whole request, so what the history does not show
 * comes off it.
 */
export const budgetFor = (spec: BudgetSpec, rollout: Rollout, historyTokens: number): ForkBudget => {
  const window = modelWindowOf(rollout);
  if (spec === "none") return { ...(window === undefined ? {} : { window }), why: "--budget none" };
  if ("tokens" in spec) return { tokens: spec.tokens, ...(window === undefined ? {} : { window }) };
  if (window === undefined) return { why: "the rollout records no model_context_window, so no budget (pass --budget <tokens>)" };
  const share = Math.floor((window * spec.percent) / 100);
  const unseen = unseenTokens(rollout, historyTokens, share);
  return { tokens: share - unseen, ...(unseen > 0 ? { unseenTokens: unseen } : {}), window };
};
