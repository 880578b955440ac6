// The notes bc writes: the current form names the call for `bc recall`; every earlier form is
// still recognised, so a later pass never cuts or rewrites a note, but for a head kept longer than
// the usual one, which a later pass may cut to a shorter head.
import { describe, expect, test } from "bun:test";
import { dropNote, earlierHead, isAlreadyCut, readNote, truncatedText } from "../../src/engine/notes.ts";
import { shellQuote } from "../../src/engine/shell.ts";

const FIRST_DROP = "[output removed by better-compaction: 5000 chars; re-run the call to see it]";
const FIRST_TRUNCATE = `${"h".repeat(200)}\n[output truncated by better-compaction: 4800 chars removed; re-run the call to see it]`;
const SECOND_DROP = "[output removed by better-compaction: 5000 chars; run bc recall toolu_01ABC to see it exactly, or re-run the call]";
const SECOND_TRUNCATE = `${"h".repeat(200)}\n[output truncated by better-compaction: 300 chars removed; run bc recall call_9 to see it exactly, or re-run the call]`;
const THIRD_DROP = "[output removed by better-compaction: 5000 chars; bc recall toolu_01ABC prints it]";
const THIRD_TRUNCATE = `${"h".repeat(200)}\n[output truncated by better-compaction: 300 chars removed; bc recall call_9 prints it]`;
const SHORT_DROP_NO_ID = "[bc removed 5000 chars; re-run the call to see it]";
const SHORT_TRUNCATE_NO_ID = `${"h".repeat(200)}\n[bc cut 4800 more chars; re-run the call to see it]`;

describe("notes", () => {
  test("a removal note names the call and how to get it back", () => {
    expect(dropNote(5000, "toolu_01ABC")).toBe("[bc removed 5000 chars; bc recall toolu_01ABC prints it]");
    expect(truncatedText("x".repeat(500), 200, "call_9")).toBe(`${"x".repeat(200)}\n[bc cut 300 more chars; bc recall call_9 prints it whole]`);
  });

  test("a head counts from the output: a Codex header is kept before it, a long one only in part", () => {
    const header = "Chunk ID: 3b0f31\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 124\nOutput:\n";
    const output = "o".repeat(1000);
    expect(truncatedText(header + output, 200, "c1")).toBe(`${header}${"o".repeat(200)}\n[bc cut 800 more chars; bc recall c1 prints it whole]`);
    const script = "Script completed\nWall time 0.9 seconds\nOutput:\n";
    expect(truncatedText(script + output, 100, "c1").startsWith(`${script}${"o".repeat(100)}\n[bc cut 900 `)).toBe(true);
    // a `Command:` line holding a whole script: the head keeps 500 characters of it, then 200 more
    const long = `Command: ${"c".repeat(2000)}\nChunk ID: 1\nOutput:\n${output}`;
    expect(truncatedText(long, 200, "c1")).toStartWith(`${long.slice(0, 700)}\n[bc cut ${long.length - 700} more chars;`);
    // no header: a text that only looks like one further down keeps its first characters
    expect(truncatedText(`x\n${header}${output}`, 200, "c1")).toStartWith(`x\n${header}${"o".repeat(200 - 2 - header.length)}\n[bc cut`);
  });

  test("a head an earlier pass kept longer is cut to a shorter head of it, its note counting every char cut since the original", () => {
    const output = "o".repeat(100) + "p".repeat(900) + "q".repeat(1000);
    const long = truncatedText(output, 1000, "call_9");
    expect(earlierHead(long, "call_9")).toEqual({ head: output.slice(0, 1000), cut: 1000 });
    const short = truncatedText(long, 100, "call_9");
    expect(short).toBe(truncatedText(output, 100, "call_9"));
    expect(readNote(short)).toMatchObject({ kind: "truncated", chars: 1900, head: "o".repeat(100) });
    // not shorter: the text as it is
    expect(truncatedText(long, 1000, "call_9")).toBe(long);
    expect(truncatedText(long, 5000, "call_9")).toBe(long);
    // a Codex header stays before the shorter head
    const header = "Chunk ID: 3b0f31\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\n";
    expect(truncatedText(truncatedText(header + output, 1500, "c1"), 200, "c1")).toBe(truncatedText(header + output, 200, "c1"));
    // an earlier form of the note, naming the call, counts the same way
    expect(truncatedText(SECOND_TRUNCATE, 50, "call_9")).toBe(`${"h".repeat(50)}\n[bc cut 450 more chars; bc recall call_9 prints it whole]`);
  });

  test("a note that names another call, or none, is no earlier head of this one", () => {
    const long = truncatedText("x".repeat(2000), 1000, "call_9");
    expect(earlierHead(long, "call_8")).toBeUndefined();
    expect(earlierHead(SHORT_TRUNCATE_NO_ID, "call_9")).toBeUndefined();
    expect(earlierHead(THIRD_DROP, "toolu_01ABC")).toBeUndefined();
    expect(earlierHead("x".repeat(2000), "call_9")).toBeUndefined();
    // so a truncation of it cuts it as any output, its note included
    expect(truncatedText(long, 100, "call_8")).toBe(`${"x".repeat(100)}\n[bc cut ${long.length - 100} more chars; bc recall call_8 prints it whole]`);
  });

  test("an id that is not a plain shell word is quoted; one that cannot be written is left out", () => {
    expect(shellQuote("a b'c")).toBe(`'a b'\\''c'`);
    expect(dropNote(10, "a b")).toContain("; bc recall 'a b' prints it]");
    expect(dropNote(10, "")).toBe("[bc removed 10 chars; re-run the call to see it]");
    expect(dropNote(10, "x]y")).toBe("[bc removed 10 chars; re-run the call to see it]");
    expect(dropNote(10, "x".repeat(300))).toBe("[bc removed 10 chars; re-run the call to see it]");
    expect(truncatedText("x".repeat(500), 200, "")).toBe(`${"x".repeat(200)}\n[bc cut 300 more chars; re-run the call to see it]`);
  });

  test.each([
    ["the first removal note", FIRST_DROP, { kind: "removed", chars: 5000 }],
    ["the first truncation note", FIRST_TRUNCATE, { kind: "truncated", chars: 4800, head: "h".repeat(200) }],
    ["the second removal note", SECOND_DROP, { kind: "removed", chars: 5000, callWord: "toolu_01ABC" }],
    ["the second truncation note", SECOND_TRUNCATE, { kind: "truncated", chars: 300, head: "h".repeat(200), callWord: "call_9" }],
    ["the third removal note", THIRD_DROP, { kind: "removed", chars: 5000, callWord: "toolu_01ABC" }],
    ["the third truncation note", THIRD_TRUNCATE, { kind: "truncated", chars: 300, head: "h".repeat(200), callWord: "call_9" }],
    ["a removal note naming no call", SHORT_DROP_NO_ID, { kind: "removed", chars: 5000 }],
    ["a truncation naming no call", SHORT_TRUNCATE_NO_ID, { kind: "truncated", chars: 4800, head: "h".repeat(200) }],
    ["a removal note naming the call", dropNote(5000, "toolu_01ABC"), { kind: "removed", chars: 5000, callWord: "toolu_01ABC" }],
    [
      "a truncation naming the call",
      truncatedText("y".repeat(900), 100, "call_9"),
      { kind: "truncated", chars: 800, head: "y".repeat(100), callWord: "call_9" },
    ],
    ["a note naming a quoted id", dropNote(7, "a b"), { kind: "removed", chars: 7, callWord: "'a b'" }],
    [
      "a note naming a 256-char id",
      truncatedText("z".repeat(2000), 1500, "i".repeat(256)),
      { kind: "truncated", chars: 500, head: "z".repeat(1500), callWord: "i".repeat(256) },
    ],
  ])("%s is recognised and read back", (_name, text, expected) => {
    expect(isAlreadyCut(text)).toBe(true);
    expect(readNote(text)).toEqual(expected as never);
  });

  test.each([
    ["plain output", "all tests passed"],
    ["output that mentions a note mid-text", `${FIRST_DROP}\nmore output after it`],
    ["a removal note with text before it", `before ${dropNote(10, "c1")}`],
    ["a truncation note at the very start (no line break before it)", truncatedText("x".repeat(50), 0, "c1").slice(1)],
  ])("%s is not read as a note", (_name, text) => {
    expect(readNote(text)).toBeUndefined();
  });
});

test("an id whose quoting would carry its note past where a later pass looks is not written: the note is still read back as bc's", () => {
  const quoted = "'".repeat(200); // 200 chars; quoted, 800
  for (const note of [dropNote(9000, quoted), truncatedText("x".repeat(5000), 200, quoted)]) {
    expect(note).toContain("re-run the call to see it");
    expect(isAlreadyCut(note)).toBe(true);
    expect(readNote(note)).toBeDefined();
  }
  // an id of the longest length written, quoted to twice its length at most, is named
  const id = `a'${"b".repeat(120)}'c`;
  expect(dropNote(9000, id)).toContain(`bc recall ${shellQuote(id)} prints it`);
  expect(isAlreadyCut(dropNote(9000, id))).toBe(true);
});

test("a result's own note is a cut; output that only ends in a note-shaped line (bc's logs or tests, read) is not", () => {
  const id = "toolu_01AbC";
  const dropped = dropNote(5000, id);
  expect(isAlreadyCut(dropped, id)).toBe(true);
  const head = truncatedText("x".repeat(5000), 200, id);
  expect(isAlreadyCut(head, id)).toBe(true);
  // a note naming another call, after a head
  expect(isAlreadyCut(truncatedText("x".repeat(5000), 200, "toolu_other"), id)).toBe(false);
  // a removal's note with output before it: a file whose last line is one
  const read = `${Array.from({ length: 50 }, (_, i) => `${String(i + 1).padStart(6)}→line ${i}`).join("\n")}\n    51→${dropNote(12, "x")}`;
  expect(isAlreadyCut(read, id)).toBe(false);
  // the first notes name no call: read as a cut whatever the call
  expect(isAlreadyCut("[output removed by better-compaction: 5000 chars; re-run the call to see it]", id)).toBe(true);
});
