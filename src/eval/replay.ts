// One session through the whole replay: every cut × every method, the repeated passes, and
// the host's own compactions. Pure: sessions in, numbers out.
import type { Host, Session } from "../engine/types.ts";
import type { HostCompaction } from "../hosts/types.ts";
import { cutContext } from "./cut.ts";
import { scoreHostCompactions, type CompactionScore } from "./host-compactions.ts";
import { BASELINES } from "./methods/baselines.ts";
import type { Method } from "./methods/method.ts";
import { rulesMethod, type Compactor } from "./methods/rules.ts";
import { replayPasses, type PassResult } from "./passes.ts";
import { enforcePins, scoreCut, type Tally } from "./score.ts";
import { indexSession } from "./session-index.ts";

export const RULES_ID = "rules";

/** Every method id, in report order. */
export const METHOD_IDS: readonly string[] = [RULES_ID, ...BASELINES.map((m) => m.id)];

export const methodSummaries = (): { id: string; summary: string }[] => [
  { id: RULES_ID, summary: rulesMethod(() => []).summary },
  ...BASELINES.map((m) => ({ id: m.id, summary: m.summary })),
];

export interface ReplayOptions {
  readonly cuts: readonly number[];
  /** method ids to report (rules always run: largest-first and the comparisons need them) */
  readonly methods: readonly string[];
  readonly passes: readonly number[];
  readonly compact: Compactor;
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
  /** method id → counts, in report order */
  readonly methods: Readonly<Record<string, Tally>>;
}

export interface RulesMiss {
  readonly share: number;
  readonly message: number;
  readonly tool: string;
  /** removed tokens used after the cut */
  readonly tokens: readonly string[];
  /** of those, the ones nothing left in the history shows (non-empty: lost) */
  readonly invisible: readonly string[];
  readonly lost: boolean;
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
  readonly passes: readonly PassResult[];
  readonly compactions: readonly CompactionScore[];
}

export const replaySession = (input: ReplayInput, options: ReplayOptions): SessionReplay => {
  const index = indexSession(input.timeline);
  const n = input.timeline.messages.length;
  const rules = rulesMethod(options.compact);
  const selected = BASELINES.filter((m) => options.methods.includes(m.id));
  const cuts: CutRow[] = [];
  const rulesMisses: RulesMiss[] = [];
  for (const share of [...options.cuts].sort((a, b) => a - b)) {
    const ctx = cutContext(index, share);
    if (ctx.at <= 0 || ctx.at >= n) continue;
    const rows: Record<string, Tally> = {};
    const run = (m: Method, rulesFreedTokens: number) => {
      const { rewrites, pinnedTouched } = enforcePins(ctx, m.run({ ...ctx, rulesFreedTokens }));
      return scoreCut(ctx, rewrites, pinnedTouched);
    };
    const rulesScore = run(rules, 0);
    if (options.methods.includes(RULES_ID)) rows[RULES_ID] = rulesScore.tally;
    for (const miss of rulesScore.misses)
      rulesMisses.push({ share, message: miss.message, tool: miss.tool, tokens: miss.tokens, invisible: miss.invisible, lost: miss.invisible.length > 0 });
    for (const m of selected) rows[m.id] = run(m, rulesScore.tally.tokensFreed).tally;
    cuts.push({ share, at: ctx.at, methods: rows });
  }
  return {
    host: input.host,
    id: input.id,
    file: input.file,
    messages: n,
    results: index.results.length,
    cuts,
    rulesMisses,
    passes: options.passes.length > 0 ? replayPasses(index, options.compact, options.passes) : [],
    compactions: scoreHostCompactions(index, input.compactions, options.compact),
  };
};
