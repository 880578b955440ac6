// Superseded reads: a file read that a later read of the same file repeats or contains,
// with nothing written to the file in between, is dropped: the later read shows the same text.
// So is a read every line of which later reads of the file show again, whatever was written in
// between (lines compared without Claude Code's line-number prefix: an edit above them moves
// their numbers, not their text). So is a read of a file the agent later replaced or deleted
// whole (Write, apply_patch Add/Delete File, `> file`): the call that replaced it carries the
// new text in its input, which is never touched, and the old text describes a file that no
// longer exists.
import { rangeWithin } from "../call-meaning.ts";
import { resultBody } from "../result-text.ts";
import { type ResultItem, type SessionFacts, callMeaning } from "../session-facts.ts";
import type { Message } from "../types.ts";
import { type Rule, at } from "./rule.ts";

/** How a later read makes a read redundant. */
interface Superseding {
  /** the later read: the one that repeats or contains it, or the last of those that show its lines */
  readonly later: ResultItem;
  /** "text": repeated or contained whole, nothing written between; "lines": every line shown again */
  readonly by: "text" | "lines";
}

/** Per session: each read a later read makes redundant. */
const supersededCache = new WeakMap<SessionFacts, Map<ResultItem, Superseding>>();

const SPACE = 32;
const TAB = 9;
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const ARROW = 0x2192; // →

/**
 * A read's non-empty lines, without trailing blanks and without Claude Code's line-number prefix
 * ("    12→"): the number says where the line is, not what it says. Scanned by hand: this reads
 * every line of every file read more than once.
 */
export const bodyLines = (body: string): string[] => {
  const out: string[] = [];
  for (let from = 0; from <= body.length; ) {
    let to = body.indexOf("\n", from);
    if (to === -1) to = body.length;
    let start = from;
    while (start < to && (body.charCodeAt(start) === SPACE || body.charCodeAt(start) === TAB)) start++;
    let digits = start;
    while (digits < to && body.charCodeAt(digits) >= DIGIT_0 && body.charCodeAt(digits) <= DIGIT_9) digits++;
    start = digits > start && digits < to && body.charCodeAt(digits) === ARROW ? digits + 1 : from;
    let end = to;
    while (end > start && body.charCodeAt(end - 1) <= SPACE) end--;
    if (end > start) out.push(body.slice(start, end));
    from = to + 1;
  }
  return out;
};

const supersededReads = (facts: SessionFacts): Map<ResultItem, Superseding> => {
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
          out.set(earlier, { later, by: "text" });
          break;
        }
        const laterBody = bodyOf(b);
        if (laterBody.length === body.length ? laterBody === body : laterBody.length > body.length && laterBody.includes(body)) {
          out.set(earlier, { later, by: "text" });
          break;
        }
        // a later read covering these lines no longer shows this text: the file was changed in
        // between (by something no call recorded), so no read after it can supersede this one
        break;
      }
    }
    // newest first: the lines the reads after each one show (reads an earlier pass cut show none;
    // a read a later one repeats or contains adds nothing that one does not). Nothing to ask when
    // every read but the last is cut or already superseded.
    if (reads.every((r, k) => k === reads.length - 1 || r.cut || out!.has(r))) continue;
    const shown = new Set<string>();
    let last: ResultItem | undefined;
    for (let a = reads.length - 1; a >= 0; a--) {
      const read = reads[a]!;
      if (read.cut || out.has(read)) continue;
      const lines = bodyLines(bodyOf(a));
      if (last !== undefined && lines.length > 0 && lines.every((l) => shown.has(l))) out.set(read, { later: last, by: "lines" });
      else for (const l of lines) shown.add(l);
      last ??= read;
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
    const superseding = supersededReads(facts).get(item);
    if (superseding?.by === "lines")
      return {
        action: "drop",
        rule: "superseded-read",
        reason: `every line of it shown again by later reads of the file (the last at ${at(superseding.later.messageIndex)})`,
      };
    if (superseding) {
      const { later } = superseding;
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
