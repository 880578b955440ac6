// The need score sharpening the rules (light compaction): a result the rules cut without evidence
// that it is not used again (no use found yet, or cheap to re-run), but that results like it are
// often used again, is kept whole; a result the rules keep only for want of evidence (too recent
// to judge, a latest read, a small listing, a small output no use was found of), that the score
// is sure is not needed, is dropped (unless a later reply quotes it: never dropped).
// Every change names itself and the score that made it.
import type { SessionFacts } from "../session-facts.ts";
import { quotedLater } from "../rules/never-drop.ts";
import { worthANote } from "../notes.ts";
import type { Verdict } from "../rules/rule.ts";
import type { RuleId } from "../types.ts";
import { needPercent } from "./model.ts";

// Measured on the development sessions (light compaction, cuts at 50/70/90%), then checked on
// held-out ones. KEEP_AT: the highest of the thresholds tried (30%, 20%, 17%, 15%, 12%, 10%) at
// which the light compaction loses at most 0.3% of the results it removes on the development
// sessions of both hosts. On Codex's it lost 0.85% at 30% (10 of 1,175), 0.38% at 15%, 0.20% at
// 12% (held out: 0.83% and 0.16%); Claude Code's, 0.32% at 30% and none at 12%. What it costs is
// room: the rules alone free less (Codex 7.95% of the history to 2.76%, held out 5.52% to 3.49%).
// The results it keeps go to the escalation's ranking when a budget is given, which at 95% of the
// window lost no more for it on either host. DROP_AT: up to 3% the drops lost nothing; higher
// ones freed a little more and lost nothing on the development sessions, but lost more on the
// held-out Codex sessions.
/** At or above: a result the rules cut without evidence (UNPROVEN_CUTS) is kept. */
export const KEEP_AT = 0.12;
/** At or below: a result kept for want of evidence is dropped. */
export const DROP_AT = 0.03;

/** Cuts the rules make without evidence that the result is not used again: what the score may overturn. */
const UNPROVEN_CUTS: ReadonlySet<RuleId> = new Set<RuleId>(["unreferenced", "re-runnable"]);
/** Keeps the rules make without evidence that the result is used: what the score may overturn. */
const UNPROVEN_KEEPS: ReadonlySet<RuleId> = new Set<RuleId>(["too-recent", "latest-read", "discovery", "small", "default-keep"]);

export const sharpen = (facts: SessionFacts, verdicts: readonly Verdict[], need: Float64Array): Verdict[] =>
  verdicts.map((v, k) => {
    const p = need[k]!;
    const item = facts.items[k]!;
    if (Number.isNaN(p) || item.cut) return v;
    if (v.action !== "keep" && UNPROVEN_CUTS.has(v.rule) && p >= KEEP_AT)
      return { action: "keep", rule: "likely-needed", reason: `${v.reason}, but results like it are used again (need ${needPercent(p)})` };
    if (
      v.action === "keep" &&
      UNPROVEN_KEEPS.has(v.rule) &&
      p <= DROP_AT &&
      item.call !== undefined &&
      worthANote(item.result.text.length, item.result.callId) &&
      // a result a later reply quotes is never dropped (never-drop's guard), whichever rule kept it
      !quotedLater(facts, item)
    )
      return { action: "drop", rule: "unneeded", reason: `${v.reason}; results like it are seldom used again (need ${needPercent(p)})` };
    return v;
  });
