// The hook's handler over real sessions from disk: each corpus transcript's live history, handed
// in as Claude Code's session.compact rows, must come back as a list Claude Code accepts (the
// independent 7.5 mirror), with no new unpaired tool call or result, every row's prose
// unchanged, each tool result either verbatim or bc's note, and resume-safe handles (the open
// tool loop's assistant rows aside, which keep theirs for their thinking).
import { describe, expect, test } from "bun:test";
import { basename } from "node:path";
import { isAlreadyCut, readNote } from "../../../src/engine/notes.ts";
import { compactRows, DEFAULT_PLUGIN_OPTIONS, type SessionRow } from "../../../src/hosts/claude/plugin.ts";
import { openLoopStart } from "../../../src/hosts/claude/rows.ts";
import { claudeResultProblems, pairingProblems } from "../../e2e/support/claude-validate.ts";
import { SKIP_NOTE, corpusFiles, corpusRows } from "../../support/shared.ts";

const files = corpusFiles("claude");

describe.skipIf(files.length === 0)("the compaction handler on every corpus transcript", () => {
  test.each(files.map((f) => [basename(f), f]))("%s", (_name, file) => {
    const rows = corpusRows(file);
    const { answer, record } = compactRows({
      trigger: "manual",
      sessionId: "corpus",
      rows,
      usage: { window: 1_000_000 },
      options: DEFAULT_PLUGIN_OPTIONS,
      now: () => 0,
    });
    expect(record.rowsIn).toBe(rows.length);
    if ("skip" in answer) {
      expect(answer.skip).toContain("nothing to remove");
      return;
    }
    expect("messages" in answer).toBe(true);
    const out = (answer as { messages: SessionRow[] }).messages;
    expect(claudeResultProblems(answer)).toEqual([]);
    const before = new Set(pairingProblems(rows));
    expect(pairingProblems(out).filter((p) => !before.has(p))).toEqual([]);
    expect(out.map((r) => [r.role, r.text])).toEqual(rows.map((r) => [r.role, r.text]));
    let cut = 0;
    const loop = openLoopStart(rows);
    out.forEach((r, i) => {
      const src = rows[i]!;
      expect((r.toolUses ?? []).map((u) => [u.tool_use_id, u.tool, JSON.stringify(u.input)])).toEqual(
        src.toolUses.map((u) => [u.tool_use_id, u.tool, JSON.stringify(u.input)]),
      );
      (r.toolResults ?? []).forEach((t, k) => {
        const orig = src.toolResults![k]!;
        expect(t.tool_use_id).toBe(orig.tool_use_id);
        if (t.text === orig.text) return;
        cut++;
        expect(isAlreadyCut(t.text)).toBe(true);
        const note = readNote(t.text);
        expect(note?.chars).toBe(orig.text.length - (note?.head ?? "").length);
        expect(orig.text.startsWith(note?.head ?? "")).toBe(true);
      });
      // resume-safe handles: tool-result rows and assistant rows go back without theirs, but the
      // open tool loop's assistant rows, which go back as handed in (their records hold the thinking)
      if (src.role === "assistant" && src.handle !== undefined && i >= loop) expect(r).toBe(src);
      else if (r.role === "assistant" || (r.toolResults?.length ?? 0) > 0) expect(r.handle).toBeUndefined();
    });
    expect(cut).toBe(record.results.filter((d) => d.action !== "keep").length);
  });
});

if (files.length === 0) test.skip(SKIP_NOTE, () => {});

test.skipIf(files.length === 0)("most corpus transcripts are really compacted (the checks above are not vacuous)", () => {
  const compacted = files.filter(
    (f) =>
      "messages" in
      compactRows({ trigger: "manual", sessionId: "corpus", rows: corpusRows(f), usage: { window: 1_000_000 }, options: DEFAULT_PLUGIN_OPTIONS, now: () => 0 })
        .answer,
  );
  expect(compacted.length).toBeGreaterThan(files.length / 2);
});
