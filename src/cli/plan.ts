// `bc plan <files | session ids>`: a dry run of the rules. Prints, for every tool result of each
// session, what the rules would do and why, then the totals. Reads the sessions; writes nothing.
import { defineCommand } from "citty";
import { z } from "zod";
import { fraction, JSON_ARG, parseFlags, SESSIONS_ARG, wholeNumber } from "./args.ts";
import { forEachSession, sessionsGiven, warnSkipped } from "./sessions.ts";
import { applyToSession } from "../engine/apply.ts";
import { plan } from "../engine/plan.ts";
import { type Options, type Plan, type RuleId, type RuleTotals, type Session, DEFAULT_OPTIONS } from "../engine/types.ts";
import { needWeightsPath } from "../hosts/claude/install.ts";
import { engineFork } from "../hosts/codex/fork.ts";
import { type BudgetSpec, parseBudget } from "../hosts/codex/window.ts";
import { loadSessionSource, resolveSession, type SessionSource, sessionName } from "../hosts/load.ts";
import { describeWeights, needModelsOption, weightsInUse } from "../hosts/need-weights.ts";
import { BcError } from "../util/errors.ts";
import { counted, tokenCount } from "../util/format.ts";
import { log } from "../util/log.ts";

export interface PassReport {
  readonly pass: number;
  /** messages this pass saw (the session as it had grown by then) */
  readonly messages: number;
  readonly plan: Plan;
}

export interface PlanReport {
  readonly path: string;
  readonly host: string;
  readonly id: string;
  /** the session's name (claude -n, /rename; a Codex thread's), when it has one */
  readonly name?: string;
  /** "live": the model-visible history now; "timeline": everything, across host compactions */
  readonly history: "live" | "timeline";
  readonly options: Options;
  readonly passes: readonly PassReport[];
  /** with a budget: which need weights ranked the escalation */
  readonly needWeights?: string;
  /** a budget given as a share of the window: the share, the window and what Codex's requests carry besides the history */
  readonly budgetShare?: { readonly percent: number; readonly window: number; readonly unseenTokens?: number };
  /**
   * a Codex rollout's budget as its fork reckons it: the tokens the history may take as Codex
   * counts it (each item's JSON and reasoning too), and the budget of the engine's own estimate of
   * the history's text that the fork, and so this plan, cut to
   */
  readonly codexBudget?: { readonly tokens: number; readonly engineTokens: number };
  /** `file:line: what was wrong` for each line the reader skipped or found cut */
  readonly skipped: readonly string[];
}

/**
 * Repeated compaction as a growing session sees it: pass k plans the first k/N of the
 * messages, with every earlier pass's rewrites in place. One pass: the whole session.
 */
export const planPasses = (session: Session, passes: number, options: Options): PassReport[] => {
  const out: PassReport[] = [];
  const all = session.messages;
  let done: Session["messages"] = [];
  for (let k = 1; k <= passes; k++) {
    const upTo = k === passes ? all.length : Math.floor((all.length * k) / passes);
    const current: Session = { ...session, messages: [...done, ...all.slice(done.length, upTo)] };
    const p = plan(current, options);
    out.push({ pass: k, messages: upTo, plan: p });
    done = applyToSession(current, p).messages;
  }
  return out;
};

/** Sizes exact below 10,000 (a table of results reads better as 9500 than 9.5k). */
const figure = (n: number): string => tokenCount(n, { exactBelow: 10_000 });

const pct = (part: number, whole: number): string => (whole === 0 ? "0.0%" : `${((100 * part) / whole).toFixed(1)}%`);

export const renderPlan = (p: Plan, opts: { table: boolean; minRemoval?: number } = { table: true }): string => {
  const lines: string[] = [];
  if (opts.table) {
    // with a budget: the need score and the place in the escalation order, before the reason
    const ranked = p.budget !== undefined;
    const rank = (d: Plan["decisions"][number]): string[] =>
      ranked ? [d.need === undefined ? "-" : d.need.toFixed(2), d.escalationOrder === undefined ? "-" : String(d.escalationOrder)] : [];
    const rows = p.decisions.map((d) => [`#${d.messageIndex}`, d.tool, figure(d.chars), d.action, d.rule, ...rank(d), d.reason]);
    const head = ["index", "tool", "chars", "action", "rule", ...(ranked ? ["need", "order"] : []), "reason"];
    const widths = head.map((h, i) => Math.min(i === 1 ? 24 : 40, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
    const fit = (s: string, w: number): string => (s.length > w ? `${s.slice(0, w - 1)}…` : s.padEnd(w));
    const row = (r: string[]): string => r.map((c, i) => (i === r.length - 1 ? c : i === 2 ? c.padStart(widths[i]!) : fit(c, widths[i]!))).join("  ");
    lines.push(row(head));
    for (const r of rows) lines.push(row(r));
    lines.push("");
  }
  const t = p.totals;
  lines.push(
    `results: ${t.results} (kept ${t.resultsKept}, truncated ${t.resultsTruncated}, dropped ${t.resultsDropped})`,
    `tool output: ${figure(t.toolTokensBefore)} -> ${figure(t.toolTokensAfter)} tokens (${pct(t.toolTokensBefore - t.toolTokensAfter, t.toolTokensBefore)} freed)`,
    `whole history: ${figure(t.tokensBefore)} -> ${figure(t.tokensAfter)} tokens (${pct(t.tokensBefore - t.tokensAfter, t.tokensBefore)} freed)`,
  );
  const byRule = Object.entries(t.byRule) as [RuleId, RuleTotals][];
  if (byRule.length > 0) {
    lines.push("by rule:");
    for (const [rule, r] of byRule.sort((a, b) => b[1].tokensFreed - a[1].tokensFreed || b[1].results - a[1].results)) {
      const removed = r.removed > 0 ? ` (${r.removed} cut)` : "";
      lines.push(
        `  ${rule.padEnd(16)} ${String(r.results).padStart(5)} ${r.results === 1 ? "result " : "results"}${removed.padEnd(11)} ${figure(r.tokensFreed).padStart(7)} tokens freed`,
      );
    }
  }
  if (p.budget)
    lines.push(`budget: ${figure(p.budget.tokens)} tokens, ${p.budget.reached ? "reached" : "NOT reached: the host should fall back to its own summary"}`);
  if (p.skipped) {
    const share = pct(t.toolTokensBefore - t.toolTokensAfter, t.toolTokensBefore);
    const under = opts.minRemoval === undefined ? "--min-removal" : `--min-removal ${opts.minRemoval} (${pct(opts.minRemoval, 1)})`;
    lines.push(`skipped: this pass would free ${share} of the tool output, less than ${under}; it is not applied, and the figures above are what it would do`);
  }
  return lines.join("\n");
};

export const renderReport = (r: PlanReport): string => {
  const share = r.budgetShare;
  const out: string[] = [
    `${r.host} session ${r.id}${r.name === undefined ? "" : ` (${JSON.stringify(r.name)})`} (${r.history} history): ${r.path}`,
    ...(r.needWeights ? [`need weights: ${r.needWeights}`] : []),
    ...(share
      ? [
          `budget: ${share.percent}% of a ${figure(share.window)}-token window${share.unseenTokens === undefined ? "" : `, less ~${figure(share.unseenTokens)} for Codex's instructions and tools`}`,
        ]
      : []),
    ...(r.codexBudget
      ? [
          `budget: ~${figure(r.codexBudget.tokens)} tokens of what the resumed fork holds as Codex counts it (JSON, reasoning, the context it re-injects), as a fork is cut: ~${figure(r.codexBudget.engineTokens)} of the text bc estimates`,
        ]
      : []),
    "",
  ];
  if (r.passes.length > 1) {
    for (const p of r.passes) {
      const t = p.plan.totals;
      out.push(
        `pass ${p.pass}: ${counted(p.messages, "message")}, ${counted(t.results, "result")}, ${t.resultsDropped} dropped + ${t.resultsTruncated} truncated now, ` +
          `tool output ${figure(t.toolTokensBefore)} -> ${figure(t.toolTokensAfter)} tokens${p.plan.skipped ? " (skipped)" : ""}`,
      );
    }
    out.push("", `last pass:`);
  }
  const last = r.passes[r.passes.length - 1]!;
  out.push(renderPlan(last.plan, { table: true, minRemoval: r.options.minRemovalFraction }));
  return out.join("\n");
};

const FLAGS = z.object({
  json: z.boolean().optional(),
  passes: wholeNumber(1, 100).optional(),
  timeline: z.boolean().optional(),
  budget: z.string().optional(),
  "min-removal": fraction().optional(),
  "pin-last": wholeNumber(0, 1_000_000).optional(),
});

/**
 * A budget in tokens for the session: as given, or a share of the model's window as a Codex
 * rollout records it. A Codex rollout is planned to the budget its fork would be cut to (`bc
 * codex-fork --budget` reckons it as Codex counts the history: engineFork), so a plan shows what a
 * fork would do; `plan` is the fork's own last plan, of the live history to that budget. A Claude
 * Code transcript records no window.
 */
const budgetOf = (
  spec: BudgetSpec,
  source: SessionSource,
  options: Partial<Options>,
): { tokens?: number; share?: PlanReport["budgetShare"]; codex?: PlanReport["codexBudget"]; plan?: Plan } => {
  if (spec === "none") return {};
  const { session: loaded, codex } = source;
  if (codex === undefined) {
    if ("tokens" in spec) return { tokens: spec.tokens };
    throw new BcError(
      "usage",
      `${loaded.path}: --budget ${spec.percent}% needs the model's context window, and a Claude Code transcript does not record it`,
      "give --budget in tokens (the plugin's budget is compactAtPercent of the window Claude Code reports)",
    );
  }
  // as `bc codex-fork` forks by default: with `--context fresh`
  const fork = engineFork(codex.history, codex.rollout, options, spec, "fresh");
  const b = fork.pruning.budget;
  if (b?.tokens === undefined || b.engineTokens === undefined) throw new BcError("usage", `${loaded.path}: ${b?.why ?? "no budget"}`);
  return {
    tokens: b.engineTokens,
    codex: { tokens: b.tokens, engineTokens: b.engineTokens },
    ...("percent" in spec && b.window !== undefined
      ? { share: { percent: spec.percent, window: b.window, ...(b.unseenTokens === undefined ? {} : { unseenTokens: b.unseenTokens }) } }
      : {}),
    plan: fork.plan,
  };
};

export const planReport = (
  arg: string,
  flags: { passes?: number; timeline?: boolean; budget?: BudgetSpec; minRemoval?: number; pinLast?: number },
): PlanReport => {
  const path = resolveSession(arg);
  const source = loadSessionSource(path);
  const loaded = source.session;
  const session = flags.timeline ? loaded.timeline : loaded.live;
  const weights = weightsInUse(needWeightsPath());
  if (weights.problem !== undefined) log.warn(`need weights ${weights.problem}; using the shipped ones`);
  const given: Options = {
    ...DEFAULT_OPTIONS,
    ...(flags.minRemoval !== undefined ? { minRemovalFraction: flags.minRemoval } : {}),
    ...(flags.pinLast !== undefined ? { pinLastMessages: flags.pinLast } : {}),
  };
  const budget = flags.budget === undefined ? {} : budgetOf(flags.budget, source, { ...given, ...needModelsOption(weights) });
  const options: Options = { ...given, ...(budget.tokens !== undefined ? { budgetTokens: budget.tokens } : {}) };
  const passes = flags.passes ?? 1;
  const name = sessionName(loaded);
  return {
    path,
    host: loaded.host,
    id: loaded.id,
    ...(name === undefined ? {} : { name }),
    history: flags.timeline ? "timeline" : "live",
    options,
    // the fork's last plan is this one pass over the live history: the same messages, options and budget
    passes:
      budget.plan !== undefined && passes === 1 && !flags.timeline
        ? [{ pass: 1, messages: session.messages.length, plan: budget.plan }]
        : planPasses(session, passes, { ...options, ...needModelsOption(weights) }),
    ...(budget.tokens !== undefined ? { needWeights: describeWeights(weights) } : {}),
    ...(budget.share !== undefined ? { budgetShare: budget.share } : {}),
    ...(budget.codex !== undefined ? { codexBudget: budget.codex } : {}),
    skipped: loaded.malformed,
  };
};

export default defineCommand({
  meta: {
    name: "plan",
    description: "Dry run: show what the rules would keep, truncate or drop in a session, and why (one line per tool result, then totals). Writes nothing.",
  },
  args: {
    session: SESSIONS_ARG,
    json: {
      ...JSON_ARG,
      description: "Print the plan(s) as JSON on stdout, for scripts (one session: an object; several: an array, { session, error } for one that failed)",
    },
    passes: {
      type: "string",
      valueHint: "n",
      description:
        "Show repeated compaction: replay the session as if compacted N times as it grew (pass k sees the first k/N of the messages, earlier rewrites in place). Default 1",
    },
    timeline: { type: "boolean", description: "Plan the whole timeline (across the host's own compactions) instead of the live history" },
    budget: {
      type: "string",
      valueHint: "tokens|N%",
      description:
        "Escalate toward this many tokens of history, or N% of the model's window as a Codex rollout records it (as bc codex-fork does; alone: 60%): least needed results first; shows each result's need and place in the order, and whether the budget was reached",
    },
    "min-removal": {
      type: "string",
      valueHint: "share",
      description: "Skip a pass that would free less than this share (0-1) of tool-output tokens. Default 0",
    },
    "pin-last": { type: "string", valueHint: "n", description: `Messages at the end never touched. Default ${DEFAULT_OPTIONS.pinLastMessages}` },
  },
  run({ args }) {
    const f = parseFlags(FLAGS, args, "bc plan");
    const budget = f.budget === undefined ? undefined : parseBudget(f.budget);
    const flags = { passes: f.passes, timeline: f.timeline === true, budget, minRemoval: f["min-removal"], pinLast: f["pin-last"] };
    const names = sessionsGiven(args);
    const { results, code, inOrder } = forEachSession(names, (name) => {
      const report = planReport(name, flags);
      warnSkipped(report.skipped);
      return report;
    });
    // straight to stdout (data); nothing is written anywhere else
    if (f.json) process.stdout.write(`${JSON.stringify(names.length === 1 ? results[0] : inOrder, null, 2)}\n`);
    else if (results.length > 0) process.stdout.write(`${results.map(renderReport).join("\n\n")}\n`);
    return code;
  },
});
