// bc under pressure, as the product answers: for Claude Code the plugin's own `compactRows`
// (an automatic compaction with the context at the pressure), for Codex the engine's `plan` with
// the budget, as `bc codex-fork` plans a fork. Whatever the engine's escalation does is what
// is measured: nothing here second-guesses it.
import { apply } from "../../engine/apply.ts";
import { plan } from "../../engine/plan.ts";
import { DEFAULT_OPTIONS, type Session } from "../../engine/types.ts";
import { compactRows, DEFAULT_PLUGIN_OPTIONS } from "../../hosts/claude/plugin.ts";
import type { SessionRow } from "../../hosts/claude/rows.ts";
import type { ThinkingRead } from "../../hosts/claude/thinking.ts";
import { estimateMessageTokens } from "../../engine/estimate.ts";
import type { BudgetMethod } from "./budget.ts";
import type { ResultInfo } from "../session-index.ts";
import { rewritesFrom, rulesByCall } from "./rules.ts";

/**
 * The rows Claude Code's `session.compact` hook would hand in for this history. As the host
 * builds them: a meta record (a reminder, an attachment) is no row of its own, and thinking is
 * in no row (an assistant record holding only thinking is a row without text).
 */
export const sessionToHookRows = (session: Session): SessionRow[] =>
  session.messages
    .filter((m) => m.kind !== "meta")
    .map((m, i) => ({
      role: m.role === "assistant" ? "assistant" : "user",
      text: m.kind === "reasoning" ? "" : m.text,
      toolUses: m.toolCalls.map((c) => ({ tool_use_id: c.id, tool: c.name, input: c.input })),
      ...(m.toolResults.length === 0 ? {} : { toolResults: m.toolResults.map((r) => ({ tool_use_id: r.callId, text: r.text, isError: r.isError })) }),
      // every row Claude Code hands in carries one
      handle: `row-${i}`,
    }));

/** One answer (API response) in a history: its thinking's estimate, its calls, and the message it begins at. */
interface Answer {
  tokens: number;
  readonly callIds: string[];
  readonly first: number;
  readonly response?: string;
}

/**
 * The answers of a history as the API joins Claude Code's records: the assistant messages between
 * two user messages, and those of one response (message.id, SourceRef.response) across the results
 * between them (calls made in parallel stand between their results).
 */
const answersOf = (session: Session): Answer[] => {
  const answers: Answer[] = [];
  let open: Answer | undefined;
  // a user message since the open answer's last record
  let broken = false;
  for (const [i, m] of session.messages.entries()) {
    if (m.kind === "meta") continue;
    if (m.role !== "assistant") {
      broken = true;
      continue;
    }
    const response = m.source?.response;
    if (open === undefined || (broken && (response === undefined || response !== open.response))) {
      open = { tokens: 0, callIds: [], first: i, ...(response === undefined ? {} : { response }) };
      answers.push(open);
    }
    broken = false;
    if (m.kind === "reasoning") open.tokens += estimateMessageTokens(m).all;
    open.callIds.push(...m.toolCalls.map((c) => c.id));
  }
  return answers;
};

/**
 * The thinking in the history as the hook reads it from Claude Code's messages (thinking.ts):
 * each answer's (answersOf) with the tool calls it made. Claude Code's count holds all of it but
 * the last answer's, as thinkingInCount reads it (the count is of the request that answer answered).
 */
export const thinkingOf = (session: Session): ThinkingRead => {
  const answers = answersOf(session).map((a, k, all) => ({ tokens: a.tokens, callIds: a.callIds, counted: k < all.length - 1 }));
  const thought = answers.filter((a) => a.tokens > 0);
  return { tokens: thought.reduce((n, a) => n + (a.counted ? a.tokens : 0), 0), answers: thought };
};

/** The calls of the last answer, as the hook reads them from Claude Code's messages (thinking.ts: lastAnswerCalls). */
export const lastAnswerCallsOf = (session: Session): string[] => answersOf(session).at(-1)?.callIds ?? [];

/**
 * Claude Code's count of `session` as the hook would read it (`$.session.usage()`): the last
 * request's input side, the history before its last answer (what the plugin's rowsInCount finds
 * among the rows), given `tokens`, the whole history's estimate.
 */
export const claudeCount = (session: Session, tokens: number): number => {
  const from = answersOf(session).at(-1)?.first ?? session.messages.length;
  return tokens - session.messages.slice(from).reduce((n, m) => n + estimateMessageTokens(m).all, 0);
};

/**
 * The text the plugin's rows hold in place of each of `results` whose text changed, found by call
 * id (the rows leave meta records out, so they are not aligned with the history's messages).
 */
export const rewritesFromRows = (results: readonly ResultInfo[], rows: readonly SessionRow[]): Map<number, string> => {
  const texts = new Map<string, string[]>();
  for (const row of rows) for (const r of row.toolResults ?? []) texts.set(r.tool_use_id, [...(texts.get(r.tool_use_id) ?? []), r.text]);
  const out = new Map<number, string>();
  for (const r of results) {
    const now = texts.get(r.callId)?.shift();
    if (now === undefined) throw new Error(`the plugin removed tool result ${r.callId} (message ${r.message})`);
    if (now !== r.text) out.set(r.ordinal, now);
  }
  return out;
};

export const BC_UNDER_PRESSURE: BudgetMethod = {
  id: "rules",
  kind: "method",
  summary:
    "bc as the product answers: Claude Code, the plugin's session.compact (trigger auto, context at the pressure, budget compactAtPercent); Codex, the engine's plan with that budget, as bc codex-fork plans",
  run: ({ prefix, results, point, needModels }) => {
    if (prefix.host === "claude") {
      // the plugin is told Claude Code's count (the last request's: claudeCount), the thinking in
      // it and the last answer's calls, as the hook reads them from Claude Code's messages: it sets
      // what its rows leave out and stays (meta records, the open tool loop's thinking) against the
      // budget itself, and not the thinking the host drops, and so frees what the others free
      const { answer, record } = compactRows({
        trigger: "auto",
        sessionId: prefix.id,
        rows: sessionToHookRows(prefix),
        usage: { tokens: claudeCount(prefix, point.tokensBefore), window: point.window, percent: Math.round(point.pressure * 1000) / 10 },
        thinking: thinkingOf(prefix),
        lastAnswerCalls: lastAnswerCallsOf(prefix),
        options: DEFAULT_PLUGIN_OPTIONS,
        now: () => 0,
        // the plugin reads a weights file's text, as the host hands it
        ...(needModels === undefined ? {} : { needWeights: JSON.stringify(needModels) }),
      });
      if ("skip" in answer) return { rewrites: new Map(), reached: false };
      const out = "messages" in answer ? answer.messages : answer.handover;
      return {
        rewrites: rewritesFromRows(results, out),
        // an answer over the budget (under handOverAbovePercent) is no summary, but did not reach it
        reached: "messages" in answer && (record.budgetTokens === undefined || record.tokensAfter <= record.budgetTokens),
        handedOver: "handover" in answer,
        answered: "messages" in answer,
        rules: rulesByCall(record.results),
      };
    }
    // the plan counts the whole history, what the host drops too (none for Codex)
    const p = plan(prefix, { ...DEFAULT_OPTIONS, budgetTokens: point.budget + point.droppedTokens, ...(needModels === undefined ? {} : { needModels }) });
    return {
      rewrites: rewritesFrom(results, apply(prefix, p)),
      reached: p.budget?.reached ?? false,
      rules: rulesByCall(p.decisions),
    };
  },
};

/**
 * Hindsight ceiling: bc's engine to the budget, as `bc plan --budget` and `bc codex-fork` run it,
 * with each result's need known instead of scored: 1 when the session uses it after the cut, else
 * 0. What bc would lose with a perfect need score; the gap to bc's own row is the need score's.
 */
export const NEED_ORACLE: BudgetMethod = {
  id: "need-oracle",
  kind: "ceiling",
  summary: "hindsight ceiling: bc's engine to the budget (as bc plan --budget), each result's need known: 1 when the session uses it after the cut, else 0",
  run: ({ prefix, results, point, used }) => {
    const needOverride = new Map(results.map((r) => [r.callId, (used[r.ordinal]?.length ?? 0) > 0 ? 1 : 0] as const));
    // the plan counts the whole history, Claude Code's thinking too, which the host drops
    const p = plan(prefix, { ...DEFAULT_OPTIONS, budgetTokens: point.budget + point.droppedTokens, needOverride });
    return { rewrites: rewritesFrom(results, apply(prefix, p)) };
  },
};
