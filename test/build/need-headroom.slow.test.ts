// build/need-headroom.ts: the shipped need score moved toward the truth, and what the engine
// loses with it under a budget, counted as bc eval counts its rows.
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { addSession, emptyHeadroom, SHIFTS, shifted } from "../../build/need-headroom.ts";
import { rulesCompactor } from "../../src/eval/methods/engine.ts";
import { NEED_ORACLE } from "../../src/eval/methods/bc-pressure.ts";
import { ORACLE_TO_BUDGET } from "../../src/eval/methods/budget.ts";
import { RULES_ID, replaySession } from "../../src/eval/replay.ts";
import { loadSessionFile } from "../../src/hosts/load.ts";
import { totalOf } from "../eval/build.ts";

const DEMO = join(import.meta.dir, "..", "..", "src", "eval", "demo");

describe("need headroom", () => {
  test("a shift moves a need toward the truth: none leaves it, a larger one moves it further, the largest is the truth", () => {
    expect(shifted(0.3, true, 0)).toBe(0.3);
    expect(shifted(0.3, false, 0)).toBe(0.3);
    expect(shifted(0.3, true, 1)).toBeGreaterThan(0.3);
    expect(shifted(0.3, true, 2)).toBeGreaterThan(shifted(0.3, true, 1));
    expect(shifted(0.3, false, 1)).toBeLessThan(0.3);
    expect(shifted(0.3, false, 2)).toBeLessThan(shifted(0.3, false, 1));
    expect(shifted(0.3, true, Number.POSITIVE_INFINITY)).toBe(1);
    expect(shifted(0.3, false, Number.POSITIVE_INFINITY)).toBe(0);
    // log-odds: 0.5 moved by ln 3 is 0.75
    expect(shifted(0.5, true, Math.log(3))).toBeCloseTo(0.75, 12);
  });

  test("on Codex sessions: no shift loses what bc loses, the largest what need-oracle loses; oracle-to-budget as bc eval counts it", () => {
    const dir = join(DEMO, "codex");
    let h = emptyHeadroom();
    let bc = 0;
    let needOracle = 0;
    let oracle = 0;
    for (const f of readdirSync(dir)) {
      const timeline = loadSessionFile(join(dir, f)).timeline;
      h = addSession(h, timeline);
      const r = replaySession(
        { host: "codex", id: timeline.id, file: f, timeline, compactions: [] },
        { cuts: [0.5, 0.7, 0.9], methods: [RULES_ID], passes: [], compact: rulesCompactor, pressure: 0.95 },
      );
      bc += totalOf(r, "pressure").lost;
      needOracle += totalOf(r, "pressure", NEED_ORACLE.id).lost;
      oracle += totalOf(r, "pressure", ORACLE_TO_BUDGET.id).lost;
    }
    expect(h.cuts).toBeGreaterThan(0);
    expect(h.lost[0]).toBe(bc);
    expect(h.lost[SHIFTS.length - 1]).toBe(needOracle);
    expect(h.oracleLost).toBe(oracle);
  });

  test("the ranking within cuts: the truth orders every used result above every unused one, the shipped score not all", () => {
    const dir = join(DEMO, "claude");
    // every result counts as large here: the example sessions hold few of 4,000+ characters
    const h = readdirSync(dir).reduce((acc, f) => addSession(acc, loadSessionFile(join(dir, f)).timeline, 0.95, 0), emptyHeadroom());
    expect(h.pairs).toBeGreaterThan(0);
    expect(h.rightPairs[SHIFTS.length - 1]).toBe(h.pairs);
    expect(h.rightPairs[0]).toBeLessThan(h.pairs);
    // each shift orders at least as many pairs right as the one before
    for (let i = 1; i < SHIFTS.length; i++) expect(h.rightPairs[i]).toBeGreaterThanOrEqual(h.rightPairs[i - 1]!);
  });
});
