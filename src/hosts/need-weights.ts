// The user's own need weights (written by `bc calibrate --write`), read by the CLI; the Claude
// Code plugin reads the same file through Claude Code's $.fs.
import { existsSync, readFileSync } from "node:fs";
import { type NeedModel, parseNeedModel } from "../engine/need/model.ts";
import { SHIPPED_NEED_MODEL } from "../engine/need/weights.ts";

export const NEED_WEIGHTS_FILE = "need-weights.json";

export interface WeightsInUse {
  readonly model: NeedModel;
  /** "shipped": the binary's own; "user": the file at `path` */
  readonly kind: "shipped" | "user";
  readonly path: string;
  /** why a file that is there is not used */
  readonly problem?: string;
}

/** The weights bc uses: the user's file when it is there and valid, else the shipped ones (saying why). */
export const weightsInUse = (path: string): WeightsInUse => {
  if (!existsSync(path)) return { model: SHIPPED_NEED_MODEL, kind: "shipped", path };
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return { model: SHIPPED_NEED_MODEL, kind: "shipped", path, problem: `${path}: cannot be read (${(e as Error).message})` };
  }
  const m = parseNeedModel(text);
  return "problem" in m ? { model: SHIPPED_NEED_MODEL, kind: "shipped", path, problem: `${path}: ${m.problem}` } : { model: m, kind: "user", path };
};

/** The engine's option for these weights: the user's model where they have their own (the shipped one is the engine's default). */
export const needModelOption = (w: WeightsInUse): { needModel?: NeedModel } => (w.kind === "user" ? { needModel: w.model } : {});

export const describeWeights = (w: WeightsInUse): string =>
  w.kind === "user" ? `yours (${w.path}): ${w.model.source}` : `shipped: ${w.model.source}${w.problem ? `; not used: ${w.problem}` : ""}`;
