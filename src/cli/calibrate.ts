// `bc calibrate [sessions]`: fit the need model on the user's own sessions and compare it with
// the shipped one on sessions of theirs it was not fitted on. Writes the weights only with --write.
import { defineCommand } from "citty";
import { mkdirSync, renameSync } from "node:fs";
import { dirname } from "node:path";
import { DEFAULT_FIT, type HeldOut, type ToolScore, fitNeedModel, foldModels, heldOutScore, scoreByTool, scoreModel } from "../engine/need/fit.ts";
import { unknownToolClass } from "../engine/need/features.ts";
import { needPercent } from "../engine/need/model.ts";
import { SHIPPED_NEED_MODEL } from "../engine/need/weights.ts";
import { heldOutBudgetLosses } from "../eval/budget-losses.ts";
import { collectNeedSamples } from "../eval/need-data.ts";
import { BUDGET_PERCENT, DEFAULT_PRESSURE } from "../eval/pressure.ts";
import { discoverSessions } from "../hosts/load.ts";
import { needWeightsPath } from "../hosts/claude/install.ts";
import { BcError } from "../util/errors.ts";
import { writeAtomically } from "../util/jsonl.ts";
import { log, out, warnList } from "../util/log.ts";

/** Fewer sessions than this cannot be split into folds that say anything. */
const MIN_SESSIONS = 5;
const MIN_SAMPLES = 200;
const FOLDS = 5;
/** a tool with fewer results than this is left out of the per-tool table */
const MIN_TOOL_SAMPLES = 50;
/** tools shown in the per-tool table */
const TOOLS_SHOWN = 10;
/** a tool ranked worse than this, or scored further than OFF_BY from how often it is used, is a weak spot */
const WEAK_AUC = 0.75;
const OFF_BY = 0.15;
/** a refit is worth writing when it loses at least this share fewer results at the budget than the shipped weights, and MIN_FEWER */
const CLEARLY_FEWER = 0.05;
const MIN_FEWER = 2;

export interface CalibrationReport {
  readonly sessions: number;
  readonly samples: number;
  readonly used: number;
  readonly fingerprint: string;
  readonly shipped: { readonly auc: number; readonly ece: number; readonly source: string };
  readonly refit: HeldOut;
  /**
   * Results bc loses under pressure on the held-out sessions (each ranked by the refit that did not
   * see it), with the shipped weights and with the refit, beside oracle-to-budget: as bc eval's
   * pressure mode, the history at `pressure` of the window, compacted to `budgetPercent` of it.
   */
  readonly budget: {
    readonly pressure: number;
    readonly budgetPercent: number;
    readonly cuts: number;
    readonly shipped: { readonly lost: number; readonly reached: number };
    readonly refit: { readonly lost: number; readonly reached: number };
    readonly oracleLost: number;
  };
  /** the shipped weights per tool (tools with enough results to say anything) */
  readonly byTool: readonly ToolScore[];
  /** files not read as sessions, and copies of sessions read before, with why */
  readonly skipped: readonly string[];
  readonly written?: string;
  readonly weights: unknown;
}

const fmt = (n: number): string => (Number.isNaN(n) ? "n/a" : n.toFixed(3));

export const calibrate = (paths: readonly string[], opts: { write?: string; progress?: (msg: string) => void }): CalibrationReport => {
  const data = collectNeedSamples(paths, opts.progress ?? (() => {}));
  if (data.files === 0)
    throw new BcError(
      "not-found",
      data.skipped.length > 0 ? data.skipped.join("; ") : `no session files (*.jsonl) in ${paths.join(", ")}`,
      "pass Claude Code transcripts or Codex rollouts, or folders holding them",
    );
  warnList(data.skipped, (rest) => `and ${rest.length} more files skipped: --json lists every one (skipped)`);
  const sessions = new Set(data.samples.map((s) => s.group)).size;
  const used = data.samples.filter((s) => s.y === 1).length;
  if (sessions < MIN_SESSIONS || data.samples.length < MIN_SAMPLES || used === 0 || used === data.samples.length)
    throw new BcError(
      "bad-input",
      `too little to calibrate on: ${data.samples.length} results (${used} used later) in ${sessions} sessions; need at least ${MIN_SAMPLES} results in ${MIN_SESSIONS} sessions, some used later and some not`,
      "pass more sessions, or keep the shipped weights",
    );
  const shipped = scoreModel(SHIPPED_NEED_MODEL, data.samples);
  const folds = foldModels(data.samples, DEFAULT_FIT, FOLDS);
  const refit = heldOutScore(data.samples, DEFAULT_FIT, FOLDS, folds);
  const losses = heldOutBudgetLosses(data.sessions, folds, SHIPPED_NEED_MODEL, (k, n) => {
    if (k % 10 === 0) opts.progress?.(`under a budget: ${k} of ${n} sessions`);
  });
  const byTool = scoreByTool(SHIPPED_NEED_MODEL, data.samples, unknownToolClass, MIN_TOOL_SAMPLES);
  const source = `fitted by bc calibrate on ${data.samples.length} results of ${sessions} sessions (corpus ${data.fingerprint.slice(0, 12)}); grouped ${FOLDS}-fold AUC ${fmt(refit.auc)}, ECE ${fmt(refit.ece)}`;
  const model = fitNeedModel(data.samples, { ...DEFAULT_FIT, source });
  if (opts.write !== undefined) {
    mkdirSync(dirname(opts.write), { recursive: true });
    // written whole beside the old one, then renamed over it: a reader sees the old or the new file
    const fresh = `${opts.write}.${process.pid}.new`;
    writeAtomically(fresh, `${JSON.stringify(model, null, 2)}\n`);
    renameSync(fresh, opts.write);
  }
  return {
    sessions,
    samples: data.samples.length,
    used,
    fingerprint: data.fingerprint,
    shipped: { auc: shipped.auc, ece: shipped.ece, source: SHIPPED_NEED_MODEL.source },
    refit,
    budget: {
      pressure: DEFAULT_PRESSURE,
      budgetPercent: BUDGET_PERCENT,
      cuts: losses.cuts,
      shipped: { lost: losses.lost[0]!, reached: losses.reached[0]! },
      refit: { lost: losses.lost[1]!, reached: losses.reached[1]! },
      oracleLost: losses.oracleLost,
    },
    byTool,
    skipped: data.skipped,
    ...(opts.write === undefined ? {} : { written: opts.write }),
    weights: model,
  };
};

/** Why the shipped weights are weak on a tool (undefined: they are not). */
export const weakness = (t: ToolScore): string | undefined => {
  const why =
    t.auc < WEAK_AUC
      ? `ranked poorly (AUC ${fmt(t.auc)})`
      : Math.abs(t.meanNeed - t.usedShare) > OFF_BY
        ? `scored ${needPercent(t.meanNeed)} on average, used ${needPercent(t.usedShare)}`
        : undefined;
  return why === undefined || !t.unknownTool ? why : `${why}; bc knows no meaning for it, so it is scored by size and age alone`;
};

const toolLines = (tools: readonly ToolScore[]): string[] => {
  if (tools.length === 0) return [];
  const shown = tools.slice(0, TOOLS_SHOWN);
  const w = Math.max(4, ...shown.map((t) => t.tool.length));
  const lines = [
    `by tool, shipped weights (tools with ${MIN_TOOL_SAMPLES}+ results):`,
    `  ${"tool".padEnd(w)}  results   used  mean need    AUC`,
    ...shown.map(
      (t) =>
        `  ${t.tool.padEnd(w)}  ${String(t.samples).padStart(7)}  ${needPercent(t.usedShare).padStart(5)}  ${needPercent(t.meanNeed).padStart(9)}  ${fmt(t.auc).padStart(5)}`,
    ),
  ];
  if (tools.length > shown.length) lines.push(`  and ${tools.length - shown.length} more tools (--json lists them all)`);
  const weak = tools.flatMap((t) => {
    const why = weakness(t);
    return why === undefined ? [] : [`  ${t.tool}: ${why}`];
  });
  return weak.length === 0 ? lines : [...lines, "weak spots:", ...weak];
};

/** What the report advises, from what each set of weights loses at the budget on held-out sessions. */
export const advice = (budget: CalibrationReport["budget"]): string => {
  const fewer = budget.shipped.lost - budget.refit.lost;
  if (fewer >= MIN_FEWER && fewer >= CLEARLY_FEWER * budget.shipped.lost)
    return `a refit loses ${fewer} fewer results at the budget on held-out sessions: write it with --write`;
  if (fewer < 0) return `a refit loses ${-fewer} more result${fewer === -1 ? "" : "s"} at the budget on held-out sessions: keep the shipped weights`;
  return `a refit loses about as much at the budget on held-out sessions (${fewer} fewer): keep the shipped weights`;
};

const budgetLines = (b: CalibrationReport["budget"]): string[] => [
  `under a budget (${Math.round(b.pressure * 100)}% of the window, compacted to ${b.budgetPercent}%; ${b.cuts} cuts of held-out sessions):`,
  `  bc loses ${b.shipped.lost} results with the shipped weights, ${b.refit.lost} with a refit; hindsight oracle-to-budget ${b.oracleLost}`,
];

export const renderCalibration = (r: CalibrationReport): string =>
  [
    `${r.samples} results from ${r.sessions} sessions, ${r.used} of them used after the cut (${((100 * r.used) / r.samples).toFixed(1)}%)`,
    `shipped weights on your sessions:        AUC ${fmt(r.shipped.auc)}  calibration error ${fmt(r.shipped.ece)}`,
    `refit on yours, scored on held-out ones: AUC ${fmt(r.refit.auc)}  calibration error ${fmt(r.refit.ece)}`,
    `  AUC per fold of held-out sessions: ${r.refit.foldAuc.map(fmt).join(", ")}`,
    ...budgetLines(r.budget),
    ...toolLines(r.byTool),
    r.written !== undefined
      ? `wrote ${r.written}: bc plan, bc codex-fork, bc eval and the Claude Code plugin use it from now on\n(delete it to go back; to compare what bc loses with each: bc eval, then bc eval --need-weights shipped)`
      : advice(r.budget),
  ].join("\n");

export default defineCommand({
  meta: {
    name: "calibrate",
    description:
      "Fit the need model (which results a session goes on to use) on your own sessions; compare it with the shipped weights on held-out sessions; --write to use it",
  },
  args: {
    sessions: { type: "positional", required: false, description: "Session files or folders (default: ~/.claude/projects and $CODEX_HOME/sessions)" },
    write: {
      type: "boolean",
      description: `Write the refit weights where bc and the plugin read them (${needWeightsPath().replace(process.env.HOME ?? "\u0000", "~")})`,
    },
    json: { type: "boolean", description: "Print the report (and the weights) as JSON on stdout" },
  },
  run({ args }) {
    const given = (args._ as string[] | undefined) ?? [];
    const paths = given.length > 0 ? given : discoverSessions().map((f) => f.path);
    if (paths.length === 0)
      throw new BcError("not-found", "no sessions found under ~/.claude/projects or $CODEX_HOME/sessions", "pass session files or folders");
    const r = calibrate(paths, { ...(args.write ? { write: needWeightsPath() } : {}), progress: (m) => log.info(m) });
    out(args.json ? JSON.stringify(r, null, 2) : renderCalibration(r));
  },
});
