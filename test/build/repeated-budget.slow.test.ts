// build/repeated-budget.ts: sessions replayed as they grow and compacted to the budget whenever
// they reach it, or as the plugin's loop skips small passes; what it counts, and that what it
// leaves is only originals, notes and byte-for-byte heads.
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { addSession, NO_REPEATS, replayGrowing } from "../../build/repeated-budget.ts";
import { estimateSessionTokens } from "../../src/engine/estimate.ts";
import { readNote } from "../../src/engine/notes.ts";
import { loadSessionFile } from "../../src/hosts/load.ts";

const DEMO = join(import.meta.dir, "..", "..", "src", "eval", "demo");
const demo = ["claude", "codex"].flatMap((h) => readdirSync(join(DEMO, h)).map((f) => loadSessionFile(join(DEMO, h, f)).timeline));
/** the demo sessions are small: a window a quarter of each, however small, makes them compact often */
const TIGHT = 4;
const ANY_WINDOW = 1;

describe("repeated compaction under a budget", () => {
  test("a window the whole session fits under the budget of: no compaction, nothing cut", () => {
    const r = demo.reduce((t, s) => addSession(t, s, 0.5, ANY_WINDOW), NO_REPEATS);
    expect(r).toMatchObject({ sessions: demo.length, compactions: 0, over: 0, overReachable: 0, lost: 0, cutTokens: 0 });
    expect(r.historyTokens).toBe(demo.reduce((t, s) => t + estimateSessionTokens(s).total, 0));
  });

  test("a tight window: compactions, some results cut; every result left is its original, a note, or a byte-for-byte head with its note", () => {
    let compactions = 0;
    let lostIn = 0;
    for (const s of demo) {
      const { compactions: n, over, overReachable, lost, history } = replayGrowing(s, TIGHT, ANY_WINDOW);
      expect(over).toBeLessThanOrEqual(n);
      expect(overReachable).toBeLessThanOrEqual(over);
      compactions += n;
      // a result lost at some compaction stays cut to the end (cuts are never undone)
      const cutAtEnd = new Set(history.flatMap((m) => m.toolResults.filter((r) => readNote(r.text) !== undefined).map((r) => r.callId)));
      for (const id of lost) expect(cutAtEnd.has(id)).toBe(true);
      lostIn += lost.size;
      const original = new Map(s.messages.flatMap((m) => m.toolResults.map((r) => [r.callId, r.text] as const)));
      expect(history.length).toBe(s.messages.length);
      for (const m of history)
        for (const r of m.toolResults) {
          const text = original.get(r.callId)!;
          const note = readNote(r.text);
          if (r.text !== text) expect(note).toBeDefined();
          if (note?.kind === "truncated") expect(text.startsWith(note.head!)).toBe(true);
        }
    }
    expect(compactions).toBeGreaterThan(0);
    const r = demo.reduce((t, s) => addSession(t, s, TIGHT, ANY_WINDOW), NO_REPEATS);
    expect(r.compactions).toBe(compactions);
    expect(r.lost).toBe(lostIn);
    expect(r.cutTokens).toBeGreaterThan(0);
    expect(r.cutTokens).toBeLessThan(r.historyTokens);
  });

  test("a budget smaller than the last messages alone: every compaction over it, none where it could be reached", () => {
    let compactions = 0;
    for (const s of demo) {
      const r = replayGrowing(s, 1000, ANY_WINDOW);
      expect(r.over).toBe(r.compactions);
      expect(r.overReachable).toBe(0);
      compactions += r.compactions;
    }
    expect(compactions).toBeGreaterThan(0);
  });

  test("the plugin's loop: a pass freeing too little is skipped until the history reaches autoAt of the window", () => {
    for (const s of demo) {
      const every = replayGrowing(s, TIGHT, ANY_WINDOW);
      // a pass must free at least nothing: every pass taken, as without the loop
      expect(replayGrowing(s, TIGHT, ANY_WINDOW, { minFreed: 0, autoAt: 100 }).compactions).toBe(every.compactions);
      // no pass frees 100 windows (the whole session is TIGHT of them), nor reaches 100: none taken
      expect(replayGrowing(s, TIGHT, ANY_WINDOW, { minFreed: 100, autoAt: 100 }).compactions).toBe(0);
      // past autoAt (here: anything over the budget) every pass is taken however little it frees
      expect(replayGrowing(s, TIGHT, ANY_WINDOW, { minFreed: 100, autoAt: 0 }).compactions).toBe(every.compactions);
    }
    expect(demo.some((s) => replayGrowing(s, TIGHT, ANY_WINDOW).compactions > 0)).toBe(true);
  });
});
