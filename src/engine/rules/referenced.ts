// Referenced later (the lookup): a result is used if one of its distinctive tokens appears
// in a later assistant reply or tool input. Tokens known before the result existed, and
// tokens found in too many results, prove nothing. Too recent a result is not judged.
import type { ResultItem, SessionIndex } from "../index.ts";
import { type Rule, at, quoteToken } from "./rule.ts";

/** The lookup on its own: the first token of the result used later, or why none counts. */
export const lookup = (index: SessionIndex, item: ResultItem): { token: string; at: number } | { known: number; generic: number } => {
  const { firstSeen, lastSeen, resultCount } = index.tokens();
  const i = item.messageIndex;
  let generic = 0;
  let known = 0;
  for (const t of index.resultTokens(item)) {
    const seenAt = lastSeen.get(t);
    if (seenAt === undefined || seenAt <= i) continue;
    if (firstSeen.get(t)! < i) {
      known++;
      continue;
    }
    if ((resultCount.get(t) ?? 0) > index.options.genericTokenResults) {
      generic++;
      continue;
    }
    return { token: t, at: seenAt };
  }
  return { known, generic };
};

export const referenced: Rule = {
  id: "referenced",
  decide({ index, item }) {
    const after = index.resultsAfter(item);
    if (after < index.options.recentResults)
      return { action: "keep", rule: "too-recent", reason: `only ${after} tool result${after === 1 ? "" : "s"} after it` };
    if (!item.call) return { action: "keep", rule: "default-keep", reason: "no matching call: nothing would re-run it" };
    const chars = item.result.text.length;
    if (item.meaning.discovery && chars <= index.options.discoveryKeepChars)
      return { action: "keep", rule: "discovery", reason: `a search or listing (${chars} chars): later steps reach for the names it shows` };
    const found = lookup(index, item);
    if ("token" in found) return { action: "keep", rule: "referenced", reason: `${quoteToken(found.token)} used at ${at(found.at)}` };
    const why =
      found.known + found.generic === 0 ? "no token of it used later" : `only known (${found.known}) or generic (${found.generic}) tokens used later`;
    return { action: "drop", rule: "unreferenced", reason: why };
  },
};
