// What bc removed, by the rule that removed it: the per-rule tallies add up to bc's own row in
// each mode, name the rules the engine decided with, and reach the reports.
import { describe, expect, test } from "bun:test";
import type { Host, Message } from "../../src/engine/types.ts";
import { rulesCompactor } from "../../src/eval/methods/engine.ts";
import { replaySession, UNNAMED_RULE, type SessionReplay } from "../../src/eval/replay.ts";
import { renderMarkdown } from "../../src/eval/report/markdown.ts";
import { addTally, ZERO_TALLY, type Tally } from "../../src/eval/score.ts";
import { summarizeRules } from "../../src/eval/summary.ts";
import type { EvalReport } from "../../src/eval/run.ts";
import { filler, pair, prompt, reply, session } from "./build.ts";

/** a text of exactly `tokens` estimated tokens whose first line names `name` */
const sized = (name: string, tokens: number): string => `${name}\n`.padEnd(tokens * 4, "x");

/** 60 shell outputs, a few used right after them and three used only after the cut; a new task every ten */
const messages = (): Message[] => [
  prompt("start"),
  ...Array.from({ length: 60 }, (_, i) => [
    ...pair(`c${i}`, "Bash", { command: `step ${i}` }, sized(`output_number_${i}`, 300 + 40 * i)),
    ...(i % 5 === 0 ? [reply(`looked at output_number_${i}`)] : []),
    ...(i % 10 === 9 ? [prompt(`next task ${i}`)] : []),
  ]).flat(),
  ...filler(6),
  reply("again output_number_1 and output_number_2"),
  reply("and output_number_7"),
  reply("done"),
];

const replayed = (host: Host): SessionReplay =>
  replaySession(
    { host, id: "s1", file: "s1.jsonl", timeline: session(messages(), "s1", host), compactions: [] },
    { cuts: [0.5, 0.9], methods: ["rules"], passes: [], compact: rulesCompactor, pressure: 0.95 },
  );

const total = (r: SessionReplay, mode: "light" | "pressure"): Tally =>
  r.cuts.reduce((t, c) => {
    const here = mode === "light" ? c.methods.rules : c.pressure?.methods.rules;
    return here === undefined ? t : addTally(t, here);
  }, ZERO_TALLY);

describe.each(["claude", "codex"] as const)("%s", (host) => {
  test("the per-rule tallies add up to bc's row in each mode, under the engine's rule names", () => {
    const r = replayed(host);
    for (const mode of ["light", "pressure"] as const) {
      const rows = r.byRule.filter((t) => t.mode === mode);
      const t = total(r, mode);
      expect(t.removed).toBeGreaterThan(0);
      expect(rows.reduce((n, x) => n + x.removed, 0)).toBe(t.removed);
      expect(rows.reduce((n, x) => n + x.scorable, 0)).toBe(t.scorable);
      expect(rows.reduce((n, x) => n + x.lost, 0)).toBe(t.lost);
      expect(rows.reduce((n, x) => n + x.tokensFreed, 0)).toBe(t.tokensFreed);
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
  const r = replayed("codex");
  const lost = total(r, "pressure").lost;
  expect(lost).toBeGreaterThan(0);
  const lostRules = r.rulesMisses.filter((m) => m.mode === "pressure" && m.lost).map((m) => m.rule);
  for (const rule of new Set(lostRules))
    expect(r.byRule.find((t) => t.mode === "pressure" && t.rule === rule)!.lost).toBe(lostRules.filter((x) => x === rule).length);
});

test("over sessions: summed per rule and mode, rates and shares of the mode's freed tokens, most lost first, then most freed", () => {
  const a: SessionReplay = { ...replayed("codex"), byRule: [] };
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
  const r = replayed("codex");
  const report = {
    version: "0",
    yardstick: "v1",
    corpus: { kind: "files", fingerprint: "f", files: 1, sessions: 1, skipped: [], malformedLines: [], filteredOut: 0 },
    parameters: { cuts: [0.5, 0.9], passes: [], methods: [], ceilings: [], leftOut: [], pressure: null },
    hosts: [
      {
        host: "codex",
        sessions: 1,
        methods: [],
        compactions: {
          compactions: 0,
          needed: 0,
          keptByHost: 0,
          keptByRules: 0,
          tokensBefore: 0,
          hostTokensAfter: 0,
          rulesTokensFreed: 0,
          hostFreedShareMean: 0,
          rulesFreedShareMean: 0,
        },
        passes: [],
        recall: { removed: 0, recalled: 0 },
        byRule: summarizeRules([r]),
      },
    ],
    sessions: [r],
  } as unknown as EvalReport;
  const md = renderMarkdown(report);
  const section = md.slice(md.indexOf("## What bc removed, by rule"));
  expect(section).toContain("### Codex, light compaction");
  expect(section).toContain("| rule | removed | of which scorable | lost | lost % | share of bc's freed tokens |");
  const pressure = section.slice(section.indexOf("### Codex, under pressure"));
  expect(pressure).toMatch(/\n\| escalation \| \d+ \| \d+ \| \d+ \|/);
  const lostLine = md.split("\n").find((l) => l.startsWith("- s1.jsonl at") && l.includes("(pressure)"));
  expect(lostLine).toMatch(/\(Bash, [a-z-]+\)/);
});
