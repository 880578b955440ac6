// What `bc calibrate` calls a weak spot of the shipped weights, tool by tool, and what it advises.
import { expect, test } from "bun:test";
import { advice, type BudgetFigures, closingLines, weakness } from "../../src/cli/calibrate.ts";
import type { ToolScore } from "../../src/engine/need/fit.ts";

const tool = (over: Partial<ToolScore>): ToolScore => ({ tool: "Read", samples: 100, usedShare: 0.5, meanNeed: 0.5, auc: 0.9, unknownTool: false, ...over });

test("a tool ranked well and scored near how often it is used is no weak spot, known or not", () => {
  expect(weakness(tool({}))).toBeUndefined();
  expect(weakness(tool({ unknownTool: true }))).toBeUndefined();
  // never used (no AUC) and scored as such
  expect(weakness(tool({ auc: Number.NaN, usedShare: 0, meanNeed: 0.02 }))).toBeUndefined();
});

test("ranked poorly, or scored far from how often it is used; a tool bc knows no meaning for says so", () => {
  expect(weakness(tool({ auc: 0.6 }))).toBe("ranked poorly (AUC 0.600)");
  expect(weakness(tool({ meanNeed: 0.3, usedShare: 0.7 }))).toBe("scored 30% on average, used 70%");
  expect(weakness(tool({ auc: 0.5, unknownTool: true }))).toBe("ranked poorly (AUC 0.500); bc knows no meaning for it, so it is scored by size and age alone");
});

const budget = (shipped: number, refit: number): BudgetFigures => ({
  pressure: 0.95,
  budgetPercent: 60,
  cuts: 30,
  shipped: { lost: shipped, reached: 30 },
  refit: { lost: refit, reached: 30 },
  oracleLost: 5,
});

test("a refit is advised only when it loses clearly fewer results at the budget: 5% fewer and at least 2", () => {
  expect(advice(budget(100, 95))).toBe("a refit loses 5 fewer results at the budget on held-out sessions: write it with --write");
  expect(advice(budget(10, 8))).toBe("a refit loses 2 fewer results at the budget on held-out sessions: write it with --write");
  expect(advice(budget(100, 96))).toBe("a refit loses about as much at the budget on held-out sessions (4 fewer): keep the shipped weights");
  expect(advice(budget(10, 9))).toBe("a refit loses about as much at the budget on held-out sessions (1 fewer): keep the shipped weights");
  expect(advice(budget(10, 10))).toBe("a refit loses about as much at the budget on held-out sessions (0 fewer): keep the shipped weights");
  expect(advice(budget(10, 13))).toBe("a refit loses 3 more results at the budget on held-out sessions: keep the shipped weights");
  expect(advice(budget(10, 11))).toBe("a refit loses 1 more result at the budget on held-out sessions: keep the shipped weights");
});

test("--write where the figures advise against a refit: written, and the advice is said beside it; where they advise it, only what was written", () => {
  const against = closingLines({ budget: budget(10, 10), written: "/w.json" });
  expect(against[0]).toBe(
    "a refit loses about as much at the budget on held-out sessions (0 fewer): keep the shipped weights (written all the same, as --write asks)",
  );
  expect(against[1]).toStartWith("wrote /w.json: ");
  expect(closingLines({ budget: undefined, written: "/w.json" })[0]).toEndWith("keep the shipped weights (written all the same, as --write asks)");
  expect(closingLines({ budget: budget(100, 90), written: "/w.json" })[0]).toStartWith("wrote /w.json: ");
  expect(closingLines({ budget: budget(100, 90) })).toEqual(["a refit loses 10 fewer results at the budget on held-out sessions: write it with --write"]);
});
