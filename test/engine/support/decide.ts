// Look up one result's decision in a plan, by call id.
import { DROP_AT, KEEP_AT } from "../../../src/engine/need/sharpen.ts";
import type { NeedModel } from "../../../src/engine/need/model.ts";
import { SHIPPED_NEED_MODEL } from "../../../src/engine/need/weights.ts";
import { plan } from "../../../src/engine/plan.ts";
import type { Decision, Options, Session } from "../../../src/engine/types.ts";

/**
 * A need model under which the score overturns no rule: every result's need lies between the
 * thresholds at which it would (sharpen.ts). Rule tests plan with it, so that they see the
 * ladder's own verdicts whatever the shipped weights are; the sharpening has tests of its own.
 */
export const RULES_ONLY_NEED: NeedModel = (() => {
  const need = Math.sqrt(DROP_AT * KEEP_AT);
  const zeros = SHIPPED_NEED_MODEL.features.map(() => 0);
  return {
    ...SHIPPED_NEED_MODEL,
    source: "test: one need for every result, between the sharpening thresholds",
    mean: zeros,
    scale: zeros.map(() => 1),
    weights: zeros,
    intercept: Math.log(need / (1 - need)),
  };
})();

export const decisionFor = (session: Session, callId: string, options?: Partial<Options>): Decision => {
  const d = plan(session, { needModel: RULES_ONLY_NEED, ...options }).decisions.find((x) => x.callId === callId);
  if (!d) throw new Error(`no decision for ${callId}`);
  return d;
};

/** action and rule: what most rule tests assert */
export const verdictFor = (session: Session, callId: string, options?: Partial<Options>): string => {
  const d = decisionFor(session, callId, options);
  return `${d.action} ${d.rule}`;
};
