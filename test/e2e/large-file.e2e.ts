// A transcript holding a single 200 MB tool output is read without holding more than about
// three times the file in memory: `bun src/main.ts inspect <file> --json` in a child process,
// its peak RSS (getrusage maxRSS, and /proc VmHWM polled as a cross-check) against the file size.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadClaudeTranscript } from "../../src/hosts/claude/transcript.ts";
import { readTranscript } from "../../src/hosts/claude/transcript-format.ts";
import { joinJsonl } from "../../src/util/jsonl.ts";
import { trickyBody } from "../support/tricky-json.ts";

const REPO = join(import.meta.dir, "..", "..");
const MAIN = join(REPO, "src", "main.ts");
const OUTPUT_MB = 200;
const MAX_RSS_PER_FILE_BYTE = 3;

let dir = "";
let file = "";
let outputChars = 0;

/** Write the transcript piece by piece: the test process itself never holds the 200 MB. */
const writeTranscript = (path: string): number => {
  const sid = "big00000-0000-4000-8000-000000000000";
  const base = { isSidechain: false, sessionId: sid, version: "2.1.42", cwd: "/home/dev/shop" };
  const fd = openSync(path, "w");
  const line = (o: object) => writeSync(fd, `${JSON.stringify(o)}\n`);
  line({
    parentUuid: null,
    ...base,
    type: "user",
    message: { role: "user", content: "Dump the whole request log." },
    uuid: "u1",
    timestamp: "2026-03-01T10:00:00.000Z",
  });
  line({
    parentUuid: "u1",
    ...base,
    type: "assistant",
    message: { id: "msg_big1", role: "assistant", content: [{ type: "tool_use", id: "toolu_big", name: "Bash", input: { command: "cat logs/requests.log" } }] },
    uuid: "a1",
    timestamp: "2026-03-01T10:00:01.000Z",
  });
  const [head, tail] = JSON.stringify({
    parentUuid: "a1",
    ...base,
    type: "user",
    message: { role: "user", content: [{ tool_use_id: "toolu_big", type: "tool_result", content: "@@OUTPUT@@" }] },
    uuid: "u2",
    timestamp: "2026-03-01T10:00:02.000Z",
  }).split("@@OUTPUT@@") as [string, string];
  writeSync(fd, head);
  const logLine = '2026-03-01T10:00:00Z INFO req id=4711 path=/api/cart status=200 took=12ms ua="curl/8.5"\n';
  const escaped = JSON.stringify(logLine).slice(1, -1);
  const block = escaped.repeat(Math.floor(1_000_000 / escaped.length));
  const blockChars = logLine.length * Math.floor(1_000_000 / escaped.length);
  for (let i = 0; i < OUTPUT_MB; i++) writeSync(fd, block);
  writeSync(fd, `${tail}\n`);
  line({
    parentUuid: "u2",
    ...base,
    type: "assistant",
    message: { id: "msg_big2", role: "assistant", content: [{ type: "text", text: "The log has one line per request." }] },
    uuid: "a2",
    timestamp: "2026-03-01T10:00:03.000Z",
  });
  closeSync(fd);
  return blockChars * OUTPUT_MB;
};

/** Peak resident memory of a running process from /proc, where there is one. */
const vmHwmBytes = (pid: number): number => {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "bc-large-file-"));
  file = join(dir, "one-200mb-tool-output.jsonl");
  outputChars = writeTranscript(file);
});

afterAll(() => {
  if (dir && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
});

describe("a 200 MB tool output", () => {
  test("bc inspect --json reads it with peak RSS at most 3x the file size", async () => {
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(OUTPUT_MB * 1_000_000);
    const child = Bun.spawn([process.execPath, MAIN, "inspect", file, "--json"], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
    let polled = 0;
    const timer = setInterval(() => {
      polled = Math.max(polled, vmHwmBytes(child.pid));
    }, 20);
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    clearInterval(timer);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect([report.timeline.messages, report.timeline.toolResults, report.timeline.toolOutputChars, report.tools[0].name]).toEqual([4, 1, outputChars, "Bash"]);
    const maxRss = child.resourceUsage()?.maxRSS ?? 0; // bytes (Bun converts getrusage KiB)
    const peak = Math.max(maxRss, polled);
    process.stderr.write(
      `large-file: ${(size / 1e6).toFixed(0)} MB file, peak RSS ${(peak / 1e6).toFixed(0)} MB = ${(peak / size).toFixed(2)}x (limit ${MAX_RSS_PER_FILE_BYTE}x)\n`,
    );
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(MAX_RSS_PER_FILE_BYTE * size);
  }, 120_000);
});

// A huge line through the whole transcript reader: decoded in pieces, mapped, and written back
// byte for byte, its escapes (\", \uXXXX, surrogate pairs, \\) exactly as JSON.parse reads them.
describe("a 10 MB tool output full of escapes", () => {
  const MIB = 1024 * 1024;
  const TMP = mkdtempSync(join(tmpdir(), "bc-large-"));
  afterAll(() => rmSync(TMP, { recursive: true, force: true }));

  test("read, mapped, written back byte for byte", () => {
    const output = trickyBody(10 * MIB, 3);
    const lines = [
      '{"parentUuid":null,"isSidechain":false,"sessionId":"s-big","version":"2.1.42","type":"user","message":{"role":"user","content":"dump the log"},"uuid":"u1","timestamp":"2026-03-01T10:00:00.000Z"}',
      '{"parentUuid":"u1","isSidechain":false,"sessionId":"s-big","version":"2.1.42","type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_big","name":"Bash","input":{"command":"cat app.log"}}]},"uuid":"a1","timestamp":"2026-03-01T10:00:01.000Z"}',
      `{"parentUuid":"a1","isSidechain":false,"sessionId":"s-big","version":"2.1.42","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_big","type":"tool_result","content":"${output}"}]},"uuid":"u2","timestamp":"2026-03-01T10:00:02.000Z"}`,
      '{"parentUuid":"u2","isSidechain":false,"sessionId":"s-big","version":"2.1.42","type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"The log is long."}]},"uuid":"a2","timestamp":"2026-03-01T10:00:03.000Z"}',
    ];
    const path = join(TMP, "big.jsonl");
    writeFileSync(path, `${lines.join("\n")}\n`);
    const t = readTranscript(path);
    expect(
      joinJsonl(
        t.lines.map((l) => l.raw),
        t.endsWithNewline,
      ),
    ).toBe(readFileSync(path, "utf8"));
    const s = loadClaudeTranscript(path);
    expect(s.timeline.messages.map((m) => m.kind)).toEqual(["prompt", "reply", "tool", "reply"]);
    const text = s.timeline.messages[2]!.toolResults[0]!.text;
    expect(text).toBe(JSON.parse(`"${output}"`));
  });
});
