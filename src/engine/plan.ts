// plan(session, options) -> Plan: walk the ladder over every tool result, merge, settle the
// fixed-point laws, optionally escalate toward a token budget, and total it all up.
// Pure: the same session and options give the same Plan, byte for byte.
import { type Escalated, escalate, needScores, tokensAfter } from "./escalate.ts";
import { estimateSessionTokens, estimateTextTokens } from "./estimate.ts";
import type { LookupMode } from "./lookup/lookup.ts";
import { DEFAULT_KEEP, mergeVerdict, settle } from "./merge.ts";
import { sharpen } from "./need/sharpen.ts";
import { shownElsewhere } from "./shown-elsewhere.ts";
import { SHIPPED_NEED_MODELS } from "./need/weights.ts";
import { LADDER } from "./rules/ladder.ts";
import type { RuleContext, Verdict } from "./rules/rule.ts";
import { type ResultItem, SessionFacts } from "./session-facts.ts";
import { type Decision, type Options, type Plan, type PlanTotals, type RuleId, type RuleTotals, type Session, DEFAULT_OPTIONS } from "./types.ts";

/**
 * Decide one result: the ladder in order. A locking rule's verdict is final; otherwise the
 * verdicts merge (the first decision wins, a keep may still become a truncate) until one cuts,
 * and the fixed-point laws settle it. A cut is then offered to the rules' guards, which may keep it.
 */
export const decideResult = (facts: SessionFacts, item: ResultItem): Verdict => {
  const ctx: RuleContext = { facts, item };
  let decided: Verdict | undefined;
  for (const rule of LADDER) {
    const v = rule.decide(ctx);
    if (v !== undefined && rule.locks) return v;
    decided = mergeVerdict(decided, v);
    if (decided !== undefined && decided.action !== "keep") break;
  }
  const settled = settle(decided ?? DEFAULT_KEEP, item.result.text, item.cut, item.result.callId);
  if (settled.action === "keep") return settled;
  for (const rule of LADDER) {
    const kept = rule.guard?.(ctx);
    if (kept !== undefined) return kept;
  }
  return settled;
};

const toDecision = (item: ResultItem, v: Verdict, rank?: { need: number; order: number }): Decision => {
  const base = {
    callId: item.result.callId,
    messageIndex: item.messageIndex,
    tool: item.call?.name ?? "?",
    chars: item.result.text.length,
    action: v.action,
    rule: v.rule,
    reason: v.reason,
  };
  const cut = v.action === "truncate" ? { ...base, headChars: v.headChars ?? 0 } : base;
  if (rank === undefined || rank.order === 0) return cut;
  return Number.isNaN(rank.need) ? { ...cut, escalationOrder: rank.order } : { ...cut, need: Math.round(rank.need * 1000) / 1000, escalationOrder: rank.order };
};

export const plan = (session: Session, options?: Partial<Options>): Plan => planWith(session, options, "fast");

/** plan() with a chosen lookup: "reference" is the plain definition the tests hold the fast one to. */
export const planWith = (session: Session, options: Partial<Options> | undefined, mode: LookupMode): Plan => {
  const opts: Options = { ...DEFAULT_OPTIONS, ...options };
  const facts = new SessionFacts(session, opts, mode);
  const ruled = facts.items.map((item) => decideResult(facts, item));
  // the need score of every result the escalation may cut, which also sharpens the rules; under a
  // budget the escalation ranks by the model fitted for it
  const { need: model, escalation: ranking } = opts.needModels ?? SHIPPED_NEED_MODELS;
  const needs = needScores(facts, ruled, opts.budgetTokens === undefined || ranking === model ? [model] : [model, ranking], opts.needOverride);
  const need = needs[0]!;
  const rankBy = needs[1] ?? need;
  const verdicts = shownElsewhere(facts, sharpen(facts, ruled, need));

  const before = estimateSessionTokens(session);
  let freed = 0;
  facts.items.forEach((item, k) => {
    freed += estimateTextTokens(item.result.text) - tokensAfter(item.result.text, verdicts[k]!, item.result.callId);
  });

  let budget: Plan["budget"];
  let ranks: Escalated | undefined;
  if (opts.budgetTokens !== undefined) {
    ranks = escalate(facts, verdicts, before.total - freed - opts.budgetTokens, rankBy);
    verdicts.splice(0, verdicts.length, ...ranks.verdicts);
    freed += ranks.freed;
    const reached = before.total - freed <= opts.budgetTokens;
    budget = ranks.lentBack > 0 ? { tokens: opts.budgetTokens, reached, lentBack: ranks.lentBack } : { tokens: opts.budgetTokens, reached };
  }

  const decisions = facts.items.map((item, k) =>
    toDecision(item, verdicts[k]!, ranks === undefined ? undefined : { need: ranks.need[k]!, order: ranks.order[k]! }),
  );
  const byRule: Partial<Record<RuleId, RuleTotals>> = {};
  let kept = 0;
  let truncated = 0;
  let dropped = 0;
  facts.items.forEach((item, k) => {
    const v = verdicts[k]!;
    if (v.action === "keep") kept++;
    else if (v.action === "truncate") truncated++;
    else dropped++;
    const t = byRule[v.rule] ?? { results: 0, removed: 0, tokensFreed: 0 };
    byRule[v.rule] = {
      results: t.results + 1,
      removed: t.removed + (v.action === "keep" ? 0 : 1),
      tokensFreed: t.tokensFreed + estimateTextTokens(item.result.text) - tokensAfter(item.result.text, v, item.result.callId),
    };
  });
  const totals: PlanTotals = {
    results: facts.items.length,
    resultsKept: kept,
    resultsTruncated: truncated,
    resultsDropped: dropped,
    tokensBefore: before.total,
    tokensAfter: before.total - freed,
    toolTokensBefore: before.tool,
    toolTokensAfter: before.tool - freed,
    byRule,
  };
  const skipped = opts.minRemovalFraction > 0 && (before.tool === 0 || freed / before.tool < opts.minRemovalFraction);
  // a skipped pass is not applied: the budget is reached only if the history was already under it
  if (skipped && budget !== undefined) budget = { tokens: budget.tokens, reached: before.total <= budget.tokens };
  return budget === undefined ? { decisions, totals, skipped } : { decisions, totals, skipped, budget };
};
