// The example corpus embedded in the binary (`bc eval --demo`): small SYNTHETIC sessions the bc
// project wrote itself (test/eval/make-demo.ts) in each host's real format. Never third-party files.
import dueDates from "./claude/example-due-dates.jsonl" with { type: "text" };
import tagCrash from "./claude/example-tag-crash.jsonl" with { type: "text" };
import codexDueDates from "./codex/rollout-2025-06-02T14-00-00-0d3e0000-0000-7000-8000-00000000d0e3.jsonl" with { type: "text" };

/** report name → file text */
export const DEMO_FILES: Readonly<Record<string, string>> = {
  "demo/claude/example-due-dates.jsonl": dueDates,
  "demo/claude/example-tag-crash.jsonl": tagCrash,
  "demo/codex/rollout-2025-06-02T14-00-00-0d3e0000-0000-7000-8000-00000000d0e3.jsonl": codexDueDates,
};
