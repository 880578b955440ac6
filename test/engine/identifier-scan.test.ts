// The hand-written identifier scan against the pattern it stands for: the same matches, in the
// same order, on seeded random text built from the characters the pattern reads, and on cases
// at its edges.
import { describe, expect, test } from "bun:test";
import { forEachIdentifierMatch, identifierAt } from "../../src/engine/identifier-scan.ts";
import { IDENTIFIER_RE, forEachToken } from "../../src/engine/tokens.ts";
import { generateSession, prng } from "./support/generate.ts";

const byScan = (text: string): [number, number][] => {
  const out: [number, number][] = [];
  forEachIdentifierMatch(text, (start, end) => out.push([start, end]));
  return out;
};
const byPattern = (text: string): [number, number][] => [...text.matchAll(IDENTIFIER_RE)].map((m) => [m.index, m.index + m[0].length]);

// letters of both cases, digits, "_", "$", "-", and what ends a run: space, "." "/" a line
// break, a non-ASCII letter (\w without the u flag is ASCII only)
const ALPHABET = "abcxyzABCXYZ0129_$--  ./\n\u00e9\u4e2d";

const randomText = (rnd: () => number, length: number): string => {
  let s = "";
  for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(rnd() * ALPHABET.length)];
  return s;
};

describe("forEachIdentifierMatch", () => {
  test("finds what IDENTIFIER_RE finds, in order, on 5,000 seeded random texts", () => {
    const rnd = prng(3);
    const differ: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const text = randomText(rnd, 1 + Math.floor(rnd() * 80));
      if (JSON.stringify(byScan(text)) !== JSON.stringify(byPattern(text))) differ.push(JSON.stringify(text));
    }
    expect(differ).toEqual([]);
  });

  test("the pattern's edges", () => {
    const cases = [
      "",
      "snake_case",
      "camelCase",
      "kebab-case-name",
      "abc--def_ghi", // a "--" ends the match; the mark past it still counts
      "abcde", // too short
      "abcdef", // no mark
      "9snake_case", // no match inside a word
      "x-snake_case", // a start after "-"
      "$dollar_sign",
      "\u00e9snake_case", // a non-ASCII letter before: a start
      "a-b-c-d-e", // runs of one
      "trailing-", // a "-" not followed by a word character
      "userName.length some_other-thing",
      "AB", // short
      "aB_cdef gh", // a mark at the start
    ];
    for (const text of cases) expect(byScan(text)).toEqual(byPattern(text));
    // and they do match where expected
    expect(byScan("call fooBar_baz(x)")).toEqual([[5, 15]]);
    expect(byScan("abc--def_ghi")).toEqual([
      [0, 3],
      [5, 12],
    ]);
  });
});

describe("identifierAt", () => {
  test("true exactly where IDENTIFIER_RE's scan has a match that is the string, on 2,000 seeded random texts", () => {
    const rnd = prng(5);
    const differ: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const text = randomText(rnd, 1 + Math.floor(rnd() * 80));
      const matches = new Map(byPattern(text).map(([start, end]) => [start, end]));
      // every place, asked for the match there, for a string one shorter and for one running on
      for (let s = 0; s < text.length; s++) {
        const end = matches.get(s);
        const asks = end === undefined ? [text.slice(s, s + 6)] : [text.slice(s, end), text.slice(s, end - 1), text.slice(s, end + 1)];
        for (const c of asks) {
          const want = end !== undefined && c === text.slice(s, end);
          if (identifierAt(text, c, s) !== want) differ.push(`${JSON.stringify(text)} at ${s}: ${JSON.stringify(c)}`);
        }
      }
    }
    expect(differ).toEqual([]);
  });
});

describe("forEachToken with the scan", () => {
  const visits = (text: string, scan: boolean): string[] => {
    const out: string[] = [];
    forEachToken(text, (kind, token, at) => out.push(`${kind} ${at} ${token}`), scan ? forEachIdentifierMatch : undefined);
    return out;
  };

  test("visits what it visits with the pattern, in the same order: random texts and a generated session's texts", () => {
    const rnd = prng(11);
    const texts: string[] = [];
    for (let i = 0; i < 2000; i++) texts.push(randomText(rnd, 1 + Math.floor(rnd() * 120)));
    const session = generateSession({ seed: 5, host: "codex", results: 60, outputChars: 3000 });
    for (const m of session.messages) {
      texts.push(m.text);
      for (const c of m.toolCalls) texts.push(c.inputText);
      for (const r of m.toolResults) texts.push(r.text);
    }
    const differ = texts.filter((t) => JSON.stringify(visits(t, true)) !== JSON.stringify(visits(t, false)));
    expect(differ).toEqual([]);
    // the texts hold identifiers, so the scan was asked
    expect(texts.some((t) => visits(t, true).some((v) => v.startsWith("identifier ")))).toBe(true);
  });
});
