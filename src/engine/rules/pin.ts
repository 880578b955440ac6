// Pins: the first message, the last few messages, and every result the host flags as an error are
// never touched. A command that only exited non-zero is never dropped (never-drop.ts): under a
// budget it may be cut to its head, which keeps its exit status.
import type { Rule } from "./rule.ts";

export const pin: Rule = {
  id: "pinned",
  locks: true,
  decide({ facts, item }) {
    const n = facts.session.messages.length;
    if (item.messageIndex === 0) return { action: "keep", rule: "pinned", reason: "in the first message" };
    if (item.messageIndex >= n - facts.options.pinLastMessages)
      return { action: "keep", rule: "pinned", reason: `in the last ${facts.options.pinLastMessages} messages` };
    if (item.result.isError) return { action: "keep", rule: "pinned", reason: "an error result" };
    return undefined;
  },
};
