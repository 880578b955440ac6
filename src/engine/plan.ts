// plan(session, options) -> Plan: run the ladder over every tool result, merge, settle the
// fixed-point laws, optionally escalate toward a token budget, and total it all up.
// Pure: the same session and options give the same Plan, byte for byte.
import { estimateMessageTokens, estimateTextTokens } from "./estimate.ts";
import { type LookupMode, type ResultItem, SessionIndex } from "./index.ts";
import { DEFAULT_KEEP, mergeVerdict, settle } from "./merge.ts";
import { dropNote, truncatedText } from "./notes.ts";
import { LADDER } from "./rules/ladder.ts";
import { neverDropUnquoted, quotedLater } from "./rules/never-drop.ts";
import { lookup } from "./rules/referenced.ts";
import type { Verdict } from "./rules/rule.ts";
import { type Decision, type Options, type Plan, type PlanTotals, type RuleId, type RuleTotals, type Session, DEFAULT_OPTIONS } from "./types.ts";

const resultTokensAfter = (text: string, v: Verdict, callId: string): number => {
  if (v.action === "keep") return estimateTextTokens(text);
  if (v.action === "drop") return estimateTextTokens(dropNote(text.length, callId));
  return estimateTextTokens(truncatedText(text, v.headChars ?? 0, callId));
};

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

const toDecision = (item: ResultItem, v: Verdict): Decision => {
  const base = {
    callId: item.result.callId,
    messageIndex: item.messageIndex,
    tool: item.call?.name ?? "?",
    chars: item.result.text.length,
    action: v.action,
    rule: v.rule,
    reason: v.reason,
  };
  return v.action === "truncate" ? { ...base, headChars: v.headChars ?? 0 } : base;
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

/** Escalation classes, most re-readable first; undefined: never escalated. */
const escalationClass = (index: SessionIndex, item: ResultItem, v: Verdict): number | undefined => {
  if (v.rule === "pinned" || v.rule === "never-drop" || v.rule === "already-cut" || v.action === "drop") return undefined;
  if (item.cut || !item.call) return undefined;
  if (item.meaning.rerunnable !== undefined) return 0;
  if (item.meaning.read !== undefined && index.laterReads(item).length > 0) return 1;
  if (v.rule === "too-recent" && !("token" in lookup(index, item))) return 2;
  return undefined;
};

const ESCALATION_REASONS = [
  "over budget: re-runnable output, oldest first",
  "over budget: the file was read again later",
  "over budget: recent and not yet referenced",
];

export const plan = (session: Session, options?: Partial<Options>): Plan => planWith(session, options, "fast");

/** plan() with a chosen lookup mode: "reference" is the plain definition the tests hold the fast path to. */
export const planWith = (session: Session, options: Partial<Options> | undefined, mode: LookupMode): Plan => {
  const opts: Options = { ...DEFAULT_OPTIONS, ...options };
  const index = new SessionIndex(session, opts, mode);
  const verdicts = index.items.map((item) => decideResult(index, item));

  const before = sessionTokens(session);
  let freed = 0;
  index.items.forEach((item, k) => {
    freed += estimateTextTokens(item.result.text) - resultTokensAfter(item.result.text, verdicts[k]!, item.result.callId);
  });

  let budget: Plan["budget"];
  if (opts.budgetTokens !== undefined) {
    const classes: ResultItem[][] = [[], [], []];
    index.items.forEach((item, k) => {
      const c = escalationClass(index, item, verdicts[k]!);
      if (c !== undefined) classes[c]!.push(item);
    });
    for (const list of classes) {
      for (const item of list) {
        if (before.total - freed <= opts.budgetTokens) break;
        const text = item.result.text;
        const old = verdicts[item.ordinal]!;
        const v: Verdict = { action: "drop", rule: "escalation", reason: ESCALATION_REASONS[classes.indexOf(list)]! };
        if (dropNote(text.length, item.result.callId).length >= text.length) continue;
        freed += resultTokensAfter(text, old, item.result.callId) - resultTokensAfter(text, v, item.result.callId);
        verdicts[item.ordinal] = v;
      }
    }
    budget = { tokens: opts.budgetTokens, reached: before.total - freed <= opts.budgetTokens };
  }

  const decisions = index.items.map((item, k) => toDecision(item, verdicts[k]!));
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
