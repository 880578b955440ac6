// The rules as the product runs them: the engine's plan + apply at bc's defaults, with the rule
// that decided each result.
import { apply } from "../../engine/apply.ts";
import type { NeedModels } from "../../engine/need/model.ts";
import { plan } from "../../engine/plan.ts";
import { type Compactor, rulesByCall } from "./rules.ts";

/** The rules as `bc plan` runs them, ranking by `needModels` (undefined: the shipped weights). */
export const rulesCompactorWith =
  (needModels?: NeedModels): Compactor =>
  (session) => {
    const p = plan(session, needModels === undefined ? undefined : { needModels });
    return { messages: apply(session, p), rules: rulesByCall(p.decisions) };
  };

export const rulesCompactor: Compactor = rulesCompactorWith();
