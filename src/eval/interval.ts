// How far a pooled figure could move with other sessions: the sessions resampled with
// replacement (a bootstrap over sessions, the unit a person's corpus varies by), the figure
// recomputed for each draw, and the middle 95% of those values kept. Seeded: the same sessions
// give the same interval, run after run.

export interface Interval {
  /** the 2.5th and the 97.5th percentile of the figure over the draws */
  readonly low: number;
  readonly high: number;
}

export const BOOTSTRAP_DRAWS = 2000;

/** A small, fast, seeded generator of numbers in [0, 1) (mulberry32). */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/**
 * The interval of a pooled ratio sum(a) / sum(b) over units (one [a, b] per session): undefined
 * with fewer than two units, or when most draws have nothing to divide by.
 */
export const ratioInterval = (units: readonly (readonly [number, number])[], draws = BOOTSTRAP_DRAWS, seed = 1): Interval | undefined => {
  if (units.length < 2) return undefined;
  const next = seededRandom(seed);
  const values: number[] = [];
  for (let d = 0; d < draws; d++) {
    let a = 0;
    let b = 0;
    for (let i = 0; i < units.length; i++) {
      const u = units[Math.floor(next() * units.length)]!;
      a += u[0];
      b += u[1];
    }
    if (b > 0) values.push(a / b);
  }
  if (values.length < draws / 2) return undefined;
  values.sort((x, y) => x - y);
  const at = (q: number): number => values[Math.min(values.length - 1, Math.max(0, Math.round(q * (values.length - 1))))]!;
  return { low: at(0.025), high: at(0.975) };
};
