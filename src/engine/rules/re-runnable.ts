// Cheaply re-runnable: git status/log/branch/diff --stat and passing test runs are cut to their
// head: running them again gives a fresher answer than the old output. A listing (ls, pwd) is
// as cheap to re-run, but the agent goes on to use the names it shows: cut to its head it lost
// more per token freed than anything else the rules cut, on both hosts' sessions, so it is
// judged like any other output (kept while a later step uses it, dropped when none does).
// (The only rule that truncates; a read is never re-runnable, so a read stays whole.)
import { passed } from "../result-text.ts";
import type { Rule } from "./rule.ts";

export const reRunnable: Rule = {
  id: "re-runnable",
  decide({ facts, item }) {
    const kind = item.meaning.rerunnable;
    if (kind === undefined || kind === "listing") return undefined;
    if (kind === "test" && !passed(item.result.text, item.result.isError)) return undefined;
    const what = kind === "test" ? "a passing test run" : "git bookkeeping";
    return {
      action: "truncate",
      rule: "re-runnable",
      reason: `${what}: re-run \`${oneLine(item.meaning.command ?? "")}\` for a fresh answer`,
      headChars: facts.options.truncateHeadChars,
    };
  },
};

const oneLine = (s: string): string => {
  const l = s.replace(/\s+/g, " ").trim();
  return l.length > 40 ? `${l.slice(0, 39)}…` : l;
};
