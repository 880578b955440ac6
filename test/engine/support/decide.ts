// Look up one result's decision in a plan, by call id.
import { type NeedModels, bothOf } from "../../../src/engine/need/model.ts";
import { DROP_AT, KEEP_AT } from "../../../src/engine/need/sharpen.ts";
import { plan } from "../../../src/engine/plan.ts";
import type { Decision, Options, Session } from "../../../src/engine/types.ts";
import { constantNeed } from "./need-models.ts";

/**
 * A need model under which the score overturns no rule: every result's need lies between the
 * thresholds at which it would (sharpen.ts). Rule tests plan with it, so that they see the
 * ladder's own verdicts whatever the shipped weights are; the sharpening has tests of its own.
 */
export const RULES_ONLY_NEED: NeedModels = bothOf(constantNeed(Math.sqrt(DROP_AT * KEEP_AT)));

export const decisionFor = (session: Session, callId: string, options?: Partial<Options>): Decision => {
  const d = plan(session, { needModels: RULES_ONLY_NEED, ...options }).decisions.find((x) => x.callId === callId);
  if (!d) throw new Error(`no decision for ${callId}`);
  return d;
};

/** action and rule: what most rule tests assert */
export const verdictFor = (session: Session, callId: string, options?: Partial<Options>): string => {
  const d = decisionFor(session, callId, options);
  return `${d.action} ${d.rule}`;
};
