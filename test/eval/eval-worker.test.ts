// A worker process's loop (bc eval-worker), in process: its first line is the run's config, each
// later line a file, each answer a JSON line in the order sent, the outcome this process's own
// replayFile gives.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveReplays } from "../../src/cli/eval-worker.ts";
import { DEMO_FILES } from "../../src/eval/demo/index.ts";
import type { Session } from "../../src/engine/types.ts";
import { replayFile } from "../../src/eval/file-replay.ts";
import { withRewrites } from "../../src/eval/methods/rules.ts";
import type { ResultInfo } from "../../src/eval/session-index.ts";
import { rulesCompactor } from "../../src/eval/methods/engine.ts";
import { METHOD_IDS } from "../../src/eval/replay.ts";

const tmp = mkdtempSync(join(tmpdir(), "bc-worker-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const streamOf = (text: string): ReadableStream<Uint8Array> =>
  new ReadableStream({
    start(c) {
      // split mid-line, as a pipe may
      const bytes = new TextEncoder().encode(text);
      c.enqueue(bytes.subarray(0, 7));
      c.enqueue(bytes.subarray(7));
      c.close();
    },
  });

const answersTo = async (lines: readonly unknown[]): Promise<unknown[]> => {
  const out: string[] = [];
  await serveReplays(streamOf(lines.map((l) => JSON.stringify(l)).join("\n")), async (line) => out.push(line));
  return out.map((l) => {
    expect(l.endsWith("\n")).toBe(true);
    return JSON.parse(l);
  });
};

test("each file answered in order, with the outcome this process's replayFile gives", async () => {
  const files = Object.entries(DEMO_FILES)
    .slice(0, 2)
    .map(([name, text], k) => {
      const path = join(tmp, `s${k}.jsonl`);
      writeFileSync(path, text);
      return { path, name };
    });
  const missing = { path: join(tmp, "gone.jsonl"), name: "gone.jsonl" };
  const config = { cuts: [0.5, 0.9], methods: METHOD_IDS, passes: [0.5] };
  const answers = await answersTo([config, ...files, missing]);
  expect(answers).toEqual(JSON.parse(JSON.stringify([...files, missing].map((f) => replayFile(f, config, rulesCompactor)))));
  expect((answers[0] as { kind: string }).kind).toBe("read");
  expect((answers[2] as { kind: string }).kind).toBe("unreadable");
});

test("nothing on stdin, or a line that is not JSON, is refused in one line", async () => {
  await expect(answersTo([])).rejects.toThrow("eval-worker: nothing on stdin (bc eval starts it");
  const out: string[] = [];
  await expect(serveReplays(streamOf('{"cuts":[0.5],"methods":[],"passes":[]}\nnot json\n'), async (l) => out.push(l))).rejects.toThrow(
    /^eval-worker: stdin line 2 is not JSON \(/,
  );
});

test("shares that fall on the same message are one cut for the recall check too", () => {
  const [name, text] = Object.entries(DEMO_FILES)[0]!;
  const path = join(tmp, "once.jsonl");
  writeFileSync(path, text);
  const replay = (cuts: number[]) => {
    const r = replayFile({ path, name }, { cuts, methods: METHOD_IDS, passes: [] }, rulesCompactor);
    if (r.kind !== "read" || r.loaded.kind !== "session" || r.loaded.replay === undefined) throw new Error("not replayed");
    return r.loaded.replay;
  };
  const once = replay([0.5]);
  const n = text.trimEnd().split("\n").length;
  const twice = replay([0.5, 0.5 + 0.1 / n]);
  expect(once.recall.removed).toBeGreaterThan(0);
  expect(twice.recall).toEqual(once.recall);
});

test("under pressure, every result bc removed or cut to a head at a cut is asked of recall, and comes back byte for byte", () => {
  let removed = 0;
  // a session of each host
  const files = ["claude", "codex"].map((host) => Object.entries(DEMO_FILES).find(([name]) => name.includes(`/${host}/`))!);
  for (const [k, [name, text]] of files.entries()) {
    const path = join(tmp, `pressure-${k}.jsonl`);
    writeFileSync(path, text);
    const r = replayFile({ path, name }, { cuts: [0.6, 0.9], methods: ["rules"], passes: [], pressure: 0.95 }, rulesCompactor);
    if (r.kind !== "read" || r.loaded.kind !== "session" || r.loaded.replay === undefined) throw new Error(`${name}: not replayed`);
    const replay = r.loaded.replay;
    // as many as the pressure rows say bc removed at those cuts
    const tallied = replay.cuts.reduce((n, c) => n + (c.pressure?.methods.rules?.removed ?? 0), 0);
    expect(replay.recallPressure ?? { removed: 0, recalled: 0 }).toEqual({ removed: tallied, recalled: tallied });
    removed += tallied;
    // without the pressure mode, nothing is asked
    const light = replayFile({ path, name }, { cuts: [0.6], methods: ["rules"], passes: [] }, rulesCompactor);
    if (light.kind === "read" && light.loaded.kind === "session") expect(light.loaded.replay?.recallPressure).toBeUndefined();
  }
  expect(removed).toBeGreaterThan(10);
});

test("a cut's history with rewrites in place: exactly those results' texts change, and a rewrite not where its result is refused", () => {
  const session = {
    host: "claude" as const,
    id: "s",
    messages: [
      { role: "assistant" as const, text: "", toolCalls: [{ id: "a", name: "Read", input: {}, inputText: "{}" }], toolResults: [] },
      {
        role: "user" as const,
        text: "",
        toolCalls: [],
        toolResults: [
          { callId: "a", text: "one", isError: false, images: 0 },
          { callId: "b", text: "two", isError: false, images: 0 },
        ],
      },
    ],
  } as unknown as Session;
  const results = [
    { ordinal: 0, message: 1, slot: 0, callId: "a" },
    { ordinal: 1, message: 1, slot: 1, callId: "b" },
  ] as unknown as ResultInfo[];
  const out = withRewrites(session, results, new Map([[1, "[cut]"]]));
  expect(out[1]!.toolResults.map((r) => r.text)).toEqual(["one", "[cut]"]);
  expect(session.messages[1]!.toolResults[1]!.text).toBe("two");
  expect(() => withRewrites(session, [results[1]!, { ...results[1]!, ordinal: 1, slot: 0 }] as ResultInfo[], new Map([[1, "x"]]))).toThrow(
    "result 1 (b) is not at message 1, slot 0",
  );
});
