// What Codex's requests carry besides the history, from the rollout's newest token_count.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRollout, recordedWindow } from "../../../src/hosts/codex/rollout.ts";
import { unseenTokens } from "../../../src/hosts/codex/window.ts";
import { loadSessionFile } from "../../../src/hosts/load.ts";

const LEGACY = join(import.meta.dir, "..", "..", "fixtures", "codex", "fork-legacy-0.140.jsonl");
const CLAUDE = join(import.meta.dir, "..", "..", "fixtures", "claude", "parallel-tool-calls.jsonl");
const dir = mkdtempSync(join(tmpdir(), "bc-window-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (type: string, payload: object): string => JSON.stringify({ timestamp: "2026-06-01T10:00:01.000Z", type, payload });
const count = (input: number): string =>
  line("event_msg", {
    type: "token_count",
    info: {
      total_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 1, reasoning_output_tokens: 0, total_tokens: input + 1 },
      last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 1, reasoning_output_tokens: 0, total_tokens: input + 1 },
      model_context_window: 272_000,
    },
    rate_limits: null,
  });
const rolloutWith = (name: string, ...extra: string[]) => {
  const file = join(dir, `rollout-${name}.jsonl`);
  writeFileSync(file, `${readFileSync(LEGACY, "utf8").trimEnd()}\n${extra.join("\n")}\n`);
  return readRollout(file);
};

test("the newest request's size less the history's estimate, at most half the share", () => {
  const r = rolloutWith("count", count(50_000));
  expect(unseenTokens(recordedWindow(r), 30_000, 100_000)).toBe(20_000);
  expect(unseenTokens(recordedWindow(r), 60_000, 100_000)).toBe(0);
  expect(unseenTokens(recordedWindow(r), 1_000, 60_000)).toBe(30_000);
});

test("nothing when the history was compacted after the newest count: that count is of a history no longer there", () => {
  const r = rolloutWith("compacted", count(50_000), line("compacted", { message: "", replacement_history: [] }));
  expect(unseenTokens(recordedWindow(r), 30_000, 100_000)).toBe(0);
});

test("a loaded rollout carries what it records of the window; a loaded Claude Code transcript carries none", () => {
  const r = rolloutWith("loaded", count(50_000));
  expect(loadSessionFile(r.path).recordedWindow).toEqual({ window: 272_000, lastInput: 50_000 });
  const compacted = rolloutWith("loaded-compacted", count(50_000), line("compacted", { message: "", replacement_history: [] }));
  expect(loadSessionFile(compacted.path).recordedWindow).toEqual({ window: 272_000 });
  expect(loadSessionFile(CLAUDE).recordedWindow).toBeUndefined();
});
