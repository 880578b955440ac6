// Every real rollout in ../shared/corpus/codex and BC_EXTRA_CORPUS's folders (skipped, with a
// message, where absent): lossless, loadable, and the rebuilt history is coherent. Each file is
// read and parsed once.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { rebuildHistory } from "../../../src/hosts/codex/history.ts";
import { isSentToModel } from "../../../src/hosts/codex/items.ts";
import { parseRollout, serializeRollout, toLoadedSession } from "../../../src/hosts/codex/rollout.ts";
import { pairToolItems } from "../../../src/hosts/codex/session-map.ts";
import { SKIP_NOTE, corpusFiles } from "../../support/shared.ts";

const files = corpusFiles("codex");
if (files.length === 0) console.warn(`codex corpus: ${SKIP_NOTE}`);

describe.skipIf(files.length === 0)("codex corpus", () => {
  test.each(files.map((f) => [basename(f), f]))("%s", (_name, file) => {
    const text = readFileSync(file, "utf8");
    const r = parseRollout(text, file);
    // lossless
    expect(serializeRollout(r) === text).toBe(true);
    expect(r.malformed).toEqual([]);
    expect(r.format).toBe("legacy");

    const s = toLoadedSession(r);
    const compacted = r.lines.filter((l) => l.kind === "compacted");
    const sent = r.lines.filter((l) => l.kind === "response_item" && isSentToModel(l.payload));
    expect(s.compactions.length).toBe(compacted.length);
    expect(s.timeline.messages.length).toBe(sent.length);
    expect(s.versions.length).toBeGreaterThan(0);

    // the live history starts at the newest compaction (or the start) and holds every sent item after it
    const h = rebuildHistory(r);
    const last = compacted.at(-1);
    const after = sent.filter((l) => last === undefined || l.index > last.index).length;
    const base = last?.kind === "compacted" ? (last.payload.replacement_history?.length ?? 0) : 0;
    expect(h.items.length).toBe(base + after);
    expect(s.live.messages.length).toBe(h.items.length);

    // every output in the live history answers a call in it
    expect(pairToolItems(h.items.map((x) => x.item)).outputsWithoutCall).toEqual([]);
    // compactions are ordered and within the timeline
    let prev = 0;
    for (const c of s.compactions) {
      expect(c.from).toBe(prev);
      expect(c.at).toBeGreaterThanOrEqual(c.from);
      expect(c.at).toBeLessThanOrEqual(s.timeline.messages.length);
      prev = c.at;
    }
  });
});
