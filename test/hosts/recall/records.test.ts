// What recall reads of one rollout line: an item Codex cannot read is not a sighting, as Codex
// skips it; a damaged line never throws.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropNote } from "../../../src/engine/notes.ts";
import { recallHeading } from "../../../src/cli/recall.ts";
import type { Recalled } from "../../../src/hosts/recall/lookup.ts";
import { type OutputSighting, sightingsIn } from "../../../src/hosts/recall/records.ts";
import { removedIn } from "../../../src/hosts/recall/removed.ts";

const line = (payload: object) => ({ timestamp: "2026-12-01T14:00:00.000Z", type: "response_item", payload });
const call = { type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "cat a.txt" }), call_id: "call_a" };
const output = (value: unknown) => ({ type: "function_call_output", call_id: "call_a", output: value });

test("an output Codex can read is a sighting; one it cannot read (no output, an output of null, a number or an object) is none", () => {
  expect(sightingsIn(line(output("hello\n")), "codex", "call_a")).toMatchObject([{ kind: "output", id: "call_a", text: "hello\n" }]);
  expect(sightingsIn(line(output([{ type: "input_text", text: "hello\n" }])), "codex", "call_a")).toMatchObject([{ kind: "output", text: "hello\n" }]);
  for (const bad of [null, 42, true, undefined, { content: "hello\n", success: true }]) expect(sightingsIn(line(output(bad)), "codex", "call_a")).toEqual([]);
  expect(sightingsIn(line(call), "codex", "call_a")).toMatchObject([{ kind: "call", tool: "exec_command" }]);
  expect(sightingsIn(line({ ...call, arguments: null }), "codex", "call_a")).toEqual([]);
});

const dir = mkdtempSync(join(tmpdir(), "bc-recall-records-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("--list over a rollout with an output of null: no throw, the outputs bc cut are still listed", () => {
  const meta = { timestamp: "2026-12-01T14:00:00.000Z", type: "session_meta", payload: { id: "01a23202-e152-7322-94c9-1c82fc5dd641", cli_version: "0.171.0" } };
  const cut = { type: "function_call_output", call_id: "call_b", output: dropNote(9000, "call_b") };
  const lines = [meta, line(call), line(output(null)), line({ ...call, call_id: "call_b" }), line(cut)];
  const path = join(dir, "rollout-2026-12-01T14-00-00-01a23202-e152-7322-94c9-1c82fc5dd641.jsonl");
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  expect(removedIn(path, "codex").removed.map((r) => [r.id, r.kind, r.charsRemoved, r.recallable])).toEqual([["call_b", "removed", 9000, false]]);
});

test("an output that only ends like a bc note (naming another call, or not the whole text) is the call's own text; bc's note for this call is a cut copy", () => {
  const claude = (id: string, content: string) => ({
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content }] },
  });
  const grep = `$ grep -h "bc recall" log.txt\n${dropNote(5000, "toolu_OTHER")}`;
  expect(sightingsIn(claude("toolu_ECHO", grep), "claude", "toolu_ECHO")).toMatchObject([{ kind: "output", cut: false }]);
  expect(sightingsIn(claude("toolu_OTHER", dropNote(5000, "toolu_OTHER")), "claude", "toolu_OTHER")).toMatchObject([{ kind: "output", cut: true }]);
  expect(sightingsIn(claude("toolu_ECHO", dropNote(5000, "toolu_OTHER")), "claude", "toolu_ECHO")).toMatchObject([{ kind: "output", cut: false }]);
  expect(sightingsIn(line(output(dropNote(9000, "call_a"))), "codex", "call_a")).toMatchObject([{ kind: "output", cut: true }]);
});

test("a ToolSearch output's tool_reference blocks are named as blocks with their tool, not as images; pictures are still images", () => {
  const claude = (content: unknown[]) => ({
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_TS", content }] },
  });
  const refs = sightingsIn(
    claude([
      { type: "tool_reference", tool_name: "Read" },
      { type: "tool_reference", tool_name: "Edit" },
    ]),
    "claude",
    "toolu_TS",
  );
  expect(refs).toMatchObject([
    {
      kind: "output",
      images: [
        { type: "tool_reference", toolName: "Read" },
        { type: "tool_reference", toolName: "Edit" },
      ],
    },
  ]);
  const heading = (s: (typeof refs)[number]) => {
    const { id, host, text, isError, images } = s as OutputSighting;
    const r: Recalled = { id, host, text, isError, images, tool: "ToolSearch", path: "s.jsonl", lineNo: 1, alsoIn: [], filesSearched: 1 };
    return recallHeading(r);
  };
  expect(heading(refs[0]!)).toContain("2 non-text blocks not printed: tool_reference Read; tool_reference Edit");
  const png = sightingsIn(claude([{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }]), "claude", "toolu_TS");
  expect(heading(png[0]!)).toContain("1 image not printed: image image/png, 3 B");
});
