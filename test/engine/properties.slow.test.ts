// Laws of plan/apply over many generated sessions (seeded, so any failure replays).
import { describe, expect, test } from "bun:test";
import { apply } from "../../src/engine/apply.ts";
import { plan } from "../../src/engine/plan.ts";
import type { Message, Session } from "../../src/engine/types.ts";
import { Generator, generateSession } from "./support/generate.ts";
import { PassHistory, checkApply, checkDeterminism, checkFixedPoint, checkShownElsewhere, compactAsItGrows } from "./support/laws.ts";

const SEEDS = Array.from({ length: 24 }, (_, i) => i + 1);

describe("generated sessions", () => {
  test.each(SEEDS)("seed %i: fixed point, pairs kept, prose identical, deterministic", (seed) => {
    const host = seed % 2 === 0 ? "codex" : "claude";
    const s = generateSession({ seed, host, results: 20 + ((seed * 7) % 80), outputChars: 300 + ((seed * 131) % 1500) });
    const bad: string[] = [];
    for (const cut of [0.5, 0.7, 0.9, 1]) {
      const sess = { ...s, messages: s.messages.slice(0, Math.floor(s.messages.length * cut)) };
      const label = `seed ${seed} ${host} cut ${cut}`;
      const p = plan(sess);
      const out = apply(sess, p);
      bad.push(
        ...checkApply(sess, p, out, label),
        ...checkFixedPoint(sess, out, label),
        ...checkDeterminism(sess, p, label),
        ...checkShownElsewhere(sess, p, out, label),
      );
    }
    expect(bad).toEqual([]);
  });

  test.each(SEEDS.slice(0, 8))("seed %i: six passes with new messages between them only tighten", (seed) => {
    const host = seed % 2 === 0 ? "codex" : "claude";
    const g = new Generator({ seed, host, results: 0, outputChars: 600 });
    const history = new PassHistory();
    const bad: string[] = [];
    let removedSomething = false;
    const grown = (out: readonly Message[], n: number): Session | undefined => {
      if (n + 1 >= 6) return undefined;
      g.continueFrom(out);
      return g.grow(25);
    };
    compactAsItGrows(g.grow(40), grown, ({ n, session: s, plan: p, out }) => {
      removedSomething ||= p.totals.resultsDropped + p.totals.resultsTruncated > 0;
      const label = `seed ${seed} pass ${n + 1}`;
      bad.push(...checkApply(s, p, out, label), ...history.check(p, out, label));
    });
    expect(bad).toEqual([]);
    expect(removedSomething).toBe(true);
  });

  test("escalation and minRemovalFraction keep the laws", () => {
    const bad: string[] = [];
    for (const seed of [101, 102, 103, 104]) {
      const s = generateSession({ seed, host: seed % 2 ? "claude" : "codex", results: 80, outputChars: 1500 });
      const budget = Math.floor(plan(s).totals.tokensAfter * 0.6);
      for (const options of [{ budgetTokens: budget }, { minRemovalFraction: 0.2 }]) {
        const label = `seed ${seed} ${JSON.stringify(options)}`;
        const p = plan(s, options);
        const out = apply(s, p);
        bad.push(...checkApply(s, p, out, label), ...checkFixedPoint(s, out, label), ...checkDeterminism(s, p, label, options));
      }
    }
    expect(bad).toEqual([]);
  });
});
