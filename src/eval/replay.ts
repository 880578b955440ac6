// One session through the whole replay: every cut × every method, the repeated passes, and
// the host's own compactions. Pure: sessions in, numbers out.
import type { NeedModels } from "../engine/need/model.ts";
import type { Host, Session } from "../engine/types.ts";
import type { HostCompaction } from "../hosts/types.ts";
import { sessionCuts } from "./cut.ts";
import { scoreHostCompactions, type CompactionScore } from "./host-compactions.ts";
import { BASELINES } from "./methods/baselines.ts";
import type { Method } from "./methods/method.ts";
import { compactAligned, rewritesFrom, rulesMethod, type Compactor } from "./methods/rules.ts";
import { replayPasses, type PassResult } from "./passes.ts";
import { type Miss, type ScoreExtras, scoreRewrites, type Tally } from "./score.ts";
import { estimateTextTokens } from "../engine/estimate.ts";
import { indexSession, type ResultInfo } from "./session-index.ts";
import { usedAfterCut } from "./labels.ts";
import { LIGHT_CEILINGS } from "./methods/ceilings.ts";
import { BUDGET_BASELINES, ORACLE_TO_BUDGET, type BudgetMethod } from "./methods/budget.ts";
import { BC_UNDER_PRESSURE, NEED_ORACLE } from "./methods/bc-pressure.ts";
import { droppedByHost, pressurePoint, untouchableTokens } from "./pressure.ts";

export const RULES_ID = "rules";

/** Every method id, in report order. */
export const METHOD_IDS: readonly string[] = [RULES_ID, ...BASELINES.map((m) => m.id)];

/** Hindsight ceilings of the light mode, in report order (never methods). */
export const LIGHT_CEILING_IDS: readonly string[] = LIGHT_CEILINGS.map((c) => c.id);

/** bc under pressure, split by what it did with the cut */
export const RULES_REACHED_ID = "rules:reached";
export const RULES_OVER_ID = "rules:over-budget";

/** Every pressure-mode row id, in report order: bc (whole, then split), the baselines, the ceilings. */
export const PRESSURE_IDS: readonly string[] = [
  RULES_ID,
  RULES_REACHED_ID,
  RULES_OVER_ID,
  ...BUDGET_BASELINES.map((m) => m.id),
  ORACLE_TO_BUDGET.id,
  NEED_ORACLE.id,
];

export const CEILING_IDS: ReadonlySet<string> = new Set([...LIGHT_CEILING_IDS, ORACLE_TO_BUDGET.id, NEED_ORACLE.id]);

export const methodSummaries = (): { id: string; summary: string }[] => [
  { id: RULES_ID, summary: rulesMethod(() => ({ messages: [] })).summary },
  ...BASELINES.map((m) => ({ id: m.id, summary: m.summary })),
];

export const ceilingSummaries = (): { id: string; summary: string }[] => [
  ...LIGHT_CEILINGS.map((c) => ({ id: c.id, summary: c.summary })),
  { id: ORACLE_TO_BUDGET.id, summary: ORACLE_TO_BUDGET.summary },
  { id: NEED_ORACLE.id, summary: NEED_ORACLE.summary },
];

export const pressureSummaries = (): { id: string; summary: string }[] => [
  { id: RULES_ID, summary: BC_UNDER_PRESSURE.summary },
  { id: RULES_REACHED_ID, summary: "the cuts where bc reached the budget itself (the plugin answered with its own rows; the fork fits)" },
  {
    id: RULES_OVER_ID,
    summary:
      "the other cuts: Claude Code, the plugin answered over the budget (under handOverAbovePercent) or handed its pruned rows to Claude Code's summary (scored as what it left, before the summary); Codex, the fork is over the budget",
  },
  ...BUDGET_BASELINES.map((m) => ({ id: m.id, summary: m.summary })),
];

export interface ReplayOptions {
  readonly cuts: readonly number[];
  /** method ids to report (rules always run: largest-first and the comparisons need them) */
  readonly methods: readonly string[];
  readonly passes: readonly number[];
  readonly compact: Compactor;
  /** the pressure mode's history share of the window (undefined: light mode only) */
  readonly pressure?: number;
  /** the need weights bc ranks by under pressure (undefined: the shipped ones; `compact` is the light mode's) */
  readonly needModels?: NeedModels;
  /** told bc's rewrites at each cut, light and under pressure (result ordinal → its text after), with the cut's history and results */
  readonly onCompacted?: (mode: "light" | "pressure", prefix: Session, results: readonly ResultInfo[], rewrites: ReadonlyMap<number, string>) => void;
}

export interface ReplayInput {
  readonly host: Host;
  readonly id: string;
  /** the file's name, as the report shows it */
  readonly file: string;
  readonly timeline: Session;
  readonly compactions: readonly HostCompaction[];
}

export interface CutRow {
  readonly share: number;
  readonly at: number;
  /** method id → counts, in report order (ceilings included, under their own ids) */
  readonly methods: Readonly<Record<string, Tally>>;
  /** the pressure mode at this cut */
  readonly pressure?: {
    readonly window: number;
    readonly budget: number;
    /** Claude Code's thinking but the open tool loop's: in the history at the pressure, in nothing a compaction leaves (pressure.ts: droppedByHost) */
    readonly droppedTokens: number;
    readonly toFree: number;
    readonly methods: Readonly<Record<string, Tally>>;
  };
}

export interface RulesMiss {
  /** light: the rules alone; pressure: bc under pressure (handedOver: in rows handed to the host's summary) */
  readonly mode: "light" | "pressure";
  readonly handedOver?: boolean;
  readonly share: number;
  readonly message: number;
  readonly tool: string;
  /** the rule that removed it (light: the ladder's; pressure: "escalation" for what the budget took) */
  readonly rule: string;
  /** removed tokens used after the cut */
  readonly tokens: readonly string[];
  /** of those, the ones nothing left in the history shows (non-empty: lost) */
  readonly invisible: readonly string[];
  readonly lost: boolean;
}

/** What a method removed of some results, over a session's cuts. */
export interface Removals {
  readonly removed: number;
  /** of the removed, those the yardstick can judge (score.ts: Tally.scorable) */
  readonly scorable: number;
  readonly lost: number;
  /** tool-output tokens freed (original minus what was left in its place) */
  readonly tokensFreed: number;
}

const NO_REMOVALS: Removals = { removed: 0, scorable: 0, lost: 0, tokensFreed: 0 };

/** What bc removed by one rule, over a session's cuts, in one mode. */
export interface RuleTally extends Removals {
  readonly mode: "light" | "pressure";
  readonly rule: string;
}

/**
 * What one method removed of one tool's results, over a session's cuts, in one mode: bc, and the
 * ceilings of BY_TOOL_CEILINGS beside it, so a tool where bc frees far less or loses far more
 * than hindsight would is where to look.
 */
export interface ToolTally extends Removals {
  readonly mode: "light" | "pressure";
  /** RULES_ID (bc), or a ceiling's id (BY_TOOL_CEILINGS) */
  readonly method: string;
  readonly tool: string;
}

/**
 * The ceilings tallied by tool beside bc: light, the one that frees most without a miss (where
 * the room is); under pressure, the two that free to the same budget (what hindsight loses).
 */
export const BY_TOOL_CEILINGS: Readonly<Record<ToolTally["mode"], readonly string[]>> = {
  light: ["oracle-head"],
  pressure: [ORACLE_TO_BUDGET.id, NEED_ORACLE.id],
};

/** The rule of a result the compactor did not name (a compactor that says no rules). */
export const UNNAMED_RULE = "unnamed";

/** Of the results bc removed or cut to a head, how many `bc recall` gave back byte for byte. */
export interface Recalled {
  readonly removed: number;
  readonly recalled: number;
}

export interface SessionReplay {
  readonly host: Host;
  readonly id: string;
  readonly file: string;
  readonly messages: number;
  readonly results: number;
  readonly cuts: readonly CutRow[];
  /** what the rules removed that the continuation needed, for a person to look at */
  readonly rulesMisses: readonly RulesMiss[];
  /** what bc removed and lost, by the rule that removed it (light, then pressure) */
  readonly byRule: readonly RuleTally[];
  /** what bc and the ceilings of BY_TOOL_CEILINGS removed, lost and freed, by the tool whose result it was */
  readonly byTool: readonly ToolTally[];
  readonly passes: readonly PassResult[];
  readonly compactions: readonly CompactionScore[];
  /** results bc removed at the light cuts, and how many of them `bc recall` gives back byte for byte from the file the host keeps */
  readonly recall?: Recalled;
  /** the same at the pressure mode's cuts (bc as the product answers, to the budget) */
  readonly recallPressure?: Recalled;
}

/** What the report keeps of one of bc's misses at a cut. */
const missRow = (miss: Miss, mode: RulesMiss["mode"], share: number, rule: string, opts: { handedOver?: boolean } = {}): RulesMiss => ({
  mode,
  ...(opts.handedOver ? { handedOver: true } : {}),
  share,
  message: miss.message,
  tool: miss.tool,
  rule,
  tokens: miss.tokens,
  invisible: miss.invisible,
  lost: miss.invisible.length > 0,
});

export const replaySession = (input: ReplayInput, options: ReplayOptions): SessionReplay => {
  const index = indexSession(input.timeline);
  const n = input.timeline.messages.length;
  const selected = BASELINES.filter((m) => options.methods.includes(m.id));
  const cuts: CutRow[] = [];
  const rulesMisses: RulesMiss[] = [];
  const byRule = new Map<string, RuleTally>();
  const byTool = new Map<string, ToolTally>();
  for (const ctx of sessionCuts(index, options.cuts)) {
    const share = ctx.share;
    const rows: Record<string, Tally> = {};
    const used = usedAfterCut(ctx);
    const scored = (rw: ReadonlyMap<number, string>, extras: ScoreExtras = {}) => scoreRewrites(ctx, rw, { used, ...extras });
    const ruleOf = (ordinal: number, rules: ReadonlyMap<string, string> | undefined): string => rules?.get(ctx.results[ordinal]!.callId) ?? UNNAMED_RULE;
    /**
     * A score's removals at this cut, each added to the tally `keyOf` names in `into` (`blank`
     * makes a tally's first entry): how many, how many scorable, lost, and the tokens freed.
     */
    const tallyInto = <T extends Removals>(into: Map<string, T>, score: ReturnType<typeof scored>, keyOf: (ordinal: number) => [string, T]): void => {
      const lost = new Set(score.misses.filter((m) => m.invisible.length > 0).map((m) => m.ordinal));
      for (const [ordinal, after] of score.rewrites) {
        const [key, blank] = keyOf(ordinal);
        const t = into.get(key) ?? blank;
        into.set(key, {
          ...t,
          removed: t.removed + 1,
          scorable: t.scorable + (score.scorableOrdinals.has(ordinal) ? 1 : 0),
          lost: t.lost + (lost.has(ordinal) ? 1 : 0),
          tokensFreed: t.tokensFreed + ctx.results[ordinal]!.estTokens - estimateTextTokens(after),
        });
      }
    };
    /** bc's removals at this cut, added to the session's tallies by rule */
    const tallyRules = (mode: RuleTally["mode"], score: ReturnType<typeof scored>, rules: ReadonlyMap<string, string> | undefined): void =>
      tallyInto(byRule, score, (ordinal) => {
        const rule = ruleOf(ordinal, rules);
        return [`${mode} ${rule}`, { mode, rule, ...NO_REMOVALS }];
      });
    /** a method's removals at this cut, added to the session's tallies by tool */
    const tallyTools = (mode: ToolTally["mode"], method: string, score: ReturnType<typeof scored>): void =>
      tallyInto(byTool, score, (ordinal) => {
        const tool = ctx.results[ordinal]!.tool;
        return [`${mode} ${method} ${tool}`, { mode, method, tool, ...NO_REMOVALS }];
      });
    const run = (m: Method, rulesFreedTokens: number) => scored(m.run({ ...ctx, rulesFreedTokens }));
    const light = compactAligned(options.compact, ctx.prefix);
    const rulesScore = scored(rewritesFrom(ctx.results, light.messages));
    options.onCompacted?.("light", ctx.prefix, ctx.results, rulesScore.rewrites);
    if (options.methods.includes(RULES_ID)) rows[RULES_ID] = rulesScore.tally;
    for (const miss of rulesScore.misses) rulesMisses.push(missRow(miss, "light", share, ruleOf(miss.ordinal, light.rules)));
    tallyRules("light", rulesScore, light.rules);
    tallyTools("light", RULES_ID, rulesScore);
    for (const m of selected) rows[m.id] = run(m, rulesScore.tally.tokensFreed).tally;
    for (const c of LIGHT_CEILINGS) {
      const score = scored(c.run({ results: ctx.results, pinned: ctx.pinned, used }));
      if (BY_TOOL_CEILINGS.light.includes(c.id)) tallyTools("light", c.id, score);
      rows[c.id] = score.tally;
    }
    let pressure: CutRow["pressure"];
    if (options.pressure !== undefined) {
      const point = pressurePoint(ctx.tokensBefore, options.pressure, { droppedTokens: droppedByHost(ctx.prefix) });
      const input = { ...ctx, rulesFreedTokens: 0, point, used, ...(options.needModels === undefined ? {} : { needModels: options.needModels }) };
      const prow: Record<string, Tally> = {};
      const reachable = untouchableTokens(ctx) - point.droppedTokens <= point.budget;
      const runBudget = (m: BudgetMethod) => {
        const o = m.run(input);
        const score = scored(o.rewrites, {
          budget: point.budget,
          droppedTokens: point.droppedTokens,
          reachable,
          ...(o.reached === undefined ? {} : { reached: o.reached }),
          ...(o.handedOver === undefined ? {} : { handedOver: o.handedOver }),
          ...(o.answered === undefined ? {} : { answered: o.answered }),
        });
        return { ...score, rules: o.rules };
      };
      const ceiling = (m: BudgetMethod): Tally => {
        const score = runBudget(m);
        if (BY_TOOL_CEILINGS.pressure.includes(m.id)) tallyTools("pressure", m.id, score);
        return score.tally;
      };
      const bc = runBudget(BC_UNDER_PRESSURE);
      options.onCompacted?.("pressure", ctx.prefix, ctx.results, bc.rewrites);
      prow[RULES_ID] = bc.tally;
      prow[bc.tally.reached === 1 ? RULES_REACHED_ID : RULES_OVER_ID] = bc.tally;
      for (const miss of bc.misses) rulesMisses.push(missRow(miss, "pressure", share, ruleOf(miss.ordinal, bc.rules), { handedOver: bc.tally.handovers > 0 }));
      tallyRules("pressure", bc, bc.rules);
      tallyTools("pressure", RULES_ID, bc);
      for (const m of BUDGET_BASELINES) prow[m.id] = runBudget(m).tally;
      prow[ORACLE_TO_BUDGET.id] = ceiling(ORACLE_TO_BUDGET);
      prow[NEED_ORACLE.id] = ceiling(NEED_ORACLE);
      pressure = { window: point.window, budget: point.budget, droppedTokens: point.droppedTokens, toFree: point.toFree, methods: prow };
    }
    cuts.push({ share, at: ctx.at, methods: rows, ...(pressure === undefined ? {} : { pressure }) });
  }
  return {
    host: input.host,
    id: input.id,
    file: input.file,
    messages: n,
    results: index.results.length,
    cuts,
    rulesMisses,
    byRule: [...byRule.values()].sort((a, b) => (a.mode === b.mode ? a.rule.localeCompare(b.rule) : a.mode === "light" ? -1 : 1)),
    byTool: [...byTool.values()],
    passes: options.passes.length > 0 ? replayPasses(index, options.compact, options.passes) : [],
    compactions: scoreHostCompactions(index, input.compactions, options.compact),
  };
};
