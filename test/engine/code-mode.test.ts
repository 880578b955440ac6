// The reader of Codex code-mode scripts (code-mode.ts): JSON is a JavaScript literal, so every
// JSON text reads back as JSON.parse reads it; JavaScript's own forms read as JavaScript reads
// them; anything else reads as unknown and never throws.
import { describe, expect, test } from "bun:test";
import { codeModeCalls, constantAt, stringConstants } from "../../src/engine/code-mode.ts";
import { prng } from "./support/generate.ts";

/** A random JSON value: strings over an alphabet of quotes, escapes, line breaks and astral characters. */
const randomValue = (rnd: () => number, depth: number): unknown => {
  const pick = Math.floor(rnd() * (depth > 3 ? 4 : 6));
  const alphabet = ["a", "Z", " ", '"', "'", "`", "\\", "\n", "\t", "/", "*", "{", "}", "$", "é", "😀", "\u2028", "\u0000"];
  if (pick === 0) return Array.from({ length: Math.floor(rnd() * 12) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join("");
  if (pick === 1) return Math.round((rnd() - 0.5) * 1e6) / (rnd() < 0.5 ? 1 : 1000);
  if (pick === 2) return rnd() < 0.5;
  if (pick === 3) return null;
  if (pick === 4) return Array.from({ length: Math.floor(rnd() * 4) }, () => randomValue(rnd, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(rnd() * 4); i > 0; i--) o[String(randomValue(rnd, 9))] = randomValue(rnd, depth + 1);
  return o;
};

describe("code mode: JavaScript constants", () => {
  test("every JSON text reads back as JSON.parse reads it (500 seeded values)", () => {
    const rnd = prng(7);
    for (let i = 0; i < 500; i++) {
      const text = JSON.stringify(randomValue(rnd, 0));
      expect(constantAt(text, 0)).toEqual(JSON.parse(text));
    }
  });

  test("JavaScript's own forms: bare keys, single and back quotes, escapes, comments, trailing commas", () => {
    const code = String.raw`{ cmd: 'it\'s', n: -1.5e3, list: [1, 'two',], /* note */ tpl: ${"`"}a\tb${"`"} , // end
      "quoted key": "\x41\u0042\u{1F600}" }`;
    expect(constantAt(code, 0)).toEqual({ cmd: "it's", n: -1500, list: [1, "two"], tpl: "a\tb", "quoted key": "AB😀" });
  });

  test.each([
    ["a variable", "{cmd: c}"],
    ["a call", "{cmd: f()}"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the script's own template literal
    ["a template with a substitution", "{cmd: `a${b}`}"],
    ["a string left open", "{cmd: 'abc"],
    ["a line break in a quoted string", "{cmd: 'a\nb'}"],
    ["a bad escape", String.raw`{cmd: "\u{110000}"}`],
    ["an object left open", "{cmd: 'a',"],
    ["nesting past 16 levels", `${"[".repeat(40)}${"]".repeat(40)}`],
  ])("unknown: %s", (_name, code) => {
    expect(constantAt(code, 0)).toBeUndefined();
  });

  test("random text never throws (2,000 seeded scripts)", () => {
    const rnd = prng(11);
    const pieces = ["{", "}", "[", "]", ":", ",", "'", '"', "`", "\\", "${", "/*", "//", "\n", "cmd", "tools.exec_command(", "1e", "-", "u{", "x4"];
    for (let i = 0; i < 2000; i++) {
      const code = Array.from({ length: Math.floor(rnd() * 30) }, () => pieces[Math.floor(rnd() * pieces.length)]).join("");
      expect(() => {
        for (const c of codeModeCalls(code)) constantAt(code, c.argsAt);
        constantAt(code, 0);
        stringConstants(code);
      }).not.toThrow();
    }
  });

  test("a script's string constants, decoded, in order; a template with a substitution is none", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the script's own template literal
    const code = "const a = \"x\\ny\"; // it's a comment\nconst b = `t${v}`; const c = 'q';";
    expect(stringConstants(code)).toEqual(["x\ny", "q"]);
  });

  test("the tools a script calls, each with where its argument starts", () => {
    const code = "await tools.exec_command({cmd:'ls'}); await tools.apply_patch (p);";
    expect(codeModeCalls(code).map((c) => [c.tool, code.slice(c.argsAt, c.argsAt + 2)])).toEqual([
      ["exec_command", "{c"],
      ["apply_patch", "p)"],
    ]);
  });
});
