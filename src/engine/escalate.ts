// Escalation toward a token budget: when the ladder's plan still leaves the history over the
// budget, cut further, in classes, most re-readable first and oldest first within a class;
// never a pinned or never-drop result, one an earlier pass cut, or one without a call.
import { estimateTextTokens } from "./estimate.ts";
import { dropNote, truncatedText } from "./notes.ts";
import { laterUse } from "./rules/referenced.ts";
import type { Verdict } from "./rules/rule.ts";
import type { ResultItem, SessionFacts } from "./session-facts.ts";

/** Estimated tokens of a result's text once a verdict is applied. */
export const tokensAfter = (text: string, v: Verdict): number => {
  if (v.action === "keep") return estimateTextTokens(text);
  if (v.action === "drop") return estimateTextTokens(dropNote(text.length));
  return estimateTextTokens(truncatedText(text, v.headChars ?? 0));
};

/** Escalation classes, most re-readable first; undefined: never escalated. */
const escalationClass = (facts: SessionFacts, item: ResultItem, v: Verdict): number | undefined => {
  if (v.rule === "pinned" || v.rule === "never-drop" || v.rule === "already-cut" || v.action === "drop") return undefined;
  if (item.cut || !item.call) return undefined;
  if (item.meaning.rerunnable !== undefined) return 0;
  if (item.meaning.read !== undefined && facts.laterReads(item).length > 0) return 1;
  if (v.rule === "too-recent" && !("token" in laterUse(facts, item))) return 2;
  return undefined;
};

const ESCALATION_REASONS = [
  "over budget: re-runnable output, oldest first",
  "over budget: the file was read again later",
  "over budget: recent and not yet referenced",
];

/**
 * Drop results, class by class, until the history is within `budgetTokens` (verdicts are
 * changed in place). `tokens` is the history's estimate under the verdicts as given; returns
 * the estimate after.
 */
export const escalate = (facts: SessionFacts, verdicts: Verdict[], tokens: number, budgetTokens: number): number => {
  let now = tokens;
  const classes: ResultItem[][] = [[], [], []];
  facts.items.forEach((item, k) => {
    const c = escalationClass(facts, item, verdicts[k]!);
    if (c !== undefined) classes[c]!.push(item);
  });
  classes.forEach((list, c) => {
    for (const item of list) {
      if (now <= budgetTokens) break;
      const text = item.result.text;
      const old = verdicts[item.ordinal]!;
      const v: Verdict = { action: "drop", rule: "escalation", reason: ESCALATION_REASONS[c]! };
      if (dropNote(text.length).length >= text.length) continue;
      now -= tokensAfter(text, old) - tokensAfter(text, v);
      verdicts[item.ordinal] = v;
    }
  });
  return now;
};
