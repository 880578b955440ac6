// Latest read: the most recent read of each file is the agent's current picture of it.
import type { Rule } from "./rule.ts";

export const latestRead: Rule = {
  id: "latest-read",
  decide({ facts, item }) {
    if (!facts.isLatestRead(item)) return undefined;
    return { action: "keep", rule: "latest-read", reason: `latest read of ${item.meaning.read!.path}` };
  },
};
