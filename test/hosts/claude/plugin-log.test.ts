// The decision log: where it lives, how lines are appended under $.fs's 4 MiB cap, how it reads.
import { expect, test } from "bun:test";
import { appendRecord, claudeDirOf, formatRecord, logPathFor, type DecisionRecord } from "../../../src/hosts/claude/decision-log.ts";
import { parseLog } from "../../../src/hosts/claude/decision-log-read.ts";

const record = (over: Partial<DecisionRecord> = {}): DecisionRecord => ({
  v: 1,
  at: "2026-11-30T02:00:00.000Z",
  sessionId: "s-1",
  trigger: "manual",
  outcome: "compacted",
  reason: "1 results dropped, 0 truncated; freed 5 points of the window",
  rowsIn: 44,
  rowsOut: 44,
  tokensBefore: 14549,
  tokensAfter: 13543,
  freedPercent: 5,
  window: 20000,
  budgetTokens: 12000,
  escalated: false,
  ms: 4.2,
  results: [
    { callId: "toolu_1", tool: "Read", action: "drop", rule: "superseded-read", reason: "re-read at #42, unchanged" },
    { callId: "toolu_2", tool: "Read", action: "keep", rule: "latest-read", reason: "latest read of /p/f0.txt" },
  ],
  ...over,
});

test("the log sits under <claude dir>/better-compaction/logs, named by session", () => {
  expect(claudeDirOf("/home/u/.claude/projects/-home-u-p/abc.jsonl")).toBe("/home/u/.claude");
  expect(claudeDirOf("C:\\Users\\u\\.claude\\projects\\x\\abc.jsonl")).toBe("C:/Users/u/.claude");
  expect(claudeDirOf("abc.jsonl")).toBeUndefined();
  // a project folder named "projects" ($CLAUDE_CODE_PROJECT_DIR_NAME), a Claude folder under a "projects" folder, a subagent's transcript
  expect(claudeDirOf("/cfg/projects/projects/abc.jsonl")).toBe("/cfg");
  expect(claudeDirOf("/home/u/projects/dotclaude/projects/-home-u-p/abc.jsonl")).toBe("/home/u/projects/dotclaude");
  expect(claudeDirOf("/home/u/.claude/projects/-home-u-p/abc/subagents/agent-1.jsonl")).toBe("/home/u/.claude");
  expect(claudeDirOf("/cfg/projects/projects/abc/subagents/agent-1.jsonl")).toBe("/cfg");
  expect(logPathFor("/home/u/.claude", "a/b")).toBe("/home/u/.claude/better-compaction/logs/a_b.jsonl");
});

test("appending adds one line; an over-long log loses its oldest lines, never the new one", () => {
  const one = appendRecord("", record());
  expect(one.endsWith("\n")).toBe(true);
  const two = appendRecord(one.slice(0, -1), record({ trigger: "auto" })); // a log without its last newline
  expect(parseLog(two).records.map((r) => r.trigger)).toEqual(["manual", "auto"]);
  let text = "";
  for (let i = 0; i < 20; i++) text = appendRecord(text, record({ rowsIn: i }), 2000);
  const kept = parseLog(text).records;
  expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(2000);
  expect(kept.at(-1)!.rowsIn).toBe(19);
  expect(kept.length).toBeGreaterThan(1);
  expect(kept.map((r) => r.rowsIn)).toEqual(kept.map((_, i) => 20 - kept.length + i));
});

test("parseLog reports lines that are not records", () => {
  const { records, problems } = parseLog(`${JSON.stringify(record())}\n{oops\n[1]\n\n`);
  expect(records.length).toBe(1);
  expect(problems).toEqual(["line 2: not valid JSON", "line 3: not a better-compaction decision record (Invalid input: expected object, received array)"]);
});

test("parseLog names the field that is wrong in a damaged record", () => {
  const damaged = { ...record(), outcome: "exploded", rowsIn: -3 };
  const { records, problems } = parseLog(`${JSON.stringify(damaged)}\n${JSON.stringify({ ...record(), results: [{ callId: "c1" }] })}\n`);
  expect(records).toEqual([]);
  expect(problems).toHaveLength(2);
  expect(problems[0]).toBe(`line 1: not a better-compaction decision record (outcome: Invalid option: expected one of "compacted"|"skipped"|"handed-over")`);
  expect(problems[1]).toStartWith("line 2: not a better-compaction decision record (results.0.tool: ");
});

test("formatRecord: a heading, the figures, and each result that was not kept", () => {
  const text = formatRecord(record());
  expect(text.split("\n")).toEqual([
    "2026-11-30T02:00:00.000Z  manual  compacted: 1 results dropped, 0 truncated; freed 5 points of the window",
    "  rows 44 -> 44, ~14.5k -> ~13.5k tokens, 5.0 points of the window freed, 4.2 ms",
    "  budget ~12.0k tokens for the rows",
    "  results: 1 kept, 0 truncated, 1 dropped",
    "    drop     Read         superseded-read  toolu_1  re-read at #42, unchanged",
  ]);
  expect(formatRecord(record(), { allResults: true })).toContain("latest-read");
  expect(formatRecord(record({ budgetTokens: 9_000, unseenTokens: 3_000 })).split("\n")[2]).toBe(
    "  budget ~9.0k tokens for the rows (the window's share less ~3.0k the rows do not show: system prompt, tools, thinking)",
  );
  expect(formatRecord(record({ budgetTokens: undefined })).split("\n")[2]).toBe("  results: 1 kept, 0 truncated, 1 dropped");
  // the thinking told apart: what stays is system prompt and tools, and the thinking has a line of its own
  expect(
    formatRecord(record({ budgetTokens: 9_000, unseenTokens: 3_000, thinkingTokens: 2_500 }))
      .split("\n")
      .slice(2, 4),
  ).toEqual([
    "  budget ~9.0k tokens for the rows (the window's share less ~3.0k the rows do not show: system prompt, tools)",
    "  thinking ~2.5k tokens not counted: Claude Code drops it with the rows bc rewrites",
  ]);
  expect(
    formatRecord(record({ budgetTokens: 9_000, unseenTokens: 3_000, thinkingProblem: "Claude Code's messages are denied" }))
      .split("\n")
      .slice(2, 4),
  ).toEqual([
    "  budget ~9.0k tokens for the rows (the window's share less ~3.0k the rows do not show: system prompt, tools, thinking)",
    "  thinking counted against the budget: Claude Code's messages are denied",
  ]);
  // bc claude log reads both back
  const back = parseLog(`${JSON.stringify(record({ thinkingTokens: 2_500, keptThinkingTokens: 900, thinkingProblem: "x", blocksNoted: 2 }))}\n`).records[0]!;
  expect([back.thinkingTokens, back.keptThinkingTokens, back.thinkingProblem, back.blocksNoted]).toEqual([2_500, 900, "x", 2]);
  expect(parseLog(`${JSON.stringify(record({ blocksNoted: -1 }))}\n`).problems).toHaveLength(1);
});

test("formatRecord: a skipped or handed-over compaction changed nothing, and its plan's figures say so", () => {
  for (const outcome of ["skipped", "handed-over"] as const) {
    const lines = formatRecord(record({ outcome, tokensAfter: 14549, budgetTokens: undefined })).split("\n");
    expect(lines[1]).toBe("  rows 44 -> 44, ~14.5k -> ~14.5k tokens, would have freed 5.0 points of the window, 4.2 ms");
    expect(lines[2]).toBe("  results as planned, not applied: 1 kept, 0 truncated, 1 dropped");
  }
});
