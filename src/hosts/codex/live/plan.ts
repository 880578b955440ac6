// What bc would put in place of a running thread's history, and whether it fits.
//
// The app-server can only cut turns off the end (`thread/revert`) and append items
// (`thread/inject_items`). So the history splits at the first turn that starts after the newest
// fixed point (the start of the thread, or Codex's own last compaction, or a tool call that never
// got its output, which bc never injects):
//   fixed   : everything before that turn (an earlier injected block, Codex's summary, the turns up
//             to an unpaired call): kept as is
//   revised : that turn and every later one: reverted, then injected again, pruned by the engine
// The context messages Codex injects itself (its developer sections, the environment) are left to
// Codex; a hook's developer messages in the revised turns are injected again with those turns, in
// place, but a SessionStart hook's, which Codex adds anew after the revert.
// The result must fit well under the auto-compact limit, or Codex would compact again at once.
import { codexTokens } from "../codex-estimate.ts";
import { estimateTokens } from "../../../engine/estimate.ts";
import type { RuleId, RuleTotals } from "../../../engine/types.ts";
import { engineFork, plannedHistory } from "../fork.ts";
import type { HistoryItem } from "../history.ts";
import { rebuildHistory } from "../history.ts";
import { developerAuthorOf, isInjectedContext, sentForm } from "../items.ts";
import { countedHistory, recordedUsage, sessionMeta, type Rollout } from "../rollout.ts";
import type { LiveRemoval } from "./state.ts";

type Json = Record<string, any>;

/** The share of the auto-compact limit the whole next request may take after bc's pruning. */
export const LIVE_BUDGET_SHARE = 0.6;
/**
 * Where the rules cannot get the request under that target, a plan that leaves it under this share
 * of the limit is still applied: the next compaction comes sooner (after at least a quarter of the
 * limit), but the history stays verbatim, where handing over would give Codex's summary now. Above
 * it the next compaction would follow too soon, and an estimate a little low could leave the
 * request over the limit: the compaction is Codex's.
 */
export const LIVE_CEILING_SHARE = 0.75;
/** Codex compacts automatically at about this share of the model's window when no limit is configured. */
export const DEFAULT_LIMIT_SHARE_OF_WINDOW = 0.9;
/**
 * Budget retries: the engine counts text, the request carries JSON, so a plan may need tighter
 * passes. Each asks the engine for less than the last one left, by what the request is still over
 * (asking only less than the last budget could leave the same cuts pass after pass).
 */
const FIT_TRIES = 8;

export interface LiveLimits {
  /** `model_auto_compact_token_limit` from config.toml, when set */
  readonly autoCompactLimit?: number;
  /** the model's window, when Codex recorded it */
  readonly contextWindow?: number;
}

export interface LivePlan {
  readonly fits: boolean;
  /** one line: why it does or does not fit */
  readonly reason: string;
  /** `thread/revert { beforeTurnId }` */
  readonly revertTurnId?: string;
  /** what `thread/inject_items` appends */
  readonly items: readonly Json[];
  /**
   * the revised turns' history as it stands, Codex's context and the SessionStart hooks' left out
   * (Codex writes them anew after the revert): what puts the thread back should the injection fail
   */
  readonly originalItems: readonly Json[];
  /** items kept in front (an earlier injected block, Codex's summary), not counting Codex's context */
  readonly fixedItems: number;
  /** history items that are reverted and injected again */
  readonly revisedItems: number;
  /** estimated tokens of the whole next request: before (as it stands) and after bc's pruning */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly limit?: number;
  readonly target?: number;
  /** the most the request may take when the target cannot be reached (LIVE_CEILING_SHARE of the limit) */
  readonly ceiling?: number;
  readonly budgetTokens?: number;
  readonly results: number;
  readonly resultsTruncated: number;
  readonly resultsDropped: number;
  readonly byRule: Readonly<Partial<Record<RuleId, RuleTotals>>>;
  /** each output the plan cuts: its call, and the rule and reason (absent where nothing was planned) */
  readonly removed?: readonly LiveRemoval[];
}

/** The auto-compact limit in force: configured, else a share of the window; undefined when neither is known. */
export const compactLimit = (limits: LiveLimits): number | undefined =>
  limits.autoCompactLimit ?? (limits.contextWindow === undefined ? undefined : Math.floor(limits.contextWindow * DEFAULT_LIMIT_SHARE_OF_WINDOW));

/** The turn id a `task_started` event names. */
export const startedTurnId = (payload: Json): string | undefined => {
  if (typeof payload.turn_id === "string") return payload.turn_id;
  const a = payload.turn_attribution;
  return a && typeof a.turn_id === "string" ? a.turn_id : undefined;
};

/** The first turn that starts after `afterLine`: its id and the line of its `task_started`. */
export const firstTurnAfter = (rollout: Rollout, afterLine: number): { turnId: string; line: number } | undefined => {
  for (const l of rollout.lines) {
    if (l.index <= afterLine || l.kind !== "event_msg" || l.payload.type !== "task_started") continue;
    const turnId = startedTurnId(l.payload);
    if (turnId) return { turnId, line: l.index };
  }
  return undefined;
};

const isHookMessage = (h: HistoryItem): boolean => developerAuthorOf(h.item) === "hook";

/**
 * The history items after `turnLine` that bc replaces, and apart from them the SessionStart hooks'
 * developer messages there, a run per turn they open. Those are told by their place: a hook's
 * (Codex's metadata says so) that opens its turn, nothing of the turn before it but Codex's context
 * and other such messages (a UserPromptSubmit hook's follows the person's message, a PostToolUse
 * hook's its call). Codex runs SessionStart again, with source "resume", before the first turn after
 * any `thread/revert`, and writes the hooks' context anew there: injected again too, the thread would
 * hold it twice. The fork keeps them: a resumed fork holds the old and the new, as Codex's own resume
 * of the source does; here bc stands in for a compaction, after which Codex holds the context once.
 */
const replacedHistory = (rollout: Rollout, items: readonly HistoryItem[], turnLine: number): { replaced: HistoryItem[]; sessionStartRuns: HistoryItem[][] } => {
  // the line of the task_started each line comes after
  const turnOf: number[] = [];
  let started = -1;
  for (const l of rollout.lines) {
    if (l.kind === "event_msg" && l.payload.type === "task_started") started = l.index;
    turnOf[l.index] = started;
  }
  const replaced: HistoryItem[] = [];
  const runs = new Map<number, HistoryItem[]>();
  const opened = new Set<number>();
  for (const h of items) {
    if (h.origin.line <= turnLine) continue;
    const turn = turnOf[h.origin.line] ?? started;
    if (isHookMessage(h) && !opened.has(turn)) {
      const run = runs.get(turn) ?? [];
      run.push(h);
      runs.set(turn, run);
      continue;
    }
    if (!isInjectedContext(h.item)) opened.add(turn);
    replaced.push(h);
  }
  return { replaced, sessionStartRuns: [...runs.values()] };
};

const isCall = (t: string): boolean => t === "function_call" || t === "custom_tool_call";
const isOutput = (t: string): boolean => t === "function_call_output" || t === "custom_tool_call_output";

/**
 * The calls without their output, then the outputs without their call, among these items, in the
 * order first seen: each with its (last) place in the list.
 */
const unpaired = (items: readonly Json[]): { kind: "call" | "output"; id: string; at: number }[] => {
  const calls = new Map<string, number>();
  const outputs = new Map<string, number>();
  items.forEach((it, at) => {
    if (isCall(it.type)) calls.set(it.call_id, at);
    else if (isOutput(it.type)) outputs.set(it.call_id, at);
  });
  return [
    ...[...calls].filter(([id]) => !outputs.has(id)).map(([id, at]) => ({ kind: "call" as const, id, at })),
    ...[...outputs].filter(([id]) => !calls.has(id)).map(([id, at]) => ({ kind: "output" as const, id, at })),
  ];
};

/** The rollout line of the last call without its output (or output without its call) among these items, or undefined. */
const lastUnpairedLine = (items: readonly HistoryItem[]): number | undefined => {
  const places = unpaired(items.map((h) => h.item as Json)).map((u) => items[u.at]!.origin.line);
  return places.length === 0 ? undefined : Math.max(...places);
};

/**
 * The rollout as it stood before its last call without an output, where no turn follows that call
 * (a session stopped mid-command): Codex compacts between requests, once every call has its
 * output, so this is the last history it could have compacted. Undefined when no such call ends it.
 */
export const beforeOpenCall = (rollout: Rollout): Rollout | undefined => {
  let cut: Rollout | undefined;
  // calls made together (in one response) may all be open: cut before each in turn
  for (let now = rollout; ; ) {
    const line = lastUnpairedLine(rebuildHistory(now).items);
    if (line === undefined || firstTurnAfter(now, line) !== undefined) return cut;
    now = cut = { ...now, lines: now.lines.slice(0, line) };
  }
};

/** Why these items cannot be injected as they are (a call without its output, or the reverse), or undefined. */
export const pairingProblem = (items: readonly Json[]): string | undefined => {
  const first = unpaired(items)[0];
  if (first === undefined) return undefined;
  return first.kind === "call" ? `call ${first.id} has no output` : `output ${first.id} has no call`;
};

const notFit = (reason: string, base: Partial<LivePlan> = {}): LivePlan => ({
  fits: false,
  reason,
  items: [],
  originalItems: [],
  fixedItems: 0,
  revisedItems: 0,
  tokensBefore: 0,
  tokensAfter: 0,
  results: 0,
  resultsTruncated: 0,
  resultsDropped: 0,
  byRule: {},
  ...base,
});

/** What a decision log records of a plan: its sizes, the limit it was cut for, and what it cut. */
export const planFigures = (plan: LivePlan) => ({
  tokensBefore: plan.tokensBefore,
  tokensAfter: plan.tokensAfter,
  target: plan.target,
  limit: plan.limit,
  results: plan.results,
  resultsTruncated: plan.resultsTruncated,
  resultsDropped: plan.resultsDropped,
});

/** Plan the replacement of a thread's history from its rollout. Pure: the rollout and the limits in, a plan out. */
export const planLive = (rollout: Rollout, limits: LiveLimits, share = LIVE_BUDGET_SHARE): LivePlan => {
  const rebuilt = rebuildHistory(rollout);
  const usage = recordedUsage(rollout);
  const limit = compactLimit({ autoCompactLimit: limits.autoCompactLimit, contextWindow: limits.contextWindow ?? usage.window });
  if (limit === undefined) return notFit("neither model_auto_compact_token_limit nor the model's window is known");
  const target = Math.floor(limit * share);
  const ceiling = Math.max(target, Math.floor(limit * LIVE_CEILING_SHARE));
  const anchor = rebuilt.baseLine ?? sessionMeta(rollout)?.index ?? -1;
  const first = firstTurnAfter(rollout, anchor);
  if (!first) return notFit("no turn to revert since the start of the thread or its last compaction", { limit, target, ceiling });
  const all = rebuilt.items;
  // a call that never got its output (an interrupted command) stays where it is, in the part
  // Codex keeps: the revert starts at the first turn after it
  const unpaired = lastUnpairedLine(all.filter((h) => h.origin.line > first.line));
  const turn = unpaired === undefined ? first : firstTurnAfter(rollout, unpaired);
  if (!turn) {
    const where = rollout.lines[unpaired!]?.lineNo;
    return notFit(`a tool call without its output (or the reverse) at line ${where} of the rollout, and no turn after it: bc injects no unpaired call`, {
      limit,
      target,
      ceiling,
    });
  }

  // the turns reverted are replaced by what bc rebuilds: a record it cannot rebuild would be lost
  const lost = rebuilt.notRebuilt.find((line) => line >= turn.line);
  if (lost !== undefined)
    return notFit(`an agent's message to another at line ${rollout.lines[lost]?.lineNo} of the rollout, which bc cannot rebuild: the compaction is Codex's`, {
      limit,
      target,
      ceiling,
    });
  const sent = (h: HistoryItem): Json => sentForm(h.item) as Json;
  const context = all.filter((h) => isInjectedContext(h.item)).map(sent);
  const fixed = all.filter((h) => h.origin.line < turn.line && !isInjectedContext(h.item)).map(sent);
  const { replaced: revised, sessionStartRuns } = replacedHistory(rollout, all, turn.line);
  // the SessionStart hooks' context Codex writes anew after the revert, at the size of their last run
  const rerun = (sessionStartRuns.at(-1) ?? []).map(sent);
  const keptPart = unpaired === undefined ? "the earlier injected block" : "the turns up to the unpaired call";
  const historyTokens = codexTokens(all.map(sent));
  // what the request carries besides the history (instructions, tools), from the last recorded
  // request less the history that request held, the history before its response as it stood then
  // (rollout.ts countedHistory: Codex compacts mid-turn after that response and its calls' outputs,
  // which its count does not hold; a turn rolled back since is still in it)
  const countedTokens = codexTokens(countedHistory(rollout).map(sent));
  const meta = sessionMeta(rollout)?.payload as Json | undefined;
  const overhead =
    usage.lastInput !== undefined && usage.lastInput > countedTokens
      ? usage.lastInput - countedTokens
      : estimateTokens(Buffer.byteLength(String(meta?.base_instructions?.text ?? "")));
  const frame = overhead + codexTokens(context) + codexTokens(fixed) + codexTokens(rerun);
  const tokensBefore = overhead + historyTokens;
  const originalItems = revised.filter((h) => !isInjectedContext(h.item)).map(sent);
  const base = { revertTurnId: turn.turnId, fixedItems: fixed.length, revisedItems: revised.length, originalItems, tokensBefore, limit, target, ceiling };
  if (originalItems.length === 0)
    return notFit(fixed.length > 0 ? `only ${keptPart} is left, which bc leaves as it is` : "nothing to prune", {
      ...base,
      tokensAfter: tokensBefore,
    });
  const over = `the ${ceiling}-token ceiling (${Math.round(LIVE_CEILING_SHARE * 100)}% of the ${limit} limit)`;
  if (frame >= ceiling)
    return notFit(
      fixed.length > 0
        ? `${keptPart} and Codex's context alone are ~${frame} tokens, over ${over}: only Codex's own compaction can cut them`
        : `Codex's context alone is ~${frame} tokens, over ${over}`,
      { ...base, tokensAfter: tokensBefore },
    );

  // the engine aims at the target; where what it may not cut leaves no room under the target, at the ceiling
  const aim = frame < target ? target : ceiling;
  let budget = aim - frame;
  let last: LivePlan | undefined;
  for (let i = 0; i < FIT_TRIES && budget > 0; i++) {
    const { pruning, plan: decided } = engineFork(revised, rollout, { budgetTokens: budget }, undefined, "fresh");
    const items = plannedHistory(revised, pruning, "fresh");
    const tokensAfter = frame + codexTokens(items);
    const plan: LivePlan = {
      ...base,
      fits: tokensAfter <= aim,
      reason: "",
      items,
      tokensAfter,
      budgetTokens: budget,
      results: pruning.results,
      resultsTruncated: pruning.resultsTruncated,
      resultsDropped: pruning.resultsDropped,
      byRule: pruning.byRule,
      removed: decided.decisions.flatMap((d) => (d.action === "keep" ? [] : [{ callId: d.callId, rule: d.rule, reason: d.reason }])),
    };
    const unpaired = pairingProblem(items);
    if (unpaired) return { ...plan, fits: false, reason: `the history cannot be injected: ${unpaired}` };
    // a replacement that frees nothing would only move these turns into the part no revert can reach
    if (plan.fits && pruning.resultsDropped + pruning.resultsTruncated === 0)
      return { ...plan, fits: false, reason: "the rules free nothing in the turns bc can still replace; this compaction is Codex's" };
    if (plan.fits) return { ...plan, reason: fitReason(plan, share) };
    last = plan;
    budget = Math.min(budget, pruning.tokensAfter) - (tokensAfter - aim);
  }
  // the target out of reach: the closest plan (every pass above was checked for pairing), where it
  // is under the ceiling and frees something
  if (last !== undefined && last.tokensAfter <= ceiling && last.resultsDropped + last.resultsTruncated > 0)
    return { ...last, fits: true, reason: fitReason(last, share) };
  return {
    ...(last ?? notFit("", base)),
    fits: false,
    reason: `the pruned history would still be ~${last?.tokensAfter ?? "?"} tokens, over ${over}`,
  };
};

/** Why a plan that fits does: under the target, or over it (out of the rules' reach) but under the ceiling. */
const fitReason = (plan: LivePlan, share: number): string => {
  const of = `(${Math.round(share * 100)}% of the ${plan.limit} limit)`;
  return plan.tokensAfter <= plan.target!
    ? `~${plan.tokensBefore} -> ~${plan.tokensAfter} tokens, under the ${plan.target}-token target ${of}`
    : `~${plan.tokensBefore} -> ~${plan.tokensAfter} tokens: the rules cannot reach the ${plan.target}-token target ${of}, but this is under the ${plan.ceiling}-token ceiling (${Math.round(LIVE_CEILING_SHARE * 100)}%): applied, and the next compaction comes sooner`;
};
