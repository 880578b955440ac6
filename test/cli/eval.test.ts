// bc eval's flag readers and its progress line, without running an eval.
import { expect, test } from "bun:test";
import { parsePressure, progressLine } from "../../src/cli/eval.ts";
import { BcError } from "../../src/util/errors.ts";

test("--pressure must be above the budget's share of the window (60%) and at most 1; given empty, it is a usage error", () => {
  expect(parsePressure(undefined)).toBe(0.95);
  expect(parsePressure("0.61")).toBe(0.61);
  expect(parsePressure("1")).toBe(1);
  for (const bad of ["0.6", "0.5", "0.1", "", " "]) {
    const e = (() => {
      try {
        parsePressure(bad);
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(BcError);
    expect({ bad, code: (e as BcError).code, message: (e as BcError).message }).toMatchObject({
      bad,
      code: "usage",
      message: expect.stringContaining("0.6 (60% of the window)"),
    });
  }
});

test("the progress line fits the terminal's width, one column spare, so a redraw never wraps; with no width, as wide as it always was", () => {
  const name = "claude/0e818656-46dd-4357-83f8-afce5b4edc6f.jsonl";
  expect(progressLine(5, 50, name)).toBe(`[###.........................] 5/50 ${name}`);
  for (const columns of [200, 100, 80, 60, 40, 30, 20, 12, 8]) {
    const line = progressLine(5, 50, name, columns);
    expect({ columns, width: line.length }).toEqual({ columns, width: Math.min(line.length, columns - 1) });
    expect(line).toContain(columns >= 12 ? "5/50" : "5/5");
  }
  // the name gives way before the bar; the bar goes when too short to read
  expect(progressLine(5, 50, name, 60)).toBe("[###.........................] 5/50 …3f8-afce5b4edc6f.jsonl");
  expect(progressLine(5, 50, name, 45)).toBe("[##..............] 5/50 …-afce5b4edc6f.jsonl");
  expect(progressLine(5, 50, name, 30)).toBe("5/50 …83f8-afce5b4edc6f.jsonl");
  // measured in terminal cells: a CJK name's characters take two each, an emoji is never split
  const wide = `claude/${"日本語".repeat(10)}.jsonl`;
  for (const columns of [80, 60, 40]) expect(Bun.stringWidth(progressLine(5, 50, wide, columns))).toBeLessThanOrEqual(columns - 1);
  expect(progressLine(5, 50, "aaaaaaaaaaaaaaa😀😀😀.jsonl", 40)).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
});
