// The user's own need weights (written by `bc calibrate --write`), read by the CLI; the Claude
// Code plugin reads the same file through Claude Code's $.fs.
import { existsSync, readFileSync } from "node:fs";
import { type NeedModels, parseNeedModels } from "../engine/need/model.ts";
import { SHIPPED_NEED_MODELS } from "../engine/need/weights.ts";

export const NEED_WEIGHTS_FILE = "need-weights.json";

export interface WeightsInUse {
  readonly models: NeedModels;
  /** "shipped": the binary's own; "user": the file at `path` */
  readonly kind: "shipped" | "user";
  readonly path: string;
  /** why a file that is there is not used */
  readonly problem?: string;
}

/** The weights bc uses: the user's file when it is there and valid, else the shipped ones (saying why). */
export const weightsInUse = (path: string): WeightsInUse => {
  const shipped = { models: SHIPPED_NEED_MODELS, kind: "shipped", path } as const;
  if (!existsSync(path)) return shipped;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return { ...shipped, problem: `${path}: cannot be read (${(e as Error).message})` };
  }
  const m = parseNeedModels(text);
  return "problem" in m ? { ...shipped, problem: `${path}: ${m.problem}` } : { models: m, kind: "user", path };
};

/** The engine's option for these weights: the user's models where they have their own (the shipped ones are the engine's default). */
export const needModelsOption = (w: WeightsInUse): { needModels?: NeedModels } => (w.kind === "user" ? { needModels: w.models } : {});

/** Where the models came from, in words: the need model's source, and the escalation's where it has its own. */
export const sourcesOf = (m: NeedModels): string => (m.escalation === m.need ? m.need.source : `${m.need.source}; the escalation's: ${m.escalation.source}`);

/** The weights in a line: whose, the need model's source, and whether the escalation has a model of its own (sourcesOf names it). */
export const describeWeights = (w: WeightsInUse): string => {
  const own = w.models.escalation === w.models.need ? "" : "; the escalation ranks by a model of its own";
  return w.kind === "user"
    ? `yours (${w.path}): ${w.models.need.source}${own}`
    : `shipped: ${w.models.need.source}${own}${w.problem ? `; not used: ${w.problem}` : ""}`;
};
