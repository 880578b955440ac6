// What bc calibrate asks of held-out sessions: bc's losses under a budget with given need weights,
// beside oracle-to-budget's, counted as bc eval's pressure mode counts them.
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { addBudgetLosses, budgetLosses, heldOutBudgetLosses, NO_BUDGET_LOSSES } from "../../src/eval/budget-losses.ts";
import { foldOf } from "../../src/engine/need/fit.ts";
import { rulesCompactor } from "../../src/eval/methods/engine.ts";
import { ORACLE_TO_BUDGET } from "../../src/eval/methods/budget.ts";
import { RULES_ID, replaySession } from "../../src/eval/replay.ts";
import { loadSessionFile } from "../../src/hosts/load.ts";
import { bothOf } from "../../src/engine/need/model.ts";
import { constantNeed, modelOn } from "../engine/support/need-models.ts";
import { totalOf } from "./build.ts";

const DEMO = join(import.meta.dir, "..", "..", "src", "eval", "demo");
const demoFiles = ["claude", "codex"].flatMap((host) => readdirSync(join(DEMO, host)).map((f) => join(DEMO, host, f)));
const demoSessions = demoFiles.map((f) => loadSessionFile(f).timeline);

/** Two models that rank differently: by size alone, and the same need for every result. */
const BY_SIZE = bothOf(modelOn("log_chars", 1, -8));
const FLAT = bothOf(constantNeed(0.3));

describe("budgetLosses", () => {
  test("per model, what bc eval's pressure mode counts with that model: lost and budget reached; oracle-to-budget's lost once", () => {
    let compared = 0;
    // a Claude Code session (bc is the plugin there) and a Codex one (bc is plan with the budget)
    const hosts = new Set<string>();
    for (const timeline of demoSessions.filter((s) => !hosts.has(s.host) && hosts.add(s.host))) {
      const got = budgetLosses(timeline, [BY_SIZE, FLAT]);
      const replays = [BY_SIZE, FLAT].map((needModels) =>
        replaySession(
          { host: timeline.host, id: timeline.id, file: "f.jsonl", timeline, compactions: [] },
          { cuts: [0.5, 0.7, 0.9], methods: [RULES_ID], passes: [], compact: rulesCompactor, pressure: 0.95, needModels },
        ),
      );
      expect(got.cuts).toBe(totalOf(replays[0]!, "pressure").cuts);
      expect(got.lost).toEqual(replays.map((r) => totalOf(r, "pressure").lost));
      expect(got.reached).toEqual(replays.map((r) => totalOf(r, "pressure").reached));
      expect(got.oracleLost).toBe(totalOf(replays[0]!, "pressure", ORACLE_TO_BUDGET.id).lost);
      compared += got.cuts;
    }
    expect([...hosts].sort()).toEqual(["claude", "codex"]);
    expect(compared).toBeGreaterThan(0);
  });

  test("the two models' losses differ somewhere on the demo sessions, so the comparison above can tell them apart", () => {
    const total = demoSessions.reduce((t, s) => addBudgetLosses(t, budgetLosses(s, [BY_SIZE, FLAT])), NO_BUDGET_LOSSES(2));
    expect(total.lost[0]).not.toBe(total.lost[1]);
  });

  test("the cuts and the pressure asked for: no cut, nothing counted; a history nearer the budget is cut less and loses less", () => {
    const s = demoSessions[0]!;
    expect(budgetLosses(s, [FLAT], { cuts: [] })).toEqual(NO_BUDGET_LOSSES(1));
    expect(budgetLosses(s, [FLAT], { cuts: [0.9] }).cuts).toBe(1);
    const at = (pressure: number) => demoSessions.reduce((t, x) => addBudgetLosses(t, budgetLosses(x, [FLAT], { pressure })), NO_BUDGET_LOSSES(1));
    const full = at(0.95);
    const near = at(0.61);
    expect(near.cuts).toBe(full.cuts);
    expect(near.reached[0]).toBeGreaterThan(full.reached[0]!);
    expect(near.lost[0]).toBeLessThan(full.lost[0]!);
  });

  test("held out: each session ranked by the baseline and by its own fold's model, summed; a fold without a model left out", () => {
    // groups chosen so that the two folds each hold some of the demo sessions
    const sessions = demoFiles.map((path, i) => ({ path, group: `session ${i}` }));
    const fold = sessions.map((s) => foldOf(s.group, 2));
    expect(new Set(fold).size).toBe(2);
    const expected = (models: readonly (typeof FLAT)[]) =>
      demoSessions.reduce((t, timeline, i) => addBudgetLosses(t, budgetLosses(timeline, [BY_SIZE, models[fold[i]!]!])), NO_BUDGET_LOSSES(2));
    const seen: number[] = [];
    expect(heldOutBudgetLosses(sessions, [FLAT, BY_SIZE], BY_SIZE, (k) => seen.push(k))).toEqual(expected([FLAT, BY_SIZE]));
    expect(seen).toEqual(sessions.map((_, k) => k));
    // the other way round is another answer: which model ranks which session shows in the sums
    expect(heldOutBudgetLosses(sessions, [BY_SIZE, FLAT], BY_SIZE)).not.toEqual(expected([FLAT, BY_SIZE]));
    const oneFold = heldOutBudgetLosses(sessions, [FLAT, undefined], BY_SIZE);
    const inFold0 = sessions.filter((_, i) => fold[i] === 0).reduce((t, s) => t + budgetLosses(loadSessionFile(s.path).timeline, [FLAT]).cuts, 0);
    expect(oneFold.cuts).toBe(inFold0);
  });
});
