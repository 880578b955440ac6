// The need facts of every result, read from the session's facts (the same lookups the rules
// use), so a fast and a reference lookup give the same facts.
import type { CallMeaning } from "../call-meaning.ts";
import type { ResultItem, SessionFacts } from "../session-facts.ts";
import type { Verdict } from "../rules/rule.ts";
import type { NeedFacts, ToolClass } from "./features.ts";

const WEB_TOOLS: ReadonlySet<string> = new Set(["WebSearch", "WebFetch", "web_search", "web_fetch"]);
const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(["Task", "Agent", "spawn_agent", "wait_agent"]);

export const toolClassOf = (name: string, meaning: CallMeaning): ToolClass => {
  if (meaning.mutating) return "edit";
  if (meaning.read !== undefined) return "read";
  if (meaning.rerunnable === "test") return "test";
  if (meaning.rerunnable !== undefined) return "listing";
  if (meaning.discovery) return "search";
  if (WEB_TOOLS.has(name)) return "web";
  if (SUBAGENT_TOOLS.has(name)) return "subagent";
  if (meaning.command !== undefined) return "shell";
  return "other";
};

/** Longer inputs seldom repeat exactly: not worth keeping as keys. */
const MAX_REPEAT_KEY = 2000;

/**
 * Per result (by ordinal), 1 when a later result's call has the same tool and the same input
 * text: a call repeated later. Read from the end, each input is looked up once, by tool then by
 * its own text: no key string is built (joining the two would make a new string to hash for
 * every result).
 */
export const repeatedLaterOf = (items: readonly ResultItem[]): Uint8Array => {
  const out = new Uint8Array(items.length);
  // per tool name, the input texts of the results after the one at hand
  const later = new Map<string, Set<string>>();
  for (let k = items.length - 1; k >= 0; k--) {
    const call = items[k]!.call;
    if (call === undefined || call.inputText.length > MAX_REPEAT_KEY) continue;
    let inputs = later.get(call.name);
    if (inputs === undefined) later.set(call.name, (inputs = new Set()));
    if (inputs.has(call.inputText)) out[k] = 1;
    else inputs.add(call.inputText);
  }
  return out;
};

/** The need facts of every result, given the rules' verdicts (index-aligned). */
export const needFacts = (facts: SessionFacts, verdicts: readonly Verdict[]): NeedFacts[] => {
  const { firstSeen, lastSeen, resultCount } = facts.lookup.tokenTables();
  const generic = facts.options.genericTokenResults;
  const messages = facts.session.messages.length;
  const repeatedLater = repeatedLaterOf(facts.items);
  // the last message that may change each file, and prompts counted from the end
  const lastWrite = new Map<string, number>();
  for (const item of facts.items) for (const w of item.meaning.writes) lastWrite.set(w, item.callMessageIndex);
  const promptsFrom = new Int32Array(messages + 1);
  for (let m = messages - 1; m >= 0; m--) promptsFrom[m] = promptsFrom[m + 1]! + (facts.session.messages[m]!.kind === "prompt" ? 1 : 0);
  return facts.items.map((item, k) => {
    const i = item.messageIndex;
    let usedTokens = 0;
    let lastUse = -1;
    if (!item.cut) {
      for (const t of facts.lookup.tokensOf(item)) {
        const seenAt = lastSeen.get(t);
        if (seenAt === undefined || seenAt <= i) continue;
        if (firstSeen.get(t)! < i) continue;
        if ((resultCount.get(t) ?? 0) > generic) continue;
        usedTokens++;
        if (seenAt > lastUse) lastUse = seenAt;
      }
    }
    const read = item.meaning.read !== undefined;
    return {
      chars: item.result.text.length,
      toolClass: item.call === undefined ? "other" : toolClassOf(item.call.name, item.meaning),
      resultsAfter: facts.resultsAfter(item),
      messagesAfter: messages - 1 - i,
      latestRead: read && facts.isLatestRead(item),
      readAgain: read && facts.readAgain(item),
      repeatedLater: repeatedLater[item.ordinal] === 1,
      cut: item.cut,
      usedTokens,
      sinceLastUse: lastUse === -1 ? undefined : messages - 1 - lastUse,
      rule: verdicts[k]!.rule,
      promptsAfter: promptsFrom[i + 1]!,
      writtenAfter: read && Math.max(lastWrite.get(item.meaning.read!.path) ?? -1, lastWrite.get("*") ?? -1) > i,
    };
  });
};
