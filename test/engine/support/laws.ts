// The laws every plan/apply pair must keep, as checks that return what broke (empty: all held).
import { apply } from "../../../src/engine/apply.ts";
import { tokensAfter } from "../../../src/engine/escalate.ts";
import { isAlreadyCut, readNote } from "../../../src/engine/notes.ts";
import { plan } from "../../../src/engine/plan.ts";
import { headerChars } from "../../../src/engine/result-text.ts";
import type { Message, Options, Plan, Session } from "../../../src/engine/types.ts";

const ids = (msgs: readonly Message[]) => ({
  calls: msgs.map((m) => m.toolCalls.map((c) => c.id).join(",")).join("|"),
  results: msgs.map((m) => m.toolResults.map((r) => r.callId).join(",")).join("|"),
});

/** (c) calls and results pair up as before, (d) prose and calls are identical, untouched messages are the same objects. */
export const checkApply = (session: Session, p: Plan, out: readonly Message[], label: string): string[] => {
  const bad: string[] = [];
  const before = ids(session.messages);
  const after = ids(out);
  if (before.calls !== after.calls) bad.push(`${label}: tool calls changed`);
  if (before.results !== after.results) bad.push(`${label}: tool results changed places or went missing`);
  out.forEach((m, i) => {
    const o = session.messages[i]!;
    if (m.text !== o.text || m.role !== o.role || m.kind !== o.kind) bad.push(`${label}: prose of #${i} changed`);
    if (m.toolCalls !== o.toolCalls) bad.push(`${label}: calls of #${i} are not the same objects`);
    const touched = p.decisions.some((d) => d.messageIndex === i && d.action !== "keep");
    if (!touched && m !== o) bad.push(`${label}: untouched #${i} is not the same object`);
  });
  return bad;
};

/** (a) fixed point: planning apply's output removes nothing more, and applying that changes nothing. */
export const checkFixedPoint = (session: Session, out: readonly Message[], label: string, options?: Partial<Options>): string[] => {
  const next: Session = { ...session, messages: out };
  const p2 = plan(next, options);
  const bad = p2.decisions.filter((d) => d.action !== "keep").map((d) => `${label}: second pass would ${d.action} #${d.messageIndex} (${d.rule}: ${d.reason})`);
  const out2 = apply(next, p2);
  out2.forEach((m, i) => {
    if (m !== out[i]) bad.push(`${label}: second pass rewrote #${i}`);
  });
  return bad;
};

/**
 * (g) what shown-elsewhere drops stays in view: each line of it (trimmed, of four characters or
 * more, past a Codex header, a read's line number of up to three digits left out) stands in the
 * applied history: in a result shown whole, in prose, or in a call input's line that holds no
 * quote or backslash (a patch line also without its mark). Written plainly, apart from the rule.
 */
export const checkShownElsewhere = (session: Session, p: Plan, out: readonly Message[], label: string): string[] => {
  const byId = new Map(session.messages.flatMap((m) => m.toolResults.map((r) => [r.callId, r.text] as const)));
  const shown = new Set<string>();
  const addLines = (text: string, strip: (raw: string) => string[]): void => {
    for (const raw of text.split("\n")) for (const l of strip(raw)) if (l.length >= 4) shown.add(l);
  };
  const outputLine = (raw: string): string[] => [raw.replace(/^\s*\d{1,3}(?:→|\t)/, "").trim()];
  const inputLine = (raw: string): string[] => (/["'`\\]/.test(raw) ? [] : /^[+\- ]/.test(raw) ? [raw.trim(), raw.slice(1).trim()] : [raw.trim()]);
  const kept = new Set(p.decisions.filter((d) => d.action === "keep").map((d) => d.callId));
  const leaves = (v: unknown, visit: (s: string) => void): void => {
    if (typeof v === "string") visit(v);
    else if (typeof v === "number") visit(String(v));
    else if (Array.isArray(v)) for (const x of v) leaves(x, visit);
    else if (v !== null && typeof v === "object") for (const x of Object.values(v)) leaves(x, visit);
  };
  for (const m of out) {
    addLines(m.text, (raw) => [raw.trim()]);
    for (const c of m.toolCalls) leaves(c.input ?? c.inputText, (s) => addLines(s, inputLine));
    for (const r of m.toolResults) if (kept.has(r.callId)) addLines(r.text.slice(headerChars(r.text)), outputLine);
  }
  const bad: string[] = [];
  for (const d of p.decisions) {
    if (d.rule !== "shown-elsewhere") continue;
    const text = byId.get(d.callId)!;
    const missing = text
      .slice(headerChars(text))
      .split("\n")
      .flatMap(outputLine)
      .filter((l) => l.length >= 4 && !shown.has(l));
    if (missing.length > 0)
      bad.push(`${label}: ${d.callId} dropped as shown elsewhere, but ${missing.length} of its lines are not (${JSON.stringify(missing[0]).slice(0, 80)})`);
  }
  return bad;
};

/**
 * (f) the escalation stops at its budget: undoing any cut it took (the rules' verdict back, from
 * `rules`, the plan without a budget) would leave the history over the budget.
 */
export const checkNoSpareCut = (session: Session, rules: Plan, p: Plan, budgetTokens: number, label: string): string[] => {
  const texts = new Map(session.messages.flatMap((m) => m.toolResults.map((r) => [r.callId, r.text] as const)));
  const ruled = new Map(rules.decisions.map((d) => [d.callId, d]));
  const verdict = (d: Plan["decisions"][number]) => ({ action: d.action, rule: d.rule, reason: "", headChars: "headChars" in d ? d.headChars : undefined });
  const spare = budgetTokens - p.totals.tokensAfter;
  const bad: string[] = [];
  for (const d of p.decisions) {
    if (d.rule !== "escalation") continue;
    const text = texts.get(d.callId) ?? "";
    const back = tokensAfter(text, verdict(ruled.get(d.callId)!), d.callId) - tokensAfter(text, verdict(d), d.callId);
    if (back <= spare) bad.push(`${label}: ${d.callId} was cut (${d.action}, ${back} tokens) though ${spare} tokens under the budget were left`);
  }
  return bad;
};

/** A deep copy with new objects everywhere: no cache keyed by object can carry over. */
export const deepCopy = (s: Session): Session => ({
  ...s,
  messages: s.messages.map((m) => ({
    ...m,
    toolCalls: m.toolCalls.map((c) => ({ ...c })),
    toolResults: m.toolResults.map((r) => ({ ...r, text: ` ${r.text}`.slice(1) })),
  })),
});

/** (e) determinism: the same input gives the same Plan, byte for byte. */
export const checkDeterminism = (session: Session, p: Plan, label: string, options?: Partial<Options>): string[] =>
  JSON.stringify(plan(deepCopy(session), options)) === JSON.stringify(p) ? [] : [`${label}: a copy of the session gave a different plan`];

/**
 * Whether `now` is `prev` (a head an earlier pass kept, with its note) cut to a shorter head: the
 * only way a note may change. The shorter head is a head of the longer one, and its note counts
 * every char cut since the original.
 */
const shortenedHead = (prev: string, now: string): boolean => {
  const a = readNote(prev);
  const b = readNote(now);
  if (a?.kind !== "truncated" || b?.kind !== "truncated" || a.head === undefined || b.head === undefined) return false;
  return b.head.length < a.head.length && a.head.startsWith(b.head) && b.chars === a.chars + a.head.length - b.head.length;
};

/**
 * (b) monotonic over repeated passes: `texts` maps call id -> text after each pass; a cut
 * result's note never changes (but for a head cut shorter, its note counting every char cut), a
 * result kept verbatim while pinned or never-drop stays verbatim, and no result ever grows back.
 */
export class PassHistory {
  private readonly last = new Map<string, string>();
  private readonly protectedIds = new Set<string>();
  check(p: Plan, out: readonly Message[], label: string): string[] {
    const bad: string[] = [];
    const rules = new Map(p.decisions.map((d) => [d.callId, d.rule]));
    for (const m of out)
      for (const r of m.toolResults) {
        const prev = this.last.get(r.callId);
        if (prev !== undefined) {
          if (isAlreadyCut(prev) && r.text !== prev && !shortenedHead(prev, r.text)) bad.push(`${label}: the note of ${r.callId} was rewritten`);
          if (r.text.length > prev.length) bad.push(`${label}: ${r.callId} grew back`);
          if (this.protectedIds.has(r.callId) && r.text !== prev) {
            const rule = rules.get(r.callId);
            if (rule === "pinned" || rule === "never-drop") bad.push(`${label}: protected ${r.callId} changed while still ${rule}`);
          }
        }
        this.last.set(r.callId, r.text);
        const rule = rules.get(r.callId);
        if ((rule === "pinned" || rule === "never-drop") && !isAlreadyCut(r.text)) this.protectedIds.add(r.callId);
      }
    return bad;
  }
}

/** One pass of compaction as a session grows: the session it planned, the plan, apply's output. */
export interface Pass {
  readonly n: number;
  readonly session: Session;
  readonly plan: Plan;
  readonly out: Message[];
}

/**
 * A session compacted as it grows: each pass plans and applies the session so far, then `next`
 * builds the next pass's session from that output (earlier passes' notes in place) and what came
 * since, or ends the run with undefined. `visit` sees every pass.
 */
export const compactAsItGrows = (
  first: Session,
  next: (out: readonly Message[], n: number) => Session | undefined,
  visit: (pass: Pass) => void,
  options?: Partial<Options>,
): void => {
  let session: Session | undefined = first;
  for (let n = 0; session !== undefined; n++) {
    const p = plan(session, options);
    const out = apply(session, p);
    visit({ n, session, plan: p, out });
    session = next(out, n);
  }
};
