// A rule looks at one tool result (with the session's facts) and either decides it or passes.
// Rules are data, walked in the order rules/ladder.ts lists them (see plan.ts for the walk).
import type { ResultItem, SessionFacts } from "../session-facts.ts";
import type { Action, RuleId } from "../types.ts";

export interface Verdict {
  readonly action: Action;
  readonly rule: RuleId;
  /** one line, e.g. "re-read at #412, unchanged" */
  readonly reason: string;
  readonly headChars?: number;
}

export interface RuleContext {
  readonly facts: SessionFacts;
  readonly item: ResultItem;
}

export interface Rule {
  /** the ladder step's id (a verdict may carry a finer rule id, e.g. too-recent from referenced) */
  readonly id: RuleId;
  /** a verdict from this rule is final: nothing later in the ladder may change it */
  readonly locks?: boolean;
  decide(ctx: RuleContext): Verdict | undefined;
  /**
   * A keep this rule gives only once the ladder has decided to cut: for a check too costly to
   * run on every result (never-drop's quote search). Final, like a locking verdict.
   */
  guard?(ctx: RuleContext): Verdict | undefined;
}

/** `#412` for message 412: how reasons point at a place in the session. */
export const at = (messageIndex: number): string => `#${messageIndex}`;

/** A token quoted in a reason: one line, at most 48 characters. */
export const quoteToken = (t: string): string => {
  const one = t.replace(/\s+/g, " ");
  return JSON.stringify(one.length > 48 ? `${one.slice(0, 47)}…` : one);
};
