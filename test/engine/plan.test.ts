import { describe, expect, test } from "bun:test";
import { estimateTextTokens } from "../../src/engine/estimate.ts";
import { plan } from "../../src/engine/plan.ts";
import { apply } from "../../src/engine/apply.ts";
import { BEYOND_RECENT, SessionBuilder } from "./support/build.ts";
import { generateSession } from "./support/generate.ts";

describe("plan", () => {
  test("totals add up: by rule, by action, tokens before and after", () => {
    const s = generateSession({ seed: 42, results: 120, outputChars: 1200 });
    const p = plan(s);
    const t = p.totals;
    expect(t.results).toBe(p.decisions.length);
    expect(t.resultsKept + t.resultsTruncated + t.resultsDropped).toBe(t.results);
    const byRule = Object.values(t.byRule);
    expect(byRule.reduce((a, r) => a + r.results, 0)).toBe(t.results);
    expect(byRule.reduce((a, r) => a + r.removed, 0)).toBe(t.resultsTruncated + t.resultsDropped);
    expect(byRule.reduce((a, r) => a + r.tokensFreed, 0)).toBe(t.toolTokensBefore - t.toolTokensAfter);
    expect(t.tokensBefore - t.tokensAfter).toBe(t.toolTokensBefore - t.toolTokensAfter);
    const toolBefore = s.messages.reduce((a, m) => a + m.toolResults.reduce((b, r) => b + estimateTextTokens(r.text), 0), 0);
    expect(t.toolTokensBefore).toBe(toolBefore);
    expect(t.resultsDropped).toBeGreaterThan(0);
    expect(p.skipped).toBe(false);
    expect(p.budget).toBeUndefined();
  });

  test("every decision has a rule and a one-line reason", () => {
    const p = plan(generateSession({ seed: 43, host: "codex", results: 80 }));
    for (const d of p.decisions) {
      expect(d.reason.length).toBeGreaterThan(0);
      expect(d.reason).not.toContain("\n");
    }
  });

  test("minRemovalFraction: a pass freeing less than the share is skipped; at or below it, taken", () => {
    const s = generateSession({ seed: 44, results: 100, outputChars: 1500 });
    const p = plan(s);
    const share = (p.totals.toolTokensBefore - p.totals.toolTokensAfter) / p.totals.toolTokensBefore;
    expect(plan(s, { minRemovalFraction: share + 0.01 }).skipped).toBe(true);
    expect(plan(s, { minRemovalFraction: share - 0.01 }).skipped).toBe(false);
  });
});

test("a pass skipped for removing less than minRemovalFraction reaches a budget only if the history was already under it: it is not applied", () => {
  const b = new SessionBuilder().user("start");
  for (let k = 0; k < 8; k++) b.bash(`./gen-${k}`, `generated output ${k}\n`.repeat(200));
  b.assistant("done");
  b.filler(BEYOND_RECENT);
  const s = b.session();
  const before = plan(s).totals.tokensBefore;
  const p = plan(s, { minRemovalFraction: 0.9999, budgetTokens: before - 100 });
  expect(p.skipped).toBe(true);
  expect(p.budget).toEqual({ tokens: before - 100, reached: false });
  expect(apply(s, p)).toEqual([...s.messages]);
  expect(plan(s, { minRemovalFraction: 0.9999, budgetTokens: before + 100 }).budget?.reached).toBe(true);
});
