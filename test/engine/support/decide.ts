// Look up one result's decision in a plan, by call id.
import { plan } from "../../../src/engine/plan.ts";
import type { Decision, Options, Session } from "../../../src/engine/types.ts";

export const decisionFor = (session: Session, callId: string, options?: Partial<Options>): Decision => {
  const d = plan(session, options).decisions.find((x) => x.callId === callId);
  if (!d) throw new Error(`no decision for ${callId}`);
  return d;
};

/** action and rule: what most rule tests assert */
export const verdictFor = (session: Session, callId: string, options?: Partial<Options>): string => {
  const d = decisionFor(session, callId, options);
  return `${d.action} ${d.rule}`;
};
