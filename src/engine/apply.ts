// Plan -> the rewritten message list. Calls and prose are never touched; a dropped result
// becomes the removal note, a truncated one keeps its head byte for byte and ends with a
// note. Untouched messages (and results) come back as the same objects.
import { dropNote, truncatedText } from "./notes.ts";
import type { Decision, Message, Plan, Session, ToolResult } from "./types.ts";

const rewrite = (r: ToolResult, d: Decision): ToolResult => {
  if (d.action === "drop") return { ...r, text: dropNote(r.text.length, r.callId) };
  return { ...r, text: truncatedText(r.text, d.headChars ?? 0, r.callId) };
};

export const apply = (session: Session, plan: Plan): Message[] => {
  const messages = session.messages;
  if (plan.skipped) return [...messages];
  // per message, its decisions in order, keeps included: the k-th result with an id takes the
  // k-th decision with that id (a host that gave two results one id gets each its own)
  const byMessage = new Map<number, Decision[]>();
  const changes = new Set<number>();
  for (const d of plan.decisions) {
    const list = byMessage.get(d.messageIndex);
    if (list) list.push(d);
    else byMessage.set(d.messageIndex, [d]);
    if (d.action !== "keep") changes.add(d.messageIndex);
  }
  return messages.map((m, i) => {
    const ds = byMessage.get(i);
    if (!ds || !changes.has(i)) return m;
    const taken = new Set<Decision>();
    const toolResults = m.toolResults.map((r) => {
      const d = ds.find((x) => x.callId === r.callId && !taken.has(x));
      if (!d) return r;
      taken.add(d);
      if (d.action === "keep") return r;
      if (d.chars !== r.text.length)
        throw new Error(`plan does not match the session: result ${r.callId} at #${i} has ${r.text.length} chars, the plan says ${d.chars}`);
      return rewrite(r, d);
    });
    return { ...m, toolResults };
  });
};

/** The session after a plan: same host and id, rewritten messages. */
export const applyToSession = (session: Session, plan: Plan): Session => ({ ...session, messages: apply(session, plan) });
