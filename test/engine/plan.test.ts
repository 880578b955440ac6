import { describe, expect, test } from "bun:test";
import { estimateTextTokens } from "../../src/engine/estimate.ts";
import { plan } from "../../src/engine/plan.ts";
import { SessionBuilder, fileLines, numbered } from "./support/build.ts";
import { generateSession } from "./support/generate.ts";

const big = (tag: string, n = 40) => Array.from({ length: n }, (_, i) => `${tag} line ${i} of output that nobody will mention again`).join("\n");

const LISTING = Array.from({ length: 40 }, (_, i) => `-rw-r--r-- 1 dev staff 100 listed_file_${i}.txt`).join("\n");

/** oldest first: a listing, a read re-read later (changed, so not superseded), then recent unreferenced outputs */
const escalationSession = () => {
  const b = new SessionBuilder().user("go");
  b.filler(2);
  const listing = b.bash("ls -la", LISTING);
  const readA = b.read("/r/a.ts", numbered(fileLines("alpha", 30)));
  b.assistant("I will look at listed_file_3.txt and alphaValue3 next."); // both referenced: kept by the rules
  b.call("Edit", { file_path: "/r/a.ts", old_string: "x", new_string: "y" }, "ok");
  b.filler(6);
  const recent = b.bash("./report", big("report"));
  b.read("/r/a.ts", numbered(fileLines("alphb", 30)));
  b.filler(3);
  return { session: b.session(), listing, readA, recent };
};

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

  test("escalation: an impossible budget cuts everything allowed, never pins or never-drop beyond a head, and says so", () => {
    const { session } = escalationSession();
    const none = plan(session, { budgetTokens: 1 });
    expect(none.budget).toEqual({ tokens: 1, reached: false });
    for (const d of none.decisions) {
      if (d.rule === "pinned") expect(d.action).toBe("keep");
      if (d.rule === "never-drop") expect(d.action).toBe("keep");
    }
    expect(none.decisions.filter((d) => d.rule === "escalation").length).toBeGreaterThan(0);
  });
});
