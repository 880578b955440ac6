import { describe, expect, test } from "bun:test";
import { DROP_AT, KEEP_AT } from "../../../src/engine/need/sharpen.ts";
import { DEFAULT_OPTIONS } from "../../../src/engine/types.ts";
import { BEYOND_RECENT, SessionBuilder } from "../support/build.ts";
import { decisionFor } from "../support/decide.ts";
import { constantNeed } from "../support/need-models.ts";
import { bothOf } from "../../../src/engine/need/model.ts";

const LOG = Array.from({ length: 40 }, (_, i) => `step ${i}: wrote build/part_${i}.o`).join("\n");

/** An old output no later step uses (the rules drop it), and two fresh ones past the pinned last messages (the rules keep them: too recent). */
const session = () => {
  const b = new SessionBuilder().user("build it");
  const old = b.bash("./build.sh", LOG);
  b.assistant("The build went fine.");
  b.filler(BEYOND_RECENT);
  const fresh = b.bash("./build.sh --again", LOG.replaceAll("part_", "piece_"));
  const tiny = b.bash("./status.sh", "ok: 3 parts");
  b.filler(DEFAULT_OPTIONS.pinLastMessages);
  return { s: b.session(), old, fresh, tiny };
};

describe("the need score sharpening the rules", () => {
  test("an unreferenced result is kept from KEEP_AT up, with the score in its reason; dropped just under it", () => {
    const { s, old } = session();
    expect(decisionFor(s, old, { needModels: bothOf(constantNeed(KEEP_AT * 0.99)) })).toMatchObject({ action: "drop", rule: "unreferenced" });
    const kept = decisionFor(s, old, { needModels: bothOf(constantNeed(Math.min(0.999, KEEP_AT * 1.01))) });
    expect(kept).toMatchObject({ action: "keep", rule: "likely-needed" });
    expect(kept.reason).toMatch(/^no token of it used later, but results like it are used again \(need \d+%\)$/);
  });

  test("so is a re-runnable output the rules cut to its head: kept whole from KEEP_AT up", () => {
    const b = new SessionBuilder().user("what changed?");
    const gitLog = b.bash("git log --oneline -n 40", Array.from({ length: 40 }, (_, i) => `abc${1000 + i} add feature_flag_${i}`).join("\n"));
    b.assistant("feature_flag_39 is the newest.");
    b.filler(BEYOND_RECENT);
    const s = b.session();
    expect(decisionFor(s, gitLog, { needModels: bothOf(constantNeed(KEEP_AT * 0.99)) })).toMatchObject({ action: "truncate", rule: "re-runnable" });
    const kept = decisionFor(s, gitLog, { needModels: bothOf(constantNeed(Math.min(0.999, KEEP_AT * 1.01))) });
    expect(kept).toMatchObject({ action: "keep", rule: "likely-needed" });
    expect(kept.reason).toMatch(/^git bookkeeping: re-run `git log --oneline -n 40` for a fresh answer, but results like it are used again \(need \d+%\)$/);
  });

  test("a result kept for want of evidence is dropped at DROP_AT and under, kept just over it", () => {
    const { s, fresh } = session();
    expect(decisionFor(s, fresh, { needModels: bothOf(constantNeed(DROP_AT * 1.01)) })).toMatchObject({ action: "keep", rule: "too-recent" });
    const dropped = decisionFor(s, fresh, { needModels: bothOf(constantNeed(DROP_AT * 0.99)) });
    expect(dropped).toMatchObject({ action: "drop", rule: "unneeded" });
    expect(dropped.reason).toContain("results like it are seldom used again (need");
  });

  test("a small output no use was found of is dropped at DROP_AT and under, kept just over it: the rules leave it to the score", () => {
    const b = new SessionBuilder().user("build it");
    const small = b.bash("./build.sh --quiet", LOG.split("\n").slice(0, 8).join("\n"));
    b.assistant("The build went fine.");
    b.filler(BEYOND_RECENT);
    const s = b.session();
    expect(decisionFor(s, small, { needModels: bothOf(constantNeed(DROP_AT * 1.01)) })).toMatchObject({ action: "keep", rule: "small" });
    const dropped = decisionFor(s, small, { needModels: bothOf(constantNeed(DROP_AT * 0.99)) });
    expect(dropped).toMatchObject({ action: "drop", rule: "unneeded" });
    expect(dropped.reason).toMatch(
      /^no token of it used later, but small \(\d+ chars\): only a sure need score drops it; results like it are seldom used again \(need \d+%\)$/,
    );
  });

  test("a result a later reply quotes is never dropped by the score, however sure it is", () => {
    const b = new SessionBuilder().user("build it");
    b.filler(BEYOND_RECENT);
    const fresh = b.bash("./build.sh --again", LOG.replaceAll("part_", "piece_"));
    b.assistant("It printed:\nstep 12: wrote build/piece_12.o\nas expected.");
    b.filler(DEFAULT_OPTIONS.pinLastMessages);
    const s = b.session();
    const kept = decisionFor(s, fresh, { needModels: bothOf(constantNeed(DROP_AT * 0.99)) });
    expect(kept).toMatchObject({ action: "keep", rule: "too-recent" });
    // the control: the same session without the quote drops it
    const unquoted = { ...s, messages: s.messages.map((m) => (m.text.includes("It printed:") ? { ...m, text: "It built." } : m)) };
    expect(decisionFor(unquoted, fresh, { needModels: bothOf(constantNeed(DROP_AT * 0.99)) })).toMatchObject({ action: "drop", rule: "unneeded" });
  });

  test("an output too small to be worth a note stays, however sure the score", () => {
    const { s, tiny } = session();
    expect(decisionFor(s, tiny, { needModels: bothOf(constantNeed(1e-6)) })).toMatchObject({ action: "keep", rule: "too-recent" });
  });

  test("a result with evidence of use is never dropped by the score, nor a pinned one", () => {
    const b = new SessionBuilder().user("build it");
    const used = b.bash("./build.sh", LOG);
    b.assistant("build/part_7.o is the one that changed.");
    const failed = b.bash("./test.sh", "FAILED: 2 tests", { isError: true });
    b.filler(BEYOND_RECENT);
    const s = b.session();
    expect(decisionFor(s, used, { needModels: bothOf(constantNeed(1e-6)) })).toMatchObject({ action: "keep", rule: "referenced" });
    expect(decisionFor(s, failed, { needModels: bothOf(constantNeed(1e-6)) }).action).toBe("keep");
  });
});
