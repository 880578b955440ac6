// The example corpus embedded in the binary (`bc eval --demo`): small sessions the bc project made
// itself, never third-party files: synthetic ones written in each host's real format
// (test/eval/make-demo.ts), and a real Claude Code session and a real Codex session recorded
// against the end-to-end suite's scripted mock models (test/e2e/record-demo-claude.ts,
// test/e2e/record-demo-codex.ts).
import dueDates from "./claude/example-due-dates.jsonl" with { type: "text" };
import tagCrash from "./claude/example-tag-crash.jsonl" with { type: "text" };
import recordedSumFix from "./claude/recorded-sum-fix.jsonl" with { type: "text" };
import codexRecordedSumFix from "./codex/rollout-2026-11-30T02-43-47-01a22a56-491b-7581-aca8-3d67346846f7.jsonl" with { type: "text" };
import codexDueDates from "./codex/rollout-2025-06-02T14-00-00-0d3e0000-0000-7000-8000-00000000d0e3.jsonl" with { type: "text" };

/** report name → file text */
export const DEMO_FILES: Readonly<Record<string, string>> = {
  "demo/claude/example-due-dates.jsonl": dueDates,
  "demo/claude/example-tag-crash.jsonl": tagCrash,
  "demo/claude/recorded-sum-fix.jsonl": recordedSumFix,
  "demo/codex/rollout-2026-11-30T02-43-47-01a22a56-491b-7581-aca8-3d67346846f7.jsonl": codexRecordedSumFix,
  "demo/codex/rollout-2025-06-02T14-00-00-0d3e0000-0000-7000-8000-00000000d0e3.jsonl": codexDueDates,
};
