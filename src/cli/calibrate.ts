// `bc calibrate [sessions]`: fit the need models (every result's need, and the escalation's ranking
// of the large results) on the user's own sessions and compare them with the shipped ones on
// sessions of theirs they were not fitted on. Writes the weights only with --write.
import { defineCommand } from "citty";
import { existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import {
  DEFAULT_FIT,
  ESCALATION_MIN_CHARS,
  type HeldOut,
  type ToolScore,
  escalationSamples,
  fitNeedModels,
  foldModelPairs,
  foldOf,
  heldOutScore,
  scoreByTool,
  scoreModel,
} from "../engine/need/fit.ts";
import { unknownToolClass } from "../engine/need/features.ts";
import { needPercent } from "../engine/need/model.ts";
import { SHIPPED_ESCALATION_MODEL, SHIPPED_NEED_MODEL } from "../engine/need/weights.ts";
import { heldOutBudgetLosses } from "../eval/budget-losses.ts";
import { collectNeedSamples } from "../eval/need-data.ts";
import { BUDGET_PERCENT, DEFAULT_PRESSURE } from "../eval/pressure.ts";
import { replayableSessions } from "../hosts/load.ts";
import { needWeightsPath } from "../hosts/claude/install.ts";
import { sourcesOf, weightsInUse } from "../hosts/need-weights.ts";
import { unwritableDir } from "../util/dirs.ts";
import { BcError } from "../util/errors.ts";
import { replaceFile, writeErrorWords } from "../util/jsonl.ts";
import { log, out, warnList } from "../util/log.ts";
import { warnSkipped } from "./sessions.ts";
import { counted } from "../util/format.ts";

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

export interface BudgetFigures {
  readonly pressure: number;
  readonly budgetPercent: number;
  readonly cuts: number;
  readonly shipped: { readonly lost: number; readonly reached: number };
  readonly refit: { readonly lost: number; readonly reached: number };
  readonly oracleLost: number;
}

export interface CalibrationReport {
  readonly sessions: number;
  readonly samples: number;
  readonly used: number;
  readonly fingerprint: string;
  readonly shipped: { readonly auc: number; readonly ece: number; readonly source: string };
  /** the shipped escalation's model, on the `samples` results of ESCALATION_MIN_CHARS or more (NaN figures where there are none, or they are all used or none) */
  readonly shippedEscalation: { readonly samples: number; readonly auc: number; readonly ece: number; readonly source: string };
  /** NaN figures (null in JSON) when fewer than two folds hold sessions: see heldOut */
  readonly refit: HeldOut;
  /** the escalation's refit, on the results of ESCALATION_MIN_CHARS or more alone (NaN figures as refit's, or where those are all used or none) */
  readonly refitEscalation: HeldOut;
  /** why there are no held-out figures (undefined: there are) */
  readonly heldOut?: string;
  /**
   * Results bc loses under pressure on the held-out sessions (each ranked by the refit that did not
   * see it), with the shipped weights and with the refit, beside oracle-to-budget: as bc eval's
   * pressure mode, the history at `pressure` of the window, compacted to `budgetPercent` of it.
   * Undefined without held-out sessions.
   */
  readonly budget?: BudgetFigures;
  /** the shipped weights per tool (tools with enough results to say anything) */
  readonly byTool: readonly ToolScore[];
  /** files not read as sessions, copies of sessions read, and lines the readers skipped (`file:line: why`), with why */
  readonly skipped: readonly string[];
  readonly written?: string;
  /** what the file written held before: weights (their source), or a file bc did not use (why) */
  readonly replaced?: { readonly source: string } | { readonly problem: string };
  readonly weights: unknown;
}

const fmt = (n: number): string => (Number.isNaN(n) ? "n/a" : n.toFixed(3));
/** What was read, when none of it has a result to score. */
const noResults = (sessions: number): string =>
  sessions === 0
    ? "no file given could be replayed as a session (the warnings above say why)"
    : sessions === 1
      ? "1 session read, and it has no tool result to score"
      : `${sessions} sessions read, and none has a tool result to score`;

/** Why the weights file cannot be written there (undefined: it can): checked before the fit, which can take minutes. */
const unwritable = (path: string): string | undefined => {
  if (existsSync(path) && !statSync(path).isFile()) return `${path}: is a folder, not a file; cannot write the weights there`;
  // the new file is made beside the old one and renamed over it: its folder must take new files
  const problem = unwritableDir(dirname(path));
  if (problem === undefined) return undefined;
  return problem.code === "ENOTDIR"
    ? `${problem.at}: is a file, not a folder; cannot write ${path}`
    : `${problem.at}: cannot be written (${writeErrorWords(problem.code)}); cannot write ${path}`;
};

/** What `path` holds, said when it is replaced (undefined: nothing there). */
const replacing = (path: string): CalibrationReport["replaced"] => {
  const w = weightsInUse(path);
  if (w.kind === "user") return { source: sourcesOf(w.models) };
  return w.problem === undefined ? undefined : { problem: w.problem.replace(`${path}: `, "") };
};

/** Write the weights in place of the old file: a reader (the plugin, bc plan) sees the old or the new one whole. */
export const writeWeights = (path: string, text: string): void => replaceFile(path, text, { hint: "nothing was written; the weights bc uses are unchanged" });

export const calibrate = (paths: readonly string[], opts: { write?: string; progress?: (msg: string) => void }): CalibrationReport => {
  const problem = opts.write === undefined ? undefined : unwritable(opts.write);
  if (problem !== undefined) throw new BcError("bad-input", problem, "move it out of the way (or fix the folder), then run bc calibrate --write again");
  const progress = opts.progress ?? (() => {});
  const data = collectNeedSamples(paths, progress);
  if (data.files === 0)
    throw new BcError(
      "not-found",
      data.skipped.length > 0 ? data.skipped.join("; ") : `no session files (*.jsonl) in ${paths.join(", ")}`,
      "pass Claude Code transcripts or Codex rollouts, or folders holding them",
    );
  warnList(data.skipped, (rest) => `and ${rest.length} more files skipped: --json lists every one (skipped)`);
  warnSkipped(data.malformed);
  const sessions = new Set(data.samples.map((s) => s.group)).size;
  const used = data.samples.filter((s) => s.y === 1).length;
  if (data.samples.length === 0)
    throw new BcError(
      "bad-input",
      `too little to calibrate on: ${noResults(data.sessions.length)}`,
      "pass sessions that ran tools, or keep the shipped weights",
    );
  if (sessions < MIN_SESSIONS || data.samples.length < MIN_SAMPLES || used === 0 || used === data.samples.length)
    throw new BcError(
      "bad-input",
      `too little to calibrate on: ${counted(data.samples.length, "result")} (${used} used later) in ${counted(sessions, "session")}; need at least ${MIN_SAMPLES} results in ${MIN_SESSIONS} sessions, some used later and some not`,
      "pass more sessions, or keep the shipped weights",
    );
  // a fold holds out its sessions only when the others hold some to fit on
  const holding = new Set(data.samples.map((s) => foldOf(s.group, FOLDS))).size;
  const heldOut = holding < 2 ? `all ${counted(sessions, "session")} fall in one of the ${FOLDS} folds: none can be held out from a fit` : undefined;
  // weights no held-out session has judged are not written in place of the shipped ones, which were
  if (heldOut !== undefined && opts.write !== undefined)
    throw new BcError("bad-input", `held-out figures cannot be computed: ${heldOut}; nothing written`, "pass more sessions, or keep the shipped weights");
  const shipped = scoreModel(SHIPPED_NEED_MODEL, data.samples);
  const large = escalationSamples(data.samples);
  const shippedEscalation = scoreModel(SHIPPED_ESCALATION_MODEL, large);
  const folds =
    heldOut === undefined
      ? foldModelPairs(data.samples, DEFAULT_FIT, FOLDS, (k, n) => progress(`fits without each fold's sessions: ${k} of ${n}`))
      : new Array<undefined>(FOLDS).fill(undefined);
  const refit = heldOutScore(
    data.samples,
    DEFAULT_FIT,
    FOLDS,
    folds.map((f) => f?.need),
  );
  const refitEscalation = heldOutScore(
    large,
    DEFAULT_FIT,
    FOLDS,
    folds.map((f) => f?.escalation),
  );
  const losses =
    heldOut === undefined
      ? heldOutBudgetLosses(data.sessions, folds, undefined, (k, n) => {
          if (k % 10 === 0) progress(`under a budget: ${k} of ${n} sessions`);
        })
      : undefined;
  if (losses !== undefined) progress(`under a budget: ${data.sessions.length} of ${data.sessions.length} sessions`);
  const byTool = scoreByTool(SHIPPED_NEED_MODEL, data.samples, unknownToolClass, MIN_TOOL_SAMPLES);
  progress(`fit on all ${counted(sessions, "session")}`);
  const models = fitNeedModels(data.samples, DEFAULT_FIT, (what, samples) => {
    const held = what === "need" ? refit : refitEscalation;
    const which = what === "need" ? "results" : `results of ${ESCALATION_MIN_CHARS.toLocaleString("en-US")}+ characters`;
    return `fitted by bc calibrate on ${samples.length} ${which} of ${sessions} sessions (corpus ${data.fingerprint.slice(0, 12)}); grouped ${FOLDS}-fold AUC ${fmt(held.auc)}, ECE ${fmt(held.ece)}`;
  });
  const replaced = opts.write === undefined ? undefined : replacing(opts.write);
  // one model where the escalation has none of its own: read back, it is both (model.ts)
  const weights = models.escalation === models.need ? models.need : models;
  if (opts.write !== undefined) writeWeights(opts.write, `${JSON.stringify(weights, null, 2)}\n`);
  return {
    sessions,
    samples: data.samples.length,
    used,
    fingerprint: data.fingerprint,
    shipped: { auc: shipped.auc, ece: shipped.ece, source: SHIPPED_NEED_MODEL.source },
    shippedEscalation: {
      samples: large.length,
      auc: shippedEscalation.auc,
      ece: large.length === 0 ? Number.NaN : shippedEscalation.ece,
      source: SHIPPED_ESCALATION_MODEL.source,
    },
    refit,
    refitEscalation,
    ...(heldOut === undefined ? {} : { heldOut }),
    ...(losses === undefined
      ? {}
      : {
          budget: {
            pressure: DEFAULT_PRESSURE,
            budgetPercent: BUDGET_PERCENT,
            cuts: losses.cuts,
            shipped: { lost: losses.lost[0]!, reached: losses.reached[0]! },
            refit: { lost: losses.lost[1]!, reached: losses.reached[1]! },
            oracleLost: losses.oracleLost,
          },
        }),
    byTool,
    skipped: [...data.skipped, ...data.malformed],
    ...(opts.write === undefined ? {} : { written: opts.write }),
    ...(replaced === undefined ? {} : { replaced }),
    weights,
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

/** Whether a refit loses clearly fewer results at the budget on held-out sessions than the shipped weights. */
const refitWins = (budget: BudgetFigures): boolean => {
  const fewer = budget.shipped.lost - budget.refit.lost;
  return fewer >= MIN_FEWER && fewer >= CLEARLY_FEWER * budget.shipped.lost;
};

/** What the report advises, from what each set of weights loses at the budget on held-out sessions. */
export const advice = (budget: BudgetFigures): string => {
  const fewer = budget.shipped.lost - budget.refit.lost;
  if (refitWins(budget)) return `a refit loses ${fewer} fewer results at the budget on held-out sessions: write it with --write`;
  if (fewer < 0) return `a refit loses ${-fewer} more result${fewer === -1 ? "" : "s"} at the budget on held-out sessions: keep the shipped weights`;
  return `a refit loses about as much at the budget on held-out sessions (${fewer} fewer): keep the shipped weights`;
};

const budgetLines = (b: BudgetFigures): string[] => [
  `under a budget (${Math.round(b.pressure * 100)}% of the window, compacted to ${b.budgetPercent}%; ${b.cuts} cuts of held-out sessions):`,
  `  bc loses ${b.shipped.lost} results with the shipped weights, ${b.refit.lost} with a refit; hindsight oracle-to-budget ${b.oracleLost}`,
];

const heldOutLines = (r: CalibrationReport): string[] =>
  r.heldOut !== undefined || r.budget === undefined
    ? ["refit on yours, scored on held-out ones: cannot be computed", `  (${r.heldOut ?? "no held-out sessions"})`]
    : [
        `refit on yours, scored on held-out ones: AUC ${fmt(r.refit.auc)}  calibration error ${fmt(r.refit.ece)}`,
        `  AUC per fold of held-out sessions: ${r.refit.foldAuc.map(fmt).join(", ")}`,
        `  the escalation's, on results of ${ESCALATION_MIN_CHARS.toLocaleString("en-US")}+ characters: AUC ${fmt(r.refitEscalation.auc)}  calibration error ${fmt(r.refitEscalation.ece)}`,
        ...budgetLines(r.budget),
      ];

/** What the figures advise, in words and for a script: write the refit, or keep the shipped weights. */
export const verdict = (r: Pick<CalibrationReport, "budget">): { readonly advice: string; readonly writeRefit: boolean } => {
  if (r.budget === undefined)
    return { advice: "no held-out sessions to compare a refit with the shipped weights on: keep the shipped weights", writeRefit: false };
  return { advice: advice(r.budget), writeRefit: refitWins(r.budget) };
};

export const closingLines = (r: Pick<CalibrationReport, "budget" | "written" | "replaced">): string[] => {
  const { advice: said, writeRefit } = verdict(r);
  if (r.written === undefined) return [said];
  const was = r.replaced;
  return [
    // written as asked, even where the figures advise against it: said, not hidden
    ...(writeRefit ? [] : [`${said} (written all the same, as --write asks)`]),
    `wrote ${r.written}: bc plan, bc codex-fork, bc eval and the Claude Code plugin use it from now on`,
    ...(was === undefined
      ? []
      : ["source" in was ? `  in place of the weights it held: ${was.source}` : `  in place of a file bc did not use (${was.problem})`]),
    "(delete it to go back; to compare what bc loses with each: bc eval, then bc eval --need-weights shipped)",
  ];
};

export const renderCalibration = (r: CalibrationReport): string =>
  [
    `${r.samples} results from ${r.sessions} sessions, ${r.used} of them used after the cut (${((100 * r.used) / r.samples).toFixed(1)}%)`,
    `shipped weights on your sessions:        AUC ${fmt(r.shipped.auc)}  calibration error ${fmt(r.shipped.ece)}`,
    `  the escalation's, on the ${r.shippedEscalation.samples} results of ${ESCALATION_MIN_CHARS.toLocaleString("en-US")}+ characters: AUC ${fmt(r.shippedEscalation.auc)}  calibration error ${fmt(r.shippedEscalation.ece)}`,
    ...heldOutLines(r),
    ...toolLines(r.byTool),
    ...closingLines(r),
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
    const paths = given.length > 0 ? given : replayableSessions().map((f) => f.path);
    if (paths.length === 0)
      throw new BcError("not-found", "no sessions found under ~/.claude/projects or $CODEX_HOME/sessions", "pass session files or folders");
    const r = calibrate(paths, { ...(args.write ? { write: needWeightsPath() } : {}), progress: (m) => log.info(m) });
    out(args.json ? JSON.stringify({ ...r, ...verdict(r) }, null, 2) : renderCalibration(r));
  },
});
