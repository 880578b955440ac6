// Names only results hold, and the escalation that weighs a result's need by the share of its
// names no other kept result holds.
import { describe, expect, test } from "bun:test";
import { Coverage, SAMPLE_CHARS, WHOLE } from "../../src/engine/coverage.ts";
import { plan } from "../../src/engine/plan.ts";
import { SessionFacts } from "../../src/engine/session-facts.ts";
import { DEFAULT_OPTIONS } from "../../src/engine/types.ts";
import { SessionBuilder } from "./support/build.ts";
import { constantNeed } from "./support/need-models.ts";
import { bothOf } from "../../src/engine/need/model.ts";

/** Coverage of a session whose results are all kept whole and all asked for. */
const allKept = (b: SessionBuilder): Coverage =>
  new Coverage(
    new SessionFacts(b.session(), DEFAULT_OPTIONS),
    () => WHOLE,
    () => true,
  );

/** The same need for every result. */
const FLAT = constantNeed(0.5);

const body = (names: readonly string[], rows: number): string =>
  Array.from({ length: rows }, (_, i) => `${names[i % names.length]} = ${i}; // row ${"x".repeat(40)}`).join("\n");

describe("Coverage", () => {
  const facts = () => {
    const b = new SessionBuilder().user("start");
    b.bash("cat a", "alpha_one beta_two gamma_three");
    b.bash("cat b", "alpha_one beta_two other_name");
    b.bash("cat c", "gamma_three mentioned_name");
    b.assistant("I will look at mentioned_name next.");
    return new SessionFacts(b.session(), DEFAULT_OPTIONS);
  };

  test("a name prose holds is nobody's own; a name two kept results hold is neither's", () => {
    const c = new Coverage(
      facts(),
      () => WHOLE,
      () => true,
    );
    // a: alpha_one, beta_two (both in b), gamma_three (in c): none its own
    expect(c.ownShare(0)).toBe(0);
    // b: other_name alone is its own
    expect(c.ownShare(1)).toBeCloseTo(1 / 3);
    // c: gamma_three is in a too; mentioned_name is in prose: it has one name, not its own
    expect(c.ownShare(2)).toBe(0);
  });

  test("long numbers are names too (a port, an id); short ones are not", () => {
    const b = new SessionBuilder().user("start");
    b.bash("ss -l", "listening on 48213, pid 771");
    b.bash("curl localhost", "connected to 48213 after 12 ms");
    b.bash("cat ids", "request 90817 and 48213");
    const c = allKept(b);
    // 48213 is held by all three; 771 and 12 are too short to be names
    expect(c.ownShare(0)).toBe(0);
    expect(c.ownShare(1)).toBe(0);
    // 90817 is the third's own
    expect(c.ownShare(2)).toBeCloseTo(1 / 2);
    c.release(1);
    c.release(2);
    expect(c.ownShare(0)).toBe(1);
  });

  test("a cut result no longer holds its names: the others' become their own", () => {
    const c = new Coverage(
      facts(),
      () => WHOLE,
      () => true,
    );
    c.release(1);
    expect(c.ownShare(0)).toBeCloseTo(2 / 3);
    c.release(2);
    expect(c.ownShare(0)).toBe(1);
    // releasing twice changes nothing
    c.release(2);
    expect(c.ownShare(0)).toBe(1);
  });

  test("a result that holds nothing (already cut by the rules) is asked about without counting as a holder", () => {
    const c = new Coverage(
      facts(),
      (item) => (item.ordinal === 1 ? 0 : WHOLE),
      () => true,
    );
    // b's other_name is held by nobody; alpha_one and beta_two by a
    expect(c.ownShare(1)).toBeCloseTo(1 / 3);
    // a alone holds alpha_one and beta_two now; c holds gamma_three too
    expect(c.ownShare(0)).toBeCloseTo(2 / 3);
  });

  test("a head still shows the names in it: a result cut to its head shows them, and cutting one to a head hides only the names past it", () => {
    const b = new SessionBuilder().user("start");
    b.bash("cat a", `head_name_one ${"-".repeat(100)} tail_name_one`);
    b.bash("cat b", "head_name_one tail_name_one");
    const facts = new SessionFacts(b.session(), DEFAULT_OPTIONS);
    // a is truncated to its first 20 characters: it shows head_name_one, not tail_name_one
    const c = new Coverage(
      facts,
      (item) => (item.ordinal === 0 ? 20 : WHOLE),
      () => true,
    );
    expect(c.ownShare(1)).toBeCloseTo(1 / 2);
    // cutting b to a head of 14 characters would hide tail_name_one only
    expect(c.ownShare(1, 14)).toBeCloseTo(1 / 2);
    expect(c.ownShare(1, 1000)).toBe(0);
    c.release(1, 14);
    // tail_name_one is now shown by nobody (a would hide it), head_name_one still by b.s head
    expect(c.ownShare(0)).toBeCloseTo(1 / 2);
    c.release(1);
    expect(c.ownShare(0)).toBe(1);
  });

  test(`names are read from the first ${SAMPLE_CHARS} characters only`, () => {
    const b = new SessionBuilder().user("start");
    b.bash("cat far", `${"-".repeat(SAMPLE_CHARS)} far_away_name`);
    b.bash("cat near", "far_away_name near_name");
    const c = allKept(b);
    expect(c.ownShare(1)).toBe(1);
  });
});

describe("the escalation weighs need by names held nowhere else", () => {
  test("at equal need and size, a result whose names another kept result shows goes before one with names of its own", () => {
    const b = new SessionBuilder().user("start");
    const shared = ["copy_name_a", "copy_name_b", "copy_name_c"];
    const own = ["mine_name_a", "mine_name_b", "mine_name_c"];
    // the result with names of its own comes first: an equal cost would cut it first (each opens
    // with a header, so that a head keeps none of the names)
    const header = `${"#".repeat(300)}\n`;
    const mine = b.bash("./dump own", header + body(own, 30));
    const copy = b.bash("./dump shared", header + body(shared, 30));
    // the pinned last messages hold the shared names too
    b.assistant("next");
    b.filler(4);
    b.bash("./dump shared again", body(shared, 3));
    b.assistant("done");
    const s = b.session();
    const rules = plan(s, { needModels: bothOf(FLAT) });
    const p = plan(s, { needModels: bothOf(FLAT), budgetTokens: rules.totals.tokensAfter - 50 });
    const escalated = p.decisions.filter((d) => d.rule === "escalation").map((d) => d.callId);
    expect(escalated).toEqual([copy]);
    expect(p.decisions.find((d) => d.callId === copy)!.reason).toContain("0% of its names past its head held nowhere else");
    expect(p.decisions.find((d) => d.callId === mine)!.escalationOrder).toBeGreaterThan(p.decisions.find((d) => d.callId === copy)!.escalationOrder!);
  });
});
