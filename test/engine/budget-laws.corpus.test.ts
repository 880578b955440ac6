// The laws under a budget, over every real session in ../shared/corpus and BC_EXTRA_CORPUS's
// folders (skipped cleanly without it): each session cut at 70% of its messages, planned with the
// budget the Claude Code plugin uses when the history is at 95% of the window (60% of it), and with
// a smaller one (40%). Every plan keeps pairs and prose, a pass over its own output with the same
// budget changes nothing, no cut the escalation took could be undone within the budget, and a
// copy of the session gives the same plan. Then a pass at the smaller budget over the larger one's
// output (repeated compaction): pairs and prose kept, nothing grows back, a note changes only where
// a longer head is cut to a shorter one, and every head left is the original's, byte for byte.
import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { apply } from "../../src/engine/apply.ts";
import { plan } from "../../src/engine/plan.ts";
import { readNote } from "../../src/engine/notes.ts";
import type { Message, Plan, Session } from "../../src/engine/types.ts";
import { CORPUS_TIMEOUT_MS, SKIP_NOTE, corpusFiles, hasCorpus, loadCorpusSession } from "../support/shared.ts";
import { checkApply, checkDeterminism, checkFixedPoint, checkNoSpareCut, PassHistory } from "./support/laws.ts";

const CUT = 0.7;
/** the history's share of the window, and the budgets as shares of that window */
const PRESSURE = 0.95;
const BUDGETS = [0.6, 0.4];
/** a cold copy costs a full re-tokenization: done on files up to this size */
const DETERMINISM_MAX_BYTES = 700_000;

/** A pass at `budgetTokens` over an earlier pass's output, held to the laws of repeated compaction; `shortened` counts the heads it cut shorter. */
const checkSecondPass = (s: Session, first: { p: Plan; out: Message[] }, budgetTokens: number, label: string, shortened: { n: number }): string[] => {
  const input: Session = { ...s, messages: first.out };
  const p = plan(input, { budgetTokens });
  const out = apply(input, p);
  const history = new PassHistory();
  const bad = [...history.check(first.p, first.out, label), ...history.check(p, out, label), ...checkApply(input, p, out, label)];
  const original = new Map(s.messages.flatMap((m) => m.toolResults.map((r) => [r.callId, r.text] as const)));
  const before = new Map(first.out.flatMap((m) => m.toolResults.map((r) => [r.callId, r.text] as const)));
  for (const m of out)
    for (const r of m.toolResults) {
      const note = readNote(r.text);
      const text = original.get(r.callId)!;
      if (r.text === text || note === undefined) continue;
      if (note.kind === "truncated" && readNote(before.get(r.callId)!)?.kind === "truncated" && r.text !== before.get(r.callId)) shortened.n++;
      const shown = note.head ?? "";
      if (!text.startsWith(shown) || note.chars !== text.length - shown.length)
        bad.push(`${label}: ${r.callId} is not a head of its output with every char cut counted`);
    }
  return bad;
};

describe.skipIf(!hasCorpus())("corpus sessions under a budget", () => {
  for (const host of ["claude", "codex"] as const) {
    test(
      `${host}: pairs and prose kept, a fixed point at the same budget, no cut to spare, deterministic`,
      () => {
        const files = corpusFiles(host);
        expect(files.length).toBeGreaterThan(0);
        const bad: string[] = [];
        let escalated = 0;
        const shortened = { n: 0 };
        for (const f of files) {
          const live = loadCorpusSession(f).live;
          const s: Session = { ...live, messages: live.messages.slice(0, Math.floor(live.messages.length * CUT)) };
          const rules = plan(s);
          const window = rules.totals.tokensBefore / PRESSURE;
          let previous: { p: Plan; out: Message[] } | undefined;
          for (const share of BUDGETS) {
            const budgetTokens = Math.floor(window * share);
            const label = `${f.split("/").pop()} @${CUT}, budget ${budgetTokens}`;
            const p = plan(s, { budgetTokens });
            const out = apply(s, p);
            if (previous !== undefined) bad.push(...checkSecondPass(s, previous, budgetTokens, `${label}, second pass`, shortened));
            previous = { p, out };
            escalated += p.decisions.filter((d) => d.rule === "escalation").length;
            bad.push(...checkApply(s, p, out, label), ...checkFixedPoint(s, out, label, { budgetTokens }));
            bad.push(...checkNoSpareCut(s, rules, p, budgetTokens, label));
            if (statSync(f).size <= DETERMINISM_MAX_BYTES) bad.push(...checkDeterminism(s, p, label, { budgetTokens }));
          }
        }
        expect(bad).toEqual([]);
        expect(escalated).toBeGreaterThan(0);
        expect(shortened.n).toBeGreaterThan(0);
      },
      CORPUS_TIMEOUT_MS,
    );
  }
});

if (!hasCorpus()) test.skip(SKIP_NOTE, () => {});
