// What bc eval's pool starts next: the largest file that fits beside what is in flight, any one
// when nothing is, none when nothing fits; and how much may be in flight.
import { expect, test } from "bun:test";
import { defaultInFlightBytes, nextJob } from "../../src/eval/pool.ts";

// file indexes largest first, as the pool orders them
const sizes = [10, 300, 50, 120];
const queue = [1, 3, 2, 0];

test("nothing in flight: the largest file not taken, however large", () => {
  expect(nextJob(queue, sizes, [false, false, false, false], 0, 100)).toBe(0);
  expect(nextJob(queue, sizes, [true, false, false, false], 0, 100)).toBe(1);
});

test("beside files in flight: the largest that fits, or none", () => {
  expect(nextJob(queue, sizes, [true, false, false, false], 300, 420)).toBe(1);
  expect(nextJob(queue, sizes, [true, false, false, false], 300, 360)).toBe(2);
  expect(nextJob(queue, sizes, [true, false, true, false], 300, 360)).toBe(3);
  expect(nextJob(queue, sizes, [true, false, false, false], 300, 305)).toBe(-1);
  expect(nextJob(queue, sizes, [true, true, true, true], 0, 100)).toBe(-1);
});

test("what may be in flight follows the free memory, never under 64 MB", () => {
  expect(defaultInFlightBytes(0)).toBe(64 * 2 ** 20);
  expect(defaultInFlightBytes(40 * 2 ** 30)).toBe(Math.floor((40 * 2 ** 30) / 200));
});
