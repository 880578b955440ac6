// The decision table as a person reads it (`bc plan`), for a small session that exercises
// every rule: one snapshot, reviewed by eye, so a change in what the rules decide shows here
// as a readable diff.
import { expect, test } from "bun:test";
import { renderPlan } from "../../src/cli/plan.ts";
import { plan } from "../../src/engine/plan.ts";
import { DEFAULT_OPTIONS } from "../../src/engine/types.ts";
import { SessionBuilder, fileLines, numbered } from "./support/build.ts";
import { RULES_ONLY_NEED } from "./support/decide.ts";

const session = () => {
  const b = new SessionBuilder().user("Fix the failing build of the widget app.");
  const widget = numbered(fileLines("widget", 40));
  b.read("/repo/src/widget.ts", widget); // #1-2: read again unchanged below
  b.bash("./build.sh --verbose", "compiling...\nwrote /repo/dist/widget-bundle.js\nentry renderWidgetPanel\ndone");
  b.call("Glob", { pattern: "src/**/*.ts" }, "/repo/src/widget.ts\n/repo/src/panel-layout.ts\n/repo/src/index.ts");
  b.bash(
    "./nightly --report",
    [
      "nightly report: everything nominal, nothing else to say about it today at all.",
      "all jobs green, the queue is empty, backups verified, no alerts fired overnight, nothing waiting on anyone.",
      "the weekly digest went out on time and nobody replied with questions about it.",
      "disk usage stayed flat across every host in the pool during the whole run.",
      "the backup window closed early because there was little new data to copy.",
      "three retries happened in the fetch stage and each one succeeded on its own.",
      "the mail relay drained its queue before midnight and stayed idle after that.",
      "the report ends here and the next run is planned for tomorrow night as usual.",
    ].join("\n"),
  );
  b.bash(
    "./health --quick",
    "health check: every service answered in time, nothing is queued, nothing waits on anyone.\nthe pool is quiet, the caches are warm, and the last deploy settled without a single retry.\nnext check in an hour.",
  );
  b.bash(
    "git status",
    `On branch main\nChanges not staged for commit:\n  modified:   src/panel-layout.ts\n${"  modified:   src/unrelated-file-number.ts\n".repeat(8)}`,
  );
  b.bash("npm run lint", "lint: 3 problems\nerror src/panel-layout.ts:12 unexpected any", { isError: true });
  b.call(
    "AskUserQuestion",
    { questions: [{ question: "Keep the old panel?" }] },
    "The user answered: drop the old panel, keep the new layout exactly as it is.",
  );
  b.read("/repo/src/widget.ts", widget); // the latest read of the file
  b.assistant("The bundle /repo/dist/widget-bundle.js exports renderWidgetPanel; fixing src/panel-layout.ts next.");
  b.user("Good, carry on.");
  b.filler(DEFAULT_OPTIONS.recentResults);
  return b.session();
};

// (the rules' own verdicts: the need score's sharpening has tests of its own)
test("the decision table for a session that exercises every rule", () => {
  expect(renderPlan(plan(session(), { needModels: RULES_ONLY_NEED }))).toBe(EXPECTED);
});

const EXPECTED = [
  "index  tool             chars  action    rule             reason",
  "#2     Read              2849  drop      superseded-read  re-read at #18, unchanged",
  '#4     Bash                75  keep      referenced       "/repo/dist/widget-bundle.js" used at #19',
  "#6     Glob                64  keep      discovery        a search or listing (64 chars): later steps reach for the names it shows",
  "#8     Bash               646  drop      unreferenced     no token of it used later",
  "#10    Bash               204  keep      small            no token of it used later, but small (204 chars): only a sure need score drops it",
  "#12    Bash               424  truncate  re-runnable      git bookkeeping: re-run `git status` for a fresh answer",
  "#14    Bash                60  keep      pinned           an error result",
  "#16    AskUserQuestion     76  keep      never-drop       a person's answer (AskUserQuestion): re-running does not bring it back",
  "#18    Read              2849  keep      latest-read      latest read of /repo/src/widget.ts",
  "#22    Bash                 4  keep      too-recent       only 19 tool results after it",
  "#24    Bash                 5  keep      too-recent       only 18 tool results after it",
  "#26    Bash                 5  keep      too-recent       only 17 tool results after it",
  "#28    Bash                 5  keep      too-recent       only 16 tool results after it",
  "#30    Bash                 5  keep      too-recent       only 15 tool results after it",
  "#32    Bash                 5  keep      too-recent       only 14 tool results after it",
  "#34    Bash                 5  keep      too-recent       only 13 tool results after it",
  "#36    Bash                 5  keep      too-recent       only 12 tool results after it",
  "#38    Bash                 5  keep      too-recent       only 11 tool results after it",
  "#40    Bash                 5  keep      too-recent       only 10 tool results after it",
  "#42    Bash                 5  keep      too-recent       only 9 tool results after it",
  "#44    Bash                 5  keep      too-recent       only 8 tool results after it",
  "#46    Bash                 5  keep      too-recent       only 7 tool results after it",
  "#48    Bash                 5  keep      too-recent       only 6 tool results after it",
  "#50    Bash                 5  keep      too-recent       only 5 tool results after it",
  "#52    Bash                 5  keep      too-recent       only 4 tool results after it",
  "#54    Bash                 5  keep      too-recent       only 3 tool results after it",
  "#56    Bash                 5  keep      pinned           in the last 6 messages",
  "#58    Bash                 5  keep      pinned           in the last 6 messages",
  "#60    Bash                 5  keep      pinned           in the last 6 messages",
  "",
  "results: 29 (kept 26, truncated 1, dropped 2)",
  "tool output: 1853 -> 963 tokens (48.0% freed)",
  "whole history: 2093 -> 1203 tokens (42.5% freed)",
  "by rule:",
  "  superseded-read      1 result  (1 cut)        700 tokens freed",
  "  unreferenced         1 result  (1 cut)        149 tokens freed",
  "  re-runnable          1 result  (1 cut)         41 tokens freed",
  "  too-recent          17 results                  0 tokens freed",
  "  pinned               4 results                  0 tokens freed",
  "  referenced           1 result                   0 tokens freed",
  "  discovery            1 result                   0 tokens freed",
  "  small                1 result                   0 tokens freed",
  "  never-drop           1 result                   0 tokens freed",
  "  latest-read          1 result                   0 tokens freed",
].join("\n");
