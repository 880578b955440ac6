// The rules as the product runs them: the engine's plan + apply at bc's defaults, with the rule
// that decided each result.
import { apply } from "../../engine/apply.ts";
import { plan } from "../../engine/plan.ts";
import { type Compactor, rulesByCall } from "./rules.ts";

export const rulesCompactor: Compactor = (session) => {
  const p = plan(session);
  return { messages: apply(session, p), rules: rulesByCall(p.decisions) };
};
