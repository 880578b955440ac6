// The ranked escalation: when a budget is given and the rules leave the history over it, cut
// further, least needed first, until the budget is reached. Order: every unpinned result by its
// need per token freed (a knapsack's greedy order), the need weighted by the share of its names
// no other kept result holds (coverage.ts). Re-runnable output, files read again later and the
// results the rules never drop rank like the rest: putting the first two first, or the last
// last, lost more on both hosts' sessions. A result the rules never drop is only ever cut to its
// head. When every cut still leaves the history over, the heads kept of the other results go
// too, in the same order: a host's summary would lose far more. The last cut taken usually frees
// more than was still needed: the cuts that surplus covers are undone, costliest first, and the
// room still left under the budget goes to a longer head of the most needed result cut. A later
// pass over budget takes such a head back to the usual head before any other cut, so the room is
// lent, never kept. Never touched: pins, prose, call inputs, a person's answers, what an earlier
// pass cut (but for those longer heads).
import { estimateTextTokens } from "./estimate.ts";
import type { ResultItem, SessionFacts } from "./session-facts.ts";
import { dropNote, earlierHead, truncatedText } from "./notes.ts";
import type { Verdict } from "./rules/rule.ts";
import { featuresOf } from "./need/features.ts";
import { needFacts as needFactsOf } from "./need/facts.ts";
import { type NeedModel, needOf, needPercent } from "./need/model.ts";
import { Coverage, WHOLE } from "./coverage.ts";
import { quotedLater as quoted } from "./rules/never-drop.ts";
import { headerChars } from "./result-text.ts";

/** Estimated tokens of a result's text once a verdict is applied. */
export const tokensAfter = (text: string, v: Verdict, callId: string): number => {
  if (v.action === "keep") return estimateTextTokens(text);
  if (v.action === "drop") return estimateTextTokens(dropNote(text.length, callId));
  return estimateTextTokens(truncatedText(text, v.headChars ?? 0, callId));
};

/**
 * How the escalation may cut a result: "ranked" to its head or whole, "never-drop" to its head
 * only, "spare-head" (a longer head an earlier pass kept in the room its budget left) back to the
 * usual head; undefined: not at all.
 */
type Tier = "ranked" | "never-drop" | "spare-head";

/**
 * A result the rules never drop, or one a later reply quotes (what never-drop's guard keeps when
 * the ladder would cut it), is cut only to its head: asked of the facts, not of which rule kept
 * it, so that a pass over the escalation's own output, where another rule may keep it, ranks it
 * the same way.
 */
const tierOf = (facts: SessionFacts, item: ResultItem, v: Verdict): Tier | undefined => {
  const tier = tierBeforeQuotes(item, v);
  return tier === "ranked" && quoted(facts, item) ? "never-drop" : tier;
};

/**
 * The tier as far as it is known without the quote search: "ranked" may still be "never-drop"
 * where a later reply quotes the result. The search reads the whole result, so it is left until
 * the answer can change something (quoted).
 */
const tierBeforeQuotes = (item: ResultItem, v: Verdict): Tier | undefined => {
  if (item.meaning.asksPerson) return undefined;
  if (item.cut) return v.rule !== "pinned" && earlierHead(item.result.text, item.result.callId) !== undefined ? "spare-head" : undefined;
  if (v.rule === "pinned" || v.rule === "already-cut" || v.action === "drop") return undefined;
  return v.rule === "never-drop" ? "never-drop" : "ranked";
};

export interface Escalated {
  readonly verdicts: Verdict[];
  /** tokens freed by the escalation on top of the rules */
  readonly freed: number;
  /** need of each result (index-aligned; NaN where the escalation did not score it) */
  readonly need: Float64Array;
  /** 1-based place in the escalation order (0: not in it) */
  readonly order: Int32Array;
  /** of `freed`, the tokens freed by cutting longer heads an earlier pass kept back to the usual head */
  readonly lentBack: number;
}

/** How many of a result's first characters the history shows once a verdict is applied. */
const shownBy = (v: Verdict): number => (v.action === "keep" ? WHOLE : v.action === "truncate" ? (v.headChars ?? 0) : 0);

/** The ends of the reasons of a head cut in the never-drop and the ranked tier (the cut is the same). */
const NEVER_DROPPED_HEAD = "; a result never dropped: its head kept";
const RANKED_HEAD = "; its head kept";

/** The escalation's drop, before its reason is written. */
const ESCALATION_DROP: Verdict = { action: "drop", rule: "escalation", reason: "" };

/**
 * The cut a result gets in its tier: a head where a head is worth keeping, else a drop. Its reason
 * is what follows the need and the names when the cut is taken.
 */
const cutFor = (tier: Tier, text: string, callId: string, headChars: number): Verdict | undefined => {
  const head: Verdict = { action: "truncate", rule: "escalation", reason: "", headChars };
  const headLeaves = truncatedText(text, headChars, callId).length;
  const headFrees = headLeaves < text.length;
  if (tier === "spare-head") return headFrees ? head : undefined;
  if (tier === "never-drop") return headFrees ? { ...head, reason: NEVER_DROPPED_HEAD } : undefined;
  // a head costs little beside a large output and keeps its first lines (a command's header,
  // a file's imports, a test run's first failure)
  if (headFrees && text.length >= 4 * headLeaves) return { ...head, reason: RANKED_HEAD };
  return dropNote(text.length, callId).length < text.length ? ESCALATION_DROP : undefined;
};

/**
 * The need of every result by each model, from the rules' verdicts (NaN where nothing may cut
 * it); `override`'s, where it has one. The features are worked out once for all the models.
 */
export const needScores = (
  facts: SessionFacts,
  verdicts: readonly Verdict[],
  models: readonly NeedModel[],
  override?: ReadonlyMap<string, number>,
): Float64Array[] => {
  const needs = models.map(() => new Float64Array(verdicts.length).fill(Number.NaN));
  const described = needFactsOf(facts, verdicts);
  for (const item of facts.items) {
    const k = item.ordinal;
    if (verdicts[k]!.rule === "pinned" || item.cut || item.meaning.asksPerson) continue;
    const given = override?.get(item.result.callId);
    const x = given === undefined ? featuresOf(described[k]!) : undefined;
    models.forEach((m, i) => {
      needs[i]![k] = given ?? needOf(m, x!);
    });
  }
  return needs;
};

/**
 * How much a result's own names (those no other kept result holds) weigh in what cutting it
 * costs: a result whose names all live on elsewhere costs OWN_NAMES_FLOOR of its need, one whose
 * names are all its own the whole need. Chosen on the development sessions at 95% of the window;
 * the held-out sessions agree.
 */
const OWN_NAMES_WEIGHT = 0.8;
const OWN_NAMES_FLOOR = 1 - OWN_NAMES_WEIGHT + 0.01;

interface Candidate {
  readonly item: ResultItem;
  /**
   * "ranked" while the quote search is not yet asked where a ranked result and a quoted one get
   * the same head (`quoteUnasked`): only the reason, and whether a last resort may drop that head,
   * differ; `settle` asks it when one of those is needed.
   */
  tier: Tier;
  quoteUnasked: boolean;
  cut: Verdict;
  /** tokens the cut frees beyond what the rules left */
  readonly gain: number;
  /** the cost as last computed: need, weighted by own names, per token freed */
  cost: number;
}

/** A binary min-heap of candidates by cost, then by place in the history. */
class CostHeap {
  private readonly xs: Candidate[] = [];
  private static less = (a: Candidate, b: Candidate): boolean => a.cost < b.cost || (a.cost === b.cost && a.item.ordinal < b.item.ordinal);
  push(c: Candidate): void {
    const xs = this.xs;
    xs.push(c);
    for (let i = xs.length - 1; i > 0; ) {
      const up = (i - 1) >> 1;
      if (!CostHeap.less(xs[i]!, xs[up]!)) break;
      [xs[i], xs[up]] = [xs[up]!, xs[i]!];
      i = up;
    }
  }
  peek(): Candidate | undefined {
    return this.xs[0];
  }
  pop(): Candidate | undefined {
    const xs = this.xs;
    const top = xs[0];
    const last = xs.pop();
    if (xs.length > 0 && last !== undefined) {
      xs[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < xs.length && CostHeap.less(xs[l]!, xs[m]!)) m = l;
        if (r < xs.length && CostHeap.less(xs[r]!, xs[m]!)) m = r;
        if (m === i) break;
        [xs[i], xs[m]] = [xs[m]!, xs[i]!];
        i = m;
      }
    }
    return top;
  }
}

/** One cut the escalation took: the result, the tokens it freed, and the verdict it replaced. */
interface Step {
  readonly k: number;
  readonly gain: number;
  readonly undone: Verdict;
}

/**
 * The last cut taken usually frees more than the budget still needed. Undo, latest first, every
 * cut (a result's latest only) whose tokens fit in what the cuts freed beyond the budget: the
 * costliest go back first, and the history stays within the budget. Afterwards no cut taken could
 * be undone and leave the history within it. Returns the tokens given back.
 */
const stepBack = (steps: readonly Step[], out: Verdict[], spare: number): number => {
  let back = 0;
  // the step each step's result took before it (-1: none), and each result's latest step not undone
  const latest = new Map<number, number>();
  const previous = steps.map((s, i) => {
    const p = latest.get(s.k) ?? -1;
    latest.set(s.k, i);
    return p;
  });
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i]!;
    if (latest.get(s.k) !== i || s.gain > spare - back) continue;
    back += s.gain;
    out[s.k] = s.undone.rule === "escalation" ? s.undone : { ...s.undone, reason: `${s.undone.reason}; in the order, but a later cut freed its room` };
    latest.set(s.k, previous[i]!);
  }
  return back;
};

/**
 * What the cuts freed beyond the budget, once stepBack has given back every cut that fits in it
 * whole, is room the history may still hold: the results the escalation cut keep longer heads in
 * it, most needed first (the first taking all it can), each still a head of the output byte for
 * byte with its note. The history stays within the budget. Returns the tokens spent.
 */
const spendRoom = (facts: SessionFacts, out: Verdict[], need: Float64Array, room: number): number => {
  let spent = 0;
  const cut = facts.items
    .filter((item) => !item.cut && out[item.ordinal]!.rule === "escalation" && out[item.ordinal]!.action !== "keep")
    .sort((a, b) => need[b.ordinal]! - need[a.ordinal]! || a.ordinal - b.ordinal);
  for (const item of cut) {
    if (spent >= room) break;
    const k = item.ordinal;
    const v = out[k]!;
    const text = item.result.text;
    const id = item.result.callId;
    const now = tokensAfter(text, v, id);
    const from = v.action === "truncate" ? (v.headChars ?? 0) : 0;
    // the longest head shorter than the output whose note and head fit in the room left
    const costOf = (head: number): number => tokensAfter(text, { ...v, action: "truncate", headChars: head }, id) - now;
    const hi0 = text.length - headerChars(text) - 1;
    if (hi0 <= from || costOf(from + 1) > room - spent) continue;
    let lo = from + 1;
    let hi = hi0;
    while (lo < hi) {
      const mid = lo + Math.ceil((hi - lo) / 2);
      if (costOf(mid) <= room - spent) lo = mid;
      else hi = mid - 1;
    }
    spent += costOf(lo);
    out[k] = { ...v, action: "truncate", headChars: lo, reason: `${v.reason}; a head of ${lo} chars kept in the room left under the budget` };
  }
  return spent;
};

/**
 * Cut to the budget, given the rules' verdicts and the tokens over it. The escalation's order is
 * one sequence, whatever the budget: the least costly cut next, where a cut's cost is the
 * result's need, weighted by the share of its names no other kept result holds, per token it
 * frees. Cuts only raise the others' costs (their names lose holders), so each is recomputed when
 * it comes up, and taken if still the least. The order's stretch up to the cut that reaches the
 * budget is taken, less the cuts its surplus covers (stepBack): so a smaller budget may keep a
 * result a larger one cut, where its last cut is larger.
 */
export const escalate = (facts: SessionFacts, verdicts: readonly Verdict[], over: number, need: Float64Array): Escalated => {
  const out = [...verdicts];
  const order = new Int32Array(verdicts.length);
  const candidates: Candidate[] = [];
  for (const item of facts.items) {
    const k = item.ordinal;
    let tier = tierBeforeQuotes(item, verdicts[k]!);
    if (tier === undefined) continue;
    const text = item.result.text;
    const id = item.result.callId;
    let cut = cutFor(tier, text, id, facts.options.truncateHeadChars);
    // a ranked result cut to its head is cut the same way if quoted: the search can wait
    const quoteUnasked = tier === "ranked" && cut?.action === "truncate";
    if (tier === "ranked" && !quoteUnasked && quoted(facts, item)) {
      tier = "never-drop";
      cut = cutFor(tier, text, id, facts.options.truncateHeadChars);
    }
    if (cut === undefined) continue;
    const gain = tokensAfter(text, verdicts[k]!, id) - tokensAfter(text, cut, id);
    if (gain > 0) candidates.push({ item, tier, quoteUnasked, cut, gain, cost: 0 });
  }
  const settle = (c: Candidate): Candidate => {
    if (c.quoteUnasked) {
      c.quoteUnasked = false;
      if (quoted(facts, c.item)) {
        c.tier = "never-drop";
        c.cut = { ...c.cut, reason: NEVER_DROPPED_HEAD };
      }
    }
    return c;
  };
  const scored = new Set(candidates.map((c) => c.item));
  const coverage = new Coverage(
    facts,
    (item) => (item.cut ? 0 : shownBy(verdicts[item.ordinal]!)),
    (item) => scored.has(item),
  );
  const keptBy = (c: Candidate): number => shownBy(c.cut);
  // the room an earlier pass spent on a longer head is the first a later one takes back
  const costOf = (c: Candidate, own: number): number =>
    c.tier === "spare-head" ? 0 : (need[c.item.ordinal]! * (OWN_NAMES_FLOOR + OWN_NAMES_WEIGHT * own)) / c.gain;
  let freed = 0;
  let place = 0;
  const steps: Step[] = [];
  const heap = new CostHeap();
  for (const c of candidates) {
    c.cost = costOf(c, coverage.ownShare(c.item.ordinal, keptBy(c)));
    heap.push(c);
  }
  for (let c = heap.pop(); c !== undefined; c = heap.pop()) {
    const k = c.item.ordinal;
    const own = coverage.ownShare(k, keptBy(c));
    const now = costOf(c, own);
    if (now > c.cost) {
      const next = heap.peek();
      c.cost = now;
      if (next !== undefined && now > next.cost) {
        heap.push(c);
        continue;
      }
    }
    order[k] = ++place;
    coverage.release(k, keptBy(c));
    if (freed >= over) continue;
    freed += c.gain;
    settle(c);
    steps.push({ k, gain: c.gain, undone: out[k]! });
    const names = c.cut.action === "truncate" ? "of its names past its head" : "of its names";
    out[k] =
      c.tier === "spare-head"
        ? { ...c.cut, reason: "over budget: the longer head an earlier pass kept in the room left under its budget, cut to the usual head" }
        : { ...c.cut, reason: `over budget: need ${needPercent(need[k]!)}, ${needPercent(own)} ${names} held nowhere else${c.cut.reason}` };
  }
  // Every cut taken and still over: the heads kept of results the rules may drop go too, in the
  // same order (a result never dropped keeps its head), then the heads the rules themselves kept
  // (re-runnable output), least needed first, before a host has to summarize.
  if (freed < over) {
    // every candidate was taken, and so settled
    const heads = candidates.filter((c) => c.tier === "ranked" && c.cut.action === "truncate").sort((a, b) => order[a.item.ordinal]! - order[b.item.ordinal]!);
    const inHeap = new Set(candidates.map((c) => c.item.ordinal));
    const rulesHeads = facts.items
      .filter((item) => !inHeap.has(item.ordinal) && verdicts[item.ordinal]!.action === "truncate" && tierOf(facts, item, verdicts[item.ordinal]!) === "ranked")
      .sort((a, b) => need[a.ordinal]! - need[b.ordinal]! || a.ordinal - b.ordinal);
    const dropHead = (k: number, text: string, id: string, kept: Verdict): void => {
      const more = tokensAfter(text, kept, id) - tokensAfter(text, ESCALATION_DROP, id);
      if (more <= 0) return;
      freed += more;
      steps.push({ k, gain: more, undone: out[k]! });
      out[k] = { ...ESCALATION_DROP, reason: `over budget with every cut taken: need ${needPercent(need[k]!)}; its head went too` };
    };
    for (const c of heads) {
      if (freed >= over) break;
      dropHead(c.item.ordinal, c.item.result.text, c.item.result.callId, c.cut);
    }
    for (const item of rulesHeads) {
      if (freed >= over) break;
      dropHead(item.ordinal, item.result.text, item.result.callId, out[item.ordinal]!);
    }
  }
  freed -= stepBack(steps, out, freed - over);
  let lentBack = 0;
  for (const c of candidates) if (c.tier === "spare-head" && out[c.item.ordinal]!.rule === "escalation") lentBack += c.gain;
  if (steps.length > 0 && freed > over) freed -= spendRoom(facts, out, need, freed - over);
  return { verdicts: out, freed, need, order, lentBack };
};
