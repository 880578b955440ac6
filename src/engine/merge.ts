// The monotonic merge. The ladder's first decision wins; a later rule may only move a keep
// to a truncate. Then the fixed-point laws: a truncate that would not shorten the text, or any
// cut of a result an earlier pass already cut, becomes a keep; so does a drop of a result less
// than twice as long as its note. A result an earlier pass cut is kept as "already-cut" whatever
// the ladder said of it, but for a pin.
import { truncatedText, worthANote } from "./notes.ts";
import type { Verdict } from "./rules/rule.ts";

export const DEFAULT_KEEP: Verdict = { action: "keep", rule: "default-keep", reason: "no rule decided" };

/** Merge one more verdict (in ladder order) into what is decided so far. */
export const mergeVerdict = (decided: Verdict | undefined, next: Verdict | undefined): Verdict | undefined => {
  if (next === undefined) return decided;
  if (decided === undefined) return next;
  if (decided.action === "keep" && next.action === "truncate") return next;
  return decided;
};

/** The fixed-point laws, applied to the merged verdict for a result with text `text`. */
export const settle = (v: Verdict, text: string, alreadyCut: boolean, callId: string): Verdict => {
  // a note is what stands there now: said as such, whichever rule would keep the output it stands for
  // (a pin is said as a pin)
  if (alreadyCut && v.rule !== "pinned")
    return {
      action: "keep",
      rule: "already-cut",
      reason:
        v.action === "keep" ? `cut by an earlier pass (${v.rule} keeps it)` : `cut by an earlier pass; no rule rewrites its note (${v.rule} would ${v.action})`,
    };
  if (v.action === "keep") return v;
  if (v.action === "truncate") {
    if (truncatedText(text, v.headChars ?? 0, callId).length >= text.length)
      return { action: "keep", rule: v.rule, reason: `${v.reason}; already within ${v.headChars ?? 0} chars` };
    return v;
  }
  if (!worthANote(text.length, callId)) return { action: "keep", rule: v.rule, reason: `${v.reason}; too short to be worth a note` };
  return v;
};
