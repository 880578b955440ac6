// The Codex decision log read back (bc codex log): a file on the user's disk, checked line by
// line; and each record as a person reads it.
import { expect, test } from "bun:test";
import { formatLiveRecord, type LiveRecord, parseLiveLog } from "../../../../src/hosts/codex/live/state.ts";

const record = (over: Partial<LiveRecord> = {}): LiveRecord => ({
  v: 1,
  at: "2026-12-01T14:00:00.000Z",
  threadId: "t1",
  trigger: "auto",
  outcome: "applied",
  reason: "history replaced",
  tokensBefore: 180_000,
  tokensAfter: 95_000,
  results: 60,
  resultsDropped: 20,
  resultsTruncated: 4,
  ms: 812.3456,
  ...over,
});

test("a damaged record is skipped with why, as a line that is not JSON is; a good one is kept", () => {
  const text = [
    JSON.stringify(record()),
    '{"v":1,"threadId":"t1","outcome":"applied","tokensBefore":"lots","tokensAfter":null,"results":"x"}',
    '{"v":1,"threadId":"t1","outcome":"bogus","reason":{"a":1}}',
    "{not json",
  ].join("\n");
  const { records, problems } = parseLiveLog(text);
  expect(records).toEqual([record()]);
  expect(problems.map((p) => p.split(" (")[0])).toEqual([
    "line 2: not a better-compaction decision record",
    "line 3: not a better-compaction decision record",
    "line 4: not valid JSON",
  ]);
});

test("an applied replacement's figures are what happened; a failed or vetoed one's are its plan's", () => {
  expect(formatLiveRecord(record()).split("\n")).toEqual([
    "2026-12-01T14:00:00.000Z  auto  applied  (812.3 ms)",
    "  history replaced",
    "  tokens ~180.0k -> ~95.0k",
    "  results 60: 20 dropped, 4 truncated",
  ]);
  for (const outcome of ["failed", "vetoed"] as const) {
    const lines = formatLiveRecord(record({ outcome, reason: "the revert was refused; nothing was changed" })).split("\n");
    expect(lines.slice(2)).toEqual(["  planned: tokens ~180.0k -> ~95.0k", "  planned: results 60: 20 dropped, 4 truncated"]);
  }
  expect(formatLiveRecord(record({ outcome: "handed-over" })).split("\n")).toHaveLength(2);
});
