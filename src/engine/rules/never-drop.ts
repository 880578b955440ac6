// Never drop: what a summary loses first and re-running cannot bring back: an error, a
// result the assistant quoted, a result the assistant drew a rule from, a person's answer.
import { RULE_WORD_RE } from "../index.ts";
import { type Rule, type RuleContext, type Verdict, at } from "./rule.ts";

/** Everything but the quote check, which scans the result's text: the cheap part of the rule. */
export const neverDropUnquoted = ({ index, item }: RuleContext): Verdict | undefined => {
  if (item.error) return { action: "keep", rule: "never-drop", reason: "an error result" };
  if (item.meaning.asksPerson)
    return { action: "keep", rule: "never-drop", reason: `a person's answer (${item.call?.name ?? "?"}): re-running does not bring it back` };
  if (item.meaning.unrepeatable)
    return { action: "keep", rule: "never-drop", reason: `${item.call?.name ?? "?"} output: re-running would not reproduce it` };
  const next = index.nextReplyAfter(item.messageIndex);
  if (next !== -1) {
    const m = RULE_WORD_RE.exec(index.session.messages[next]!.text);
    if (m) return { action: "keep", rule: "never-drop", reason: `followed at ${at(next)} by a rule word ("${m[0]}")` };
  }
  return undefined;
};

export const quotedLater = ({ index, item }: RuleContext): Verdict | undefined => {
  const quoted = index.quotedAt(item);
  return quoted === -1 ? undefined : { action: "keep", rule: "never-drop", reason: `quoted at ${at(quoted)}` };
};

export const neverDrop: Rule = {
  id: "never-drop",
  decide: (ctx) => neverDropUnquoted(ctx) ?? quotedLater(ctx),
};
