// A thread Codex forked itself (history_base in its session_meta): bc reads the parent's history
// before the fork point first, as Codex does, for plans, forks and the live plan.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forkRollout } from "../../../src/hosts/codex/fork.ts";
import { planLive } from "../../../src/hosts/codex/live/plan.ts";
import { rebuildHistory } from "../../../src/hosts/codex/history.ts";
import { contentText } from "../../../src/hosts/codex/items.ts";
import { loadCodexRollout, parseRollout, readRollout } from "../../../src/hosts/codex/rollout.ts";
import { BcError } from "../../../src/util/errors.ts";
import { keepAllPruner } from "./support/keep-all.ts";

const TMP = mkdtempSync(join(tmpdir(), "bc-native-fork-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const PARENT = "0190d000-0000-7000-8000-000000000001";
const CHILD = "0190d000-0000-7000-8000-000000000002";
const GRANDCHILD = "0190d000-0000-7000-8000-000000000003";
const NOW = new Date("2026-03-01T12:00:00.000Z");

type Rec = Record<string, unknown>;

const user = (text: string): Rec => ({ type: "response_item", payload: { type: "message", role: "user", content: [{ type: "input_text", text }] } });
const call = (id: string, cmd: string): Rec => ({
  type: "response_item",
  payload: { type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd }), call_id: id },
});
const output = (id: string, text: string): Rec => ({ type: "response_item", payload: { type: "function_call_output", call_id: id, output: text } });
const meta = (id: string, extra: Rec = {}): Rec => ({
  type: "session_meta",
  payload: { id, session_id: id, cwd: "/w", cli_version: "0.171.0", history_mode: "paginated", ...extra },
});

/** Lines with ordinals from `first` (as Codex numbers a native fork's lines after its parent's). */
const lines = (records: Rec[], first = 0, ordinals = true): string =>
  records.map((r, i) => `${JSON.stringify({ timestamp: "2026-03-01T10:00:00.000Z", ...(ordinals ? { ordinal: first + i } : {}), ...r })}\n`).join("");

const write = (home: string, id: string, text: string): string => {
  const dir = join(home, "sessions", "2026", "03", "01");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `rollout-2026-03-01T10-00-00-${id}.jsonl`);
  writeFileSync(path, text);
  return path;
};

/** The parent: a prompt, a call and its output, then (after the fork point) a later prompt. */
const PARENT_RECORDS = [meta(PARENT), user("PARENT PROMPT"), call("call_P1", "cat a.txt"), output("call_P1", "alpha\n")];
const PARENT_LATER = [user("PARENT LATER")];
/** the history items of the parent's part and of the child's own, as texts() lists them */
const PARENT_PART = ["PARENT PROMPT", "function_call:call_P1", "function_call_output:call_P1"];
const CHILD_PART = ["CHILD PROMPT", "function_call:call_C1", "function_call_output:call_C1"];

const texts = (path: string): string[] =>
  rebuildHistory(readRollout(path))
    .items.map((h) => h.item as Rec)
    .map((it) => (it.type === "message" ? contentText(it.content as never) : `${it.type}:${it.call_id}`));

describe("a native fork's history", () => {
  const home = join(TMP, "home");
  const parentText = lines([...PARENT_RECORDS, ...PARENT_LATER]);
  write(home, PARENT, parentText);
  const end = PARENT_RECORDS.length;
  const endByte = Buffer.byteLength(lines(PARENT_RECORDS));
  const base = { thread_id: PARENT, end_ordinal_exclusive: end, end_byte_offset: endByte };
  const child = write(
    home,
    CHILD,
    lines([meta(CHILD, { forked_from_id: PARENT, history_base: base }), user("CHILD PROMPT"), call("call_C1", "ls"), output("call_C1", "a.txt\n")], end),
  );

  test("is the parent's up to the fork point, then its own (the parent's later lines left out)", () => {
    expect(texts(child)).toEqual([...PARENT_PART, ...CHILD_PART]);
    // what bc plans: the live history holds both, the file's timeline only its own lines
    const loaded = loadCodexRollout(child);
    expect(loaded.live.messages.map((m) => m.text).filter(Boolean)).toEqual(["PARENT PROMPT", "CHILD PROMPT"]);
    expect(loaded.timeline.messages.map((m) => m.text).filter(Boolean)).toEqual(["CHILD PROMPT"]);
    expect(loaded.malformed).toEqual([]);
  });

  test("a parent reverted since (it went on in a new file): still its first file, which the fork point is of", () => {
    const dir = join(home, "sessions", "2026", "03", "02");
    mkdirSync(dir, { recursive: true });
    const later = join(dir, `rollout-2026-03-02T10-00-00-${PARENT}_0190d000-0000-7000-8000-0000000000ff.jsonl`);
    writeFileSync(later, lines([meta(PARENT), user("PARENT AFTER A REVERT"), user("AND MORE"), user("AND MORE STILL"), user("AND MORE")]));
    try {
      expect(texts(child)).toEqual([...PARENT_PART, ...CHILD_PART]);
    } finally {
      rmSync(later);
    }
  });

  test("a file Codex went on in after a second revert: the history before it is in the file before, named by that file's own id", () => {
    const h3 = join(TMP, "home-pages");
    const PAGE = "0190d000-0000-7000-8000-0000000000aa";
    const dir = join(h3, "sessions", "2026", "03", "01");
    mkdirSync(dir, { recursive: true });
    // the thread's second file (after the first revert), then its third, which reuses the second's first lines
    writeFileSync(join(dir, `rollout-2026-03-01T10-00-00-${PARENT}_${PAGE}.jsonl`), lines([...PARENT_RECORDS, ...PARENT_LATER]));
    const third = join(dir, `rollout-2026-03-01T11-00-00-${PARENT}_0190d000-0000-7000-8000-0000000000bb.jsonl`);
    writeFileSync(third, lines([meta(PARENT, { history_base: { thread_id: PAGE, end_ordinal_exclusive: end } }), user("CHILD PROMPT")], end));
    expect(texts(third)).toEqual([...PARENT_PART, "CHILD PROMPT"]);
  });

  test("by byte offset where the lines have no ordinal", () => {
    const h2 = join(TMP, "home-bytes");
    write(h2, PARENT, lines([...PARENT_RECORDS, ...PARENT_LATER], 0, false));
    const c2 = write(
      h2,
      CHILD,
      lines(
        [meta(CHILD, { history_base: { thread_id: PARENT, end_byte_offset: Buffer.byteLength(lines(PARENT_RECORDS, 0, false)) } }), user("CHILD PROMPT")],
        0,
        false,
      ),
    );
    expect(texts(c2)).toEqual([...PARENT_PART, "CHILD PROMPT"]);
  });

  test("a fork of a fork: the grandparent's part, the parent's, then its own", () => {
    const childEnd = end + 4;
    const grandchild = write(
      home,
      GRANDCHILD,
      lines([meta(GRANDCHILD, { history_base: { thread_id: CHILD, end_ordinal_exclusive: childEnd } }), user("GRANDCHILD PROMPT")], childEnd),
    );
    expect(texts(grandchild)).toEqual([...PARENT_PART, ...CHILD_PART, "GRANDCHILD PROMPT"]);
  });

  test("bc codex-fork of it: the compacted history carries the parent's part, and the file is the native fork's bytes plus bc's records", () => {
    const r = forkRollout(child, { context: "fresh", pruner: keepAllPruner, codexHome: home, now: NOW });
    const text = readFileSync(r.path, "utf8");
    const own = readFileSync(child, "utf8").split("\n").filter(Boolean);
    const copied = text.split("\n");
    expect(copied.slice(1, own.length)).toEqual(own.slice(1));
    expect(JSON.parse(copied[0]!).payload.history_base).toEqual(base);
    const fork = parseRollout(text, r.path);
    const replaced = rebuildHistory(fork).items.map((h) => h.item as Rec);
    expect(replaced.filter((it) => it.type === "message").map((it) => contentText(it.content as never))).toEqual(["PARENT PROMPT", "CHILD PROMPT"]);
    // read back from disk, the fork (which keeps history_base) is its compacted history, not the parent's part twice
    expect(texts(r.path)).toEqual([...PARENT_PART, ...CHILD_PART]);
  });

  test("the live plan counts the parent's part among what Codex keeps, and injects none of it", () => {
    const big = "x".repeat(4000);
    const h4 = join(TMP, "home-live");
    write(h4, PARENT, lines([...PARENT_RECORDS, ...PARENT_LATER]));
    const turn: Rec = { type: "event_msg", payload: { type: "task_started", turn_id: "turn-1" } };
    const live = write(
      h4,
      CHILD,
      lines(
        [
          meta(CHILD, { history_base: base }),
          turn,
          user("CHILD PROMPT"),
          call("call_C1", "cat big.txt"),
          output("call_C1", big),
          call("call_C2", "cat big.txt"),
          output("call_C2", big),
        ],
        end,
      ),
    );
    const p = planLive(readRollout(live), { contextWindow: 200_000 });
    const own = planLive(readRollout(live, { inherit: false }), { contextWindow: 200_000 });
    // the parent's prompt, call and output: kept by Codex as they are, and counted
    expect(p.fixedItems).toBe(own.fixedItems! + 3);
    expect(p.tokensBefore).toBeGreaterThan(own.tokensBefore!);
    expect(JSON.stringify(p.items ?? [])).not.toContain("PARENT PROMPT");
    expect(JSON.stringify(p.items ?? [])).toContain("CHILD PROMPT");
  });

  test("its parent gone: plan reads what came after the fork and says so; bc codex-fork refuses, naming the file and the parent", () => {
    const h3 = join(TMP, "home-orphan");
    const orphan = write(h3, CHILD, readFileSync(child, "utf8"));
    const loaded = loadCodexRollout(orphan);
    expect(loaded.live.messages.map((m) => m.text).filter(Boolean)).toEqual(["CHILD PROMPT"]);
    expect(loaded.malformed).toHaveLength(1);
    expect(loaded.malformed[0]).toStartWith(`${orphan}: a thread Codex forked, whose history before the fork cannot be read (its parent, thread ${PARENT}`);
    let error: unknown;
    try {
      forkRollout(orphan, { context: "fresh", pruner: keepAllPruner, codexHome: h3, now: NOW, dryRun: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BcError);
    expect((error as BcError).message).toStartWith(
      `${orphan}: a thread Codex forked (codex fork), whose history before the fork cannot be read: its parent, thread ${PARENT}`,
    );
  });
});
