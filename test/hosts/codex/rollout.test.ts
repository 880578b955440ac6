// Reading and writing rollout files: lossless, typed, and one clear error for bad input.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BcError } from "../../../src/util/errors.ts";
import {
  cliVersions,
  lastOrdinal,
  lastTokenCount,
  lastTurnContext,
  lastWorldState,
  parseRollout,
  readRollout,
  serializeRollout,
  sessionMeta,
  threadId,
  type RolloutLine,
} from "../../../src/hosts/codex/rollout.ts";

const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "codex");
const fixture = (name: string): string => join(FIXTURES, name);
const NOT_ROLLOUTS = new Set(["not-a-rollout-claude-transcript.jsonl"]);
const rolloutFixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".jsonl") && !NOT_ROLLOUTS.has(f))
  .sort();

describe("lossless", () => {
  test.each(rolloutFixtures)("%s reads and writes back byte for byte", (name) => {
    const text = readFileSync(fixture(name), "utf8");
    expect(serializeRollout(parseRollout(text, name))).toBe(text);
  });

  test("unknown record types are kept as unknown and written back untouched", () => {
    const text = readFileSync(fixture("legacy-every-item-variant.jsonl"), "utf8");
    const r = parseRollout(text, "x");
    const unknown = r.lines.filter((l) => l.kind === "unknown");
    expect(unknown.map((l) => (l.kind === "unknown" ? l.type : ""))).toEqual(["inter_agent_communication_metadata", "some_future_record"]);
    const source = text.split("\n");
    for (const l of unknown) expect(l.raw).toBe(source[l.index]!);
    expect(r.malformed).toEqual([]);
  });

  test("a file without a final newline stays without one", () => {
    const text = readFileSync(fixture("crlf-line-endings.jsonl"), "utf8");
    expect(text.endsWith("\n")).toBe(false);
    expect(text.includes("\r\n")).toBe(true);
    const r = parseRollout(text, "crlf");
    expect(r.endsWithNewline).toBe(false);
    expect(r.lines.filter((l) => l.kind === "malformed")).toEqual([]);
    expect(serializeRollout(r)).toBe(text);
  });
});

describe("line variants and format", () => {
  const kindsOf = (lines: readonly RolloutLine[]): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const l of lines) out[l.kind] = (out[l.kind] ?? 0) + 1;
    return out;
  };

  test("a 0.169 paginated rollout: ordinals, metadata, world_state, token_usage_record", () => {
    const r = readRollout(fixture("paginated-native-compaction.jsonl"));
    expect(r.format).toBe("paginated");
    expect(kindsOf(r.lines)).toEqual({
      session_meta: 1,
      event_msg: 8,
      world_state: 2,
      turn_context: 2,
      response_item: 10,
      token_usage_record: 1,
      compacted: 1,
    });
    r.lines.forEach((l, i) => expect("ordinal" in l ? l.ordinal : "none").toBe(i));
    expect(lastOrdinal(r)).toBe(r.lines.length - 1);
    const first = r.lines.find((l) => l.kind === "response_item");
    expect(first?.kind === "response_item" ? first.metadata : undefined).toEqual({ history_sequence: 1, client_authored: true });
    expect(r.warnings).toEqual([]);
  });

  test.each([
    ["legacy-every-item-variant.jsonl", "legacy"],
    ["legacy-one-compaction.jsonl", "legacy"],
    ["paginated-native-compaction.jsonl", "paginated"],
  ])("%s is %s", (name, format) => {
    expect(readRollout(fixture(name)).format).toBe(format as "legacy" | "paginated");
  });

  test("history_mode paginated alone makes a rollout paginated; a line without ordinal there is a warning", () => {
    const text =
      JSON.stringify({ timestamp: "t", ordinal: 0, type: "session_meta", payload: { id: "a", history_mode: "paginated" } }) +
      "\n" +
      JSON.stringify({ timestamp: "t", type: "event_msg", payload: { type: "task_started" } }) +
      "\n";
    const r = parseRollout(text, "p.jsonl");
    expect(r.format).toBe("paginated");
    expect(r.warnings).toEqual(['p.jsonl:2: paginated rollout line without "ordinal" (1 such lines)']);
    expect(lastOrdinal(r)).toBe(0);
  });

  test("legacy rollouts have no last ordinal", () => {
    expect(lastOrdinal(readRollout(fixture("legacy-one-compaction.jsonl")))).toBeUndefined();
  });

  test("accessors find the lines the fork writer copies", () => {
    const r = readRollout(fixture("paginated-native-compaction.jsonl"));
    expect(sessionMeta(r)?.payload.id).toBe("019ad0c4-5e6f-7a81-9b2c-3d4e5f607182");
    expect(threadId(r)).toBe("019ad0c4-5e6f-7a81-9b2c-3d4e5f607182");
    const tc = lastTokenCount(r);
    expect(tc?.index).toBe(r.lines.length - 1);
    expect((tc!.payload.info as { last_token_usage: { total_tokens: number } }).last_token_usage.total_tokens).toBe(410);
    const compactedAt = r.lines.findIndex((l) => l.kind === "compacted");
    expect(lastWorldState(r)?.index).toBe(compactedAt + 1);
    expect(lastTurnContext(r)?.index).toBe(compactedAt + 2);
  });

  test("session_meta repeated by the desktop app on each re-open: one thread, every version", () => {
    const r = readRollout(fixture("session-meta-repeated-on-reopen.jsonl"));
    expect(r.lines.filter((l) => l.kind === "session_meta").length).toBe(3);
    expect(threadId(r)).toBe("019f1d32-d0a7-7331-bf87-3941f91a008a");
    expect(cliVersions(r)).toEqual(["0.142.2", "0.142.3"]);
    expect(r.warnings).toEqual([]);
  });

  test("no session_meta: the thread id is the UUID in the name, the thread's in a file Codex went on in after a revert", () => {
    const line = `${JSON.stringify({ timestamp: "t", type: "response_item", payload: { type: "message", role: "user", content: [] } })}\n`;
    const thread = "019f1d32-d0a7-7331-bf87-3941f91a008a";
    expect(threadId(parseRollout(line, `rollout-2026-03-01T10-00-00-${thread}.jsonl`))).toBe(thread);
    expect(threadId(parseRollout(line, `/x/rollout-2026-03-02T10-00-00-${thread}_01a2529e-19ed-7441-9795-ea7af021df00.jsonl`))).toBe(thread);
  });

  test("session_meta lines naming different threads: the first wins, with a warning", () => {
    const meta = (id: string): string => JSON.stringify({ timestamp: "t", type: "session_meta", payload: { id } });
    const r = parseRollout(`${meta("first")}\n${meta("second")}\n`, "two.jsonl");
    expect(threadId(r)).toBe("first");
    expect(r.warnings).toEqual(["two.jsonl: session_meta lines name 2 thread ids; the first (first) is the thread's"]);
  });

  test("without session_meta the id comes from the filename, with a warning", () => {
    const line = JSON.stringify({ timestamp: "t", type: "event_msg", payload: { type: "task_started" } });
    const path = "rollout-2026-01-01T00-00-00-019ad0c4-5e6f-7a81-9b2c-3d4e5f607182.jsonl";
    const r = parseRollout(`${line}\n`, path);
    expect(threadId(r)).toBe("019ad0c4-5e6f-7a81-9b2c-3d4e5f607182");
    expect(r.warnings).toEqual([`${path}: does not start with session_meta (Codex refuses to resume such a rollout)`]);
  });
});

describe("bad lines", () => {
  test("malformed lines are reported as file:line: why, counted, skipped, and kept for writing", () => {
    const path = fixture("malformed-lines.jsonl");
    const r = readRollout(path);
    expect(r.malformed).toEqual([
      `${path}:8: not valid JSON (JSON Parse error: Expected '}'): "{\\"timestamp\\":\\"2026-07-01T10:00:09.333Z\\",…"`,
      `${path}:9: not a JSON object`,
      `${path}:10: record without string "type"`,
      `${path}:11: compacted without string "message" (Codex ignores this line)`,
      `${path}:12: response_item: function_call without string "call_id"`,
    ]);
    expect(r.lines[12]?.kind).toBe("blank");
    expect(r.lines[13]?.kind).toBe("response_item");
    expect(serializeRollout(r)).toBe(readFileSync(path, "utf8"));
  });

  test("a truncated last line (file still being written) is read up to the last complete line", () => {
    const path = fixture("partial-last-line.jsonl");
    const r = readRollout(path);
    expect(r.partial).toBe(true);
    expect(r.malformed).toEqual([`${path}:${r.lines.length}: incomplete last line, cut mid-JSON (the file may still be being written)`]);
    const last = r.lines[r.lines.length - 1]!;
    expect(last.kind === "malformed" && last.partial).toBe(true);
    expect(r.lines.slice(0, -1).every((l) => l.kind !== "malformed")).toBe(true);
    expect(serializeRollout(r)).toBe(readFileSync(path, "utf8"));
  });

  test("a file of Codex records that Codex cannot read is a damaged rollout, not another format", () => {
    const line = JSON.stringify({ timestamp: "t", type: "compacted", payload: { replacement_history: [] } });
    const r = parseRollout(`${line}\n`, "one.jsonl");
    expect(r.malformed).toEqual(['one.jsonl:1: compacted without string "message" (Codex ignores this line)']);
    expect(r.lines.map((l) => l.kind)).toEqual(["malformed"]);
  });

  test("a bad compacted replacement_history item or metadata length is reported (Codex would drop the line)", () => {
    const line = (payload: unknown): string => JSON.stringify({ timestamp: "t", type: "compacted", payload });
    const meta = JSON.stringify({ timestamp: "t", type: "session_meta", payload: { id: "x" } });
    const text = [
      meta,
      line({ message: "", replacement_history: [{ type: "message", role: "user" }] }),
      line({ message: "", replacement_history: [], replacement_history_metadata: [{}] }),
      line({ message: "", replacement_history: [] }),
    ].join("\n");
    const r = parseRollout(text, "c.jsonl");
    expect(r.malformed).toEqual([
      'c.jsonl:2: compacted replacement_history[0]: message without "content" array (Codex ignores this line)',
      "c.jsonl:3: compacted replacement_history_metadata does not have 0 entries (Codex ignores this line)",
    ]);
    expect(r.lines.map((l) => l.kind)).toEqual(["session_meta", "malformed", "malformed", "compacted"]);
  });
});

describe("bad input: one-line errors", () => {
  const dir = mkdtempSync(join(tmpdir(), "bc-codex-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, content: string | Uint8Array): string => {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  };
  mkdirSync(join(dir, "a-directory.jsonl"));

  const cases: [string, () => string, BcError["code"], RegExp][] = [
    ["a missing path", () => join(dir, "nope.jsonl"), "not-found", /nope\.jsonl: no such file$/],
    ["a directory", () => join(dir, "a-directory.jsonl"), "bad-input", /a-directory\.jsonl: is a directory$/],
    ["an empty file", () => write("empty.jsonl", ""), "bad-input", /empty\.jsonl: the file is empty$/],
    ["blank lines only", () => write("blank.jsonl", "\n\n  \n"), "bad-input", /blank\.jsonl: not a Codex rollout \(no records\)$/],
    [
      "a Claude Code transcript",
      () => fixture("not-a-rollout-claude-transcript.jsonl"),
      "bad-input",
      /not-a-rollout-claude-transcript\.jsonl:1: not a Codex rollout: not a rollout record \(type "user"\)$/,
    ],
    [
      "binary garbage",
      () => write("garbage.jsonl", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x10, 0x0a, 0xff])),
      "bad-input",
      /garbage\.jsonl:1: not a Codex rollout: a PNG image, not JSON$/,
    ],
    [
      "JSON of another kind",
      () => write("other.jsonl", '{"type":"span","name":"x"}\n'),
      "bad-input",
      /other\.jsonl:1: not a Codex rollout: unknown record type "span"$/,
    ],
    [
      "a damaged compressed rollout",
      () => write("rollout-x.jsonl.zst", new Uint8Array([0x28, 0xb5, 0x2f, 0xfd])),
      "bad-input",
      /rollout-x\.jsonl\.zst: cannot be decompressed \(.*\)$/,
    ],
    [
      "a .zst name on a file that is not compressed",
      () => write("rollout-y.jsonl.zst", "{}\n"),
      "bad-input",
      /rollout-y\.jsonl\.zst: not zstd-compressed, though its name ends in \.zst$/,
    ],
  ];

  test.each(cases)("%s", (_name, make, code, message) => {
    let caught: unknown;
    try {
      readRollout(make());
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(BcError);
    const e = caught as BcError;
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
    expect(e.message.includes("\n")).toBe(false);
    expect(e.hint ?? "").not.toBe("");
  });
});
