// Every result's need facts and features as the escalation would see them, with the rules'
// verdicts: what `bc plan --budget` shows and what the model is fitted on.
import { decideResult } from "../plan.ts";
import { SessionFacts } from "../session-facts.ts";
import { DEFAULT_OPTIONS, type Options, type RuleId, type Session } from "../types.ts";
import { type NeedFacts, featuresOf } from "./features.ts";
import { needFacts } from "./facts.ts";

export interface NeedRow {
  readonly ordinal: number;
  readonly callId: string;
  readonly messageIndex: number;
  readonly rule: RuleId;
  /** the escalation may cut it (not pinned, not a person's answer, not already cut) */
  readonly eligible: boolean;
  readonly facts: NeedFacts;
  readonly x: Float64Array;
}

export const needTable = (session: Session, options?: Partial<Options>): NeedRow[] => {
  const opts: Options = { ...DEFAULT_OPTIONS, ...options };
  const sessionFacts = new SessionFacts(session, opts);
  const verdicts = sessionFacts.items.map((item) => decideResult(sessionFacts, item));
  const facts = needFacts(sessionFacts, verdicts);
  return sessionFacts.items.map((item, k) => ({
    ordinal: item.ordinal,
    callId: item.result.callId,
    messageIndex: item.messageIndex,
    rule: verdicts[k]!.rule,
    eligible: verdicts[k]!.rule !== "pinned" && verdicts[k]!.rule !== "already-cut" && !item.cut && !item.meaning.asksPerson,
    facts: facts[k]!,
    x: featuresOf(facts[k]!),
  }));
};
