// Tool results in a history with no call before them (or a second result for one call): what a
// reader says of a session, and what a fork carries as it is. A call without its result is
// common and harmless in a Codex rollout (a web search's server-side item, a call the session
// ended in), so only the results are asked here; Claude Code's reader says both (transcript.ts).
import type { Message } from "../engine/types.ts";

export interface UnpairedResult {
  /** the message index of the result in the history given */
  readonly index: number;
  readonly callId: string;
  /** a second result for a call already answered (else: no call before it) */
  readonly second: boolean;
}

export const unpairedResults = (messages: readonly Message[]): UnpairedResult[] => {
  const open = new Set<string>();
  const answered = new Set<string>();
  const out: UnpairedResult[] = [];
  messages.forEach((m, index) => {
    for (const c of m.toolCalls) open.add(c.id);
    for (const r of m.toolResults) {
      if (open.delete(r.callId)) answered.add(r.callId);
      else out.push({ index, callId: r.callId, second: answered.has(r.callId) });
    }
  });
  return out;
};

/** One unpaired result said as a problem: `what` names the kind of result (a host's word for it). */
export const unpairedText = (u: UnpairedResult, what: string): string =>
  u.second ? `a second ${what} for ${u.callId}` : `${what} ${u.callId} has no call before it`;
