// bc under pressure, as the product answers: for Claude Code the plugin's own `compactRows`
// (an automatic compaction with the context at the pressure), for Codex the engine's `plan` with
// the budget, as `bc codex-fork` plans a fork. Whatever the engine's escalation does is what
// is measured: nothing here second-guesses it.
import { apply } from "../../engine/apply.ts";
import { plan } from "../../engine/plan.ts";
import { DEFAULT_OPTIONS, type Session } from "../../engine/types.ts";
import { compactRows, DEFAULT_PLUGIN_OPTIONS } from "../../hosts/claude/plugin.ts";
import { rowsToSession, type SessionRow } from "../../hosts/claude/rows.ts";
import type { BudgetMethod } from "./budget.ts";
import { rewritesFrom } from "./rules.ts";

/** The rows Claude Code's `session.compact` hook would hand in for this history. */
export const sessionToHookRows = (session: Session): SessionRow[] =>
  session.messages.map((m) => ({
    role: m.role === "assistant" ? "assistant" : "user",
    text: m.text,
    toolUses: m.toolCalls.map((c) => ({ tool_use_id: c.id, tool: c.name, input: c.input })),
    ...(m.toolResults.length === 0 ? {} : { toolResults: m.toolResults.map((r) => ({ tool_use_id: r.callId, text: r.text, isError: r.isError })) }),
  }));

export const BC_UNDER_PRESSURE: BudgetMethod = {
  id: "rules",
  kind: "method",
  summary:
    "bc as the product answers: Claude Code, the plugin's session.compact (trigger auto, context at the pressure, budget compactAtPercent); Codex, the engine's plan with that budget, as bc codex-fork plans",
  run: ({ prefix, results, point }) => {
    if (prefix.host === "claude") {
      const rows = sessionToHookRows(prefix);
      const { answer } = compactRows({
        trigger: "auto",
        sessionId: prefix.id,
        rows,
        usage: { tokens: point.tokensBefore, window: point.window, percent: Math.round(point.pressure * 1000) / 10 },
        options: DEFAULT_PLUGIN_OPTIONS,
        now: () => 0,
      });
      if ("skip" in answer) return { rewrites: new Map(), reached: false };
      const out = "messages" in answer ? answer.messages : answer.handover;
      return {
        rewrites: rewritesFrom(results, rowsToSession(out, prefix.id).messages),
        reached: "messages" in answer,
        handedOver: "handover" in answer,
      };
    }
    const p = plan(prefix, { ...DEFAULT_OPTIONS, budgetTokens: point.budget });
    return { rewrites: rewritesFrom(results, apply(prefix, p)), reached: p.budget?.reached ?? false };
  },
};
