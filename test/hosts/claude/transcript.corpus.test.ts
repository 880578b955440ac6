// The Claude Code reader on every real transcript in ../shared/corpus/claude and BC_EXTRA_CORPUS's
// folders (skipped without them). Each file is read and loaded once; the checks below share that
// work.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { type ClaudeSession, loadTranscript } from "../../../src/hosts/claude/transcript.ts";
import { type Transcript, parseTranscript } from "../../../src/hosts/claude/transcript-format.ts";
import { joinJsonl } from "../../../src/util/jsonl.ts";
import { SKIP_NOTE, corpusFiles } from "../../support/shared.ts";

const files = corpusFiles("claude");
if (files.length === 0) console.warn(`claude corpus: ${SKIP_NOTE}`);

interface Loaded {
  readonly text: string;
  readonly t: Transcript;
  readonly s: ClaudeSession;
}
const cache = new Map<string, Loaded>();
const load = (path: string): Loaded => {
  let l = cache.get(path);
  if (!l) {
    const text = readFileSync(path, "utf8");
    const t = parseTranscript(text, path);
    cache.set(path, (l = { text, t, s: loadTranscript(t) }));
  }
  return l;
};

const cases = files.map((f) => [basename(f).slice(0, 8), f] as const);

describe.skipIf(files.length === 0)("claude corpus", () => {
  test.each(cases)("%s: written back byte for byte, no malformed lines", (_, path) => {
    const { text, t } = load(path);
    expect(
      joinJsonl(
        t.lines.map((l) => l.raw),
        t.endsWithNewline,
      ),
    ).toBe(text);
    expect(t.malformed).toEqual([]);
  });

  test.each(cases)("%s: one compaction per compact_boundary, each keeping its summary", (_, path) => {
    const { text, s } = load(path);
    const boundaries = text.split("\n").filter((l) => l.includes('"subtype":"compact_boundary"')).length;
    const summaries = text.split("\n").filter((l) => l.includes('"isCompactSummary":true')).length;
    expect(s.compactions).toHaveLength(boundaries);
    expect(s.compactions.flatMap((c) => c.kept.filter((m) => m.kind === "summary"))).toHaveLength(summaries);
    let from = 0;
    for (const c of s.compactions) {
      expect(c.from).toBe(from);
      expect(c.at).toBeGreaterThanOrEqual(c.from);
      from = c.at;
    }
    expect(s.timeline.messages.every((m) => m.kind !== "summary")).toBe(true);
    if (boundaries > 0) expect(s.live.messages[0]?.kind).toBe("summary");
  });

  test.each(cases)("%s: every result follows its call; only the last assistant turn may hold a call still running", (_, path) => {
    const { s, t } = load(path);
    const ms = s.timeline.messages;
    const lineOf = (m: (typeof ms)[number] | undefined): number => (m?.source === undefined ? -1 : t.lines[m.source.record]!.lineNo);
    // a call still running is in the last assistant turn: no user record (a prompt, a result) after
    // it (parallel calls of that turn may stand in several records, one message each)
    const lastUser = lineOf(ms.findLast((m) => m.role !== "assistant"));
    expect(s.warnings.filter((w) => !w.endsWith("has no tool_result"))).toEqual([]);
    for (const w of s.warnings) {
      expect(w).toStartWith(`${path}:`);
      const line = Number(/^:(\d+): tool_use /.exec(w.slice(path.length))?.[1]);
      expect(line).toBeGreaterThan(lastUser);
      expect(line).toBeLessThanOrEqual(lineOf(ms.at(-1)));
    }
    // no record appears twice on the timeline
    const records = ms.map((m) => m.source!.record);
    expect(new Set(records).size).toBe(records.length);
  });
});
