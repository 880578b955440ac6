// What bc removed, by the rule that removed it: the per-rule tallies add up to bc's own row in
// each mode, name the rules the engine decided with, and reach the reports.
import { describe, expect, test } from "bun:test";
import type { Message } from "../../src/engine/types.ts";
import { UNNAMED_RULE, type SessionReplay } from "../../src/eval/replay.ts";
import { summarizeRules } from "../../src/eval/summary.ts";
import { codexSection, outputsUsedLater, pair, removalsOf, replayedAtTwoCuts, sized, totalOf } from "./build.ts";

/** 60 shell outputs, a few used right after them and three used only after the cut; a new task every ten */
const messages = (): Message[] =>
  outputsUsedLater(
    60,
    (i) => ({ messages: pair(`c${i}`, "Bash", { command: `step ${i}` }, sized(`output_number_${i}`, 300 + 40 * i)), name: `output_number_${i}` }),
    ["again output_number_1 and output_number_2", "and output_number_7"],
  );

describe.each(["claude", "codex"] as const)("%s", (host) => {
  test("the per-rule tallies add up to bc's row in each mode, under the engine's rule names", () => {
    const r = replayedAtTwoCuts(messages(), host);
    for (const mode of ["light", "pressure"] as const) {
      const rows = r.byRule.filter((t) => t.mode === mode);
      const t = totalOf(r, mode);
      expect(t.removed).toBeGreaterThan(0);
      expect(removalsOf(rows)).toEqual(removalsOf(t));
      expect(rows.map((x) => x.rule)).not.toContain(UNNAMED_RULE);
    }
    // the budget takes more than the rules alone: the escalation has its own row
    expect(r.byRule.some((t) => t.mode === "pressure" && t.rule === "escalation" && t.removed > 0)).toBe(true);
    expect(r.byRule.some((t) => t.mode === "light" && t.rule === "escalation")).toBe(false);
    // every miss in the list names the rule that removed it, one of those in the tallies
    const named = new Set(r.byRule.map((t) => `${t.mode} ${t.rule}`));
    for (const m of r.rulesMisses) expect(named.has(`${m.mode} ${m.rule}`)).toBe(true);
  });
});

test("the pressure mode loses something here, and the tallies say which rule lost it", () => {
  const r = replayedAtTwoCuts(messages(), "codex");
  const lost = totalOf(r, "pressure").lost;
  expect(lost).toBeGreaterThan(0);
  const lostRules = r.rulesMisses.filter((m) => m.mode === "pressure" && m.lost).map((m) => m.rule);
  for (const rule of new Set(lostRules))
    expect(r.byRule.find((t) => t.mode === "pressure" && t.rule === rule)!.lost).toBe(lostRules.filter((x) => x === rule).length);
});

test("over sessions: summed per rule and mode, rates and shares of the mode's freed tokens, most lost first, then most freed", () => {
  const a: SessionReplay = { ...replayedAtTwoCuts(messages(), "codex"), byRule: [] };
  const sessions: SessionReplay[] = [
    {
      ...a,
      byRule: [
        { mode: "light", rule: "unreferenced", removed: 10, scorable: 8, lost: 1, tokensFreed: 600 },
        { mode: "light", rule: "superseded-read", removed: 5, scorable: 5, lost: 0, tokensFreed: 400 },
        { mode: "light", rule: "unneeded", removed: 9, scorable: 1, lost: 0, tokensFreed: 100 },
        { mode: "pressure", rule: "escalation", removed: 4, scorable: 4, lost: 2, tokensFreed: 3000 },
      ],
    },
    { ...a, byRule: [{ mode: "light", rule: "unreferenced", removed: 30, scorable: 20, lost: 3, tokensFreed: 900 }] },
  ];
  expect(summarizeRules(sessions)).toEqual([
    { mode: "light", rule: "unreferenced", removed: 40, scorable: 28, lost: 4, tokensFreed: 1500, lostRate: 0.1, freedShare: 0.75 },
    { mode: "light", rule: "superseded-read", removed: 5, scorable: 5, lost: 0, tokensFreed: 400, lostRate: 0, freedShare: 0.2 },
    { mode: "light", rule: "unneeded", removed: 9, scorable: 1, lost: 0, tokensFreed: 100, lostRate: 0, freedShare: 0.05 },
    { mode: "pressure", rule: "escalation", removed: 4, scorable: 4, lost: 2, tokensFreed: 3000, lostRate: 0.5, freedShare: 1 },
  ]);
});

test("report.md shows the by-rule table per host, and names the rule beside each loss", () => {
  const { md, section, pressure } = codexSection(messages(), (r) => ({ byRule: summarizeRules([r]) }), "## What bc removed, by rule");
  expect(section).toContain("### Codex, light compaction");
  expect(section).toContain("| rule | removed | of which scorable | lost | lost % | share of bc's freed tokens |");
  expect(pressure).toMatch(/\n\| escalation \| \d+ \| \d+ \| \d+ \|/);
  const lostLine = md.split("\n").find((l) => l.startsWith("- s1.jsonl at") && l.includes("(pressure)"));
  expect(lostLine).toMatch(/\(Bash, [a-z-]+\)/);
});
