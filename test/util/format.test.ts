// Numbers as people read them: token and character counts, counts with their noun.
import { expect, test } from "bun:test";
import { counted, tokenCount } from "../../src/util/format.ts";

test("tokenCount: exact below a thousand, then one decimal of k, then two of M", () => {
  expect(tokenCount(999_960)).toBe("1.00M"); // not "1000.0k"
  expect([0, 12.4, 950, 1_000, 12_345, 999_949, 1_000_000, 26_340_000].map((n) => tokenCount(n))).toEqual([
    "0",
    "12",
    "950",
    "1.0k",
    "12.3k",
    "999.9k",
    "1.00M",
    "26.34M",
  ]);
});

test("tokenCount with exactBelow: exact figures up to the bound, the same k and M above it", () => {
  const table = (n: number): string => tokenCount(n, { exactBelow: 10_000 });
  expect([950, 9_999, 10_000, 14_549, 2_500_000].map(table)).toEqual(["950", "9999", "10.0k", "14.5k", "2.50M"]);
});

test("counted: the noun singular for one, plural otherwise, the figure with thousands separators", () => {
  expect([0, 1, 2, 1_234].map((n) => counted(n, "session"))).toEqual(["0 sessions", "1 session", "2 sessions", "1,234 sessions"]);
  expect(counted(1, "match", "matches")).toBe("1 match");
  expect(counted(3, "match", "matches")).toBe("3 matches");
});
