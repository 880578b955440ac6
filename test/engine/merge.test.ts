import { describe, expect, test } from "bun:test";
import { DEFAULT_KEEP, mergeVerdict, settle } from "../../src/engine/merge.ts";
import { dropNote, truncatedText } from "../../src/engine/notes.ts";
import type { Verdict } from "../../src/engine/rules/rule.ts";

const v = (action: Verdict["action"], rule: Verdict["rule"]): Verdict =>
  action === "truncate" ? { action, rule, reason: rule, headChars: 200 } : { action, rule, reason: rule };

const SUPERSEDED = v("drop", "superseded-read");
const LATEST = v("keep", "latest-read");
const REF = v("keep", "referenced");
const UNREF = v("drop", "unreferenced");
const RERUN = v("truncate", "re-runnable");

/** A ladder's verdicts merged in order (what plan() does between locking rules and guards). */
const mergeAll = (verdicts: readonly (Verdict | undefined)[]): Verdict =>
  verdicts.reduce<Verdict | undefined>((d, v) => mergeVerdict(d, v), undefined) ?? DEFAULT_KEEP;

describe("merge: the first rule that decides wins; a later rule may only move keep -> truncate", () => {
  test.each<[string, (Verdict | undefined)[], Verdict]>([
    ["nothing decides: default keep", [undefined, undefined], DEFAULT_KEEP],
    ["keep then truncate: truncate", [REF, RERUN], RERUN],
    ["keep then drop: keep", [LATEST, UNREF], LATEST],
    ["drop then truncate: drop", [UNREF, RERUN], UNREF],
    ["truncate then drop: truncate", [RERUN, UNREF], RERUN],
    ["first keep stays the keep's rule until a truncate", [LATEST, REF], LATEST],
    ["superseded drop stays", [SUPERSEDED, REF, RERUN], SUPERSEDED],
  ])("%s", (_name, verdicts, expected) => {
    expect(mergeAll(verdicts)).toEqual(expected);
  });

  test("no sequence of verdicts moves a decision back toward keep", () => {
    const all = [undefined, SUPERSEDED, LATEST, REF, UNREF, RERUN];
    const rank = { keep: 0, truncate: 1, drop: 2 };
    for (const a of all)
      for (const b of all)
        for (const c of all) {
          const ab = mergeAll([a, b]);
          const abc = mergeAll([a, b, c]);
          if (ab !== DEFAULT_KEEP) expect(rank[abc.action]).toBeGreaterThanOrEqual(rank[ab.action]);
        }
  });
});

describe("settle: the fixed-point laws", () => {
  const long = "x".repeat(1000);
  test("a truncate that shortens stays", () => {
    expect(settle(RERUN, long, false, "c1")).toEqual(RERUN);
  });
  test("a truncate that would not shorten the text becomes a keep", () => {
    const short = "y".repeat(250);
    expect(truncatedText(short, 200, "c1").length).toBeGreaterThanOrEqual(short.length);
    expect(settle(RERUN, short, false, "c1")).toMatchObject({ action: "keep", rule: "re-runnable" });
  });
  test("a drop of a result less than twice as long as its note becomes a keep", () => {
    expect(settle(UNREF, "ok", false, "c1")).toMatchObject({ action: "keep", rule: "unreferenced" });
    // 80 chars: its 45-char note would shorten it, but free less than the note costs again
    expect(dropNote(80, "c1").length).toBe(45);
    expect(settle(UNREF, "z".repeat(80), false, "c1")).toMatchObject({ action: "keep", rule: "unreferenced", reason: expect.stringContaining("worth a note") });
    expect(settle(UNREF, "z".repeat(89), false, "c1")).toMatchObject({ action: "keep" });
    expect(settle(UNREF, "z".repeat(90), false, "c1")).toEqual(UNREF);
  });
  test.each([
    ["a truncated result", truncatedText(long, 200, "c1")],
    ["a dropped result", dropNote(1000, "c1")],
    ["a first-format dropped result", "[output removed by better-compaction: 1000 chars; re-run the call to see it]"],
    ["a first-format truncated result", `${long.slice(0, 200)}\n[output truncated by better-compaction: 800 chars removed; re-run the call to see it]`],
  ])("any cut of %s (an earlier pass's work) becomes a keep: no rule rewrites the note", (_name, text) => {
    expect(settle(RERUN, text, true, "c1")).toMatchObject({ action: "keep", rule: "already-cut" });
    expect(settle(UNREF, text, true, "c1")).toMatchObject({ action: "keep", rule: "already-cut" });
  });

  test("a note a rule would keep is said as the note it is, naming that rule; a pinned note stays a pin", () => {
    const note = dropNote(1000, "c1");
    expect(settle(LATEST, note, true, "c1")).toEqual({ action: "keep", rule: "already-cut", reason: "cut by an earlier pass (latest-read keeps it)" });
    expect(settle(REF, truncatedText(long, 200, "c1"), true, "c1")).toMatchObject({
      rule: "already-cut",
      reason: expect.stringContaining("referenced keeps it"),
    });
    const pin: Verdict = { action: "keep", rule: "pinned", reason: "pinned" };
    expect(settle(pin, note, true, "c1")).toEqual(pin);
    // not cut: the keeping rule as it was
    expect(settle(LATEST, note, false, "c1")).toEqual(LATEST);
  });
});
