#!/usr/bin/env bun
// How much surer the need score would have to be to lose as little as the hindsight ceiling under
// a budget. Each result's shipped score (the escalation's model) is moved toward what the session did after the cut, its
// log-odds by `shift` up when the session used it and down when not, and the engine cuts to the
// budget with those needs (as the need-oracle ceiling runs it: `plan` with the budget, the needs
// given). For each shift: how well the moved scores rank the large results (4,000+ characters) of
// each cut (AUC within the cut), and what the engine loses, beside oracle-to-budget. Shift 0 is the
// shipped score; the largest shift is the need-oracle ceiling (needs 1 and 0).
//
//   bun build/need-headroom.ts <session files or folders>... [--pressure 0.95]
import { apply } from "../src/engine/apply.ts";
import { needOf } from "../src/engine/need/model.ts";
import { needTable } from "../src/engine/need/table.ts";
import { SHIPPED_ESCALATION_MODEL } from "../src/engine/need/weights.ts";
import { plan } from "../src/engine/plan.ts";
import { DEFAULT_OPTIONS, type Host, type Session } from "../src/engine/types.ts";
import { collectFiles } from "../src/eval/corpus.ts";
import { pressureCuts, runAtCut } from "../src/eval/budget-losses.ts";
import { DEFAULT_CUTS } from "../src/eval/cut.ts";
import { ORACLE_TO_BUDGET } from "../src/eval/methods/budget.ts";
import { rewritesFrom } from "../src/eval/methods/rules.ts";
import { DEFAULT_PRESSURE } from "../src/eval/pressure.ts";
import { scoreRewrites } from "../src/eval/score.ts";
import { loadSessionFile } from "../src/hosts/load.ts";

/** log-odds shifts toward the truth; Infinity: the truth itself (need 1 or 0) */
export const SHIFTS: readonly number[] = [0, 0.5, 1, 1.5, 2, 3, Number.POSITIVE_INFINITY];
/** the results whose ranking is reported: the ones a budget cuts first */
export const LARGE_CHARS = 4000;

/** A need moved toward the truth: its log-odds `shift` up when used after the cut, down when not. */
export const shifted = (need: number, used: boolean, shift: number): number => {
  if (shift === Number.POSITIVE_INFINITY) return used ? 1 : 0;
  if (shift === 0) return need;
  const p = Math.min(Math.max(need, 1e-12), 1 - 1e-12);
  return 1 / (1 + Math.exp(-(Math.log(p / (1 - p)) + (used ? shift : -shift))));
};

export interface Headroom {
  readonly cuts: number;
  readonly oracleLost: number;
  /** per shift (SHIFTS order): what the engine lost */
  readonly lost: number[];
  /** per shift: pairs of a used and an unused large result of one cut, and how many the moved scores order right (ties half) */
  readonly pairs: number;
  readonly rightPairs: number[];
}

export const emptyHeadroom = (): Headroom => ({ cuts: 0, oracleLost: 0, lost: SHIFTS.map(() => 0), pairs: 0, rightPairs: SHIFTS.map(() => 0) });

/** One session's cuts, added to `into`; the ranking is asked of results of `largeChars` or more. */
export const addSession = (into: Headroom, timeline: Session, pressure = DEFAULT_PRESSURE, largeChars = LARGE_CHARS): Headroom => {
  let { cuts, oracleLost, pairs } = into;
  const lost = [...into.lost];
  const rightPairs = [...into.rightPairs];
  for (const cut of pressureCuts(timeline, DEFAULT_CUTS, pressure)) {
    const { ctx, point, used } = cut;
    cuts++;
    const lostBy = (rewrites: ReadonlyMap<number, string>): number => scoreRewrites(ctx, rewrites, { used }).tally.lost;
    oracleLost += runAtCut(ORACLE_TO_BUDGET, cut).lost;
    const rows = needTable(ctx.prefix).filter((r) => r.eligible);
    const isUsed = (ordinal: number): boolean => (used[ordinal]?.length ?? 0) > 0;
    const large = rows.filter((r) => ctx.results[r.ordinal]!.text.length >= largeChars);
    const largeUsed = large.filter((r) => isUsed(r.ordinal)).length;
    pairs += largeUsed * (large.length - largeUsed);
    SHIFTS.forEach((shift, i) => {
      const need = new Map(rows.map((r) => [r.ordinal, shifted(needOf(SHIPPED_ESCALATION_MODEL, r.x), isUsed(r.ordinal), shift)] as const));
      for (const a of large)
        if (isUsed(a.ordinal))
          for (const b of large)
            if (!isUsed(b.ordinal)) rightPairs[i]! += need.get(a.ordinal)! > need.get(b.ordinal)! ? 1 : need.get(a.ordinal) === need.get(b.ordinal) ? 0.5 : 0;
      const needOverride = new Map(rows.map((r) => [r.callId, need.get(r.ordinal)!] as const));
      // the plan counts the whole history, Claude Code's thinking too, which the host drops
      const p = plan(ctx.prefix, { ...DEFAULT_OPTIONS, budgetTokens: point.budget + point.droppedTokens, needOverride });
      lost[i]! += lostBy(rewritesFrom(ctx.results, apply(ctx.prefix, p)));
    });
  }
  return { cuts, oracleLost, lost, pairs, rightPairs };
};

if (import.meta.main) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--pressure");
  const pressure = at === -1 ? DEFAULT_PRESSURE : Number(args[at + 1]);
  const paths = args.filter((a, i) => !a.startsWith("--") && (at === -1 || i !== at + 1));
  if (paths.length === 0 || !(pressure > 0 && pressure <= 1)) {
    process.stderr.write("usage: bun build/need-headroom.ts <session files or folders>... [--pressure 0.95]\n");
    process.exit(2);
  }
  const byHost = new Map<Host, Headroom>();
  const { files } = collectFiles(paths);
  files.forEach((f, k) => {
    if (k % 20 === 0) process.stderr.write(`need-headroom: ${k} of ${files.length} files\n`);
    const timeline = loadSessionFile(f.path).timeline;
    byHost.set(timeline.host, addSession(byHost.get(timeline.host) ?? emptyHeadroom(), timeline, pressure));
  });
  for (const [host, h] of byHost) {
    process.stdout.write(`${host}: ${h.cuts} cuts at ${pressure} of the window; oracle-to-budget loses ${h.oracleLost}\n`);
    process.stdout.write("  shift  AUC (4k+, within cuts)  lost  × oracle\n");
    SHIFTS.forEach((shift, i) => {
      const auc = h.pairs === 0 ? Number.NaN : h.rightPairs[i]! / h.pairs;
      process.stdout.write(
        `  ${(shift === Number.POSITIVE_INFINITY ? "∞" : String(shift)).padStart(5)}  ${auc.toFixed(3).padStart(22)}  ${String(h.lost[i]).padStart(4)}  ${(h.lost[i]! / h.oracleLost).toFixed(2).padStart(8)}\n`,
      );
    });
  }
}
