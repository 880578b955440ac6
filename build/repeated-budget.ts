#!/usr/bin/env bun
// Repeated compaction under a budget, as the Claude Code plugin's loop runs it: each session is
// replayed as it grows, a few messages at a time, and whenever its history reaches `compactAt`
// of a window, it is compacted to that share of the window (`bc plan --budget`, then applied:
// later passes see the notes and heads earlier ones left). The window is the session's whole
// size divided by `--fit` (so larger values compact more often). What a change to the escalation
// must not worsen: how many compactions, how many end over the budget, how many results are lost
// (the yardstick's: a result some compaction left cut whose tokens the session used after it,
// visible nowhere in what was left; each result counted once), and how much of the history at the
// end is heads and notes of results cut before.
//
// With --plugin, the plugin's loop as its defaults run it: a pass at 60% that would free fewer
// than 5 points of the window (minFreedPercent; the lent room it cuts back not counted) is
// skipped, and the history grows until Claude Code's own compaction at 95% of the window, which
// the hook answers however little it frees.
//
//   bun build/repeated-budget.ts <session files or folders>... [--fit 1.5] [--plugin]
import { apply } from "../src/engine/apply.ts";
import { estimateSessionTokens, estimateTextTokens } from "../src/engine/estimate.ts";
import { readNote } from "../src/engine/notes.ts";
import { plan } from "../src/engine/plan.ts";
import type { Message, Session } from "../src/engine/types.ts";
import { collectFiles } from "../src/eval/corpus.ts";
import { loadSessionFile } from "../src/hosts/load.ts";
import { cutContext } from "../src/eval/cut.ts";
import { rewritesFrom } from "../src/eval/methods/rules.ts";
import { scoreRewrites } from "../src/eval/score.ts";
import { DEFAULT_PLUGIN_OPTIONS, loopFreedTokens } from "../src/hosts/claude/plugin.ts";
import { DEFAULT_PRESSURE, untouchableTokens } from "../src/eval/pressure.ts";
import { indexSession } from "../src/eval/session-index.ts";

/** the plugin's default compactAtPercent: the loop's trigger and its budget */
export const COMPACT_AT = DEFAULT_PLUGIN_OPTIONS.compactAtPercent / 100;
/** messages added between two looks at the history (a turn or so) */
export const STEP = 5;
/** the smallest window simulated */
export const MIN_WINDOW = 20_000;
/** --plugin: the plugin's minFreedPercent, and the share of the window at which Claude Code compacts itself */
export const PLUGIN_LOOP: Loop = { minFreed: DEFAULT_PLUGIN_OPTIONS.minFreedPercent / 100, autoAt: DEFAULT_PRESSURE };
/** a pass under `autoAt` of the window freeing less than `minFreed` of it is skipped; undefined: every pass is taken */
export type Loop = { readonly minFreed: number; readonly autoAt: number } | undefined;

export interface Repeated {
  readonly sessions: number;
  readonly compactions: number;
  /** compactions whose history stayed over the budget */
  readonly over: number;
  /** of those, the ones where the budget could be reached (pins, prose and call inputs alone fit it, as bc eval counts) */
  readonly overReachable: number;
  /** results lost at some compaction, each counted once */
  readonly lost: number;
  /** tokens, at the end, of results an earlier pass cut (their heads and notes) */
  readonly cutTokens: number;
  /** tokens of the histories at the end, and of their budgets */
  readonly historyTokens: number;
  readonly budgetTokens: number;
}

export const NO_REPEATS: Repeated = { sessions: 0, compactions: 0, over: 0, overReachable: 0, lost: 0, cutTokens: 0, historyTokens: 0, budgetTokens: 0 };

/** One session replayed as it grows, compacted to the budget whenever it reaches it: its compactions and the history at the end. */
export const replayGrowing = (
  timeline: Session,
  fit: number,
  minWindow = MIN_WINDOW,
  loop: Loop = undefined,
): { compactions: number; over: number; overReachable: number; lost: ReadonlySet<string>; history: Message[]; budget: number } => {
  const window = Math.max(minWindow, Math.floor(estimateSessionTokens(timeline).total / fit));
  const budget = Math.floor(window * COMPACT_AT);
  let compactions = 0;
  let over = 0;
  let overReachable = 0;
  let history: Message[] = [];
  const index = indexSession(timeline);
  const lost = new Set<string>();
  for (let i = 0; i < timeline.messages.length; i += STEP) {
    history = [...history, ...timeline.messages.slice(i, i + STEP)];
    const s = { ...timeline, messages: history };
    const tokens = estimateSessionTokens(s).total;
    if (tokens < budget) continue;
    const p = plan(s, { budgetTokens: budget });
    if (loop !== undefined && tokens < loop.autoAt * window && loopFreedTokens(p) < loop.minFreed * window) continue;
    compactions++;
    history = apply(s, p);
    // scored as bc eval scores a cut here: against what the session did after it
    const ctx = cutContext(index, history.length / timeline.messages.length, history.length);
    if (p.budget?.reached !== true) {
      over++;
      if (untouchableTokens(ctx) <= budget) overReachable++;
    }
    for (const m of scoreRewrites(ctx, rewritesFrom(ctx.results, history)).misses) if (m.invisible.length > 0) lost.add(ctx.results[m.ordinal]!.callId);
  }
  return { compactions, over, overReachable, lost, history, budget };
};

/** One session's replay added to `into`. */
export const addSession = (into: Repeated, timeline: Session, fit: number, minWindow = MIN_WINDOW, loop: Loop = undefined): Repeated => {
  const { compactions, over, overReachable, lost, history, budget } = replayGrowing(timeline, fit, minWindow, loop);
  let cutTokens = 0;
  for (const m of history) for (const r of m.toolResults) if (readNote(r.text) !== undefined) cutTokens += estimateTextTokens(r.text);
  return {
    sessions: into.sessions + 1,
    compactions: into.compactions + compactions,
    over: into.over + over,
    overReachable: into.overReachable + overReachable,
    lost: into.lost + lost.size,
    cutTokens: into.cutTokens + cutTokens,
    historyTokens: into.historyTokens + estimateSessionTokens({ ...timeline, messages: history }).total,
    budgetTokens: into.budgetTokens + budget,
  };
};

if (import.meta.main) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--fit");
  const fit = at === -1 ? 1.5 : Number(args[at + 1]);
  const loop = args.includes("--plugin") ? PLUGIN_LOOP : undefined;
  const paths = args.filter((a, i) => !a.startsWith("--") && (at === -1 || i !== at + 1));
  if (paths.length === 0 || !(fit > 0)) {
    process.stderr.write("usage: bun build/repeated-budget.ts <session files or folders>... [--fit 1.5] [--plugin]\n");
    process.exit(2);
  }
  let r = NO_REPEATS;
  const { files } = collectFiles(paths);
  files.forEach((f, k) => {
    if (k % 20 === 0) process.stderr.write(`repeated-budget: ${k} of ${files.length} files\n`);
    r = addSession(r, loadSessionFile(f.path).timeline, fit, MIN_WINDOW, loop);
  });
  const share = (x: number): string => `${((100 * x) / r.budgetTokens).toFixed(1)}%`;
  process.stdout.write(
    `${r.sessions} sessions, window = their tokens / ${fit}, compacted to ${COMPACT_AT * 100}% of it ${loop === undefined ? "whenever they reach it" : `as the plugin's loop does (passes freeing < ${loop.minFreed * 100} points skipped below ${loop.autoAt * 100}%)`}: ${r.compactions} compactions, ${r.over} of them over the budget (${r.overReachable} where it could be reached); ${r.lost} results lost; at the end, results cut before hold ${share(r.cutTokens)} of the budget, the history ${share(r.historyTokens)}\n`,
  );
}
