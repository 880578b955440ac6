// plan(session, options) -> Plan: run the ladder over every tool result, merge, settle the
// fixed-point laws, optionally escalate toward a token budget, and total it all up.
// Pure: the same session and options give the same Plan, byte for byte.
import { estimateMessageTokens, estimateTextTokens } from "./estimate.ts";
import { type LookupMode, type ResultItem, SessionIndex } from "./index.ts";
import { DEFAULT_KEEP, mergeVerdict, settle } from "./merge.ts";
import { type Escalated, escalate, needScores, resultTokensAfter } from "./need/escalate.ts";
import { sharpen } from "./need/sharpen.ts";
import { SHIPPED_NEED_MODEL } from "./need/weights.ts";
import { LADDER } from "./rules/ladder.ts";
import { neverDropUnquoted, quotedLater } from "./rules/never-drop.ts";
import type { Verdict } from "./rules/rule.ts";
import { type Decision, type Options, type Plan, type PlanTotals, type RuleId, type RuleTotals, type Session, DEFAULT_OPTIONS } from "./types.ts";

/**
 * Decide one result: the ladder in order, merged. never-drop's quote check scans the whole
 * result, and only matters when something would be cut, so it runs last: the same outcome
 * for less work (a quoted result that is kept anyway shows the rule that kept it).
 */
export const decideResult = (index: SessionIndex, item: ResultItem): Verdict => {
  const ctx = { index, item };
  const [pinRule, , ...rest] = LADDER;
  const locked = pinRule!.decide(ctx) ?? neverDropUnquoted(ctx);
  if (locked) return locked;
  const facts = { supersedesAnother: item.meaning.read !== undefined && index.supersedesAnother(item) };
  let decided: Verdict | undefined;
  for (const rule of rest) {
    decided = mergeVerdict(decided, rule.decide(ctx), facts);
    if (decided && decided.action !== "keep") break;
  }
  const merged = decided ?? DEFAULT_KEEP;
  const settled = settle(merged, item.result.text, item.cut, item.result.callId);
  if (settled.action === "keep") return settled;
  return quotedLater(ctx) ?? settled;
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
  return rank === undefined || rank.order === 0 ? cut : { ...cut, need: Math.round(rank.need * 1000) / 1000, escalationOrder: rank.order };
};

const sessionTokens = (session: Session): { total: number; tool: number } => {
  let total = 0;
  let tool = 0;
  for (const m of session.messages) {
    const t = estimateMessageTokens(m);
    total += t.all;
    tool += t.tool;
  }
  return { total, tool };
};

export const plan = (session: Session, options?: Partial<Options>): Plan => planWith(session, options, "fast");

/** plan() with a chosen lookup mode: "reference" is the plain definition the tests hold the fast path to. */
export const planWith = (session: Session, options: Partial<Options> | undefined, mode: LookupMode): Plan => {
  const opts: Options = { ...DEFAULT_OPTIONS, ...options };
  const index = new SessionIndex(session, opts, mode);
  const ruled = index.items.map((item) => decideResult(index, item));
  const need = needScores(index, ruled, opts.needModel ?? SHIPPED_NEED_MODEL);
  const verdicts = sharpen(index.items, ruled, need);

  const before = sessionTokens(session);
  let freed = 0;
  index.items.forEach((item, k) => {
    freed += estimateTextTokens(item.result.text) - resultTokensAfter(item.result.text, verdicts[k]!, item.result.callId);
  });

  let budget: Plan["budget"];
  let ranks: Escalated | undefined;
  if (opts.budgetTokens !== undefined) {
    const e = escalate(index, verdicts, before.total - freed - opts.budgetTokens, need);
    verdicts.splice(0, verdicts.length, ...e.verdicts);
    ranks = e;
    freed += e.freed;
    budget = { tokens: opts.budgetTokens, reached: before.total - freed <= opts.budgetTokens };
  }

  const decisions = index.items.map((item, k) =>
    toDecision(item, verdicts[k]!, ranks === undefined ? undefined : { need: ranks.need[k]!, order: ranks.order[k]! }),
  );
  const byRule: Partial<Record<RuleId, RuleTotals>> = {};
  let kept = 0;
  let truncated = 0;
  let dropped = 0;
  index.items.forEach((item, k) => {
    const v = verdicts[k]!;
    if (v.action === "keep") kept++;
    else if (v.action === "truncate") truncated++;
    else dropped++;
    const t = byRule[v.rule] ?? { results: 0, removed: 0, tokensFreed: 0 };
    byRule[v.rule] = {
      results: t.results + 1,
      removed: t.removed + (v.action === "keep" ? 0 : 1),
      tokensFreed: t.tokensFreed + estimateTextTokens(item.result.text) - resultTokensAfter(item.result.text, v, item.result.callId),
    };
  });
  const totals: PlanTotals = {
    results: index.items.length,
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
  return budget === undefined ? { decisions, totals, skipped } : { decisions, totals, skipped, budget };
};
