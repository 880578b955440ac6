// Pins: the first message, the last few messages, and every error result are never touched.
import type { Rule } from "./rule.ts";

export const pin: Rule = {
  id: "pinned",
  decide({ index, item }) {
    const n = index.session.messages.length;
    if (item.messageIndex === 0) return { action: "keep", rule: "pinned", reason: "in the first message" };
    if (item.messageIndex >= n - index.options.pinLastMessages)
      return { action: "keep", rule: "pinned", reason: `in the last ${index.options.pinLastMessages} messages` };
    if (item.error) return { action: "keep", rule: "pinned", reason: "an error result" };
    return undefined;
  },
};
