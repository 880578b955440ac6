// What `bc calibrate` calls a weak spot of the shipped weights, tool by tool.
import { expect, test } from "bun:test";
import { weakness } from "../../src/cli/calibrate.ts";
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
