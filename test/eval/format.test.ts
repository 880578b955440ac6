// The sentences that set bc beside its ceilings, on made-up rows.
import { expect, test } from "bun:test";
import { ceilingSentences, cutShare, lostOverCeiling, recallSentence } from "../../src/eval/report/format.ts";
import { ZERO_TALLY } from "../../src/eval/score.ts";
import { type HostSummary, type MethodSummary, summarizeTallies } from "../../src/eval/summary.ts";

const row = (method: string, kind: MethodSummary["kind"], removed: number, lost: number): MethodSummary =>
  summarizeTallies(method, kind, [{ ...ZERO_TALLY, cuts: 1, removed, lost, tokensBefore: 1000, tokensFreed: 400 }]);

const host = (pressure: MethodSummary[]): HostSummary => ({
  host: "codex",
  sessions: 1,
  methods: [],
  pressure,
  compactions: {} as never,
  passes: [],
  recall: { removed: 0, recalled: 0 },
  byRule: [],
});

test("bc beside a ceiling: results lost against results lost at the same budget, not the shares of what each removed", () => {
  // bc removes 100 and loses 30 (30%); the ceiling removes 300 and loses 20 (6.7%): 1.5x the results, 4.5x the share
  const h = host([row("rules", "method", 100, 30), row("oracle-to-budget", "ceiling", 300, 20), row("need-oracle", "ceiling", 200, 24)]);
  expect(lostOverCeiling(h)).toBe(1.5);
  expect(lostOverCeiling(h, "need-oracle")).toBe(1.25);
  const sentence = ceilingSentences(h).find((s) => s.startsWith("under pressure"));
  expect(sentence).toContain("bc loses 30 results, 30.00% of what it removes; 1.50× the 20 the oracle-to-budget ceiling loses at the same budget");
  expect(sentence).toContain("need-oracle loses 24, 1.20× the ceiling's");
  // with the interval over resampled sessions beside it
  const spread = ceilingSentences({ ...h, intervals: { lostOverOracle: { low: 1.2, high: 1.9 } } }).find((x) => x.startsWith("under pressure"));
  expect(spread).toContain("at the same budget (1.20-1.90× in 95% of resamplings of the sessions; with each result's need known");
  // a ceiling that lost nothing gives no multiple
  expect(lostOverCeiling(host([row("rules", "method", 100, 30), row("oracle-to-budget", "ceiling", 300, 0)]))).toBeUndefined();
  expect(lostOverCeiling(host([row("rules", "method", 100, 30)]))).toBeUndefined();
});

test("light: beside the lost share of all it removes, the share of what the yardstick can judge, and the lost share of that", () => {
  // bc removes 200 and loses 3 (1.50%); 60 of the 200 hold a token the yardstick counts: 30%, of which 3 lost (5.00%)
  const bc = summarizeTallies("rules", "method", [{ ...ZERO_TALLY, cuts: 1, removed: 200, scorable: 60, lost: 3, tokensBefore: 1000, tokensFreed: 100 }]);
  expect(bc).toMatchObject({ lostRate: 0.015, scorableShare: 0.3, lostOfScorable: 0.05 });
  const head = summarizeTallies("oracle-head", "ceiling", [{ ...ZERO_TALLY, cuts: 1, removed: 500, tokensBefore: 1000, tokensFreed: 400 }]);
  const h: HostSummary = { ...host([]), methods: [bc, head] };
  const light = ceilingSentences(h).find((s) => s.startsWith("light"));
  expect(light).toContain("lose 1.50% of what they remove.");
  expect(light).toContain("Of what they remove, 30% holds a token the yardstick counts (the rest can never count as lost); of that, they lose 5.00%.");
  // a summary that counted no scorable removal (the hosts' own) says nothing of it
  const none = summarizeTallies("rules", "method", [{ ...ZERO_TALLY, cuts: 1, removed: 200, lost: 3, tokensBefore: 1000, tokensFreed: 100 }]);
  expect(ceilingSentences({ ...h, methods: [none, head] }).find((s) => s.startsWith("light"))).not.toContain("yardstick counts");
});

test("a cut's share is said as given: never rounded onto another share, or to 0% or 100%", () => {
  expect([0.5, 0.7, 0.9, 0.29].map(cutShare)).toEqual(["50%", "70%", "90%", "29%"]);
  expect([0.501, 0.0001, 0.9999].map(cutShare)).toEqual(["50.1%", "0.01%", "99.99%"]);
});

test("under pressure, the cuts bc did not bring to the budget: those the plugin answered over it and those it handed to Claude Code's summary, each counted", () => {
  const bc = (answeredOver: number, handovers: number) =>
    summarizeTallies("rules", "method", [
      { ...ZERO_TALLY, cuts: 10, reached: 10 - answeredOver - handovers, answeredOver, handovers, tokensBefore: 1000, tokensFreed: 400 },
    ]);
  const sentence = (answeredOver: number, handovers: number) =>
    ceilingSentences({ ...host([bc(answeredOver, handovers), row("oracle-to-budget", "ceiling", 300, 20)]), host: "claude" }).find((s) =>
      s.startsWith("under pressure"),
    )!;
  expect(sentence(3, 2)).toContain(
    "it reached the budget itself at 50% of cuts, answered 3 more with its own rows over the budget (under handOverAbovePercent) and handed 2 to Claude Code's summary",
  );
  expect(sentence(3, 0)).toEndWith(
    "it reached the budget itself at 70% of cuts and answered 3 more with its own rows over the budget (under handOverAbovePercent).",
  );
  expect(sentence(0, 2)).toContain("it reached the budget itself at 80% of cuts and handed 2 to Claude Code's summary");
  expect(sentence(0, 0)).toEndWith("it reached the budget itself at 100% of cuts.");
});

test("what recall gave back, said for each mode where bc removed something, and not where it removed nothing or was not checked", () => {
  const h = { recall: { removed: 1200, recalled: 1200 }, recallPressure: { removed: 40, recalled: 39 } };
  expect(recallSentence(h, "light")).toBe(
    "Of the 1,200 results bc removed or truncated at these cuts, `bc recall` gives back 1,200 (100.0%) byte for byte from the file the host keeps.",
  );
  expect(recallSentence(h, "pressure")).toBe(
    "Of the 40 results bc removed or truncated to the budget, `bc recall` gives back 39 (97.5%) byte for byte from the file the host keeps.",
  );
  expect(recallSentence({ recall: { removed: 0, recalled: 0 } }, "light")).toBeUndefined();
  expect(recallSentence({ recall: { removed: 3, recalled: 3 } }, "pressure")).toBeUndefined();
});
