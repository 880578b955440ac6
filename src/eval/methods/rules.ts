// bc's own rules as a method: the engine's plan + apply at its defaults, read back as
// rewrites (the text apply left in place of each result it changed).
import type { Message, Session } from "../../engine/types.ts";
import type { ResultInfo } from "../session-index.ts";
import type { Method, Rewrites } from "./method.ts";

/** What a compactor returns: the messages, index-aligned with its input, and, where it can say, which rule decided each result. */
export interface Compacted {
  readonly messages: readonly Message[];
  /** call id → the rule that decided the result (bc's rules; absent for a compactor that has none) */
  readonly rules?: ReadonlyMap<string, string>;
}

/** Call id → the rule that decided it, from a plan's decisions or the plugin's decision record. */
export const rulesByCall = (decided: readonly { readonly callId: string; readonly rule: string }[]): ReadonlyMap<string, string> =>
  new Map(decided.map((d) => [d.callId, d.rule]));

/** A compactor over whole histories. */
export type Compactor = (session: Session) => Compacted;

/** The text `after` holds in place of each of `results` whose text changed. */
export const rewritesFrom = (results: readonly ResultInfo[], after: readonly Message[], offset = 0): Map<number, string> => {
  const out = new Map<number, string>();
  for (const r of results) {
    const m = after[r.message - offset];
    const now = m?.toolResults[r.slot];
    if (now === undefined || now.callId !== r.callId) throw new Error(`the compactor moved or removed tool result ${r.callId} (message ${r.message})`);
    if (now.text !== r.text) out.set(r.ordinal, now.text);
  }
  return out;
};

/** A cut's history with a method's rewrites in place (result ordinal → its text after): rewritesFrom's inverse. */
export const withRewrites = (prefix: Session, results: readonly ResultInfo[], rewrites: ReadonlyMap<number, string>): Message[] => {
  const out = prefix.messages.map((m) => ({ ...m, toolResults: [...m.toolResults] }));
  for (const [ordinal, text] of rewrites) {
    const r = results[ordinal]!;
    const slot = out[r.message]!.toolResults;
    if (slot[r.slot]?.callId !== r.callId) throw new Error(`result ${ordinal} (${r.callId}) is not at message ${r.message}, slot ${r.slot}`);
    slot[r.slot] = { ...slot[r.slot]!, text };
  }
  return out;
};

/** Run a compactor and check it kept every message in place (count and tool results). */
export const compactAligned = (compact: Compactor, session: Session): Compacted => {
  const after = compact(session);
  const n = after.messages.length;
  if (n !== session.messages.length) throw new Error(`the compactor returned ${n} messages for ${session.messages.length}`);
  return after;
};

export const rulesMethod = (compact: Compactor): Method => ({
  id: "rules",
  summary: "bc's rules at their defaults (engine plan + apply)",
  run: ({ prefix, results }): Rewrites => rewritesFrom(results, compactAligned(compact, prefix).messages),
});
