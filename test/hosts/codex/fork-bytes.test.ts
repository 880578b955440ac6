// A fork copies its source's lines byte for byte, whatever those bytes are; only bc's own records
// are encoded by bc. Damaged lines are handled as Codex handles them, and compressed sources are read.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forkRollout, type Pruner } from "../../../src/hosts/codex/fork.ts";
import { keepAllPruner } from "./support/keep-all.ts";
import { isOutputItem } from "../../../src/hosts/codex/items.ts";
import { readRollout } from "../../../src/hosts/codex/rollout.ts";
import { loadSessionFile, resolveSession } from "../../../src/hosts/load.ts";

const LEGACY = join(import.meta.dir, "..", "..", "fixtures", "codex", "fork-legacy-0.140.jsonl");
const NOW = new Date("2026-12-01T09:08:07.123Z");
const ID = "019e0000-1111-7222-8333-444455556666";

const temps: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "bc-fork-bytes-"));
  temps.push(d);
  return d;
};
afterEach(() => {
  while (temps.length > 0) rmSync(temps.pop()!, { recursive: true, force: true });
});

const enc = new TextEncoder();
const LINES: Uint8Array[] = readFileSync(LEGACY, "utf8")
  .trimEnd()
  .split("\n")
  .map((l) => enc.encode(l));

/** Split bytes into lines at "\n", the last (unterminated) piece included when not empty. */
const splitLines = (b: Uint8Array): Uint8Array[] => {
  const out: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < b.length; i++)
    if (b[i] === 10) {
      out.push(b.subarray(start, i));
      start = i + 1;
    }
  if (start < b.length) out.push(b.subarray(start));
  return out;
};

const join8 = (lines: readonly Uint8Array[], sep: string, end: string): Uint8Array =>
  Buffer.concat([...lines.flatMap((l, i) => (i === 0 ? [l] : [enc.encode(sep), l])), enc.encode(end)]);

/** Put `bytes` into line `i`'s JSON text right after the first occurrence of `after`. */
const inject = (i: number, after: string, bytes: Uint8Array): Uint8Array[] => {
  const lines = [...LINES];
  const line = Buffer.from(lines[i]!);
  const at = line.indexOf(after) + after.length;
  if (at < after.length) throw new Error(`line ${i + 1} has no ${after}`);
  lines[i] = Buffer.concat([line.subarray(0, at), bytes, line.subarray(at)]);
  return lines;
};

/** Drops every output: the fork's own records then differ from the source's, the copied lines must not. */
const dropAll: Pruner = (history, rollout, context) => {
  const base = keepAllPruner(history, rollout, context);
  const outputs = new Map<number, string>();
  history.forEach((h, i) => void (isOutputItem(h.item) && outputs.set(i, "[removed]")));
  return { ...base, outputs, resultsKept: 0, resultsDropped: outputs.size };
};

const cases: [string, () => Uint8Array][] = [
  // line 13 is call_2's output ("calc.py\n__init__.py"): bytes that are not UTF-8 inside a string
  ["invalid UTF-8 inside a string", () => join8(inject(12, "calc.py", Uint8Array.of(0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80)), "\n", "\n")],
  ["a lone surrogate escape", () => join8(inject(12, "calc.py", enc.encode("\\ud800 and \\udfff")), "\n", "\n")],
  ["CRLF line ends", () => join8(LINES, "\r\n", "\r\n")],
  ["a byte-order mark", () => Buffer.concat([Uint8Array.of(0xef, 0xbb, 0xbf), join8(LINES, "\n", "\n")])],
  ["no newline after the last line", () => join8(LINES, "\n", "")],
];

describe("the fork's copy of the source, byte for byte", () => {
  test.each(cases)("%s", (name, make) => {
    const dir = tempDir();
    const source = join(dir, `rollout-2026-06-01T10-00-00-${ID}.jsonl`);
    const bytes = make();
    writeFileSync(source, bytes);
    const mtime = statSync(source).mtimeMs;
    for (const pruner of [keepAllPruner, dropAll]) {
      const r = forkRollout(source, { context: "fresh", pruner, codexHome: tempDir(), now: NOW });
      const src = splitLines(bytes);
      const fork = splitLines(new Uint8Array(readFileSync(r.path)));
      expect(fork.length).toBe(src.length + 2);
      // line 1 is the session_meta bc rewrites with the new id; every other source line is the same bytes
      for (let i = 1; i < src.length; i++) expect(Buffer.from(fork[i]!).equals(src[i]!)).toBe(true);
      expect(new TextDecoder().decode(fork[0]!)).toContain(r.newId);
      // a line Codex cannot read (a lone surrogate, bytes that are not UTF-8) is copied, and left out of the history as Codex leaves it out
      const unreadable: Record<string, string> = {
        "a lone surrogate escape": "a lone UTF-16 surrogate (\\ud800) that Codex cannot read",
        "invalid UTF-8 inside a string": "bytes that are not valid UTF-8, which Codex cannot read",
      };
      expect(r.skipped).toEqual(
        name in unreadable ? [`${source}:13: ${unreadable[name]} (Codex skips this line); skipped, as Codex skips it on resume (copied as it is)`] : [],
      );
    }
    expect(Buffer.from(readFileSync(source)).equals(bytes)).toBe(true);
    expect(statSync(source).mtimeMs).toBe(mtime);
  });
});

describe("a line of two records with no newline between them", () => {
  // line 15 (the assistant's "It defines add().") and line 16 (its agent_message event) run together
  const runTogether = (): Uint8Array[] => {
    const lines = [...LINES];
    lines.splice(14, 2, Buffer.concat([lines[14]!, lines[15]!]));
    return lines;
  };

  test("the fork skips it as Codex does on resume, copies it byte for byte, and names file:line", () => {
    const source = join(tempDir(), `rollout-2026-06-01T10-00-00-${ID}.jsonl`);
    const lines = runTogether();
    writeFileSync(source, join8(lines, "\n", "\n"));
    const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
    expect(r.skipped).toEqual([
      `${source}:15: 2 records with no newline between them (Codex skips this line); skipped, as Codex skips it on resume (copied as it is)`,
    ]);
    expect(Buffer.from(splitLines(new Uint8Array(readFileSync(r.path)))[14]!).equals(lines[14]!)).toBe(true);
  });

  test("inspect, plan and eval's reader read both records and say so", () => {
    const source = join(tempDir(), `rollout-2026-06-01T10-00-00-${ID}.jsonl`);
    writeFileSync(source, join8(runTogether(), "\n", "\n"));
    const loaded = loadSessionFile(source);
    expect(loaded.malformed).toEqual([`${source}:15: 2 records with no newline between them; read as 2 records`]);
    const whole = loadSessionFile(LEGACY);
    expect(loaded.timeline.messages.map((m) => m.text)).toEqual(whole.timeline.messages.map((m) => m.text));
    const r = readRollout(source);
    expect(r.lines.filter((l) => l.lineNo === 15).map((l) => l.kind)).toEqual(["response_item", "event_msg"]);
  });
});

describe("a compressed rollout (.jsonl.zst)", () => {
  test("is found by id, read, and forked uncompressed; the source stays as it was", () => {
    const home = tempDir();
    const day = join(home, "sessions", "2026", "06", "01");
    mkdirSync(day, { recursive: true });
    const source = join(day, `rollout-2026-06-01T10-00-00-${ID}.jsonl.zst`);
    const compressed = Bun.zstdCompressSync(readFileSync(LEGACY));
    writeFileSync(source, compressed);
    expect(resolveSession(ID, { codexHome: home, home: tempDir() })).toBe(source);
    expect(loadSessionFile(source).live.messages.length).toBe(loadSessionFile(LEGACY).live.messages.length);
    const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: home, now: NOW });
    expect(r.path.endsWith(".jsonl")).toBe(true);
    const fork = splitLines(new Uint8Array(readFileSync(r.path)));
    const src = splitLines(new Uint8Array(readFileSync(LEGACY)));
    for (let i = 1; i < src.length; i++) expect(Buffer.from(fork[i]!).equals(src[i]!)).toBe(true);
    expect(Buffer.from(readFileSync(source)).equals(compressed)).toBe(true);
  });

  test("beside its plain copy, the id finds the plain rollout, as Codex reads it", () => {
    const home = tempDir();
    const day = join(home, "sessions", "2026", "06", "01");
    mkdirSync(day, { recursive: true });
    const plain = join(day, `rollout-2026-06-01T10-00-00-${ID}.jsonl`);
    writeFileSync(plain, readFileSync(LEGACY));
    writeFileSync(`${plain}.zst`, Bun.zstdCompressSync(readFileSync(LEGACY)));
    expect(resolveSession(ID, { codexHome: home, home: tempDir() })).toBe(plain);
  });
});
