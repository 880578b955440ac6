// Big lines: a tool output of many MB is decoded in pieces (src/util/huge-line.ts) and must come
// out exactly as JSON.parse gives it. The whole-reader round trip of a 10 MB output and the 200 MB memory check live in
// test/e2e/large-file.e2e.ts.
import { describe, expect, test } from "bun:test";
import { HUGE_LINE_CHARS, parseJsonLine } from "../../../src/util/huge-line.ts";
import { UNIT, trickyBody } from "../../support/tricky-json.ts";

const MIB = 1024 * 1024;

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
    expect(got.message.content.map((b: { content: string }) => b.content.length)).toEqual(
      expected.message.content.map((b: { content: string }) => b.content.length),
    );
    expect(got).toEqual(expected);
  });

  test("a malformed huge line still fails as JSON.parse fails", () => {
    const line = `{"type":"user","content":"${"a".repeat(HUGE_LINE_CHARS)}`;
    expect(() => parseJsonLine(line)).toThrow(SyntaxError);
  });
});
