import { describe, expect, test } from "bun:test";
import { extractTokenList, extractTokens, forEachToken } from "../../src/engine/tokens.ts";
import { extractTokens as yardstick } from "../../src/eval/yardstick/v1.ts";
import { generateSession } from "./support/generate.ts";

const kinds = (text: string) => extractTokenList(text).map((t) => `${t.kind}:${t.text}`);

describe("distinctive tokens", () => {
  test.each([
    ["an absolute path", "open /Users/me/proj/reader.go now", ["path:/Users/me/proj/reader.go"]],
    ["a relative path with an extension", "see src/app.ts", ["path:src/app.ts"]],
    ["a path of two slashes", "in pkg/git/internal", ["path:pkg/git/internal"]],
    ["a URL", "at https://example.com/a/b", ["path:https://example.com/a/b"]],
    ["a bare file name with a known extension", "edit package.json", ["path:package.json"]],
    ["a camelCase identifier", "call processIncomingOrder()", ["identifier:processIncomingOrder"]],
    ["a snake_case identifier", "set max_retry_count", ["identifier:max_retry_count"]],
    ["a kebab-case identifier and a flag", "run with --no-verify-ssl", ["identifier:no-verify-ssl"]],
    ["a number of 4+ digits", "build 98765 done", ["number:98765"]],
    ["a quoted string of 8+ chars", 'label "release candidate"', ["quoted:release candidate"]],
    ["an error line (without Read's line number)", '    12→  throw new Error("bad");', ['error-line:throw new Error("bad");']],
    ["a Python traceback header", "Traceback (most recent call last):", ["error-line:Traceback (most recent call last):"]],
  ])("%s", (_name, text, expected) => {
    expect(kinds(text)).toEqual(expected);
  });

  test.each([
    ["short words and plain words", "the cat sat on a mat with joy"],
    ["identifiers under six characters", "use a_b and c-d and fooB"],
    ["numbers under four digits", "took 123 ms"],
    ["a decimal's fraction", "pi is 3.14159"],
    ["a short quoted string", 'say "hi you"'],
    ["and/or is not a path", "read and/or write"],
    ["a word with a dot that is not a file", "call console.logger now"],
  ])("not tokens: %s", (_name, text) => {
    expect(extractTokens(text)).toEqual([]);
  });

  test("each token once, in a stable order", () => {
    expect(extractTokens("fooBar_x fooBar_x /a/b/c /a/b/c 12345 12345")).toEqual(["/a/b/c", "fooBar_x", "12345"]);
  });

  test("the live extractor gives exactly what the frozen yardstick gives (generated sessions)", () => {
    for (const seed of [1, 2, 3]) {
      for (const m of generateSession({ seed, results: 60, host: seed === 2 ? "codex" : "claude" }).messages) {
        for (const text of [m.text, ...m.toolCalls.map((c) => c.inputText), ...m.toolResults.map((r) => r.text)])
          expect(extractTokens(text)).toEqual(yardstick(text));
      }
    }
  });
});

describe("forEachToken", () => {
  test("a visit that tokenizes another text leaves the outer scan where it was", () => {
    const outer = "src/app/main.ts calls parseConfig_v2 with 54321 and 'a quoted string' then Error: bad thing here\nfoo/bar/baz.md";
    const inner = "other/path/file.ts and load_settings 98765";
    const innerSeen: string[][] = [];
    const seen: string[] = [];
    forEachToken(outer, (_kind, t) => {
      seen.push(t);
      innerSeen.push(extractTokens(inner));
    });
    expect(seen).toEqual(extractTokenList(outer).map((t) => t.text));
    expect(seen.length).toBeGreaterThan(5);
    for (const got of innerSeen) expect(got).toEqual(extractTokens(inner));
  });
});
