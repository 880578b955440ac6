// Superseded reads: a file read that a later read of the same file repeats or contains,
// with nothing written to the file in between, is dropped: the later read shows the same text.
// So is a read of a file the agent later replaced or deleted whole (Write, apply_patch
// Add/Delete File, `> file`): the call that replaced it carries the new text in its input,
// which is never touched, and the old text describes a file that no longer exists.
import { rangeWithin } from "../call-meaning.ts";
import { resultBody } from "../result-text.ts";
import { type ResultItem, type SessionFacts, callMeaning } from "../session-facts.ts";
import type { Message } from "../types.ts";
import { type Rule, at } from "./rule.ts";

/** For each read, the later read that makes it redundant (same file, nothing written between, its text contained). */
const supersededCache = new WeakMap<SessionFacts, Map<ResultItem, ResultItem>>();

const supersededReads = (facts: SessionFacts): Map<ResultItem, ResultItem> => {
  let out = supersededCache.get(facts);
  if (out !== undefined) return out;
  out = new Map();
  for (const reads of facts.readFiles()) {
    // each body once, not once per pair (a file read hundreds of times sliced them ~n²/2 times)
    const bodies: (string | undefined)[] = new Array(reads.length);
    const bodyOf = (k: number): string => (bodies[k] ??= resultBody(reads[k]!.result.text));
    for (let a = 0; a < reads.length - 1; a++) {
      const earlier = reads[a]!;
      if (earlier.cut) continue;
      const body = bodyOf(a);
      if (body.trim() === "") continue;
      // reads after the next call that may write the file cannot supersede this one
      const nextWrite = facts.nextWriteAfter(earlier.meaning.read!.path, earlier.callMessageIndex);
      for (let b = a + 1; b < reads.length; b++) {
        const later = reads[b]!;
        if (nextWrite < later.callMessageIndex) break;
        if (later.cut) continue;
        if (!rangeWithin(earlier.meaning.read!.range, later.meaning.read!.range)) continue;
        if (facts.lookup.sameText(earlier, later)) {
          out.set(earlier, later);
          break;
        }
        const laterBody = bodyOf(b);
        if (laterBody.length === body.length ? laterBody === body : laterBody.length > body.length && laterBody.includes(body)) {
          out.set(earlier, later);
          break;
        }
        // a later read covering these lines no longer shows this text: the file was changed in
        // between (by something no call recorded), so no read after it can supersede this one
        break;
      }
    }
  }
  supersededCache.set(facts, out);
  return out;
};

/** message indices of calls that replace or delete each file whole, per message list */
const rewritesCache = new WeakMap<readonly Message[], Map<string, number[]>>();

const rewritesByPath = (messages: readonly Message[]): Map<string, number[]> => {
  let map = rewritesCache.get(messages);
  if (map === undefined) {
    map = new Map();
    messages.forEach((m, i) => {
      for (const c of m.toolCalls) {
        for (const path of callMeaning(c).rewrites ?? []) {
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
  decide({ facts, item }) {
    const later = supersededReads(facts).get(item);
    if (later) {
      const same = facts.lookup.sameText(later, item);
      return {
        action: "drop",
        rule: "superseded-read",
        reason: `re-read at ${at(later.messageIndex)}, ${same ? "unchanged" : "contained in the later read"}`,
      };
    }
    const read = item.meaning.read;
    if (!read) return undefined;
    const rewrite = rewritesByPath(facts.session.messages)
      .get(read.path)
      ?.find((i) => i > item.messageIndex);
    if (rewrite === undefined) return undefined;
    const tool = facts.session.messages[rewrite]!.toolCalls.find((c) => callMeaning(c).rewrites?.includes(read.path))?.name ?? "a call";
    return { action: "drop", rule: "superseded-read", reason: `replaced whole by ${tool} at ${at(rewrite)}` };
  },
};
