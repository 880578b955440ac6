import { describe, expect, test } from "bun:test";
import { DEFAULT_KEEP, mergeVerdicts, settle } from "../../src/engine/merge.ts";
import { dropNote, truncatedText } from "../../src/engine/notes.ts";
import type { Verdict } from "../../src/engine/rules/rule.ts";

const v = (action: Verdict["action"], rule: Verdict["rule"]): Verdict =>
  action === "truncate" ? { action, rule, reason: rule, headChars: 200 } : { action, rule, reason: rule };

const PIN = v("keep", "pinned");
const NEVER = v("keep", "never-drop");
const SUPERSEDED = v("drop", "superseded-read");
const LATEST = v("keep", "latest-read");
const REF = v("keep", "referenced");
const UNREF = v("drop", "unreferenced");
const RERUN = v("truncate", "re-runnable");

const free = { supersedesAnother: false };

describe("merge: the first rule that decides wins; a later rule may only move keep -> truncate", () => {
  test.each<[string, (Verdict | undefined)[], Verdict]>([
    ["nothing decides: default keep", [undefined, undefined], DEFAULT_KEEP],
    ["pinned beats a truncate", [PIN, RERUN], PIN],
    ["never-drop beats a drop", [NEVER, UNREF], NEVER],
    ["never-drop beats a truncate", [NEVER, RERUN], NEVER],
    ["keep then truncate: truncate", [REF, RERUN], RERUN],
    ["keep then drop: keep", [LATEST, UNREF], LATEST],
    ["drop then truncate: drop", [UNREF, RERUN], UNREF],
    ["truncate then drop: truncate", [RERUN, UNREF], RERUN],
    ["first keep stays the keep's rule until a truncate", [LATEST, REF], LATEST],
    ["superseded drop stays", [SUPERSEDED, REF, RERUN], SUPERSEDED],
  ])("%s", (_name, verdicts, expected) => {
    expect(mergeVerdicts(verdicts, free)).toEqual(expected);
  });

  test("a read that superseded another cannot be truncated", () => {
    expect(mergeVerdicts([LATEST, RERUN], { supersedesAnother: true })).toEqual(LATEST);
    expect(mergeVerdicts([undefined, RERUN], { supersedesAnother: true })).toEqual(DEFAULT_KEEP);
  });

  test("no sequence of verdicts moves a decision back toward keep", () => {
    const all = [undefined, PIN, NEVER, SUPERSEDED, LATEST, REF, UNREF, RERUN];
    const rank = { keep: 0, truncate: 1, drop: 2 };
    for (const a of all)
      for (const b of all)
        for (const c of all) {
          const ab = mergeVerdicts([a, b], free);
          const abc = mergeVerdicts([a, b, c], free);
          if (ab.rule === "pinned" || ab.rule === "never-drop") expect(abc).toEqual(ab);
          else if (ab !== DEFAULT_KEEP) expect(rank[abc.action]).toBeGreaterThanOrEqual(rank[ab.action]);
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
  test("a drop that would not shorten the text becomes a keep", () => {
    expect(settle(UNREF, "ok", false, "c1")).toMatchObject({ action: "keep", rule: "unreferenced" });
    expect(settle(UNREF, "z".repeat(dropNote(200, "c1").length + 1), false, "c1")).toEqual(UNREF);
  });
  test.each([
    ["a truncated result", truncatedText(long, 200, "c1")],
    ["a dropped result", dropNote(1000, "c1")],
    ["a first-format dropped result", "[output removed by better-compaction: 1000 chars; re-run the call to see it]"],
    ["a first-format truncated result", `${long.slice(0, 200)}\n[output truncated by better-compaction: 800 chars removed; re-run the call to see it]`],
  ])("any cut of %s (an earlier pass's work) becomes a keep: the note is never rewritten", (_name, text) => {
    expect(settle(RERUN, text, true, "c1")).toMatchObject({ action: "keep", rule: "already-cut" });
    expect(settle(UNREF, text, true, "c1")).toMatchObject({ action: "keep", rule: "already-cut" });
  });
});
