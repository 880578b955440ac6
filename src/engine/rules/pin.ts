// Pins: the first message, the last few messages, and every error result are never touched.
import type { Rule } from "./rule.ts";

export const pin: Rule = {
  id: "pinned",
  locks: true,
  decide({ facts, item }) {
    const n = facts.session.messages.length;
    if (item.messageIndex === 0) return { action: "keep", rule: "pinned", reason: "in the first message" };
    if (item.messageIndex >= n - facts.options.pinLastMessages)
      return { action: "keep", rule: "pinned", reason: `in the last ${facts.options.pinLastMessages} messages` };
    if (item.error) return { action: "keep", rule: "pinned", reason: "an error result" };
    return undefined;
  },
};
