// The Claude Code transcript reader on small fixtures, each named for what it shows.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "../../../src/engine/types.ts";
import { toolResultText } from "../../../src/hosts/claude/conversation.ts";
import { loadClaudeTranscript, loadClaudeTranscripts, loadTranscript } from "../../../src/hosts/claude/transcript.ts";
import { type Transcript, parseTranscript, readTranscript } from "../../../src/hosts/claude/transcript-format.ts";
import { BcError } from "../../../src/util/errors.ts";
import { joinJsonl } from "../../../src/util/jsonl.ts";

/** The file text again from its lines: identical bytes for an unchanged transcript. */
const fileText = (t: Transcript): string =>
  joinJsonl(
    t.lines.map((l) => l.raw),
    t.endsWithNewline,
  );

const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "claude");
const fixture = (name: string): string => join(FIXTURES, name);

/** One short readable line per message: `#record role kind "text" calls results`. */
const row = (m: Message): string => {
  const parts = [`#${m.source?.record}`, m.role, m.kind];
  if (m.text !== "") parts.push(JSON.stringify(m.text.length > 31 ? `${m.text.slice(0, 31)}…` : m.text));
  for (const c of m.toolCalls) parts.push(`call ${c.name} ${c.id}`);
  for (const r of m.toolResults) parts.push(`result ${r.callId}${r.isError ? " error" : ""}${r.images ? ` ${r.images} images` : ""} ${r.text.length} chars`);
  return parts.join(" ");
};
const rows = (ms: readonly Message[]): string[] => ms.map(row);

const allFixtureFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? allFixtureFiles(join(dir, d.name)) : d.name.endsWith(".jsonl") ? [join(dir, d.name)] : [],
  );

describe("lossless", () => {
  test.each(allFixtureFiles(FIXTURES).map((f) => [f.slice(FIXTURES.length + 1), f]))("%s reads and writes back byte for byte", (_, path) => {
    const text = readFileSync(path, "utf8");
    expect(fileText(parseTranscript(text, path))).toBe(text);
  });

  test("CRLF line ends, a blank line and no final newline survive", () => {
    const text = readFileSync(fixture("parallel-tool-calls.jsonl"), "utf8").trimEnd().split("\n").join("\r\n").replace("\r\n", "\r\n\r\n");
    const t = parseTranscript(text, "crlf.jsonl");
    expect(fileText(t)).toBe(text);
    expect(t.malformed).toEqual([]);
    expect(loadTranscript(t).timeline.messages.length).toBe(8);
  });

  test("an unknown record type is kept raw", () => {
    const t = readTranscript(fixture("parallel-tool-calls.jsonl"));
    const unknown = t.lines.find((l) => (l.value as { type?: string } | undefined)?.type === "future-record");
    expect(unknown?.raw).toBe('{"type":"future-record","someday":{"nested":[1,2,3]},"sessionId":"7f3c2a10-5b1e-4c9d-8e2f-0a1b2c3d4e5f"}');
    expect(fileText(t).split("\n")[unknown!.lineNo - 1]).toBe(unknown!.raw);
  });
});

describe("the conversation as Claude Code loads it", () => {
  test("parallel tool calls: sibling records of one response and the result off the chain are recovered", () => {
    const s = loadClaudeTranscript(fixture("parallel-tool-calls.jsonl"));
    expect(rows(s.timeline.messages)).toEqual([
      '#1 user prompt "Why does checkout fail for cart…"',
      '#3 assistant reply "Let me read the cart service an…"',
      "#4 assistant reply call Read toolu_01READCART",
      "#5 assistant reply call Read toolu_01READTEST",
      "#7 user tool result toolu_01READCART 165 chars",
      "#9 user tool result toolu_01READTEST 96 chars",
      '#11 assistant reasoning "MAX_ITEMS is 100 and the check …"',
      '#12 assistant reply "`addItem` throws once the cart …"',
    ]);
    expect(s.live.messages).toEqual(s.timeline.messages);
    expect(s.compactions).toEqual([]);
    expect(s.warnings).toEqual([]);
    expect(s.versions).toEqual(["2.1.42"]);
    expect(s.id).toBe("7f3c2a10-5b1e-4c9d-8e2f-0a1b2c3d4e5f");
    const call = s.timeline.messages[2]!.toolCalls[0]!;
    expect(call).toEqual({
      id: "toolu_01READCART",
      name: "Read",
      input: { file_path: "/home/dev/shop/src/cart.ts" },
      inputText: '{"file_path":"/home/dev/shop/src/cart.ts"}',
    });
  });

  test("a rewind: the newest branch is the conversation; a result written before its call still follows it", () => {
    const s = loadClaudeTranscript(fixture("rewind-and-early-result.jsonl"));
    expect(rows(s.timeline.messages)).toEqual([
      '#2 user prompt "List the routes with their hand…"',
      '#3 assistant reasoning "Read the router."',
      "#5 assistant reply call Read toolu_04READ",
      "#4 user tool result toolu_04READ 74 chars",
      '#6 assistant reply "/ -> home, /cart -> cart, /chec…"',
    ]);
    expect(s.warnings).toEqual([]);
  });

  test("compactions: the timeline runs across both boundaries, summaries and copies are what the host kept", () => {
    const s = loadClaudeTranscript(fixture("compacted-twice.jsonl"));
    expect(rows(s.timeline.messages)).toEqual([
      '#0 user prompt "Rename fetchUser to loadUser ev…"',
      "#1 assistant reply call Grep toolu_02GREP",
      "#2 user tool result toolu_02GREP 94 chars",
      '#3 assistant reply "Two files use it; renaming now."',
      "#6 assistant reply call Edit toolu_02EDIT",
      "#7 user tool result toolu_02EDIT 52 chars",
      '#8 assistant reply "Renamed in src/api.ts."',
      '#9 user prompt "Now src/page.ts too."',
      "#10 assistant reply call Edit toolu_02EDIT2",
      "#11 user tool result toolu_02EDIT2 53 chars",
      '#12 assistant reply "Both files now use loadUser."',
      '#18 user prompt "Run the tests."',
      "#19 assistant reply call Bash toolu_02TEST",
      "#20 user tool result toolu_02TEST 57 chars",
      '#21 assistant reply "All 4 test files pass."',
    ]);
    expect(s.compactions.map((c) => ({ ...c, kept: rows(c.kept) }))).toEqual([
      { from: 0, at: 4, trigger: "auto", kept: ['#5 user summary "This session is being continued…"'] },
      {
        from: 4,
        at: 11,
        trigger: "manual",
        kept: [
          '#14 user prompt "Now src/page.ts too."',
          "#15 assistant reply call Edit toolu_02EDIT2",
          "#16 user tool result toolu_02EDIT2 13 chars",
          '#17 assistant reply "Both files now use loadUser."',
        ],
      },
    ]);
    // live: what the model sees now, from the last boundary on
    expect(s.live.messages.map((m) => m.source?.record)).toEqual([14, 15, 16, 17, 18, 19, 20, 21]);
    expect(s.segments.map((g) => g.boundary)).toEqual([undefined, 4, 13]);
  });

  test("is_error kept, images counted not inlined, isMeta marked, thinking-only record is reasoning", () => {
    const s = loadClaudeTranscript(fixture("errors-images-meta.jsonl"));
    expect(rows(s.timeline.messages)).toEqual([
      '#0 user prompt "Here is the screenshot of the b…"',
      '#1 user meta "Base directory for this skill: …"',
      '#2 assistant reasoning "The header overflows; check the…"',
      "#3 assistant reply call Bash toolu_03BASH",
      "#4 user tool result toolu_03BASH error 95 chars",
      "#5 assistant reply call mcp__browser__screenshot toolu_03SHOT",
      "#6 user tool result toolu_03SHOT 2 images 64 chars",
      '#7 assistant reply "`flex-grw` is a typo for `flex-…"',
    ]);
    expect(s.timeline.messages[6]!.toolResults[0]!.text).toBe("Screenshot of http://localhost:3000 (1280x800)\n2 images attached");
    expect(JSON.stringify(s.timeline.messages)).not.toContain("iVBORw0KGgo");
  });

  test("a ToolSearch's tool_reference blocks name tools: not counted as images, as a document is", () => {
    expect(
      toolResultText([
        { type: "tool_reference", tool_name: "Grep" },
        { type: "tool_reference", tool_name: "Glob" },
      ]),
    ).toEqual({ text: "", images: 0 });
    expect(
      toolResultText([
        { type: "text", text: "PDF file read" },
        { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" } },
      ]),
    ).toEqual({
      text: "PDF file read",
      images: 1,
    });
  });

  test("sidechains in the file and subagent files beside it are their own sessions, main first", () => {
    const problems: string[] = [];
    const all = loadClaudeTranscripts(fixture("with-subagents.jsonl"), (p) => problems.push(p));
    expect(problems).toEqual([]);
    expect(all.map((s) => [s.id, s.agentId, s.path.slice(FIXTURES.length + 1), rows(s.timeline.messages)])).toEqual([
      [
        "9a8b7c6d-1111-4222-8333-444455556666",
        undefined,
        "with-subagents.jsonl",
        [
          '#0 user prompt "Find where prices are rounded."',
          "#1 assistant reply call Task toolu_05TASK",
          "#6 user tool result toolu_05TASK 37 chars",
          '#7 assistant reply "They are rounded in `src/price.…"',
        ],
      ],
      [
        "9a8b7c6d-1111-4222-8333-444455556666/agent-a11ce",
        "a11ce",
        "with-subagents.jsonl",
        [
          '#2 user prompt "Find where prices are rounded"',
          "#3 assistant reply call Grep toolu_05SGREP",
          "#4 user tool result toolu_05SGREP 48 chars",
          '#5 assistant reply "Prices are rounded in src/price…"',
        ],
      ],
      [
        "9a8b7c6d-1111-4222-8333-444455556666/agent-b0b",
        "b0b",
        "with-subagents/subagents/agent-b0b.jsonl",
        [
          '#0 user prompt "Check the currency formatting t…"',
          "#1 assistant reply call Bash toolu_05TBASH",
          "#2 user tool result toolu_05TBASH 24 chars",
          '#3 assistant reply "Currency tests pass."',
        ],
      ],
    ]);
  });
});

describe("pairing", () => {
  test("a result without its call and a call without its result are warnings, never a crash", () => {
    const s = loadClaudeTranscript(fixture("malformed-and-truncated.jsonl"));
    const path = fixture("malformed-and-truncated.jsonl");
    expect(s.warnings).toEqual([`${path}:5: tool_result toolu_06GHOST has no tool_use before it`]);
    const t = parseTranscript(
      `${[
        '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"go"}}',
        '{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}',
      ].join("\n")}\n`,
      "pending.jsonl",
    );
    expect(loadTranscript(t).warnings).toEqual(["pending.jsonl:2: tool_use t1 (Bash) has no tool_result"]);
  });
});

describe("bad input", () => {
  const dir = mkdtempSync(join(tmpdir(), "bc-transcript-"));
  const file = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  mkdirSync(join(dir, "a-folder.jsonl"));
  const cases: [string, string, RegExp][] = [
    ["missing path", join(dir, "nope.jsonl"), /nope\.jsonl: no such file$/],
    ["directory", join(dir, "a-folder.jsonl"), /a-folder\.jsonl: is a directory$/],
    ["empty file", file("empty.jsonl", ""), /empty\.jsonl: the file is empty$/],
    [
      "a Codex rollout",
      file("rollout.jsonl", '{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x","cli_version":"0.140.0"}}\n'),
      /rollout\.jsonl: this is a Codex rollout, not a Claude Code transcript$/,
    ],
    [
      "random JSON lines",
      file("random.jsonl", '{"a":1}\n{"b":[2]}\n'),
      /random\.jsonl: no Claude Code records \(user, assistant, system, \.\.\.\) in 2 JSON lines$/,
    ],
    ["pretty-printed JSON", file("pretty.json", '{\n  "a": 1\n}\n'), /pretty\.json:1: not valid JSON/],
    ["plain text", file("notes.txt", "hello\nworld\n"), /notes\.txt:1: not valid JSON/],
  ];
  test.each(cases)("%s: one-line BcError naming what was expected", (_, path, message) => {
    let err: unknown;
    try {
      readTranscript(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BcError);
    const e = err as BcError;
    expect(e.message).toMatch(message);
    expect(e.message).not.toContain("\n");
    expect(e.hint).toContain("Claude Code transcript");
  });

  test("a malformed line is reported as file:line, counted and skipped; a cut-off last line is tolerated", () => {
    const path = fixture("malformed-and-truncated.jsonl");
    const s = loadClaudeTranscript(path);
    expect(s.malformed).toHaveLength(2);
    expect(s.malformed[0]).toStartWith(`${path}:3: not valid JSON`);
    expect(s.malformed[1]).toBe(`${path}:7: incomplete last line, cut mid-JSON (the file may still be being written)`);
    expect(s.timeline.messages.map((m) => m.source?.record)).toEqual([0, 1, 3, 4, 5]);
    const t = readTranscript(path);
    expect(t.lines.at(-1)?.partial).toBe(true);
  });

  test("a record of a shape bc passes over is said as its line's problem, as a line it cannot parse is; the rest still loads", () => {
    const user = (uuid: string, parent: string | null, message: unknown) => JSON.stringify({ type: "user", uuid, parentUuid: parent, sessionId: "s", message });
    const text = `${[
      user("u1", null, { role: "user", content: "go" }),
      "42",
      '["not", "a", "record"]',
      JSON.stringify({ type: 5, uuid: "x1", parentUuid: "u1", sessionId: "s" }),
      user("u2", "u1", 42),
      user("u3", "u2", { role: "user", content: 42 }),
      JSON.stringify({
        type: "assistant",
        uuid: "a1",
        parentUuid: "u3",
        sessionId: "s",
        message: { id: "m1", content: [null, { type: "tool_use", name: "Bash", input: {} }] },
      }),
      user("u4", "a1", { role: "user", content: [{ type: "tool_result", content: "x" }] }),
      user("u5", "u4", { role: "user", content: "still read" }),
    ].join("\n")}\n`;
    const t = parseTranscript(text, "shapes.jsonl");
    expect(t.malformed).toEqual([
      "shapes.jsonl:2: not a JSON object",
      "shapes.jsonl:3: not a JSON object",
      'shapes.jsonl:4: record without string "type"',
      'shapes.jsonl:5: user record without an object "message"',
      "shapes.jsonl:6: user record whose message.content is neither text nor a list of blocks",
      "shapes.jsonl:7: assistant record with a content block that is not an object (passed over)",
      "shapes.jsonl:8: tool_result block without a string tool_use_id",
    ]);
    expect(loadTranscript(t).timeline.messages.at(-1)?.text).toBe("still read");
    // written back byte for byte all the same
    expect(fileText(t)).toBe(text);
    // a tool_use without an id (its own line's first problem)
    const noId = parseTranscript(
      `${user("u1", null, { content: "go" })}\n${JSON.stringify({ type: "assistant", uuid: "a1", parentUuid: "u1", sessionId: "s", message: { content: [{ type: "tool_use", name: "Bash", input: {} }] } })}\n`,
      "no-id.jsonl",
    );
    expect(noId.malformed).toEqual(["no-id.jsonl:2: tool_use block without a string id"]);
  });

  test("a record whose parent no line of the file holds: the conversation is read from it, and said, with how many messages before it are left out", () => {
    const rec = (type: string, uuid: string, parent: string | null, content: unknown) =>
      JSON.stringify({ type, uuid, parentUuid: parent, sessionId: "s", message: { role: type, content } });
    const lines = [
      rec("user", "u1", null, "first prompt"),
      rec("assistant", "a1", "u1", "a reply"),
      // the record "gone" (a1's child) is missing: u2 names it
      rec("user", "u2", "gone", "second prompt"),
      rec("assistant", "a2", "u2", "done"),
    ];
    const s = loadTranscript(parseTranscript(`${lines.join("\n")}\n`, "broken.jsonl"));
    expect(rows(s.timeline.messages)).toEqual(['#2 user prompt "second prompt"', '#3 assistant reply "done"']);
    expect(s.malformed).toEqual([
      "broken.jsonl:3: its parentUuid gone names no record in the file: the conversation is read from here (the 2 message records before it are left out, as Claude Code leaves them out)",
    ]);
    // a whole chain: nothing said
    expect(loadTranscript(parseTranscript(`${lines.slice(0, 2).join("\n")}\n`, "whole.jsonl")).malformed).toEqual([]);
  });

  test("cleanup", () => rmSync(dir, { recursive: true, force: true }));
});

describe("a line of two records with no newline between them", () => {
  test("both records are read, in place, and the line is named file:line with what was done", () => {
    const src = readFileSync(fixture("parallel-tool-calls.jsonl"), "utf8").trimEnd().split("\n");
    const whole = loadClaudeTranscript(fixture("parallel-tool-calls.jsonl"));
    // lines 3 and 4 written as one
    const joined = `${[...src.slice(0, 2), src[2]! + src[3]!, ...src.slice(4)].join("\n")}\n`;
    const dir = mkdtempSync(join(tmpdir(), "bc-run-together-"));
    try {
      const path = join(dir, "s.jsonl");
      writeFileSync(path, joined);
      const s = loadClaudeTranscript(path);
      expect(s.malformed).toEqual([`${path}:3: 2 records with no newline between them; read as 2 records`]);
      expect(s.timeline.messages).toEqual(whole.timeline.messages);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test("a subagent file beside the session that cannot be read is left out, and said: the session and its other subagents still load", () => {
  const dir = mkdtempSync(join(tmpdir(), "bc-subagents-"));
  try {
    const main = join(dir, "with-subagents.jsonl");
    writeFileSync(main, readFileSync(fixture("with-subagents.jsonl")));
    const subagents = join(dir, "with-subagents", "subagents");
    mkdirSync(subagents, { recursive: true });
    for (const f of readdirSync(join(FIXTURES, "with-subagents", "subagents")))
      writeFileSync(join(subagents, f), readFileSync(join(FIXTURES, "with-subagents", "subagents", f)));
    const good = readdirSync(subagents).length;
    writeFileSync(join(subagents, "agent-zzz.jsonl"), "");
    const problems: string[] = [];
    const all = loadClaudeTranscripts(main, (p) => problems.push(p));
    expect(all.length).toBe(loadClaudeTranscripts(fixture("with-subagents.jsonl"), () => {}).length);
    expect(good).toBeGreaterThan(0);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(join(subagents, "agent-zzz.jsonl"));
    expect(problems[0]).toEndWith("; this subagent is left out");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
