// Superseded reads: a file read that a later read of the same file repeats or contains,
// with nothing written to the file in between, is dropped: the later read shows the same text.
import { type Rule, at } from "./rule.ts";

export const supersededRead: Rule = {
  id: "superseded-read",
  decide({ index, item }) {
    const later = index.supersededBy(item);
    if (!later) return undefined;
    const same = later.result.text === item.result.text;
    return {
      action: "drop",
      rule: "superseded-read",
      reason: `re-read at ${at(later.messageIndex)}, ${same ? "unchanged" : "contained in the later read"}`,
    };
  },
};
