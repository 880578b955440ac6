// Superseded reads: a file read that a later read of the same file repeats or contains,
// with nothing written to the file in between, is dropped: the later read shows the same text.
// So is a read of a file the agent later replaced or deleted whole (Write, apply_patch
// Add/Delete File, `> file`): the call that replaced it carries the new text in its input,
// which is never touched, and the old text describes a file that no longer exists.
import { meaningOf } from "../index.ts";
import type { Message } from "../types.ts";
import { type Rule, at } from "./rule.ts";

/** message indices of calls that replace or delete each file whole, per message list */
const rewritesCache = new WeakMap<readonly Message[], Map<string, number[]>>();

const rewritesByPath = (messages: readonly Message[]): Map<string, number[]> => {
  let map = rewritesCache.get(messages);
  if (map === undefined) {
    map = new Map();
    messages.forEach((m, i) => {
      for (const c of m.toolCalls) {
        for (const path of meaningOf(c).rewrites ?? []) {
          const list = map!.get(path);
          if (list) list.push(i);
          else map!.set(path, [i]);
        }
      }
    });
    rewritesCache.set(messages, map);
  }
  return map;
};

export const supersededRead: Rule = {
  id: "superseded-read",
  decide({ index, item }) {
    const later = index.supersededBy(item);
    if (later) {
      const same = index.sameText(later, item);
      return {
        action: "drop",
        rule: "superseded-read",
        reason: `re-read at ${at(later.messageIndex)}, ${same ? "unchanged" : "contained in the later read"}`,
      };
    }
    const read = item.meaning.read;
    if (!read || item.error) return undefined;
    const rewrite = rewritesByPath(index.session.messages).get(read.path)?.find((i) => i > item.messageIndex);
    if (rewrite === undefined) return undefined;
    const tool = index.session.messages[rewrite]!.toolCalls.find((c) => meaningOf(c).rewrites?.includes(read.path))?.name ?? "a call";
    return { action: "drop", rule: "superseded-read", reason: `replaced whole by ${tool} at ${at(rewrite)}` };
  },
};
