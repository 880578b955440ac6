import { describe, expect, test } from "bun:test";
import { apply } from "../../../src/engine/apply.ts";
import { plan } from "../../../src/engine/plan.ts";
import { BEYOND_RECENT, SessionBuilder } from "../support/build.ts";
import { RULES_ONLY_NEED, decisionFor, verdictFor } from "../support/decide.ts";
import { checkFixedPoint } from "../support/laws.ts";

/** A probe's report: `rows` lines, each with a distinctive token, and a line of its own. */
const report = (rows: number, tail: string): string =>
  [...Array.from({ length: rows }, (_, i) => `probe row ${i}: deploy_target_${i} = ${i * 7}`), tail].join("\n");

describe("superseded-run", () => {
  test("a command run again later, whose latest run shows every token of it used since, is dropped", () => {
    const b = new SessionBuilder().user("check the deploy targets");
    const first = b.bash("./probe --all", report(20, "probe finished in 812 ms"));
    b.assistant("deploy_target_3 looks wrong; fixing it.");
    b.filler(3);
    const again = b.bash("./probe --all", report(24, "probe finished in 790 ms"));
    b.assistant("deploy_target_3 and deploy_target_21 are right now.");
    b.filler(BEYOND_RECENT);
    const s = b.session();
    // the reason points at the later run's call, the message before its result
    const callAt = decisionFor(s, again).messageIndex - 1;
    expect(decisionFor(s, first)).toMatchObject({
      action: "drop",
      rule: "superseded-run",
      reason: `run again at #${callAt}, which shows all of it used since`,
    });
    expect(verdictFor(s, again)).toBe("keep referenced");
    // a pass over its own output changes nothing
    const p = plan(s, { needModels: RULES_ONLY_NEED });
    expect(checkFixedPoint(s, apply(s, p), "superseded-run", { needModels: RULES_ONLY_NEED })).toEqual([]);
  });

  test("kept when a token of it used since is one the later run no longer shows", () => {
    const b = new SessionBuilder().user("check the deploy targets");
    const first = b.bash("./probe --all", report(20, "stale_cache_entry found"));
    b.assistant("stale_cache_entry needs clearing.");
    b.filler(3);
    b.bash("./probe --all", report(20, "probe finished in 790 ms"));
    b.assistant("deploy_target_3 is right now.");
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), first)).toBe("keep referenced");
  });

  test("not the same run: another folder, or another command", () => {
    const b = new SessionBuilder().user("check the deploy targets");
    const here = b.call("exec_command", { cmd: "./probe --all", workdir: "/repo/a" }, report(20, "in a"));
    const other = b.bash("./probe --one", report(20, "only one probe ran"));
    b.assistant("deploy_target_3 looks wrong.");
    b.call("exec_command", { cmd: "./probe --all", workdir: "/repo/b" }, report(20, "in b"));
    b.bash("./probe --all", report(20, "all"));
    b.assistant("deploy_target_3 is right now.");
    b.filler(BEYOND_RECENT);
    const s = b.session();
    expect(verdictFor(s, here)).toBe("keep referenced");
    expect(verdictFor(s, other)).toBe("keep referenced");
  });

  test("a later run the rules do not keep whole vouches for nothing", () => {
    const b = new SessionBuilder().user("check the deploy targets");
    const first = b.bash("./probe --all", report(20, "probe finished in 812 ms"));
    b.assistant("deploy_target_3 looks wrong; fixing it.");
    b.filler(3);
    // run again, and nothing after uses it: the lookup drops it (its tokens were known before it)
    const again = b.bash("./probe --all", report(20, "probe finished in 790 ms"));
    b.filler(BEYOND_RECENT);
    b.assistant("deploy_target_3 again.");
    b.filler(BEYOND_RECENT);
    const s = b.session();
    expect(verdictFor(s, again)).toBe("drop unreferenced");
    expect(verdictFor(s, first)).toBe("keep referenced");
  });

  test("a read run twice is superseded-read's to judge, and a short output is left to the other rules", () => {
    const b = new SessionBuilder().user("look");
    const cat = b.bash("cat src/deploy.ts", report(20, "export {}"));
    const short = b.bash("./probe --count", "deploy_targets_total 20");
    b.assistant("deploy_target_3 and deploy_targets_total matter.");
    b.bash("cat src/deploy.ts", report(20, "export {}"));
    b.bash("./probe --count", "deploy_targets_total 20");
    b.assistant("deploy_target_3 and deploy_targets_total still matter.");
    b.filler(BEYOND_RECENT);
    const s = b.session();
    expect(verdictFor(s, cat)).toBe("drop superseded-read");
    expect(decisionFor(s, short).rule).not.toBe("superseded-run");
  });
});
