// Can `bc recall` give back, byte for byte, every result a compaction removed? After bc compacts,
// the host keeps the original records on disk and appends the compacted history: Claude Code writes
// a compact_boundary and the rebuilt rows (a tool_result's content becomes the text the hook handed
// back), and a Codex fork is the source rollout plus a `compacted` record whose
// replacement_history holds the pruned items. This check writes that file, the session's own
// lines up to each pass's cut followed by each pass's compacted history in the host's shape, into a
// scratch folder, then runs recall's lookup for every removed result and compares the bytes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "../engine/types.ts";
import { recall } from "../hosts/recall/lookup.ts";
import type { LoadedSession } from "../hosts/types.ts";

export interface RecallMiss {
  readonly pass: number;
  readonly callId: string;
  readonly why: string;
}

export interface RecallCheck {
  /** removed or truncated results, summed over the passes checked */
  readonly removed: number;
  /** of those, the ones recall returned byte for byte (and, for Claude Code, with the same error flag) */
  readonly recalled: number;
  readonly misses: readonly RecallMiss[];
}

const claudeRecords = (messages: readonly Message[], sessionId: string, pass: number): string[] => {
  const lines: string[] = [];
  const base = { sessionId, isSidechain: false, timestamp: new Date(Date.UTC(2030, 0, 1, 0, pass)).toISOString() };
  let parent: string | null = null;
  const uuid = (n: number): string => `bc-recall-check-${pass}-${n}`;
  lines.push(
    JSON.stringify({
      ...base,
      type: "system",
      subtype: "compact_boundary",
      content: "Conversation compacted",
      uuid: uuid(0),
      parentUuid: null,
      compactMetadata: { trigger: "manual" },
    }),
  );
  parent = uuid(0);
  messages.forEach((m, i) => {
    const id = uuid(i + 1);
    let content: unknown[];
    let type: "user" | "assistant";
    if (m.role === "assistant") {
      type = "assistant";
      content = [
        ...(m.text === "" ? [] : [{ type: "text", text: m.text }]),
        ...m.toolCalls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.input })),
      ];
    } else {
      type = "user";
      content = [
        ...m.toolResults.map((r) => ({ type: "tool_result", tool_use_id: r.callId, content: r.text, ...(r.isError ? { is_error: true } : {}) })),
        ...(m.text === "" ? [] : [{ type: "text", text: m.text }]),
      ];
    }
    lines.push(JSON.stringify({ ...base, type, uuid: id, parentUuid: parent, message: { role: type, content } }));
    parent = id;
  });
  return lines;
};

const codexItems = (messages: readonly Message[]): unknown[] => {
  const items: unknown[] = [];
  for (const m of messages) {
    if (m.text !== "" && m.kind !== "reasoning")
      items.push({
        type: "message",
        role: m.role === "system" ? "developer" : m.role,
        content: [{ type: m.role === "assistant" ? "output_text" : "input_text", text: m.text }],
      });
    for (const c of m.toolCalls) items.push({ type: "function_call", name: c.name, arguments: c.inputText, call_id: c.id });
    for (const r of m.toolResults) items.push({ type: "function_call_output", call_id: r.callId, output: r.text });
  }
  return items;
};

const codexRecord = (messages: readonly Message[], pass: number): string =>
  JSON.stringify({
    timestamp: new Date(Date.UTC(2030, 0, 1, 0, pass)).toISOString(),
    type: "compacted",
    payload: { message: "", replacement_history: codexItems(messages) },
  });

/** About how much text the recalls may read between two collections. */
const GARBAGE_BYTES = 256 * 1024 * 1024;

/** The last file line a history's messages came from. */
const lastLine = (messages: readonly Message[]): number => {
  let n = -1;
  for (const m of messages) if (m.source && m.source.record > n) n = m.source.record;
  return n;
};

/**
 * For each pass (a compacted history, index-aligned with `loaded.timeline.messages`, each pass over
 * the previous one's output plus the session since), write what the host keeps after it, and ask
 * recall for every result the pass removed or truncated.
 */
export const checkRecall = (loaded: LoadedSession, passes: readonly (readonly Message[])[]): RecallCheck => {
  const timeline = loaded.timeline.messages;
  const sourceLines = readFileSync(loaded.path, "utf8").split("\n");
  const dir = mkdtempSync(join(tmpdir(), "bc-recall-check-"));
  const file = join(dir, loaded.host === "claude" ? "session.jsonl" : "rollout-2030-01-01T00-00-00-00000000-0000-4000-8000-000000000000.jsonl");
  const misses: RecallMiss[] = [];
  let removed = 0;
  let recalled = 0;
  try {
    const written: string[] = [];
    let upTo = -1;
    passes.forEach((out, pass) => {
      const last = Math.max(lastLine(timeline.slice(0, out.length)), upTo);
      for (let i = upTo + 1; i <= last && i < sourceLines.length; i++) written.push(sourceLines[i]!);
      upTo = last;
      if (loaded.host === "claude") written.push(...claudeRecords(out, loaded.id, pass));
      else written.push(codexRecord(out, pass));
      const text = `${written.join("\n")}\n`;
      writeFileSync(file, text);
      // each recall reads the lines that name its id (an output of MBs, a record copying the
      // history): collected now and then, or a session of a few MB leaves hundreds of MB to the
      // collector before it runs
      const collectEvery = Math.max(1, Math.floor(GARBAGE_BYTES / Math.max(1, text.length)));
      out.forEach((m, i) => {
        const before = timeline[i];
        m.toolResults.forEach((r, j) => {
          const original = before?.toolResults[j];
          if (original === undefined || original.callId !== r.callId) throw new Error(`pass ${pass}: message ${i} is not aligned with the timeline`);
          if (r.text === original.text) return;
          removed++;
          if (removed % collectEvery === 0) Bun.gc(true);
          try {
            const got = recall(r.callId, { session: file, home: dir, claudeDir: join(dir, "claude"), codexHome: join(dir, "codex"), cwd: dir });
            if (got.text !== original.text)
              misses.push({ pass, callId: r.callId, why: `recall gave ${got.text.length} chars, the original has ${original.text.length}` });
            else if (loaded.host === "claude" && got.isError !== original.isError) misses.push({ pass, callId: r.callId, why: "the error flag differs" });
            else recalled++;
          } catch (e) {
            misses.push({ pass, callId: r.callId, why: (e as Error).message });
          }
        });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { removed, recalled, misses };
};
