// The intervals of bc's headline figures: sessions resampled with replacement, seeded.
import { expect, test } from "bun:test";
import { ratioInterval } from "../../src/eval/interval.ts";
import type { SessionReplay } from "../../src/eval/replay.ts";
import { ZERO_TALLY } from "../../src/eval/score.ts";
import { hostIntervals } from "../../src/eval/summary.ts";

test("a pooled ratio's interval: the same units give the same interval; alike units give none to speak of", () => {
  const units: [number, number][] = Array.from({ length: 40 }, (_, i) => [i % 7, 10 + (i % 3)]);
  const a = ratioInterval(units);
  expect(a).toEqual(ratioInterval(units));
  const pooled = units.reduce((n, u) => n + u[0], 0) / units.reduce((n, u) => n + u[1], 0);
  expect(a!.low).toBeLessThan(pooled);
  expect(a!.high).toBeGreaterThan(pooled);
  // another seed draws other samples, but lands near the same place
  const b = ratioInterval(units, 2000, 7)!;
  expect(Math.abs(b.low - a!.low)).toBeLessThan(0.05);
  expect(ratioInterval(Array.from({ length: 12 }, () => [3, 2] as [number, number]))).toEqual({ low: 1.5, high: 1.5 });
  // more units, a narrower interval
  const wide = ratioInterval(units.slice(0, 10))!;
  expect(wide.high - wide.low).toBeGreaterThan(a!.high - a!.low);
  expect(ratioInterval([[1, 2]])).toBeUndefined();
  expect(
    ratioInterval([
      [1, 0],
      [2, 0],
    ]),
  ).toBeUndefined();
});

/** a session replay with one cut: bc's light and pressure tallies and the two pressure ceilings' */
const replay = (light: [number, number], bcLost: number, oracleLost: number, needLost: number): SessionReplay =>
  ({
    cuts: [
      {
        share: 0.5,
        at: 10,
        methods: { rules: { ...ZERO_TALLY, lost: light[0], removed: light[1] } },
        pressure: {
          window: 0,
          budget: 0,
          toFree: 0,
          methods: {
            rules: { ...ZERO_TALLY, lost: bcLost },
            "oracle-to-budget": { ...ZERO_TALLY, lost: oracleLost },
            "need-oracle": { ...ZERO_TALLY, lost: needLost },
          },
        },
      },
    ],
  }) as unknown as SessionReplay;

test("a host's intervals: bc's light lost share, and its losses over each ceiling's, session by session", () => {
  const alike = hostIntervals(Array.from({ length: 8 }, () => replay([1, 50], 6, 4, 5)));
  expect(alike).toEqual({
    lightLostRate: { low: 0.02, high: 0.02 },
    lostOverOracle: { low: 1.5, high: 1.5 },
    lostOverNeedOracle: { low: 1.2, high: 1.2 },
  });
  const mixed = hostIntervals([replay([0, 50], 2, 2, 2), replay([3, 50], 9, 3, 4), replay([1, 50], 4, 4, 4), replay([0, 50], 5, 1, 2)]);
  expect(mixed.lostOverOracle!.low).toBeLessThan(20 / 10);
  expect(mixed.lostOverOracle!.high).toBeGreaterThan(20 / 10);
  // one session: nothing to resample
  expect(hostIntervals([replay([1, 50], 6, 4, 5)])).toEqual({});
});
