// The Claude Code plugin's compaction, as a pure function of plain data: hook rows in, the
// answer (rows, a skip, or rows to hand over to Claude Code's own summary) and a decision
// record out. hooks/register.ts makes every `$` call and hands this file what they returned.
// Runs inside Claude Code's hooks worker: no Bun, no Node, no bare package on this path.
import { apply } from "../../engine/apply.ts";
import { beyondEstimate, estimateSessionTokens } from "../../engine/estimate.ts";
import { plan } from "../../engine/plan.ts";
import { type NeedModels, parseNeedModels } from "../../engine/need/model.ts";
import { DEFAULT_OPTIONS, type Options, type Plan, type Session } from "../../engine/types.ts";
import type { DecisionRecord, Outcome } from "./decision-log.ts";
import { blocksNoted, orphans, rowsToSession, sessionToRows, validateRows, type SessionRow } from "./rows.ts";
import { type ThinkingCount, thinkingThatStays } from "./thinking.ts";
import { warmUpRows } from "./warm-up.ts";

/** The plugin's options (userConfig in .claude-plugin/plugin.json; keep the two in step). */
export interface PluginOptions {
  /** the turn.complete loop compacts at this share of the window; also the escalation budget */
  readonly compactAtPercent: number;
  /** a pass freeing fewer points of the window than this is not worth it (plugin: skip; auto: hand over) */
  readonly minFreedPercent: number;
  /**
   * a manual or automatic compaction the rules cannot bring under the budget is answered all the
   * same while the context stays under this share of the window; over it, it goes to Claude Code's
   * summary (at least compactAtPercent)
   */
  readonly handOverAbovePercent: number;
  /** the engine's: a pass removing less than this share of tool-output tokens is not taken */
  readonly minRemovalFraction: number;
  readonly truncateHeadChars: number;
  readonly pinLastMessages: number;
  readonly logDecisions: boolean;
}

export const DEFAULT_PLUGIN_OPTIONS: PluginOptions = {
  compactAtPercent: 60,
  minFreedPercent: 5,
  handOverAbovePercent: 75,
  minRemovalFraction: DEFAULT_OPTIONS.minRemovalFraction,
  truncateHeadChars: DEFAULT_OPTIONS.truncateHeadChars,
  pinLastMessages: DEFAULT_OPTIONS.pinLastMessages,
  logDecisions: true,
};

const num = (v: unknown, fallback: number, min: number, max: number): number => {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isFinite(n) && n >= min && n <= max ? n : fallback;
};

const bool = (v: unknown, fallback: boolean): boolean => (v === true || v === "true" ? true : v === false || v === "false" ? false : fallback);

/** Options from the values Claude Code hands `register` (userConfig; numbers may arrive as strings). Bad values fall back to defaults. */
export const pluginOptions = (raw: unknown): PluginOptions => {
  const o = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const d = DEFAULT_PLUGIN_OPTIONS;
  return {
    compactAtPercent: num(o.compactAtPercent, d.compactAtPercent, 1, 100),
    minFreedPercent: num(o.minFreedPercent, d.minFreedPercent, 0, 100),
    handOverAbovePercent: num(o.handOverAbovePercent, d.handOverAbovePercent, 1, 100),
    minRemovalFraction: num(o.minRemovalFraction, d.minRemovalFraction, 0, 1),
    truncateHeadChars: Math.floor(num(o.truncateHeadChars, d.truncateHeadChars, 0, 1_000_000)),
    pinLastMessages: Math.floor(num(o.pinLastMessages, d.pinLastMessages, 0, 10_000)),
    logDecisions: bool(o.logDecisions, d.logDecisions),
  };
};

/** `$.session.usage().context`: tokens and percent are absent until a response has been seen. */
export interface ContextUsage {
  readonly tokens?: number;
  readonly window?: number;
  readonly percent?: number;
}

export interface CompactInput {
  readonly trigger: string;
  readonly agentId?: string;
  readonly sessionId: string;
  readonly rows: readonly SessionRow[];
  readonly usage?: ContextUsage;
  /**
   * The thinking `usage.tokens` holds and each answer's (thinking.ts: thinkingInCount), or why it is
   * not known. No row shows it; bc's answer drops it but for the open tool loop's (the answers
   * whose rows go back with their handles), so only that counts against the budget; unknown, the
   * whole count beyond the rows does, as if it all stayed.
   */
  readonly thinking?: ThinkingCount;
  /**
   * The tool calls of the answer to the request `usage.tokens` is of (thinking.ts: lastAnswerCalls),
   * read from Claude Code's messages with the thinking: where that answer begins among the rows
   * (rowsInCount). Not known: the last run of assistant rows.
   */
  readonly lastAnswerCalls?: readonly string[];
  readonly options: PluginOptions;
  /** milliseconds; a wall clock for the record's time, and the difference for its duration */
  readonly now: () => number;
  /** the text of the user's need weights file, when there is one (bc calibrate --write) */
  readonly needWeights?: string;
}

export type CompactAnswer =
  | { readonly messages: SessionRow[]; readonly tokensBefore: number; readonly tokensAfter: number }
  | { readonly skip: string }
  | { readonly handover: SessionRow[] };

export interface CompactOutcome {
  readonly answer: CompactAnswer;
  readonly record: DecisionRecord;
}

const PRECOMPUTE_SKIP = "better-compaction answers each compaction when it happens; nothing to precompute";

const round1 = (n: number): number => Math.round(n * 10) / 10;

/** The engine options for this pass (the plugin's options over the engine's defaults). */
export const engineOptions = (options: PluginOptions, budgetTokens?: number, needModels?: NeedModels): Options => ({
  ...DEFAULT_OPTIONS,
  ...(needModels === undefined ? {} : { needModels }),
  pinLastMessages: options.pinLastMessages,
  truncateHeadChars: options.truncateHeadChars,
  minRemovalFraction: options.minRemovalFraction,
  ...(budgetTokens === undefined ? {} : { budgetTokens }),
});

const escalated = (p: Plan): boolean => p.decisions.some((d) => d.rule === "escalation");

/** What the context holds beyond the rows, as far as it stays after bc's answer, and the thinking it does not count. */
export interface Unseen {
  /** counted against the budget: the system prompt, tool definitions, memory, attachments kept with prompt rows, and keptThinkingTokens */
  readonly tokens: number;
  /** the thinking Claude Code's count holds, which bc's answer drops: not counted */
  readonly thinkingTokens?: number;
  /** the open tool loop's thinking, which stays with the rows bc hands back as they are: counted, its last answer's too, which the count does not hold yet */
  readonly keptThinkingTokens?: number;
  /** why the thinking was not taken out of the count (then it counts, as if it stayed) */
  readonly thinkingProblem?: string;
}

/**
 * How many of the rows Claude Code's count holds: those before the last answer (its assistant rows,
 * one per block). The count is the last request's input side, so the answer to that request, and
 * whatever came after it (the results of the calls it made, a prompt typed since), are not in it.
 * Claude Code keeps the records of an answer that made calls in parallel between their results
 * (its thinking and text, call A, A's result, call B, B's result): given that answer's calls
 * (`lastCalls`, read from Claude Code's messages: thinking.ts, lastAnswerCalls), it begins at the
 * first row holding one of them, with the assistant rows right before it. Else, or when no row
 * holds one, the last answer is the last run of assistant rows (one call, or none). All the rows
 * when none is an answer.
 */
export const rowsInCount = (rows: readonly SessionRow[], lastCalls?: readonly string[]): number => {
  let k =
    lastCalls === undefined || lastCalls.length === 0
      ? -1
      : rows.findIndex((r) => r.role === "assistant" && (r.toolUses ?? []).some((u) => lastCalls.includes(u.tool_use_id)));
  if (k < 0) {
    k = rows.length;
    while (k > 0 && rows[k - 1]!.role !== "assistant") k--;
    if (k === 0) return rows.length;
  }
  while (k > 0 && rows[k - 1]!.role === "assistant") k--;
  return k;
};

/** bc's estimate of the rows Claude Code's count holds (rowsInCount), of the session made of `rows` (one message per row). */
export const estimateRowsInCount = (session: Session, rows: readonly SessionRow[], lastCalls?: readonly string[]): number =>
  estimateSessionTokens({ ...session, messages: session.messages.slice(0, rowsInCount(rows, lastCalls)) }).total;

/**
 * Tokens of the context the rows do not show and bc's answer leaves in place (the system prompt,
 * tool definitions, memory files, attachments kept with prompt rows, the open tool loop's
 * thinking): Claude Code's own count, less the thinking bc's answer drops (gone once Claude Code
 * rebuilds the rows bc hands back) and bc's estimate of the rows that count holds (rowsInCount:
 * not the last answer, nor the results after it, which may be large), plus the thinking of the
 * loop's last answer (it stays, and the count, of the request it answered, does not hold it). The
 * budget is the window's share for the whole context, so the rows get the budget less these.
 * Asked for the main thread only (a subagent's usage is not known to be its own), and at most
 * half the budget (a count that is stale or off cannot take the whole budget) besides that last
 * thinking. Thinking that is not known, or more than the count holds beyond the rows (then the
 * count is not of these messages), is not taken out. What stays: thinking.ts, thinkingThatStays.
 */
export const unseenOf = (
  input: Pick<CompactInput, "agentId" | "usage" | "options" | "thinking" | "rows" | "lastAnswerCalls">,
  session: Session,
  window: number | undefined,
): Unseen => {
  const tokens = input.usage?.tokens;
  if (window === undefined || input.agentId !== undefined || tokens === undefined || !Number.isFinite(tokens)) return { tokens: 0 };
  const share = Math.floor((window * input.options.compactAtPercent) / 100);
  const rows = estimateRowsInCount(session, input.rows, input.lastAnswerCalls);
  // the whole count beyond the rows, the thinking in it too: what stands when none is taken out
  const whole = beyondEstimate(tokens, rows, share);
  const t = input.thinking;
  if (t === undefined) return { tokens: whole };
  if ("problem" in t) return { tokens: whole, thinkingProblem: t.problem };
  if (!Number.isFinite(t.tokens) || t.tokens < 0) return { tokens: whole, thinkingProblem: `a thinking count that is not a number of tokens (${t.tokens})` };
  const { counted: staysCounted, after: staysAfter } = thinkingThatStays(t, input.rows);
  const dropped = t.tokens - staysCounted;
  const keptThinking = staysCounted + staysAfter > 0 ? { keptThinkingTokens: staysCounted + staysAfter } : {};
  if (dropped === 0) return { tokens: whole + staysAfter, ...keptThinking };
  if (dropped > tokens - rows)
    return {
      tokens: whole + staysAfter,
      ...keptThinking,
      thinkingProblem: `~${dropped} tokens of thinking read, more than Claude Code's count holds beyond the rows (~${Math.max(0, Math.round(tokens - rows))}): counted as if it stayed`,
    };
  return { tokens: beyondEstimate(tokens - dropped, rows, share) + staysAfter, thinkingTokens: dropped, ...keptThinking };
};

/**
 * One `session.compact` dispatch, decided. precompute: skip. manual / auto / plugin (main loop or
 * subagent alike): the rules, then escalation to the budget (compactAtPercent of the window);
 * a manual or auto pass still over budget and over handOverAbovePercent of the window, or an auto
 * pass freeing < minFreedPercent points: hand over the pruned rows (over budget but under that
 * share: answered); a plugin pass freeing < minFreedPercent beyond the lent room it cuts back:
 * skip; a plugin pass still over budget: the rows as far as they were cut (no summary before
 * Claude Code's own threshold); a manual pass removing nothing, neither a result nor thinking: skip.
 */
export const compactRows = (input: CompactInput): CompactOutcome => {
  const t0 = input.now();
  const at = new Date(t0).toISOString();
  const { rows, options, trigger } = input;
  const base = { v: 1 as const, at, sessionId: input.sessionId, ...(input.agentId ? { agentId: input.agentId } : {}), trigger, rowsIn: rows.length };
  const finish = (
    answer: CompactAnswer,
    outcome: Outcome,
    reason: string,
    extra: Partial<DecisionRecord> & { rowsOut: number; tokensBefore: number; tokensAfter: number },
  ): CompactOutcome => ({
    answer,
    record: { ...base, outcome, reason, escalated: false, results: [], ...extra, ms: round1(input.now() - t0) },
  });

  if (trigger === "precompute") return finish({ skip: PRECOMPUTE_SKIP }, "skipped", PRECOMPUTE_SKIP, { rowsOut: rows.length, tokensBefore: 0, tokensAfter: 0 });
  if (trigger !== "manual" && trigger !== "auto" && trigger !== "plugin") {
    const why = `better-compaction: unknown trigger ${JSON.stringify(trigger)}; not compacted`;
    return finish({ skip: why }, "skipped", why, { rowsOut: rows.length, tokensBefore: 0, tokensAfter: 0 });
  }
  const inputProblems = validateRows(rows);
  if (inputProblems.length > 0) {
    const why = `better-compaction: Claude Code handed in ${inputProblems[0]}; not compacted`;
    return finish({ skip: why }, "skipped", why, { rowsOut: rows.length, tokensBefore: 0, tokensAfter: 0 });
  }

  const window = input.usage?.window && input.usage.window > 0 ? input.usage.window : undefined;
  const session = rowsToSession(rows, input.sessionId);
  const unseen = unseenOf(input, session, window);
  const unseenTokens = unseen.tokens;
  // what the rows may take of a share of the window, less what they do not show
  const rowsShare = (percent: number): number | undefined => (window === undefined ? undefined : Math.floor((window * percent) / 100) - unseenTokens);
  const budgetTokens = rowsShare(options.compactAtPercent);
  // what the rows may take when the budget cannot be reached, before the compaction is Claude Code's
  const ceilingPercent = Math.max(options.compactAtPercent, options.handOverAbovePercent);
  const ceilingTokens = rowsShare(ceilingPercent);
  // the user's weights when they are there and valid; a broken file is passed over (the log says which were used)
  const parsed = input.needWeights === undefined ? undefined : parseNeedModels(input.needWeights);
  const needModels = parsed === undefined || "problem" in parsed ? undefined : parsed;
  const p = plan(session, engineOptions(options, budgetTokens, needModels));
  const applied = apply(session, p);
  const out = sessionToRows(rows, applied);
  const noted = blocksNoted(session.messages, applied);
  const { tokensBefore, tokensAfter } = p.totals;
  // what an answer frees of the window: the rows' tokens cut, and the thinking Claude Code drops with the rows
  const thinkingTokens = unseen.thinkingTokens ?? 0;
  const freedPercent = window === undefined ? undefined : round1(((tokensBefore - tokensAfter + thinkingTokens) / window) * 100);
  const results = p.decisions.map((d) => ({ callId: d.callId, tool: d.tool, action: d.action, rule: d.rule, reason: d.reason }));
  const facts = {
    rowsOut: out.length,
    tokensBefore,
    tokensAfter,
    results,
    escalated: escalated(p),
    needWeights: needModels === undefined ? ("shipped" as const) : ("user" as const),
    ...(noted > 0 ? { blocksNoted: noted } : {}),
    ...(parsed !== undefined && "problem" in parsed ? { needWeightsProblem: parsed.problem } : {}),
    ...(window === undefined ? {} : { window, freedPercent, budgetTokens }),
    ...(unseenTokens > 0 ? { unseenTokens } : {}),
    ...(unseen.thinkingTokens === undefined ? {} : { thinkingTokens: unseen.thinkingTokens }),
    ...(unseen.keptThinkingTokens === undefined ? {} : { keptThinkingTokens: unseen.keptThinkingTokens }),
    ...(unseen.thinkingProblem === undefined ? {} : { thinkingProblem: unseen.thinkingProblem }),
  };

  // never answer with a list Claude Code would refuse, or with a call that lost its result
  const problems = validateRows(out);
  const before = new Set(orphans(rows));
  const newOrphans = orphans(out).filter((o) => !before.has(o));
  if (problems.length > 0 || newOrphans.length > 0) {
    const why = `better-compaction: its rewrite failed its own check (${[...problems, ...newOrphans][0]}); not compacted`;
    return finish({ skip: why }, "skipped", why, { ...facts, rowsOut: rows.length, tokensAfter: tokensBefore });
  }

  // a pass removing less than minRemovalFraction is not taken: an automatic compaction needs the
  // room all the same, so it is Claude Code's
  if (p.skipped) {
    const little = `this pass would remove less than minRemovalFraction ${options.minRemovalFraction} of the tool output`;
    if (trigger === "auto")
      return finish({ handover: out }, "handed-over", `${little}: handed to Claude Code's summary`, { ...facts, tokensAfter: tokensBefore });
    const why = `better-compaction: ${little}; not compacted`;
    return finish({ skip: why }, "skipped", why, { ...facts, rowsOut: rows.length, tokensAfter: tokensBefore });
  }
  const freed = tokensBefore - tokensAfter;
  const thinkingText = thinkingTokens > 0 ? ` (with ~${thinkingTokens} tokens of thinking Claude Code drops)` : "";
  const freedText = freedPercent === undefined ? `~${freed} tokens` : `${freedPercent} points of the window${thinkingText}`;
  const small = freedPercent !== undefined && freedPercent < options.minFreedPercent;
  const lentBack = p.budget?.lentBack ?? 0;
  const loopPercent = window === undefined ? undefined : round1(((loopFreedTokens(p) + thinkingTokens) / window) * 100);
  if (trigger === "plugin" && loopPercent !== undefined && loopPercent < options.minFreedPercent) {
    const lent = lentBack > 0 ? `, not counting ~${lentBack} tokens of longer heads cut back and lent again` : "";
    const why = `better-compaction: this pass would free only ${loopPercent} points of the window${thinkingText}${lent} (minFreedPercent ${options.minFreedPercent}); waiting for Claude Code's own threshold`;
    return finish({ skip: why }, "skipped", why, { ...facts, rowsOut: rows.length, tokensAfter: tokensBefore });
  }
  // bc's own loop pass brings on no summary before Claude Code would: over the budget, it hands
  // back what it freed (it freed enough, or it skipped above), and the summary, if it comes, comes
  // at Claude Code's threshold
  const overBudget = budgetTokens !== undefined && tokensAfter > budgetTokens;
  const unseenText = unseenTokens > 0 ? `, less ~${unseenTokens} the rows do not show` : "";
  if (overBudget && trigger !== "plugin" && ceilingTokens !== undefined && tokensAfter > ceilingTokens) {
    const why = `still ~${tokensAfter} tokens after the rules and escalation, over the budget of ${budgetTokens} (${options.compactAtPercent}% of the window${unseenText}) and over ${ceilingTokens} (handOverAbovePercent ${ceilingPercent}): handed to Claude Code's summary`;
    return finish({ handover: out }, "handed-over", why, facts);
  }
  if (trigger === "auto" && (small || (freedPercent === undefined && freed <= 0))) {
    const why = `freed only ${freedText} (minFreedPercent ${options.minFreedPercent}): handed to Claude Code's summary`;
    return finish({ handover: out }, "handed-over", why, facts);
  }
  // the thinking Claude Code drops with the rows handed back is freed too: a history whose
  // results are all still needed may reach its budget by that alone
  if (freed <= 0 && thinkingTokens <= 0) {
    const why = "better-compaction: nothing to remove (every tool result is still needed)";
    return finish({ skip: why }, "skipped", why, { ...facts, rowsOut: rows.length });
  }
  const dropped = results.filter((r) => r.action === "drop").length;
  const truncated = results.filter((r) => r.action === "truncate").length;
  const over = !overBudget
    ? ""
    : trigger === "plugin"
      ? `; still over the budget of ${budgetTokens}, which Claude Code's own compaction will meet`
      : `; the rules cannot reach the budget of ${budgetTokens} (${options.compactAtPercent}% of the window${unseenText}), but this is under ${ceilingTokens} (handOverAbovePercent ${ceilingPercent}): answered, and the next compaction comes sooner`;
  const why = `${dropped} results dropped, ${truncated} truncated; freed ${freedText}${facts.escalated ? (overBudget ? " (escalated)" : " (escalated to the budget)") : ""}${over}`;
  return finish({ messages: out, tokensBefore, tokensAfter }, "compacted", why, facts);
};

/** One line for Claude Code's debug log. */
export const debugLine = (r: DecisionRecord): string =>
  `better-compaction: session.compact trigger=${r.trigger}${r.agentId ? ` agent=${r.agentId}` : ""} ${r.outcome} rows ${r.rowsIn}->${r.rowsOut} tokens ~${r.tokensBefore}->~${r.tokensAfter} in ${r.ms} ms: ${r.reason}`;

/**
 * What a loop pass is worth: the tokens it frees beyond the room it only lends again (longer
 * heads an earlier pass kept under its budget, cut back now, free room this pass gives out again).
 */
export const loopFreedTokens = (p: Plan): number => p.totals.tokensBefore - p.totals.tokensAfter - (p.budget?.lentBack ?? 0);

/** The turn.complete loop: whether to call $.session.compact() now. */
export const shouldCompactAfterTurn = (input: { readonly usage?: ContextUsage; readonly options: PluginOptions; readonly turnsSinceLast: number }): boolean => {
  if (input.turnsSinceLast <= TURN_COOLDOWN) return false;
  const u = input.usage;
  const percent = u?.percent ?? (u?.tokens !== undefined && u.window ? (u.tokens / u.window) * 100 : undefined);
  return percent !== undefined && percent >= input.options.compactAtPercent;
};

/** turns to wait after the loop compacted (or tried to) before it tries again */
export const TURN_COOLDOWN = 2;

/** What `.catch` answers: a failure never falls through to a summary, never breaks the session. */
export const failureSkip = (error: unknown): { skip: string } => {
  const e = error as { message?: unknown; kind?: unknown } | undefined;
  const msg = typeof e?.message === "string" ? e.message : typeof error === "string" ? error : "unknown error";
  const kind = e?.kind === "timeout" ? "timed out" : "failed";
  return { skip: `better-compaction ${kind} (${msg.replace(/\s+/g, " ").slice(0, 200)}); not compacted` };
};

// What hooks/register.ts needs besides the above, so it imports one module (the build points
// that one import at the bundle).
export { appendRecord, claudeDirOf, logPathFor, needWeightsPathFor } from "./decision-log.ts";
export type { SessionRow } from "./rows.ts";
export { lastAnswerCalls, type ThinkingCount, thinkingInCount } from "./thinking.ts";
export { within } from "./deadline.ts";

/**
 * Run the engine over a small made-up session, at load time, so the first real compaction does
 * not also pay for cold code (Claude Code counts the hook's own milliseconds per dispatch): a
 * manual compaction, then an automatic one in a window that what the rules leave fills to 95%,
 * so that the escalation runs too, as it does in a real automatic compaction. Returns the passes'
 * records.
 */
export const warmUp = (): DecisionRecord[] => {
  const rows = warmUpRows();
  const pass = (trigger: string, usage: ContextUsage): DecisionRecord =>
    compactRows({ trigger, sessionId: "warm-up", rows, usage, options: DEFAULT_PLUGIN_OPTIONS, now: () => 0 }).record;
  const manual = pass("manual", { window: 200_000 });
  // a window that what the rules leave fills to 95%: the budget (60% of it) is out of their reach
  const window = Math.round(manual.tokensAfter / 0.95);
  return [manual, pass("auto", { tokens: manual.tokensBefore, window, percent: Math.round((manual.tokensBefore / window) * 100) })];
};
