// Latest read: the most recent read of each file is the agent's current picture of it.
import type { Rule } from "./rule.ts";

export const latestRead: Rule = {
  id: "latest-read",
  decide({ index, item }) {
    if (!index.isLatestRead(item)) return undefined;
    return { action: "keep", rule: "latest-read", reason: `latest read of ${item.meaning.read!.path}` };
  },
};
