// Never drop: what a summary loses first and re-running cannot bring back: a person's answer,
// an output re-running would not reproduce, a result the assistant drew a rule from, a result
// the assistant quoted, a command that exited non-zero. (Results the host flags as errors are
// pinned before this rule is asked.) The quote search reads
// the whole result, and only matters when the ladder would cut it: it is this rule's guard.
import type { ResultItem, SessionFacts } from "../session-facts.ts";
import type { Message } from "../types.ts";
import { type Rule, at } from "./rule.ts";

/** Words that make what the assistant writes right after a result a rule drawn from it. */
const RULE_WORD_RE = /\b(?:must|never|always|do not|don't|don’t)\b/i;

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

/**
 * Whether a later reply quotes the result: what this rule's guard keeps when the ladder would cut
 * it, and what every later cut (the need score's, shown-elsewhere's, the escalation's drop) asks.
 */
export const quotedLater = (facts: SessionFacts, item: ResultItem): boolean => facts.lookup.quotedAt(item) !== -1;

export const neverDrop: Rule = {
  id: "never-drop",
  locks: true,
  decide({ facts, item }) {
    if (item.meaning.asksPerson)
      return { action: "keep", rule: "never-drop", reason: `a person's answer (${item.call?.name ?? "?"}): re-running does not bring it back` };
    if (item.error) return { action: "keep", rule: "never-drop", reason: "a command that exited non-zero" };
    if (item.meaning.unrepeatable) return { action: "keep", rule: "never-drop", reason: `${item.call?.name ?? "?"} output: re-running would not reproduce it` };
    const messages = facts.session.messages;
    const next = replyRightAfter(messages, item.messageIndex);
    if (next !== -1) {
      const m = RULE_WORD_RE.exec(messages[next]!.text);
      if (m) return { action: "keep", rule: "never-drop", reason: `followed at ${at(next)} by a rule word ("${m[0]}")` };
    }
    return undefined;
  },
  guard({ facts, item }) {
    const quoted = facts.lookup.quotedAt(item);
    return quoted === -1 ? undefined : { action: "keep", rule: "never-drop", reason: `quoted at ${at(quoted)}` };
  },
};
