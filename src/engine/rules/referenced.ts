// Referenced later (the lookup): a result is used if one of its distinctive tokens appears
// in a later assistant reply or tool input. Tokens known before the result existed, and
// tokens found in too many results, prove nothing. Too recent a result is not judged; nor is
// an unused one of the task the agent is still on (no prompt of the person's since) within a
// wider window: the agent has not yet had the steps to use it. A small unused one is not
// dropped for want of a use alone: dropping it frees little, and what it holds (a file name
// in a listing, a branch) is what an agent reaches for later; it is left to the need score,
// which drops it only when sure (sharpen.ts), as any result kept for want of evidence.
import { worthANote } from "../notes.ts";
import type { ResultItem, SessionFacts } from "../session-facts.ts";
import { type Rule, at, quoteToken } from "./rule.ts";

/**
 * An unused result shorter than this is kept (`small`) unless the need score is sure it is not
 * needed. Chosen on the development sessions (light compaction at cuts 50/70/90% and 40/60/80%;
 * 300, 400, 600, 800 and 1,200 characters tried: 600 is where the losses stop falling), then
 * checked on the held-out ones: at 50/70/90% the light compaction lost 5 results of both
 * corpora (Claude Code 1, Codex 4), and none with it; at 40/60/80% 17, then 8 (Claude Code 5,
 * Codex 3, once the need weights were refitted); it frees 0.1-0.2 point of the history less. (An
 * output too short to be worth a note stays anyway.)
 */
export const SMALL_CHARS = 600;

/** The first token of the result used later, or how many of its tokens were used but prove nothing. */
export const laterUse = (facts: SessionFacts, item: ResultItem): { token: string; at: number } | { known: number; generic: number } => {
  const { firstSeen, lastSeen, resultCount } = facts.lookup.tokenTables();
  const i = item.messageIndex;
  let generic = 0;
  let known = 0;
  for (const t of facts.lookup.tokensOf(item)) {
    const seenAt = lastSeen.get(t);
    if (seenAt === undefined || seenAt <= i) continue;
    if (firstSeen.get(t)! < i) {
      known++;
      continue;
    }
    if ((resultCount.get(t) ?? 0) > facts.options.genericTokenResults) {
      generic++;
      continue;
    }
    return { token: t, at: seenAt };
  }
  return { known, generic };
};

export const referenced: Rule = {
  id: "referenced",
  decide({ facts, item }) {
    const after = facts.resultsAfter(item);
    if (after < facts.options.recentResults)
      return { action: "keep", rule: "too-recent", reason: `only ${after} tool result${after === 1 ? "" : "s"} after it` };
    if (!item.call) return { action: "keep", rule: "default-keep", reason: "no matching call: nothing would re-run it" };
    const chars = item.result.text.length;
    if (item.meaning.discovery && chars <= facts.options.discoveryKeepChars)
      return { action: "keep", rule: "discovery", reason: `a search or listing (${chars} chars): later steps reach for the names it shows` };
    const found = laterUse(facts, item);
    if ("token" in found) return { action: "keep", rule: "referenced", reason: `${quoteToken(found.token)} used at ${at(found.at)}` };
    if (after < facts.options.taskRecentResults && facts.inCurrentTask(item))
      return { action: "keep", rule: "too-recent", reason: `of the current task (no prompt since), only ${after} tool results after it` };
    const why = found.known + found.generic === 0 ? "no token of it used later" : `only known (${found.known}) or generic (${found.generic}) tokens used later`;
    if (chars < SMALL_CHARS && worthANote(chars, item.result.callId))
      return { action: "keep", rule: "small", reason: `${why}, but small (${chars} chars): only a sure need score drops it` };
    return { action: "drop", rule: "unreferenced", reason: why };
  },
};
