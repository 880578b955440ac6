// The ranked escalation: when a budget is given and the rules leave the history over it, cut
// further, least needed first, until the budget is reached. Order: every unpinned result by its
// need per token freed (a knapsack's greedy order; re-runnable output and files read again later
// rank by need like the rest: putting them first lost more on both hosts' sessions), then the
// results the rules never drop, to their head only. Never touched: pins, prose, call inputs, a
// person's answers, what an earlier pass already cut.
import { estimateTextTokens } from "./estimate.ts";
import type { ResultItem, SessionFacts } from "./session-facts.ts";
import { dropNote, truncatedText } from "./notes.ts";
import type { Verdict } from "./rules/rule.ts";
import { featuresOf } from "./need/features.ts";
import { needFacts as needFactsOf } from "./need/facts.ts";
import { type NeedModel, needOf } from "./need/model.ts";

/** Estimated tokens of a result's text once a verdict is applied. */
export const tokensAfter = (text: string, v: Verdict, callId: string): number => {
  if (v.action === "keep") return estimateTextTokens(text);
  if (v.action === "drop") return estimateTextTokens(dropNote(text.length, callId));
  return estimateTextTokens(truncatedText(text, v.headChars ?? 0, callId));
};

/** Where a result stands in the escalation; undefined: never escalated. */
export type Tier = "ranked" | "never-drop";

const tierOf = (item: ResultItem, v: Verdict): Tier | undefined => {
  if (v.rule === "pinned" || v.rule === "already-cut" || v.action === "drop" || item.cut) return undefined;
  if (item.meaning.asksPerson) return undefined;
  return v.rule === "never-drop" ? "never-drop" : "ranked";
};

const TIER_ORDER: readonly Tier[] = ["ranked", "never-drop"];

export interface Escalated {
  readonly verdicts: Verdict[];
  /** tokens freed by the escalation on top of the rules */
  readonly freed: number;
  /** need of each result (index-aligned; NaN where the escalation did not score it) */
  readonly need: Float64Array;
  /** 1-based place in the escalation order (0: not in it) */
  readonly order: Int32Array;
}

const percent = (p: number): string => `${Math.round(p * 100)}%`;

/** The cut a result gets in its tier: a head where a head is worth keeping, else a drop. */
const cutFor = (tier: Tier, text: string, callId: string, headChars: number, need: number): Verdict | undefined => {
  const head: Verdict = { action: "truncate", rule: "escalation", reason: "", headChars };
  const drop: Verdict = { action: "drop", rule: "escalation", reason: "" };
  const headLeaves = truncatedText(text, headChars, callId).length;
  const dropLeaves = dropNote(text.length, callId).length;
  const headFrees = headLeaves < text.length;
  const dropFrees = dropLeaves < text.length;
  const why = `over budget: need ${percent(need)}`;
  if (tier === "never-drop") return headFrees ? { ...head, reason: `${why}; a result never dropped: its head kept` } : undefined;
  // a head costs little beside a large output and keeps its first lines (a command's header,
  // a file's imports, a test run's first failure)
  if (headFrees && text.length >= 4 * headLeaves) return { ...head, reason: `${why}; its head kept` };
  return dropFrees ? { ...drop, reason: why } : undefined;
};

/** The need of every result, from the rules' verdicts (NaN where nothing may cut it). */
export const needScores = (facts: SessionFacts, verdicts: readonly Verdict[], model: NeedModel): Float64Array => {
  const need = new Float64Array(verdicts.length).fill(Number.NaN);
  const described = needFactsOf(facts, verdicts);
  for (const item of facts.items) {
    const k = item.ordinal;
    if (verdicts[k]!.rule === "pinned" || item.cut || item.meaning.asksPerson) continue;
    need[k] = needOf(model, featuresOf(described[k]!));
  }
  return need;
};

/** Cut to the budget, given the rules' verdicts and the tokens over it. */
export const escalate = (facts: SessionFacts, verdicts: readonly Verdict[], over: number, need: Float64Array): Escalated => {
  const out = [...verdicts];
  const order = new Int32Array(verdicts.length);
  const tiers: ResultItem[][] = TIER_ORDER.map(() => []);
  const gain = new Float64Array(verdicts.length);
  for (const item of facts.items) {
    const k = item.ordinal;
    const tier = tierOf(item, verdicts[k]!);
    if (tier === undefined) continue;
    tiers[TIER_ORDER.indexOf(tier)]!.push(item);
    gain[k] = estimateTextTokens(item.result.text);
  }
  // the ranked tiers: least need per token freed first (a knapsack's greedy order), then older first
  for (const list of tiers) {
    list.sort((a, b) => need[a.ordinal]! / gain[a.ordinal]! - need[b.ordinal]! / gain[b.ordinal]! || a.ordinal - b.ordinal);
  }
  let freed = 0;
  let place = 0;
  for (let t = 0; t < tiers.length; t++) {
    for (const item of tiers[t]!) {
      order[item.ordinal] = ++place;
      if (freed >= over) continue;
      const text = item.result.text;
      const old = out[item.ordinal]!;
      const id = item.result.callId;
      const v = cutFor(TIER_ORDER[t]!, text, id, facts.options.truncateHeadChars, need[item.ordinal]!);
      if (v === undefined) continue;
      const more = tokensAfter(text, old, id) - tokensAfter(text, v, id);
      if (more <= 0) continue;
      freed += more;
      out[item.ordinal] = v;
    }
  }
  return { verdicts: out, freed, need, order };
};
