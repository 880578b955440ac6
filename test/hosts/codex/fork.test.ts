import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { codexTokens } from "../../../src/hosts/codex/codex-estimate.ts";
import * as fork from "../../../src/hosts/codex/fork.ts";
import { enginePruner, forkRollout, type Pruner } from "../../../src/hosts/codex/fork.ts";
import { isInjectedContext } from "../../../src/hosts/codex/items.ts";
import { CANONICAL_NAME_RE, canonicalFileName, uuidV7 } from "../../../src/hosts/codex/fork-names.ts";
import { rebuildHistory } from "../../../src/hosts/codex/history.ts";
import { isOutputItem, outputText, type ResponseItem, sentForm } from "../../../src/hosts/codex/items.ts";
import { lastOrdinal, loadCodexRollout, loneSurrogateEscape, parseRollout, readRollout } from "../../../src/hosts/codex/rollout.ts";
import { BcError } from "../../../src/util/errors.ts";
import { resolveSession } from "../../../src/hosts/load.ts";

import { keepAllPruner } from "./support/keep-all.ts";

const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "codex");
const PAGINATED = join(FIXTURES, "fork-paginated-0.169.0.jsonl");
const PAGINATED_OLD = join(FIXTURES, "fork-paginated-0.150.1.jsonl");
const LEGACY = join(FIXTURES, "fork-legacy-0.140.jsonl");
const NOW = new Date("2026-12-01T09:08:07.123Z");

const temps: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "bc-fork-test-"));
  temps.push(d);
  return d;
};
afterEach(() => {
  while (temps.length > 0) rmSync(temps.pop()!, { recursive: true, force: true });
});

/** A copy of a fixture in a temp folder, so a test can compare its bytes and mtime. */
const sourceCopy = (fixture: string): string => {
  const p = join(tempDir(), basename(fixture));
  copyFileSync(fixture, p);
  return p;
};

const NOTE = (callId: string): string => `[removed by a test pruner: output of ${callId}]`;

/** Drops the output of every call whose arguments mention `needle`: a policy of the test's own, not a stand-in for the engine. */
const dropWhere =
  (needle: string): Pruner =>
  (history, rollout, context) => {
    const base = keepAllPruner(history, rollout, context);
    const calls = new Map<string, string>();
    const outputs = new Map<number, string>();
    history.forEach((h, i) => {
      const it = h.item;
      if (typeof it.call_id === "string" && (it.type === "function_call" || it.type === "custom_tool_call"))
        calls.set(it.call_id, String(it.arguments ?? it.input));
      if (isOutputItem(it) && (calls.get(it.call_id) ?? "").includes(needle)) outputs.set(i, NOTE(it.call_id));
    });
    return { ...base, outputs, resultsKept: base.results - outputs.size, resultsDropped: outputs.size };
  };

const fileState = (p: string) => ({ bytes: readFileSync(p), mtimeMs: statSync(p).mtimeMs });

const listFiles = (dir: string): string[] => {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const n of readdirSync(dir, { recursive: true }) as string[]) if (statSync(join(dir, n)).isFile()) out.push(n);
  return out.sort();
};

describe("ids and names", () => {
  test("uuidV7 puts the ms timestamp first and sets the version and variant bits", () => {
    const ms = Date.UTC(2026, 11, 1, 9, 8, 7, 123);
    const id = uuidV7(ms, new Uint8Array(10).fill(0xff));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(ms);
    expect(uuidV7(ms, new Uint8Array(10))).toBe(
      `${ms
        .toString(16)
        .padStart(12, "0")
        .replace(/^(.{8})(.{4})$/, "$1-$2")}-7000-8000-000000000000`,
    );
    const many = new Set(Array.from({ length: 200 }, () => uuidV7(ms)));
    expect(many.size).toBe(200);
  });

  test("canonicalFileName is the form Codex insists on, in local time", () => {
    const id = uuidV7(NOW.getTime());
    const name = canonicalFileName(NOW, id);
    const m = CANONICAL_NAME_RE.exec(name);
    expect(m?.[7]).toBe(id);
    expect(Number(m?.[4])).toBe(NOW.getHours());
    expect(CANONICAL_NAME_RE.test(`rollout-${id}.jsonl`)).toBe(false);
  });
});

describe("forking a paginated rollout (Codex 0.169.0)", () => {
  test("writes the recipe: copied lines, new ids, compacted + token_count with continued ordinals, canonical path", () => {
    const source = sourceCopy(PAGINATED);
    const before = fileState(source);
    const home = tempDir();
    const r = forkRollout(source, { context: "fresh", pruner: dropWhere("cat a.txt"), codexHome: home, now: NOW });

    expect(fileState(source)).toEqual(before);
    expect(r.path).toBe(
      join(
        home,
        "sessions",
        String(NOW.getFullYear()),
        String(NOW.getMonth() + 1).padStart(2, "0"),
        String(NOW.getDate()).padStart(2, "0"),
        canonicalFileName(NOW, r.newId),
      ),
    );
    expect(listFiles(home)).toEqual([r.path.slice(home.length + 1)]);
    const text = readFileSync(r.path, "utf8");
    expect(Buffer.from(r.bytes).equals(readFileSync(r.path))).toBe(true);

    const src = readRollout(source);
    const fork = parseRollout(text, r.path);
    const srcLines = src.lines.length;
    // every source line copied byte for byte, except session_meta whose ids change
    fork.lines.slice(0, srcLines).forEach((l, i) => {
      if (l.kind === "session_meta") {
        expect(l.payload.id).toBe(r.newId);
        expect(l.payload.session_id).toBe(r.newId);
        expect({ ...l.payload, id: r.sourceId, session_id: r.sourceId }).toEqual(
          src.lines[i]!.kind === "session_meta" ? (src.lines[i] as any).payload : undefined,
        );
      } else expect(l.raw).toBe(src.lines[i]!.raw);
    });
    const appended = fork.lines.slice(srcLines).map((l) => (l as any).value);
    expect(appended.map((v) => v.type)).toEqual(["compacted", "event_msg"]);
    const last = lastOrdinal(src)!;
    expect(appended.map((v) => v.ordinal)).toEqual([last + 1, last + 2]);
    expect(fork.lines.map((l) => (l as any).ordinal)).toEqual(fork.lines.map((_, i) => i));
    expect(appended[0].payload.message).toBe("");
    expect(appended[1].payload.type).toBe("token_count");
    expect(appended[1].payload.info.last_token_usage.total_tokens).toBe(codexTokens(r.replacementHistory));
    expect(r.estimatedTokens).toBe(appended[1].payload.info.last_token_usage.total_tokens);

    // the history Codex rebuilds: the source's minus injected context, the two `cat a.txt` outputs replaced
    const rebuilt = rebuildHistory(fork).items.map((h) => h.item);
    const original = rebuildHistory(src).items.map((h) => sentForm(h.item));
    const expected = original
      .filter((it) => !isInjectedContext(it))
      .map((it) => (isOutputItem(it) && ["call_mock2", "call_mock8"].includes(it.call_id) ? { ...it, output: NOTE(it.call_id) } : it));
    expect(rebuilt).toEqual(expected);
    expect(original.some((it) => it.type === "message" && it.role === "developer")).toBe(true);
    expect(rebuilt.filter((it) => isOutputItem(it)).map((it) => outputText((it as any).output).text.startsWith("[removed"))).toEqual([true, false, true]);
    expect(r.pruning.resultsDropped).toBe(2);
  });

  test("--context keep keeps the context messages and appends the last world_state and turn_context", () => {
    const home = tempDir();
    const r = forkRollout(PAGINATED, { context: "keep", pruner: keepAllPruner, codexHome: home, now: NOW });
    const src = readRollout(PAGINATED);
    const fork = readRollout(r.path);
    const appended = fork.lines.slice(src.lines.length);
    expect(appended.map((l) => l.kind)).toEqual(["compacted", "world_state", "turn_context", "event_msg"]);
    const srcWorld = src.lines.filter((l) => l.kind === "world_state").at(-1) as any;
    const srcTurn = src.lines.filter((l) => l.kind === "turn_context").at(-1) as any;
    expect((appended[1] as any).payload).toEqual(srcWorld.payload);
    expect((appended[2] as any).payload).toEqual(srcTurn.payload);
    expect(rebuildHistory(fork).items.map((h) => h.item)).toEqual(rebuildHistory(src).items.map((h) => sentForm(h.item)));
  });

  test("a 0.150.1 rollout forks the same way", () => {
    const r = forkRollout(PAGINATED_OLD, { context: "fresh", pruner: dropWhere("ls"), codexHome: tempDir(), now: NOW });
    expect(r.format).toBe("paginated");
    expect(r.pruning.resultsDropped).toBe(1);
    const fork = readRollout(r.path);
    expect(fork.lines.map((l) => (l as any).ordinal)).toEqual(fork.lines.map((_, i) => i));
  });

  test("a subagent's thread (session_id: the spawning session's) forks: its id is replaced, its session_id kept", () => {
    const source = sourceCopy(PAGINATED);
    const parent = "019f498d-29a6-7c51-b0a0-0a85d954f82a";
    const lines = readFileSync(source, "utf8").split("\n");
    const k = lines.findIndex((l) => l.includes('"type":"session_meta"'));
    const meta = JSON.parse(lines[k]!);
    expect(meta.payload.session_id).toBe(meta.payload.id);
    meta.payload.session_id = parent;
    meta.payload.parent_thread_id = parent;
    meta.payload.thread_source = "subagent";
    lines[k] = JSON.stringify(meta);
    writeFileSync(source, lines.join("\n"));
    const r = forkRollout(source, { context: "fresh", pruner: dropWhere("cat a.txt"), codexHome: tempDir(), now: NOW });
    const fork = parseRollout(readFileSync(r.path, "utf8"), r.path);
    const forkMeta = fork.lines.find((l) => l.kind === "session_meta") as any;
    expect(forkMeta.payload.id).toBe(r.newId);
    expect(forkMeta.payload.session_id).toBe(parent);
    expect(forkMeta.payload.parent_thread_id).toBe(parent);
    // the source id is gone from session_meta (other records, copied byte for byte, keep theirs)
    expect(JSON.stringify(forkMeta.value)).not.toContain(r.sourceId);
  });
});

describe("an output with no call before it", () => {
  test("the source holds it so: said, by line, by the reader and the fork, and carried into the fork as it is", () => {
    const source = sourceCopy(LEGACY);
    const lines = readFileSync(source, "utf8").split("\n");
    expect(lines[21]).toContain('"type":"function_call"');
    expect(lines[22]).toContain('"call_id":"call_10"');
    // the call's line lost: its output (line 23) is now line 22
    writeFileSync(source, [...lines.slice(0, 21), ...lines.slice(22)].join("\n"));
    expect(loadCodexRollout(source).warnings).toEqual([`${source}:22: output call_10 has no call before it`]);
    const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
    expect(r.unpaired).toEqual([`${source}:22: output call_10 has no call before it; carried into the fork as it is`]);
    expect(JSON.stringify(r.replacementHistory)).toContain('"call_id":"call_10"');
    // a rollout whose every output has its call: nothing said
    const clean = sourceCopy(LEGACY);
    expect(loadCodexRollout(clean).warnings).toBeUndefined();
    expect(forkRollout(clean, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW }).unpaired).toEqual([]);
  });
});

describe("forking a legacy rollout", () => {
  test("no ordinals are added, the newest compacted is the base, session_id is not invented", () => {
    const source = sourceCopy(LEGACY);
    const before = fileState(source);
    const home = tempDir();
    const r = forkRollout(source, { context: "fresh", pruner: dropWhere("calc.py"), codexHome: home, now: NOW });
    expect(fileState(source)).toEqual(before);
    expect(r.format).toBe("legacy");
    const fork = readRollout(r.path);
    expect(fork.format).toBe("legacy");
    expect(fork.lines.some((l) => "ordinal" in l && l.ordinal !== undefined)).toBe(false);
    const meta = fork.lines[0] as any;
    expect(meta.payload.id).toBe(r.newId);
    expect("session_id" in meta.payload).toBe(false);
    const items = rebuildHistory(fork).items.map((h) => h.item);
    // the earlier compaction's replacement history, then the turn after it
    expect(items[0]).toEqual({ type: "message", role: "user", content: [{ type: "input_text", text: "Read src/calc.py and tell me what it does." }] });
    const outputs = items.filter(isOutputItem).map((it) => outputText(it.output).text);
    // cat, pytest, cat, and the apply_patch whose input names calc.py
    expect(outputs.map((t) => t.startsWith("[removed"))).toEqual([true, false, true, true]);
    expect(items.at(-1)).toEqual({ type: "message", role: "assistant", content: [{ type: "output_text", text: "Added type hints." }] });
  });

  test("a rollout still being written is forked up to its last complete line", () => {
    const source = sourceCopy(LEGACY);
    appendFileSync(source, '{"timestamp":"2026-06-01T10:00:09.000Z","type":"response_item","payload":{"type":"message","role":"assis');
    const before = fileState(source);
    const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
    expect(r.partialTail).toBe(true);
    expect(fileState(source)).toEqual(before);
    const complete = readFileSync(LEGACY, "utf8").split("\n").length - 1;
    expect(readFileSync(r.path, "utf8").split("\n").length - 1).toBe(complete + 2);
  });
});

describe("never a silent fallback", () => {
  test("an existing file is never overwritten", () => {
    const home = tempDir();
    const newId = uuidV7(NOW.getTime());
    const first = forkRollout(PAGINATED, { context: "fresh", pruner: keepAllPruner, codexHome: home, now: NOW, newId });
    const before = fileState(first.path);
    let err: unknown;
    try {
      forkRollout(PAGINATED, { context: "keep", pruner: keepAllPruner, codexHome: home, now: NOW, newId });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BcError);
    expect((err as BcError).code).toBe("exists");
    expect(fileState(first.path)).toEqual(before);
    expect(listFiles(home)).toHaveLength(1);
  });

  const corruptions: [string, (text: string) => string, RegExp][] = [
    ["compacted.message removed", (t) => t.replace('"payload":{"message":"",', '"payload":{'), /compacted/],
    [
      "an ordinal skipped",
      (t) =>
        t.replace(
          /"ordinal":(\d+),"type":"event_msg","payload":\{"type":"token_count"(?![\s\S]*"token_count")/,
          (_m, n) => `"ordinal":${Number(n) + 1},"type":"event_msg","payload":{"type":"token_count"`,
        ),
      /ordinal/,
    ],
    ["a replacement item changed", (t) => t.replace(/("replacement_history":\[[\s\S]*?)RUN: cat a\.txt/, "$1RUN: cat b.txt"), /history item|differs/],
    ["the last line cut short", (t) => t.slice(0, -20), /incomplete|line/],
    ["the old id left in session_meta", (t) => t.replace(/"id":"[0-9a-f-]{36}"/, '"id":"01a22a46-ffa7-7321-b2ac-9955fe3f9220"'), /differs from the source|id/],
  ];
  test.each(corruptions)("a fork whose temp file has %s fails its check and leaves no file", (_name, corrupt, why) => {
    const source = sourceCopy(PAGINATED);
    const before = fileState(source);
    const home = tempDir();
    let err: unknown;
    try {
      forkRollout(source, {
        context: "fresh",
        pruner: dropWhere("cat"),
        codexHome: home,
        now: NOW,
        beforeCheck: (tmp) => writeFileSync(tmp, corrupt(readFileSync(tmp, "utf8"))),
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BcError);
    expect((err as BcError).code).toBe("validation");
    expect((err as BcError).message).toMatch(why);
    expect(listFiles(home)).toEqual([]);
    expect(fileState(source)).toEqual(before);
  });

  test("a line Codex cannot read is skipped as Codex skips it, copied as it is, and named file:line", () => {
    const source = join(tempDir(), "rollout-bad.jsonl");
    const lines = readFileSync(LEGACY, "utf8").split("\n");
    expect(lines[32]).toContain("All 10 tests pass.");
    lines[32] = "{not json";
    writeFileSync(source, lines.join("\n"));
    const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
    expect(r.skipped).toEqual([
      `${source}:33: not valid JSON (JSON Parse error: Expected '}'): "{not json"; skipped, as Codex skips it on resume (copied as it is)`,
    ]);
    expect(readFileSync(r.path, "utf8").split("\n")[32]).toBe("{not json");
    expect(JSON.stringify(r.replacementHistory)).not.toContain("All 10 tests pass.");
    expect(JSON.stringify(forkRollout(LEGACY, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW }).replacementHistory)).toContain(
      "All 10 tests pass.",
    );
  });

  test("a tool output that is neither a string nor an array (which Codex cannot read) is skipped as Codex skips it, never put in the fork's history", () => {
    const source = join(tempDir(), "rollout-object-output.jsonl");
    const lines = readFileSync(LEGACY, "utf8").split("\n");
    const at = lines.findIndex((l) => l.includes('"type":"function_call_output"'));
    const record = JSON.parse(lines[at]!);
    record.payload.output = { content: "permission denied", success: false };
    lines[at] = JSON.stringify(record);
    writeFileSync(source, lines.join("\n"));
    const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
    expect(r.skipped).toEqual([
      `${source}:${at + 1}: response_item: function_call_output whose "output" is neither a string nor an array; skipped, as Codex skips it on resume (copied as it is)`,
    ]);
    expect(readFileSync(r.path, "utf8").split("\n")[at]).toBe(lines[at]);
    expect(JSON.stringify(r.replacementHistory)).not.toContain("permission denied");
  });

  test("a lone UTF-16 surrogate escape (JSON.parse reads it, Codex's reader refuses the line) is skipped as Codex skips it; a pair is read", () => {
    const source = join(tempDir(), "rollout-lone-surrogate.jsonl");
    const lines = readFileSync(LEGACY, "utf8").split("\n");
    // the last two outputs: in the history since the last compaction
    const pairAt = lines.findLastIndex((l) => l.includes('"type":"function_call_output"'));
    const at = lines.findLastIndex((l, i) => i < pairAt && l.includes('"type":"function_call_output"'));
    const record = JSON.parse(lines[at]!);
    record.payload.output = "LONE-OUTPUT \ud83d end";
    // JSON.stringify writes a lone surrogate as an escape, as a damaged or hand-edited rollout holds it
    lines[at] = JSON.stringify(record);
    expect(lines[at]).toContain("\\ud83d end");
    const paired = JSON.parse(lines[pairAt]!);
    paired.payload.output = "PAIRED-OUTPUT \ud83d\ude00 end";
    lines[pairAt] = JSON.stringify(paired).replace("\u{1F600}", "\\ud83d\\ude00");
    expect(lines[pairAt]).toContain("\\ud83d\\ude00");
    writeFileSync(source, lines.join("\n"));
    const whole = forkRollout(LEGACY, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
    expect(JSON.stringify(whole.replacementHistory)).toContain(JSON.parse(lines[at]!).payload.call_id);
    const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
    expect(r.skipped).toEqual([
      `${source}:${at + 1}: a lone UTF-16 surrogate (\\ud83d) that Codex cannot read (Codex skips this line); skipped, as Codex skips it on resume (copied as it is)`,
    ]);
    const written = readFileSync(r.path, "utf8");
    expect(written.split("\n")[at]).toBe(lines[at]!);
    expect(JSON.stringify(r.replacementHistory)).not.toContain("LONE-OUTPUT");
    expect(JSON.stringify(r.replacementHistory)).toContain("PAIRED-OUTPUT \u{1F600} end");
    // no line the fork added holds a lone surrogate
    expect(
      written
        .split("\n")
        .slice(lines.length - 1)
        .some((l) => loneSurrogateEscape(l) !== undefined),
    ).toBe(false);
  });

  test("a dry run checks the fork but writes nothing", () => {
    const home = tempDir();
    const r = forkRollout(PAGINATED, { context: "fresh", pruner: dropWhere("cat"), codexHome: home, now: NOW, dryRun: true });
    expect(r.dryRun).toBe(true);
    expect(CANONICAL_NAME_RE.test(basename(r.path))).toBe(true);
    expect(listFiles(home)).toEqual([]);
  });
});

describe("a named thread's fork takes its name, as Codex's own forks do", () => {
  const indexRow = (id: string, name: string) => `${JSON.stringify({ id, thread_name: name, updated_at: "2026-11-30T02:00:00Z" })}\n`;
  const sourceIdOf = (path: string): string =>
    forkRollout(path, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW, dryRun: true }).sourceId;

  test("one row appended to session_index.jsonl (the rows before it byte for byte), so that the name resolves to the fork", () => {
    const home = tempDir();
    const id = sourceIdOf(PAGINATED);
    const index = join(home, "session_index.jsonl");
    const rows = indexRow("0190c000-0000-7000-8000-0000000000aa", "other") + indexRow(id, "fix the login bug");
    writeFileSync(index, rows);
    const r = forkRollout(PAGINATED, { context: "fresh", pruner: keepAllPruner, codexHome: home, now: NOW });
    expect(r.name).toBe("fix the login bug");
    const after = readFileSync(index, "utf8");
    expect(after.startsWith(rows)).toBe(true);
    expect(after.slice(rows.length)).toBe(`${JSON.stringify({ id: r.newId, thread_name: "fix the login bug", updated_at: NOW.toISOString() })}\n`);
    expect(resolveSession("fix the login bug", { codexHome: home, home, claudeDir: join(home, "claude") })).toBe(r.path);
  });

  test("a row left unfinished at the index's end stays on its own line", () => {
    const home = tempDir();
    const id = sourceIdOf(PAGINATED);
    const index = join(home, "session_index.jsonl");
    writeFileSync(index, `${indexRow(id, "named")}{"id":"0190`);
    const r = forkRollout(PAGINATED, { context: "fresh", pruner: keepAllPruner, codexHome: home, now: NOW });
    const lines = readFileSync(index, "utf8").split("\n");
    expect(lines.at(-2)).toBe(JSON.stringify({ id: r.newId, thread_name: "named", updated_at: NOW.toISOString() }));
    expect(lines.at(-3)).toBe('{"id":"0190');
  });

  test("a source from another Codex home takes the name that home's index gives it", () => {
    const other = tempDir();
    const source = join(other, "sessions", "2026", "11", "30", basename(PAGINATED));
    mkdirSync(dirname(source), { recursive: true });
    copyFileSync(PAGINATED, source);
    writeFileSync(join(other, "session_index.jsonl"), indexRow(sourceIdOf(PAGINATED), "from elsewhere"));
    const home = tempDir();
    const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: home, now: NOW });
    expect(r.name).toBe("from elsewhere");
    expect(resolveSession("from elsewhere", { codexHome: home, home, claudeDir: join(home, "claude") })).toBe(r.path);
    // this home's name for the thread comes first, as Codex resolves names in its own home
    writeFileSync(join(home, "session_index.jsonl"), indexRow(sourceIdOf(PAGINATED), "here"));
    expect(forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: home, now: NOW, dryRun: true }).name).toBe("here");
  });

  test("nothing is named: a source without a name, a dry run, a fork written outside $CODEX_HOME/sessions", () => {
    const home = tempDir();
    const id = sourceIdOf(PAGINATED);
    const index = join(home, "session_index.jsonl");
    const unnamed = forkRollout(PAGINATED, { context: "fresh", pruner: keepAllPruner, codexHome: home, now: NOW });
    expect(unnamed.name).toBeUndefined();
    expect(existsSync(index)).toBe(false);
    writeFileSync(index, indexRow(id, "named"));
    const dry = forkRollout(PAGINATED, { context: "fresh", pruner: keepAllPruner, codexHome: home, now: NOW, dryRun: true });
    expect(dry.name).toBe("named");
    const elsewhere = forkRollout(PAGINATED, { context: "fresh", pruner: keepAllPruner, codexHome: home, now: NOW, outDir: tempDir() });
    expect(elsewhere.name).toBeUndefined();
    expect(readFileSync(index, "utf8")).toBe(indexRow(id, "named"));
  });
});

test("a paginated rollout ending in a blank line: the last record's ordinal is continued", () => {
  const source = sourceCopy(PAGINATED);
  appendFileSync(source, "\n");
  const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
  const fork = readRollout(r.path);
  const src = readRollout(PAGINATED);
  const appended = fork.lines.filter((l) => l.kind !== "blank").slice(-2);
  expect(appended.map((l) => ("ordinal" in l ? l.ordinal : undefined))).toEqual([lastOrdinal(src)! + 1, lastOrdinal(src)! + 2]);
});

test("a paginated rollout ending in a record bc does not model: its ordinal is continued, and the record copied as it is", () => {
  const source = sourceCopy(PAGINATED);
  const last = lastOrdinal(readRollout(PAGINATED))!;
  const tail = `{"timestamp":"2026-11-30T00:41:00.000Z","ordinal":${last + 1},"type":"inter_agent_communication_metadata","payload":{"trigger_turn":false}}\n`;
  appendFileSync(source, tail);
  const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
  const fork = readRollout(r.path);
  const lines = fork.lines.filter((l) => l.kind !== "blank");
  expect(lines.at(-3)!.raw).toBe(tail.trimEnd());
  expect(lines.slice(-2).map((l) => ("ordinal" in l ? l.ordinal : undefined))).toEqual([last + 2, last + 3]);
});

test("a rollout holding an agent's message to another since its last compaction is refused, naming the line: a fork would lose it", () => {
  const source = sourceCopy(PAGINATED);
  const last = lastOrdinal(readRollout(PAGINATED))!;
  appendFileSync(
    source,
    `{"timestamp":"2026-11-30T00:41:00.000Z","ordinal":${last + 1},"type":"inter_agent_communication","payload":{"author":"/root/worker","recipient":"/root","other_recipients":[],"content":"worker done","trigger_turn":false}}\n`,
  );
  const before = fileState(source);
  const home = tempDir();
  const lineNo = readRollout(source)
    .lines.filter((l) => l.kind !== "blank")
    .at(-1)!.lineNo;
  expect(() => forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: home, now: NOW })).toThrow(
    `${source}:${lineNo}: a record Codex puts in the model's history that bc cannot carry into a fork (inter_agent_communication`,
  );
  expect(fileState(source)).toEqual(before);
  expect(listFiles(home)).toEqual([]);
});

test("the token count a fork tells Codex is Codex's own estimate of its history: UTF-8 bytes / 4 item by item, so text beyond ASCII counts for more than its characters", () => {
  const source = sourceCopy(LEGACY);
  const lines = readFileSync(source, "utf8").split("\n");
  const at = lines.findLastIndex((l) => l.includes('"type":"function_call_output"'));
  const record = JSON.parse(lines[at]!);
  record.payload.output = "Überprüfung fehlgeschlagen — 検証に失敗しました ".repeat(200);
  lines[at] = JSON.stringify(record);
  writeFileSync(source, lines.join("\n"));
  const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
  const json = JSON.stringify(r.replacementHistory);
  // reasoning counts as the text its encrypted content decodes to (codex-estimate.test.ts)
  const bytes = (it: Record<string, any>): number =>
    it.type === "reasoning" && typeof it.encrypted_content === "string"
      ? Math.max(0, Math.floor((it.encrypted_content.length * 3) / 4) - 650)
      : Buffer.byteLength(JSON.stringify(it));
  const perItem = r.replacementHistory.reduce((n, it) => n + Math.ceil(bytes(it) / 4), 0);
  expect(r.estimatedTokens).toBe(perItem);
  expect(r.estimatedTokens).toBeGreaterThan(Math.ceil(json.length / 4) + 500);
});

describe("--context fresh leaves out only the context Codex injects again", () => {
  type Json = Record<string, any>;
  const developer = (text: string, kinds?: string[]): Json => ({
    type: "message",
    role: "developer",
    content: [{ type: "input_text", text }],
    ...(kinds === undefined ? {} : { internal_chat_message_metadata_passthrough: { turn_id: "t1", content_item_kinds: kinds } }),
  });
  // a SessionStart hook's context as Codex 0.147 wrote it (no metadata), and a UserPromptSubmit
  // hook's as 0.150 and later write it (its metadata names the hook)
  const LESSONS = developer("## Relevant Lessons\n\n### 1. feat(build): stamp the build\n  Verdict: expand\n");
  const DECISIONS = developer("## Related Decisions\n\n### 1. Enforce executable hooks\n  Status: fresh\n", ["hooks.additional_context"]);
  // updates Codex writes itself when a setting changes: it injects their current form on resume
  const APPROVED = developer('Approved command prefix saved:\n- ["cat"]');
  const MODE = developer("<collaboration_mode># Collaboration Mode: Plan\n</collaboration_mode>");
  const ENV = {
    type: "message",
    role: "user",
    content: [{ type: "input_text", text: "<environment_context>\n  <current_date>2026-12-02</current_date>\n</environment_context>" }],
  };

  /** The 0.169.0 fixture with items written after the records holding `after` (response items, or the event named), its ordinals renumbered. */
  const withItems = (inserts: readonly { after: string; item: Json }[]): string => {
    const source = sourceCopy(PAGINATED);
    const lines: string[] = [];
    for (const line of readFileSync(source, "utf8")
      .split("\n")
      .filter((l) => l !== "")) {
      lines.push(line);
      for (const { after, item } of inserts)
        if (line.includes(after) && (line.includes('"type":"response_item"') || after.includes('"type":"thread_settings_applied"')))
          lines.push(JSON.stringify({ timestamp: "2026-11-30T00:40:00.000Z", ordinal: 0, type: "response_item", payload: item }));
    }
    writeFileSync(source, `${lines.map((l, i) => l.replace(/"ordinal":\d+/, `"ordinal":${i}`)).join("\n")}\n`);
    return source;
  };

  test("a hook's developer message stays in the history byte for byte, in its place; Codex's own context is left out", () => {
    const source = withItems([
      { after: '"type":"thread_settings_applied"', item: LESSONS },
      { after: '"text":"RUN: cat a.txt RUN: ls RUN: cat a.txt"', item: DECISIONS },
      { after: '"call_id":"call_mock2","output"', item: APPROVED },
      { after: '"call_id":"call_mock5","output"', item: MODE },
      { after: '"call_id":"call_mock5","output"', item: ENV },
    ]);
    const r = forkRollout(source, { context: "fresh", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
    const original = rebuildHistory(readRollout(source)).items.map((h) => sentForm(h.item) as Json);
    const text = (it: Json): string => (it.type === "message" ? it.content.map((c: Json) => c.text).join("\n") : "");
    // Codex's initial context (the skills and permissions bundle, the environment) and its updates
    const codexOwn = original.filter((it) => it.role === "developer" || text(it).startsWith("<environment_context>"));
    expect(codexOwn.map(text).filter((t) => t.startsWith("## "))).toEqual([text(LESSONS), text(DECISIONS)]);
    const reinjected = codexOwn.filter((it) => !text(it).startsWith("## "));
    expect(reinjected).toHaveLength(5);
    expect(r.replacementHistory).toEqual(original.filter((it) => !reinjected.includes(it)));
    // byte for byte: the item as the source holds it (less the metadata Codex never sends) is in the fork's compacted record
    const compacted = readFileSync(r.path, "utf8")
      .split("\n")
      .findLast((l) => l.includes('"type":"compacted"'))!;
    for (const hook of [LESSONS, DECISIONS]) expect(compacted).toContain(JSON.stringify(sentForm(hook as ResponseItem)));
    const at = (it: Json) => r.replacementHistory.findIndex((x) => JSON.stringify(x) === JSON.stringify(sentForm(it as ResponseItem)));
    // in place: the SessionStart hook's before the prompt, the UserPromptSubmit hook's right after it
    expect(text(r.replacementHistory[at(LESSONS) + 1]!)).toBe("RUN: cat a.txt RUN: ls RUN: cat a.txt");
    expect(at(DECISIONS)).toBe(at(LESSONS) + 2);
    // counted where the resumed thread holds them: in the history Codex is told, beside the one set of context it injects
    expect(r.estimatedTokens).toBe(codexTokens(r.replacementHistory));
    expect(r.heldTokens).toBe(r.estimatedTokens + codexTokens(reinjected.slice(0, 2)));
    const lineOf = (t: string) =>
      readFileSync(source, "utf8")
        .split("\n")
        .findIndex((l) => l.includes(JSON.stringify(t))) + 1;
    expect(r.keptDeveloper).toEqual([
      { line: lineOf(text(LESSONS)), author: "unknown", tokens: codexTokens([LESSONS]), opening: "## Relevant Lessons" },
      { line: lineOf(text(DECISIONS)), author: "hook", tokens: codexTokens([sentForm(DECISIONS as ResponseItem)]), opening: "## Related Decisions" },
    ]);
  });

  test("with --context keep every context message stays, and none is named as kept", () => {
    const source = withItems([{ after: '"type":"thread_settings_applied"', item: LESSONS }]);
    const r = forkRollout(source, { context: "keep", pruner: keepAllPruner, codexHome: tempDir(), now: NOW });
    expect(r.replacementHistory).toEqual(rebuildHistory(readRollout(source)).items.map((h) => sentForm(h.item)));
    expect(r.keptDeveloper).toEqual([]);
  });
});

test("a fork to a budget finds the context Codex re-injects once: its plan fits with it, and its held count is that plan's", () => {
  const demo = join(import.meta.dir, "../../../src/eval/demo/codex/rollout-2026-11-30T02-43-47-01a22a56-491b-7581-aca8-3d67346846f7.jsonl");
  const found = spyOn(fork, "reinjectedContext");
  try {
    const r = forkRollout(demo, { context: "fresh", pruner: enginePruner(undefined, { tokens: 2500 }), dryRun: true, codexHome: tempDir(), now: NOW });
    expect(found).toHaveBeenCalledTimes(1);
    const reinjected = found.mock.results[0]!.value as ResponseItem[];
    expect(reinjected.length).toBeGreaterThan(0);
    expect([r.heldTokens - r.estimatedTokens, r.heldTokens]).toEqual([codexTokens(reinjected), r.pruning.budget!.codexTokens!]);
  } finally {
    found.mockRestore();
  }
});
