// The monotonic merge. The ladder's first decision wins; a later rule may only move a keep
// to a truncate. Pinned and never-drop results are untouchable, and a read that superseded
// another cannot be truncated. Then the fixed-point laws: a truncate that would not shorten
// the text, or any cut of a result an earlier pass already cut, becomes a keep.
import { dropNote, truncatedText } from "./notes.ts";
import type { Verdict } from "./rules/rule.ts";
import type { RuleId } from "./types.ts";

export const DEFAULT_KEEP: Verdict = { action: "keep", rule: "default-keep", reason: "no rule decided" };

/** Rules whose decision nothing may change. */
export const LOCKED_RULES: ReadonlySet<RuleId> = new Set<RuleId>(["pinned", "never-drop"]);

export interface MergeFacts {
  /** this result is a read that superseded an earlier one */
  readonly supersedesAnother: boolean;
}

/** Merge one more verdict (in ladder order) into what is decided so far. */
export const mergeVerdict = (decided: Verdict | undefined, next: Verdict | undefined, facts: MergeFacts): Verdict | undefined => {
  if (next === undefined) return decided;
  if (decided !== undefined && LOCKED_RULES.has(decided.rule)) return decided;
  if (next.action === "truncate" && facts.supersedesAnother) return decided;
  if (decided === undefined) return next;
  if (decided.action === "keep" && next.action === "truncate") return next;
  return decided;
};

/** Merge a whole ladder's verdicts, in order. */
export const mergeVerdicts = (verdicts: readonly (Verdict | undefined)[], facts: MergeFacts): Verdict => {
  let decided: Verdict | undefined;
  for (const v of verdicts) decided = mergeVerdict(decided, v, facts);
  return decided ?? DEFAULT_KEEP;
};

/** The fixed-point laws, applied to the merged verdict for a result with text `text`. */
export const settle = (v: Verdict, text: string, alreadyCut: boolean, callId: string): Verdict => {
  if (v.action === "keep") return v;
  if (alreadyCut) return { action: "keep", rule: "already-cut", reason: `cut by an earlier pass; its note is never rewritten (${v.rule} would ${v.action})` };
  if (v.action === "truncate") {
    if (truncatedText(text, v.headChars ?? 0, callId).length >= text.length)
      return { action: "keep", rule: v.rule, reason: `${v.reason}; already within ${v.headChars ?? 0} chars` };
    return v;
  }
  if (dropNote(text.length, callId).length >= text.length) return { action: "keep", rule: v.rule, reason: `${v.reason}; shorter than the removal note` };
  return v;
};
