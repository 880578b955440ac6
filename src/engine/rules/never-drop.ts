// Never drop: what a summary loses first and re-running cannot bring back: an error, a
// result the assistant quoted, a result the assistant drew a rule from, a person's answer.
import { RULE_WORD_RE } from "../index.ts";
import type { Message } from "../types.ts";
import { type Rule, type RuleContext, type Verdict, at } from "./rule.ts";

/** Everything but the quote check, which scans the result's text: the cheap part of the rule. */
export const neverDropUnquoted = ({ index, item }: RuleContext): Verdict | undefined => {
  if (item.error) return { action: "keep", rule: "never-drop", reason: "an error result" };
  if (item.meaning.asksPerson)
    return { action: "keep", rule: "never-drop", reason: `a person's answer (${item.call?.name ?? "?"}): re-running does not bring it back` };
  if (item.meaning.unrepeatable)
    return { action: "keep", rule: "never-drop", reason: `${item.call?.name ?? "?"} output: re-running would not reproduce it` };
  const next = replyRightAfter(index.session.messages, item.messageIndex);
  if (next !== -1) {
    const m = RULE_WORD_RE.exec(index.session.messages[next]!.text);
    if (m) return { action: "keep", rule: "never-drop", reason: `followed at ${at(next)} by a rule word ("${m[0]}")` };
  }
  return undefined;
};

/**
 * The assistant's prose right after a result: the first reply with text before the next tool
 * call or prompt (other results of the same batch and reasoning may stand between); -1 if the
 * assistant called another tool first. A rule drawn from a result is written right after it.
 */
const replyRightAfter = (messages: readonly Message[], i: number): number => {
  for (let j = i + 1; j < messages.length; j++) {
    const m = messages[j]!;
    if (m.role === "assistant" && m.kind === "reply" && m.text !== "") return j;
    if (m.toolCalls.length > 0 || m.kind === "prompt") return -1;
  }
  return -1;
};

export const quotedLater = ({ index, item }: RuleContext): Verdict | undefined => {
  const quoted = index.quotedAt(item);
  return quoted === -1 ? undefined : { action: "keep", rule: "never-drop", reason: `quoted at ${at(quoted)}` };
};

export const neverDrop: Rule = {
  id: "never-drop",
  decide: (ctx) => neverDropUnquoted(ctx) ?? quotedLater(ctx),
};
