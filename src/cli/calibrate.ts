// `bc calibrate [sessions]`: fit the need model on the user's own sessions and compare it with
// the shipped one on sessions of theirs it was not fitted on. Writes the weights only with --write.
import { defineCommand } from "citty";
import { mkdirSync, renameSync } from "node:fs";
import { dirname } from "node:path";
import { DEFAULT_FIT, type HeldOut, fitNeedModel, heldOutScore, scoreModel } from "../engine/need/fit.ts";
import { SHIPPED_NEED_MODEL } from "../engine/need/weights.ts";
import { collectNeedSamples } from "../eval/need-data.ts";
import { discoverSessions } from "../hosts/load.ts";
import { needWeightsPath } from "../hosts/claude/install.ts";
import { BcError } from "../util/errors.ts";
import { writeAtomically } from "../util/jsonl.ts";
import { log, out } from "../util/log.ts";

/** Fewer sessions than this cannot be split into folds that say anything. */
const MIN_SESSIONS = 5;
const MIN_SAMPLES = 200;
const FOLDS = 5;
/** an AUC gain smaller than this is within what one fold to the next varies */
const CLEARLY_BETTER = 0.01;

export interface CalibrationReport {
  readonly sessions: number;
  readonly samples: number;
  readonly used: number;
  readonly fingerprint: string;
  readonly shipped: { readonly auc: number; readonly ece: number; readonly source: string };
  readonly refit: HeldOut;
  readonly written?: string;
  readonly weights: unknown;
}

const fmt = (n: number): string => (Number.isNaN(n) ? "n/a" : n.toFixed(3));

export const calibrate = (paths: readonly string[], opts: { write?: string; progress?: (msg: string) => void }): CalibrationReport => {
  const data = collectNeedSamples(paths, opts.progress ?? (() => {}));
  for (const s of data.skipped) log.warn(s);
  const sessions = new Set(data.samples.map((s) => s.group)).size;
  const used = data.samples.filter((s) => s.y === 1).length;
  if (sessions < MIN_SESSIONS || data.samples.length < MIN_SAMPLES || used === 0 || used === data.samples.length)
    throw new BcError(
      "bad-input",
      `too little to calibrate on: ${data.samples.length} results (${used} used later) in ${sessions} sessions; need at least ${MIN_SAMPLES} results in ${MIN_SESSIONS} sessions, some used later and some not`,
      "pass more sessions, or keep the shipped weights",
    );
  const shipped = scoreModel(SHIPPED_NEED_MODEL, data.samples);
  const refit = heldOutScore(data.samples, DEFAULT_FIT, FOLDS);
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
    ...(opts.write === undefined ? {} : { written: opts.write }),
    weights: model,
  };
};

export const renderCalibration = (r: CalibrationReport): string =>
  [
    `${r.samples} results from ${r.sessions} sessions, ${r.used} of them used after the cut (${((100 * r.used) / r.samples).toFixed(1)}%)`,
    `shipped weights on your sessions:        AUC ${fmt(r.shipped.auc)}  calibration error ${fmt(r.shipped.ece)}`,
    `refit on yours, scored on held-out ones: AUC ${fmt(r.refit.auc)}  calibration error ${fmt(r.refit.ece)}  (${r.refit.folds} folds by session: ${r.refit.foldAuc.map(fmt).join(", ")})`,
    r.written !== undefined
      ? `wrote ${r.written}: bc plan, bc codex-fork and the Claude Code plugin use it from now on (delete it to go back to the shipped weights)`
      : r.refit.auc >= r.shipped.auc + CLEARLY_BETTER
        ? "a refit ranks your sessions better than the shipped weights: write it with --write"
        : `a refit ranks your sessions no better than the shipped weights (by less than ${CLEARLY_BETTER} AUC): nothing to gain from --write`,
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
