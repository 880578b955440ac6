// What the engine shares between results and what it stops looking for: a result repeating an
// earlier result's text (sameText, and the plan that uses it), and a candidate the matcher is told
// to retire. Both must change no answer; plans are compared with the reference mode.
import { describe, expect, test } from "bun:test";
import { CandidateMatcher } from "../../src/engine/lookup/candidate-matcher.ts";
import { SessionFacts } from "../../src/engine/session-facts.ts";
import { planWith } from "../../src/engine/plan.ts";
import { DEFAULT_OPTIONS, type Session } from "../../src/engine/types.ts";
import { BEYOND_RECENT, SessionBuilder } from "./support/build.ts";

/** Texts of one length whose first and last characters and sampled places agree: they differ only at `at`. */
const lookAlike = (k: number, at = 500): string => {
  const base = Array.from({ length: 40 }, (_, i) => `line ${String(i).padStart(2, "0")} of the output: value_${i}_long`).join("\n");
  return base.slice(0, at) + String.fromCharCode(65 + (k % 26)) + base.slice(at + 1);
};

const sessionOf = (texts: readonly string[]): Session => {
  const b = new SessionBuilder();
  b.user("start");
  texts.forEach((t, i) => b.call("Bash", { command: `./show ${i}` }, t));
  for (let i = 0; i < BEYOND_RECENT; i++) b.call("Bash", { command: `echo ${i}` }, String(i));
  b.assistant("done");
  return { host: "claude", id: "repeats", messages: b.messages };
};

describe("results that repeat an earlier result's text", () => {
  test("equal texts are known as equal, look-alikes are not, even past the few look-alikes compared", () => {
    // ten look-alikes (one length, one fingerprint), then a repeat of the first: more than the
    // look-alikes a result is compared with, so the repeat is not matched by fingerprint alone
    const texts = [...Array.from({ length: 10 }, (_, k) => lookAlike(k)), lookAlike(0), lookAlike(9)];
    expect(new Set(texts.map((t) => t.length)).size).toBe(1);
    const facts = new SessionFacts(sessionOf(texts), DEFAULT_OPTIONS, "fast");
    const items = facts.items;
    for (let a = 0; a < texts.length; a++)
      for (let b = 0; b < texts.length; b++) expect(facts.lookup.sameText(items[a]!, items[b]!)).toBe(texts[a] === texts[b]);
  });

  test("plans over repeats and look-alikes equal the reference plans", () => {
    const texts = [...Array.from({ length: 10 }, (_, k) => lookAlike(k, 100 + k * 37)), lookAlike(0, 100), lookAlike(3, 211), lookAlike(3, 211)];
    const b = new SessionBuilder();
    b.user("start");
    texts.forEach((t, i) => {
      b.call("Bash", { command: `./show ${i}` }, t);
      if (i % 3 === 0) b.assistant(`Noted value_${i}_long and \`line ${String(i).padStart(2, "0")} of the output: value_${i}_long\`.`);
    });
    for (let i = 0; i < BEYOND_RECENT; i++) b.call("Bash", { command: `echo ${i}` }, String(i));
    b.assistant("done");
    const s: Session = { host: "claude", id: "repeats", messages: b.messages };
    const fast = planWith(s, undefined, "fast");
    expect(JSON.stringify(fast)).toBe(JSON.stringify(planWith(s, undefined, "reference")));
    expect(fast.decisions.some((d) => d.rule === "never-drop" && d.reason.startsWith("quoted"))).toBe(true);
  });
});

describe("CandidateMatcher.retire", () => {
  const text = "see src/app.ts and fooBar_baz, then 12345 and fooBar_baz again";

  test("a retired candidate is not found again; the others still are, in order", () => {
    const m = new CandidateMatcher(["src/app.ts", "fooBar_baz", "12345"]);
    expect(m.tokensIn(text)).toEqual(["src/app.ts", "fooBar_baz", "12345"]);
    const id = [0, 1, 2].find((k) => m.textOf(k) === "fooBar_baz")!;
    m.retire(id);
    expect(m.tokensIn(text)).toEqual(["src/app.ts", "12345"]);
    m.retire(id);
    expect(m.tokensIn(text)).toEqual(["src/app.ts", "12345"]);
    expect(m.lastFound.map((k) => m.textOf(k))).toEqual(["src/app.ts", "12345"]);
  });

  test("retiring every candidate leaves nothing to find", () => {
    const m = new CandidateMatcher(["src/app.ts", "fooBar_baz", "12345"]);
    for (let k = 0; k < m.size; k++) m.retire(k);
    expect(m.tokensIn(text)).toEqual([]);
    expect(m.lastFound).toEqual([]);
  });
});
