// `bc recall`: the original output from the files the host keeps, byte for byte; where it looks;
// what it says when it cannot (unknown, ambiguous, only a note left, bad input); `--list`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { dropNote, truncatedText } from "../../src/engine/notes.ts";
import { appendRecord, type DecisionRecord } from "../../src/hosts/claude/decision-log.ts";
import { recall, type RecallOptions } from "../../src/hosts/recall/lookup.ts";
import { allowRecall, disallowRecall, RECALL_RULES } from "../../src/hosts/recall/permission.ts";
import { recallHeading } from "../../src/cli/recall.ts";

const REPO = join(import.meta.dir, "..", "..");
let tmp = "";
let home = "";
let project = "";
let codexHome = "";

/** bytes a tool printed: trailing newline, tabs, unicode, CRLF; what recall must give back as is */
const BUILD_LOG = "$ npm run build\r\n> tsc -p .\n\tsrc/a.ts(3,1): error TS2304: Cannot find name 'wdiget'.\n✗ build failed — 1 error\n\n";
const LISTING = `${Array.from({ length: 60 }, (_, i) => `-rw-r--r-- 1 u u ${1000 + i} Jan  1 file-${i}.txt`).join("\n")}\n`;
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").toString("base64");

const line = (v: unknown): string => JSON.stringify(v);
const claudeRec = (type: "user" | "assistant", uuid: string, content: unknown[], extra: Record<string, unknown> = {}) =>
  line({
    type,
    uuid,
    parentUuid: null,
    sessionId: "s-claude-1",
    isSidechain: false,
    timestamp: "2026-01-01T00:00:00.000Z",
    message: { role: type, content },
    ...extra,
  });

const claudeTranscript = (opts: { keepOriginals: boolean }): string => {
  const originals = [
    claudeRec("user", "u1", [{ type: "text", text: "build it" }]),
    claudeRec("assistant", "a1", [{ type: "tool_use", id: "toolu_01BUILD", name: "Bash", input: { command: "npm run build" } }]),
    claudeRec("user", "u2", [{ type: "tool_result", tool_use_id: "toolu_01BUILD", content: BUILD_LOG, is_error: true }]),
    claudeRec("assistant", "a2", [{ type: "tool_use", id: "toolu_01LS", name: "Bash", input: { command: "ls -l" } }]),
    claudeRec("user", "u3", [
      {
        type: "tool_result",
        tool_use_id: "toolu_01LS",
        content: [
          { type: "text", text: LISTING },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
        ],
      },
    ]),
  ];
  const boundary = line({
    type: "system",
    subtype: "compact_boundary",
    uuid: "b1",
    parentUuid: null,
    sessionId: "s-claude-1",
    timestamp: "2026-01-01T00:01:00.000Z",
  });
  const copies = [
    claudeRec("user", "c1", [{ type: "text", text: "build it" }]),
    claudeRec("assistant", "c2", [{ type: "tool_use", id: "toolu_01BUILD", name: "Bash", input: { command: "npm run build" } }]),
    claudeRec("user", "c3", [{ type: "tool_result", tool_use_id: "toolu_01BUILD", content: dropNote(BUILD_LOG.length, "toolu_01BUILD"), is_error: true }]),
    claudeRec("assistant", "c4", [{ type: "tool_use", id: "toolu_01LS", name: "Bash", input: { command: "ls -l" } }]),
    claudeRec("user", "c5", [{ type: "tool_result", tool_use_id: "toolu_01LS", content: truncatedText(LISTING, 200, "toolu_01LS") }]),
    claudeRec("assistant", "c6", [{ type: "text", text: "I will look at toolu_01NOTACALL later." }]),
  ];
  return `${[...(opts.keepOriginals ? originals : []), boundary, ...copies].join("\n")}\n`;
};

const CODEX_OUT = "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nall 42 tests passed\n";
const codexRollout = (cwd: string, id: string, fork: boolean): string => {
  const lines = [
    line({
      timestamp: "2026-01-01T00:00:00.000Z",
      ordinal: 0,
      type: "session_meta",
      payload: { id, session_id: id, cwd, history_mode: "paginated", cli_version: "0.169.0" },
    }),
    line({
      timestamp: "2026-01-01T00:00:01.000Z",
      ordinal: 1,
      type: "response_item",
      payload: { type: "function_call", name: "exec_command", arguments: '{"cmd":"bun test"}', call_id: "call_TESTS1" },
    }),
    line({
      timestamp: "2026-01-01T00:00:02.000Z",
      ordinal: 2,
      type: "response_item",
      payload: { type: "function_call_output", call_id: "call_TESTS1", output: CODEX_OUT },
    }),
  ];
  if (fork)
    lines.push(
      line({
        timestamp: "2026-01-01T00:00:03.000Z",
        ordinal: 3,
        type: "compacted",
        payload: {
          message: "",
          replacement_history: [
            { type: "function_call", name: "exec_command", arguments: '{"cmd":"bun test"}', call_id: "call_TESTS1" },
            { type: "function_call_output", call_id: "call_TESTS1", output: dropNote(CODEX_OUT.length, "call_TESTS1") },
          ],
        },
      }),
    );
  return `${lines.join("\n")}\n`;
};

const projectDir = (cwd: string): string => join(home, ".claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));

const write = (path: string, text: string): string => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
};

const bc = (args: string[], cwd = project, homes = { home, codexHome }) => {
  const r = Bun.spawnSync([process.execPath, join(REPO, "src", "main.ts"), "recall", ...args], {
    cwd,
    env: { PATH: dirname(process.execPath), HOME: homes.home, CODEX_HOME: homes.codexHome, NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

/** The lookup in process, in the test's home (what the CLI runs). */
const lookup = (id: string, more: Partial<RecallOptions> = {}) => recall(id, { home, claudeDir: join(home, ".claude"), codexHome, cwd: project, ...more });

/** Every file under the temp folder with its hash: recall writes nothing. */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[p] = `${statSync(p).mtimeMs}:${createHash("sha256").update(readFileSync(p)).digest("hex")}`;
    }
  };
  walk(dir);
  return out;
};

let claudeFile = "";
let sourceRollout = "";
let forkRollout = "";

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "bc-recall-"));
  home = join(tmp, "home");
  codexHome = join(tmp, "codex");
  project = join(tmp, "work", "my.project");
  mkdirSync(project, { recursive: true });
  claudeFile = write(join(projectDir(project), "s-claude-1.jsonl"), claudeTranscript({ keepOriginals: true }));
  sourceRollout = write(
    join(codexHome, "sessions", "2026", "01", "01", "rollout-2026-01-01T00-00-00-0190a000-0000-7000-8000-000000000001.jsonl"),
    codexRollout(project, "0190a000-0000-7000-8000-000000000001", false),
  );
  forkRollout = write(
    join(codexHome, "sessions", "2026", "01", "02", "rollout-2026-01-02T00-00-00-0190a000-0000-7000-8000-000000000002.jsonl"),
    codexRollout(project, "0190a000-0000-7000-8000-000000000002", true),
  );
  const record: DecisionRecord = {
    v: 1,
    at: "2026-01-01T00:01:00.000Z",
    sessionId: "s-claude-1",
    trigger: "manual",
    outcome: "compacted",
    reason: "r",
    rowsIn: 6,
    rowsOut: 6,
    tokensBefore: 100,
    tokensAfter: 50,
    escalated: false,
    ms: 1,
    results: [
      { callId: "toolu_01BUILD", tool: "Bash", action: "drop", rule: "unreferenced", reason: "no token of it used later" },
      { callId: "toolu_01LS", tool: "Bash", action: "truncate", rule: "re-runnable", reason: "a listing" },
    ],
  };
  write(join(home, ".claude", "better-compaction", "logs", "s-claude-1.jsonl"), appendRecord("", record));
  // newest first: the fork, then the source, then the transcript
  [claudeFile, sourceRollout, forkRollout].forEach((f, i) => utimesSync(f, 1_700_000_000 + i * 60, 1_700_000_000 + i * 60));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("bc recall <id>", () => {
  test("prints a dropped Claude Code output byte for byte, says it was an error, and writes nothing", () => {
    const before = [snapshot(join(home, ".claude")), snapshot(codexHome), snapshot(project)];
    const r = bc(["toolu_01BUILD"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(BUILD_LOG);
    // a program (an agent's shell tool) gets the bytes alone; people at a terminal get a heading
    expect(r.stderr).toBe("");
    const heading = recallHeading(lookup("toolu_01BUILD"));
    expect(heading).toContain("toolu_01BUILD (Bash)");
    expect(heading).toContain(`${claudeFile}:3`);
    expect(heading).toContain("is_error");
    expect([snapshot(join(home, ".claude")), snapshot(codexHome), snapshot(project)]).toEqual(before);
  });

  test("a truncated output comes back whole; its images are listed by type and size", () => {
    const r = bc(["toolu_01LS", "--json"]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({
      id: "toolu_01LS",
      host: "claude",
      tool: "Bash",
      input: { command: "ls -l" },
      isError: false,
      text: LISTING,
      line: 5,
      path: claudeFile,
    });
    expect(j.images).toEqual([{ type: "image", mediaType: "image/png", bytes: 16 }]);
    expect(recallHeading(lookup("toolu_01LS"))).toContain("1 image not printed: image image/png, 16 B");
  });

  test("its images to files with --images: each named on stderr, the same bytes again taken as written, other bytes never overwritten", () => {
    // without --images, a program is told what was left out, in one line on stderr
    const plain = bc(["toolu_01LS"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe(LISTING);
    expect(plain.stderr).toBe("bc recall: 1 image not printed; --images <folder> writes it to files\n");

    const dir = join(tmp, "pictures", "ls");
    const file = join(dir, "toolu_01LS-1.png");
    const r = bc(["toolu_01LS", "--images", dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(LISTING);
    expect(r.stderr).toBe(`bc recall: wrote ${file} (image/png, 16 B)\n`);
    expect(readFileSync(file).equals(Buffer.from(PNG, "base64"))).toBe(true);
    // again: the same bytes are there, nothing to do
    expect(bc(["toolu_01LS", "--images", dir]).code).toBe(0);
    const j = JSON.parse(bc(["toolu_01LS", "--images", dir, "--json"]).stdout);
    expect(j.written).toEqual([{ file, mediaType: "image/png", bytes: 16 }]);
    // a file of the user's under that name stays as it is
    writeFileSync(file, "mine");
    const clash = bc(["toolu_01LS", "--images", dir]);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain(`${file}: already there with other bytes; not overwritten`);
    expect(readFileSync(file, "utf8")).toBe("mine");
    expect(bc(["toolu_01LS", "--images", ""]).code).toBe(2);
    // the next flag is no folder
    const flagged = bc(["toolu_01LS", "--images", "--json"]);
    expect([flagged.code, flagged.stderr.split("\n")[0]]).toEqual([
      2,
      "bc: --images needs a path, not another flag (write ./--x for a folder so named), got '--json'",
    ]);
    expect(existsSync(join(project, "--json"))).toBe(false);
    const listed = bc(["--list", "--images", dir]);
    expect([listed.code, listed.stderr.split("\n")[0]]).toEqual([2, "bc: --images goes with a call id, not --list"]);
    // an output without images writes nothing and says nothing
    const none = bc(["toolu_01BUILD", "--images", join(tmp, "pictures", "build")]);
    expect([none.code, none.stderr, existsSync(join(tmp, "pictures", "build"))]).toEqual([0, "", false]);
  });

  test("a Codex output comes back from the project's rollouts (fork and source hold the same bytes)", () => {
    const r = lookup("call_TESTS1");
    expect(r.text).toBe(CODEX_OUT);
    expect(r.tool).toBe("exec_command");
    expect([r.path, ...r.alsoIn].sort()).toEqual([forkRollout, sourceRollout].sort());
  });

  test("--session looks in that session first, by path or by id; from another folder, every session is searched", () => {
    expect(lookup("call_TESTS1", { session: forkRollout }).path).toBe(forkRollout);
    expect(lookup("toolu_01BUILD", { session: "s-claude-1" }).text).toBe(BUILD_LOG);
    const elsewhere = join(tmp, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    expect(lookup("toolu_01BUILD", { cwd: elsewhere }).text).toBe(BUILD_LOG);
  });

  test("unknown: no call carries the id (a mere mention does not count)", () => {
    const r = bc(["toolu_01NOPE"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")[0]).toMatch(/^bc: no tool call toolu_01NOPE in \d+ session files$/);
    expect(() => lookup("toolu_01NOTACALL")).toThrow("mentions it, but no tool call or output there carries that id");
  });

  test("only bc's note left (the original pruned from the transcript): said", () => {
    const dir = join(tmp, "pruned");
    const path = write(join(dir, "pruned.jsonl"), claudeTranscript({ keepOriginals: false }));
    // a user whose sessions hold no other copy of it
    const places = { home: join(dir, "home"), claudeDir: join(dir, "home", ".claude"), codexHome: join(dir, "codex"), cwd: dir };
    expect(() => recall("toolu_01LS", { session: path, ...places })).toThrow(
      `${path}:6: only bc's truncated copy (${LISTING.length - 200} chars removed) of toolu_01LS is left; no session file holds the original output any more`,
    );
    expect(() => recall("toolu_01BUILD", { session: path, ...places })).toThrow(`${path}:4: only bc's removal note of toolu_01BUILD is left`);
  });

  test("ambiguous: two sessions of the project hold different outputs under one id; both are named", () => {
    const other = write(join(projectDir(project), "s-claude-2.jsonl"), claudeTranscript({ keepOriginals: true }).replace("error TS2304", "error TS9999"));
    try {
      let message = "";
      try {
        lookup("toolu_01BUILD");
      } catch (e) {
        message = `${(e as Error).message} ${(e as { hint?: string }).hint}`;
      }
      expect(message).toContain("toolu_01BUILD names 2 different outputs in 2 sessions");
      expect(message).toContain(claudeFile);
      expect(message).toContain(other);
      expect(message).toContain("--session");
      expect(lookup("toolu_01BUILD", { session: claudeFile }).text).toBe(BUILD_LOG);
    } finally {
      rmSync(other);
    }
  });

  test.each([
    [["a b"], 2, `bc: "a b" is not a tool call id`],
    [[], 2, "bc: no call id given"],
    [
      ["toolu_x", "--session", join(REPO, "README.md")],
      1,
      `bc: ${join(REPO, "README.md")}:1: not valid JSON (JSON Parse error: Unrecognized token '#'): "# better-compaction (\`bc\`)"; neither a Claude Code transcript nor a Codex rollout`,
    ],
  ])("bad input %j: one line naming what was expected, exit %d", (args, code, first) => {
    const r = bc(args as string[]);
    expect(r.code).toBe(code as number);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")[0]).toBe(first as string);
  });
});

describe("bc recall --list", () => {
  test("what bc removed in a session: ids, tools, sizes, the rule from the decision log, whether recall can give it back", async () => {
    const r = bc(["--list", "--session", claudeFile]);
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split("\n");
    expect(rows[0]).toBe(`${claudeFile} (s-claude-1): 2 outputs removed or truncated by bc`);
    expect(rows[1]).toMatch(/^id\s+tool\s+action\s+chars\s+rule\s+recall$/);
    expect(rows[2]).toMatch(new RegExp(`^toolu_01BUILD\\s+Bash\\s+removed\\s+${BUILD_LOG.length}\\s+unreferenced\\s+yes$`));
    expect(rows[3]).toMatch(new RegExp(`^toolu_01LS\\s+Bash\\s+truncated\\s+${LISTING.length - 200}\\s+re-runnable\\s+yes$`));
    const { removedIn } = await import("../../src/hosts/recall/removed.ts");
    const j = removedIn(forkRollout, "codex");
    expect(j.removed).toEqual([
      {
        id: "call_TESTS1",
        tool: "exec_command",
        kind: "removed",
        charsRemoved: CODEX_OUT.length,
        originalChars: CODEX_OUT.length,
        recallable: true,
        lineNo: 4,
      },
    ]);
  });

  test("a subagent's removals, in its own file beside the session, are listed after the session's", () => {
    const dir = join(tmp, "with-agent");
    mkdirSync(join(dir, "s-main", "subagents"), { recursive: true });
    const main = write(join(dir, "s-main.jsonl"), `${claudeRec("user", "m1", [{ type: "text", text: "go" }], { sessionId: "s-main" })}\n`);
    write(
      join(dir, "s-main", "subagents", "agent-a1.jsonl"),
      `${[
        claudeRec("user", "a1", [{ type: "text", text: "look" }], { sessionId: "s-main", isSidechain: true, agentId: "a1" }),
        claudeRec("assistant", "a2", [{ type: "tool_use", id: "toolu_01SUB", name: "Bash", input: { command: "ls" } }], {
          sessionId: "s-main",
          isSidechain: true,
          agentId: "a1",
        }),
        claudeRec("user", "a3", [{ type: "tool_result", tool_use_id: "toolu_01SUB", content: LISTING }], {
          sessionId: "s-main",
          isSidechain: true,
          agentId: "a1",
        }),
        claudeRec("user", "a4", [{ type: "tool_result", tool_use_id: "toolu_01SUB", content: dropNote(LISTING.length, "toolu_01SUB") }], {
          sessionId: "s-main",
          isSidechain: true,
          agentId: "a1",
        }),
      ].join("\n")}\n`,
    );
    const human = bc(["--list", "--session", main]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`${main} (s-main): 0 outputs removed or truncated by bc`);
    expect(human.stdout).toMatch(/agent-a1\.jsonl \(s-main\): 1 output removed or truncated by bc\n.*\ntoolu_01SUB\s+Bash\s+removed/);
    const j = JSON.parse(bc(["--list", "--json", "--session", main]).stdout);
    expect(j.removed).toEqual([]);
    expect(j.subagents.map((l: any) => l.removed.map((r: any) => [r.id, r.recallable]))).toEqual([[["toolu_01SUB", true]]]);
  });

  test("without --session: this project's newest session", () => {
    const r = bc(["--list", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).path).toBe(forkRollout);
  });

  test("without --session, a newest file that cannot be read is passed over, and said; the next newest is listed", () => {
    const broken = write(join(projectDir(project), "s-broken.jsonl"), "\u0000\u0001binary\u0002\n");
    const later = new Date(Date.now() + 60_000);
    utimesSync(broken, later, later);
    try {
      const r = bc(["--list", "--json"]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).path).toBe(forkRollout);
      expect(r.stderr).toStartWith(`warning: ${broken}`);
      expect(r.stderr).toContain("passed over for the next newest session");
    } finally {
      rmSync(broken);
    }
  });
});

describe("the permission rule bc claude install --allow-recall adds", () => {
  test("added once, beside the user's own settings, and removed again", () => {
    const path = write(join(tmp, "settings", "settings.json"), JSON.stringify({ model: "x", permissions: { allow: ["Read"], deny: ["Bash(rm:*)"] } }));
    expect(allowRecall(path)).toEqual({ path, added: true });
    expect(allowRecall(path)).toEqual({ path, added: false });
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ model: "x", permissions: { allow: ["Read", ...RECALL_RULES], deny: ["Bash(rm:*)"] } });
    expect(disallowRecall(path)).toEqual({ path, removed: true });
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ model: "x", permissions: { allow: ["Read"], deny: ["Bash(rm:*)"] } });
    const bad = write(join(tmp, "settings", "bad.json"), "{ not json");
    expect(() => allowRecall(bad)).toThrow("not valid JSON");
    expect(readFileSync(bad, "utf8")).toBe("{ not json");
  });
});

describe("bc mcp: the recall tool over MCP", () => {
  test("initialize, tools/list, and tools/call give the original text as the first block, exactly", async () => {
    const { handleMessage } = await import("../../src/cli/mcp.ts");
    expect(handleMessage({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26" } }, project)).toMatchObject({
      id: 1,
      result: { protocolVersion: "2025-03-26", capabilities: { tools: {} }, serverInfo: { name: "better-compaction" } },
    });
    expect(handleMessage({ jsonrpc: "2.0", method: "notifications/initialized" }, project)).toBeUndefined();
    const list = handleMessage({ jsonrpc: "2.0", id: 2, method: "tools/list" }, project) as any;
    expect(list.result.tools.map((t: any) => [t.name, t.inputSchema.required, t._meta["anthropic/alwaysLoad"]])).toEqual([["recall", ["id"], true]]);
    const saved = { HOME: process.env.HOME, CODEX_HOME: process.env.CODEX_HOME, CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR };
    Object.assign(process.env, { HOME: home, CODEX_HOME: codexHome, CLAUDE_CONFIG_DIR: join(home, ".claude") });
    try {
      const call = (args: unknown) =>
        (handleMessage({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "recall", arguments: args } }, project) as any).result;
      expect(call({ id: "toolu_01BUILD" })).toEqual({
        content: [
          { type: "text", text: BUILD_LOG },
          { type: "text", text: "[better-compaction: the tool reported this output as an error]" },
        ],
        isError: false,
      });
      expect(call({ id: "toolu_01LS" }).content).toEqual([
        { type: "text", text: LISTING },
        { type: "image", data: PNG, mimeType: "image/png" },
      ]);
      const bad = call({ id: "toolu_01NOPE" });
      expect(bad.isError).toBe(true);
      expect(bad.content[0].text).toStartWith("bc recall: no tool call toolu_01NOPE in ");
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
    expect(handleMessage({ jsonrpc: "2.0", id: 4, method: "nope" }, project)).toMatchObject({ id: 4, error: { code: -32601 } });
  });

  test("a PDF comes back as an embedded resource (Claude Code saves it to a file and names it), and as a file with --images; a block held by URL is left out", async () => {
    const { callRecall } = await import("../../src/cli/mcp.ts");
    const pdf = Buffer.from("%PDF-1.4\n%%EOF\n").toString("base64");
    const file = write(
      join(tmp, "elsewhere", "s-pdf.jsonl"),
      `${[
        claudeRec("assistant", "p1", [{ type: "tool_use", id: "toolu_01PDF", name: "Read", input: { file_path: "/p/spec.pdf" } }]),
        claudeRec("user", "p2", [
          {
            type: "tool_result",
            tool_use_id: "toolu_01PDF",
            content: [
              { type: "text", text: "PDF file read: /p/spec.pdf (15 bytes)" },
              { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf } },
              { type: "document", source: { type: "url", url: "https://example.com/x.pdf" } },
            ],
          },
        ]),
      ].join("\n")}\n`,
    );
    expect(callRecall({ id: "toolu_01PDF", session: file }, project)).toEqual({
      content: [
        { type: "text", text: "PDF file read: /p/spec.pdf (15 bytes)" },
        { type: "resource", resource: { uri: "bc-recall:toolu_01PDF/1.pdf", mimeType: "application/pdf", blob: pdf } },
      ],
      isError: false,
    });
    // the command: said on stderr, then written as a .pdf with --images; the block held by URL is not
    const said = bc(["toolu_01PDF", "--session", file]);
    expect([said.stdout, said.stderr]).toEqual([
      "PDF file read: /p/spec.pdf (15 bytes)",
      "bc recall: 1 PDF not printed; --images <folder> writes it to files\n",
    ]);
    const dir = join(tmp, "pictures", "pdf");
    const r = bc(["toolu_01PDF", "--session", file, "--images", dir]);
    expect(r.stderr).toBe(`bc recall: wrote ${join(dir, "toolu_01PDF-1.pdf")} (application/pdf, 15 B)\n`);
    expect(readdirSync(dir)).toEqual(["toolu_01PDF-1.pdf"]);
    expect(readFileSync(join(dir, "toolu_01PDF-1.pdf"), "utf8")).toBe("%PDF-1.4\n%%EOF\n");
  });

  test("a recall error's hint is said for the tool's caller: its session argument, not the command line's --session", async () => {
    const { mcpHint } = await import("../../src/cli/mcp.ts");
    expect(mcpHint("pass --session <session id, name or file> to say which")).toBe(
      "pass the tool's session argument (a session id, name or transcript path) to say which",
    );
    expect(mcpHint("re-run the call to see its output again")).toBe("re-run the call to see its output again");
  });

  test("what JSON-RPC and MCP ask of a server: its own version for one it does not speak, and an invalid request said as such", async () => {
    const { handleMessage } = await import("../../src/cli/mcp.ts");
    expect(handleMessage({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "1999-01-01" } }, project)).toMatchObject({
      result: { protocolVersion: "2025-06-18" },
    });
    expect(handleMessage({ jsonrpc: "2.0", id: 9 }, project)).toMatchObject({ id: 9, error: { code: -32600 } });
    expect(handleMessage({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }, project)).toMatchObject({ id: null, error: { code: -32600 } });
    const r = Bun.spawnSync([process.execPath, join(REPO, "src", "main.ts"), "mcp"], { stdin: Buffer.from("[]\n"), stdout: "pipe", stderr: "pipe" });
    expect(JSON.parse(r.stdout.toString())).toMatchObject({ id: null, error: { code: -32600 } });
  });
});

describe("the installed plugin's recall server runs this very bc", () => {
  test("a compiled bc by its absolute path; a checkout through bun and its main.ts", async () => {
    const { pinRecallServer } = await import("../../src/hosts/recall/plugin-server.ts");
    const files = { ".claude-plugin/plugin.json": readFileSync(join(REPO, ".claude-plugin", "plugin.json"), "utf8"), x: "y" };
    const compiled = JSON.parse(pinRecallServer(files, "/opt/tools/bc")[".claude-plugin/plugin.json"]!);
    expect(compiled.mcpServers.bc).toEqual({ command: "/opt/tools/bc", args: ["mcp"], alwaysLoad: true });
    const checkout = JSON.parse(pinRecallServer(files, "/usr/local/bin/bun")[".claude-plugin/plugin.json"]!);
    expect(checkout.mcpServers.bc).toEqual({ command: "/usr/local/bin/bun", args: [join(REPO, "src", "main.ts"), "mcp"], alwaysLoad: true });
    expect(compiled.userConfig).toEqual(JSON.parse(files[".claude-plugin/plugin.json"]).userConfig);
  });
});

describe("a real fork written by bc codex-fork", () => {
  test("--list names every removed output with the rule that removed it, and recall gives each back byte for byte", async () => {
    const { enginePruner, forkRollout: fork } = await import("../../src/hosts/codex/fork.ts");
    const { removedIn } = await import("../../src/hosts/recall/removed.ts");
    const { loadCodexRollout } = await import("../../src/hosts/codex/rollout.ts");
    const source = join(REPO, "src", "eval", "demo", "codex", "rollout-2026-11-30T02-43-47-01a22a56-491b-7581-aca8-3d67346846f7.jsonl");
    const dir = join(tmp, "real-fork");
    mkdirSync(dir, { recursive: true });
    const r = fork(source, { context: "fresh", pruner: enginePruner(), outDir: dir, codexHome: join(dir, "codex") });
    const list = removedIn(r.path, "codex");
    expect(list.removed.length).toBe(r.pruning.resultsDropped + r.pruning.resultsTruncated);
    expect(list.removed.length).toBeGreaterThan(0);
    const originals = new Map(
      loadCodexRollout(source)
        .timeline.messages.flatMap((m) => m.toolResults)
        .map((t) => [t.callId, t.text]),
    );
    for (const x of list.removed) {
      expect(x.rule).toBeDefined();
      expect(x.recallable).toBe(true);
      expect(recall(x.id, { session: r.path, home: dir, claudeDir: join(dir, "claude"), codexHome: join(dir, "codex"), cwd: dir }).text).toBe(
        originals.get(x.id)!,
      );
    }
  });
});

describe("a fork bc cut to a budget, and a fork of that fork", () => {
  test("--list names the rule of every removal, the escalation's too, each as the fork's plan counts it", async () => {
    const { enginePruner, forkRollout: fork } = await import("../../src/hosts/codex/fork.ts");
    const { removedIn } = await import("../../src/hosts/recall/removed.ts");
    const source = join(REPO, "src", "eval", "demo", "codex", "rollout-2026-11-30T02-43-47-01a22a56-491b-7581-aca8-3d67346846f7.jsonl");
    const dir = join(tmp, "budget-fork");
    mkdirSync(dir, { recursive: true });
    const forkTo = (from: string, tokens: number) =>
      fork(from, { context: "fresh", pruner: enginePruner(undefined, { tokens }), outDir: dir, codexHome: join(dir, "codex") });
    const byRule = (xs: readonly { rule?: string }[]): Record<string, number> => {
      const n: Record<string, number> = {};
      for (const x of xs) n[x.rule ?? "-"] = (n[x.rule ?? "-"] ?? 0) + 1;
      return n;
    };
    const planned = (r: ReturnType<typeof forkTo>): Record<string, number> =>
      Object.fromEntries(Object.entries(r.pruning.byRule).flatMap(([rule, t]) => (t!.removed > 0 ? [[rule, t!.removed]] : [])));
    // the budget met (the room left lent to a longer head), and not met (all the escalation may cut)
    const met = forkTo(source, 2500);
    const unmet = forkTo(source, 1500);
    expect([met.pruning.budget?.reached, unmet.pruning.budget?.reached]).toEqual([true, false]);
    for (const r of [met, unmet]) {
      expect(planned(r).escalation).toBeGreaterThan(0);
      expect(byRule(removedIn(r.path, "codex").removed)).toEqual(planned(r));
    }
    // a later pass over the met fork: its own cuts, and the first pass's notes it carries on
    const first = new Map(removedIn(met.path, "codex").removed.map((x) => [x.id, x]));
    const again = forkTo(met.path, 2000);
    const listed = removedIn(again.path, "codex").removed;
    const carried = listed.filter((x) => first.get(x.id)?.charsRemoved === x.charsRemoved && first.get(x.id)?.kind === x.kind);
    expect(carried.length).toBeGreaterThan(0);
    for (const x of carried) expect(x.rule).toBe(first.get(x.id)!.rule!);
    expect(byRule(listed.filter((x) => !carried.includes(x)))).toEqual(planned(again));
  });
});

test("an output larger than a pipe holds comes out whole to a reader that is slow to start (a shell tool): bc waits for stdout before it exits", () => {
  const big = `${Array.from({ length: 6000 }, (_, i) => `line ${i}: ${"x".repeat(40)}`).join("\n")}\n`;
  const file = join(tmp, "big-output.jsonl");
  writeFileSync(
    file,
    `${[
      claudeRec("user", "bu1", [{ type: "text", text: "cat it" }]),
      claudeRec("assistant", "ba1", [{ type: "tool_use", id: "toolu_01BIG", name: "Bash", input: { command: "cat big.txt" } }]),
      claudeRec("user", "bu2", [{ type: "tool_result", tool_use_id: "toolu_01BIG", content: big }]),
    ].join("\n")}\n`,
  );
  expect(Buffer.byteLength(big)).toBeGreaterThan(4 * 65536);
  const r = Bun.spawnSync(
    ["bash", "-c", `'${process.execPath}' '${join(REPO, "src", "main.ts")}' recall toolu_01BIG --session '${file}' | (sleep 0.5; sha256sum)`],
    { env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, CODEX_HOME: codexHome }, stdout: "pipe", stderr: "pipe" },
  );
  expect(r.stdout.toString().split(" ")[0]).toBe(createHash("sha256").update(big).digest("hex"));
});
