// Big lines: a tool output of many MB is decoded in pieces (src/util/huge-line.ts) and must come
// out exactly as JSON.parse gives it. The 200 MB memory check lives in test/e2e/large-file.e2e.ts.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadClaudeTranscript, readTranscript, serializeTranscript } from "../../../src/hosts/claude/transcript.ts";
import { HUGE_LINE_CHARS, parseJsonLine } from "../../../src/util/huge-line.ts";

const MIB = 1024 * 1024;
const TMP = mkdtempSync(join(tmpdir(), "bc-large-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const UNIT = 'log line \\"quoted\\" caf\\u00e9 \\uD83D\\uDE00 raw é 😀 back\\\\slash tab\\t end\\n';

/** A JSON string body of `chars` characters: the unit repeated, shifted by `shift`, cut clean at the end. */
const trickyBody = (chars: number, shift: number): string =>
  ("x".repeat(shift) + UNIT.repeat(Math.ceil(chars / UNIT.length) + 1)).slice(0, chars).replace(/\\[^"]*$/, "");

/** Shifts that put the first 1 MiB piece boundary inside each kind of escape. */
const boundaryShifts = (): number[] => {
  const at = (needle: string): number => UNIT.indexOf(needle);
  const cuts = [
    ...[1, 2, 3, 4, 5].map((k) => at("\\u00e9") + k), // inside \u00e9
    at("\\uDE00"), // between the two halves of a surrogate pair
    at("\\uDE00") + 3,
    at("\\\\slash") + 1, // between the two backslashes of \\
    at('\\"quoted') + 1, // inside \"
  ];
  const L = UNIT.length;
  return cuts.map((c) => (((MIB - c) % L) + L) % L);
};

describe("huge lines", () => {
  test("a line over the threshold, big strings cut inside each kind of escape, parses exactly as JSON.parse", () => {
    // one ~1 MiB string per escape kind; each one's first piece boundary falls inside that escape
    const values = boundaryShifts().map((shift) => `"${trickyBody(MIB + 100, shift)}"`);
    const line = `{"type":"user","message":{"role":"user","content":[${values
      .map((v, i) => `{"tool_use_id":"t${i}","type":"tool_result","content":${v}}`)
      .join(",")}]},"small":"kept \\"as is\\"","n":[1,2.5,null,true]}`;
    expect(line.length).toBeGreaterThan(HUGE_LINE_CHARS);
    const expected = JSON.parse(line);
    const got = parseJsonLine(line) as typeof expected;
    expect(got.message.content.map((b: { content: string }) => b.content.length)).toEqual(expected.message.content.map((b: { content: string }) => b.content.length));
    expect(got).toEqual(expected);
  });

  test("a malformed huge line still fails as JSON.parse fails", () => {
    const line = `{"type":"user","content":"${"a".repeat(HUGE_LINE_CHARS)}`;
    expect(() => parseJsonLine(line)).toThrow(SyntaxError);
  });

  test("a transcript with a 10 MB tool output: read, mapped, written back byte for byte", () => {
    const output = trickyBody(10 * MIB, 3);
    const lines = [
      '{"parentUuid":null,"isSidechain":false,"sessionId":"s-big","version":"2.1.42","type":"user","message":{"role":"user","content":"dump the log"},"uuid":"u1","timestamp":"2026-03-01T10:00:00.000Z"}',
      '{"parentUuid":"u1","isSidechain":false,"sessionId":"s-big","version":"2.1.42","type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_big","name":"Bash","input":{"command":"cat app.log"}}]},"uuid":"a1","timestamp":"2026-03-01T10:00:01.000Z"}',
      `{"parentUuid":"a1","isSidechain":false,"sessionId":"s-big","version":"2.1.42","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_big","type":"tool_result","content":"${output}"}]},"uuid":"u2","timestamp":"2026-03-01T10:00:02.000Z"}`,
      '{"parentUuid":"u2","isSidechain":false,"sessionId":"s-big","version":"2.1.42","type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"The log is long."}]},"uuid":"a2","timestamp":"2026-03-01T10:00:03.000Z"}',
    ];
    const path = join(TMP, "big.jsonl");
    writeFileSync(path, lines.join("\n") + "\n");
    const t = readTranscript(path);
    expect(serializeTranscript(t)).toBe(readFileSync(path, "utf8"));
    const s = loadClaudeTranscript(path);
    expect(s.timeline.messages.map((m) => m.kind)).toEqual(["prompt", "reply", "tool", "reply"]);
    const text = s.timeline.messages[2]!.toolResults[0]!.text;
    expect(text).toBe(JSON.parse(`"${output}"`));
  });
});
