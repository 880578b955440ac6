// Host detection by content, loading any session file, and finding a user's sessions by id.
import { afterAll, describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detectHost, discoverSessions, loadSessionFile, resolveSession } from "../../src/hosts/load.ts";
import { BcError } from "../../src/util/errors.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures");
const TMP = mkdtempSync(join(tmpdir(), "bc-load-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const write = (path: string, text: string | Uint8Array): string => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
};

const CLAUDE_LINE = (sid: string, text = "hello") =>
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    sessionId: sid,
    type: "user",
    message: { role: "user", content: text },
    uuid: `u-${sid}`,
    timestamp: "2026-03-01T10:00:00.000Z",
  });
const CODEX_LINE = (id: string) =>
  JSON.stringify({
    timestamp: "2026-03-01T10:00:00.000Z",
    type: "session_meta",
    payload: { id, timestamp: "2026-03-01T10:00:00.000Z", cwd: "/w", originator: "codex_cli_rs", cli_version: "0.142.5" },
  });

const errorOf = (f: () => unknown): BcError => {
  try {
    f();
  } catch (e) {
    if (e instanceof BcError) return e;
    throw e;
  }
  throw new Error("expected a BcError");
};

describe("detectHost", () => {
  test.each([
    ["a Claude Code transcript", join(FIXTURES, "claude", "parallel-tool-calls.jsonl"), "claude"],
    ["a Claude subagent file", join(FIXTURES, "claude", "with-subagents", "subagents", "agent-b0b.jsonl"), "claude"],
    ["a Codex rollout", write(join(TMP, "r.jsonl"), `${CODEX_LINE("019f0000-0000-7000-8000-000000000001")}\n`), "codex"],
    [
      "a legacy Codex rollout header",
      write(join(TMP, "legacy.jsonl"), '{"id":"x","timestamp":"2025-05-01T00:00:00Z","instructions":""}\n{"type":"message","role":"user","content":[]}\n'),
      "codex",
    ],
    // the first record is longer than the window bc reads to decide: judged by its opening keys
    ["a transcript whose first line is 1 MB", write(join(TMP, "big-first.jsonl"), `${CLAUDE_LINE("s", "x".repeat(1_000_000))}\n`), "claude"],
    ["a rollout whose first line is 1 MB", write(join(TMP, "big-codex.jsonl"), `${CODEX_LINE("y".repeat(1_000_000))}\n`), "codex"],
    [
      "a transcript starting with bookkeeping records",
      write(join(TMP, "bk.jsonl"), '{"type":"queue-operation","operation":"dequeue","timestamp":"t","sessionId":"s"}\n'),
      "claude",
    ],
  ])("%s", (_, path, host) => {
    expect(detectHost(path)).toBe(host as "claude" | "codex");
  });

  test.each([
    ["missing path", join(TMP, "missing.jsonl"), "not-found", /missing\.jsonl: no such file$/],
    ["directory", TMP, "bad-input", /: is a directory$/],
    ["empty file", write(join(TMP, "empty.jsonl"), ""), "bad-input", /empty\.jsonl: the file is empty$/],
    [
      "a compressed file holding only blank lines",
      write(join(TMP, "blank.jsonl.zst"), Bun.zstdCompressSync(Buffer.from("\n\n\n"))),
      "bad-input",
      /blank\.jsonl\.zst: holds nothing once decompressed$/,
    ],
    ["blank lines only", write(join(TMP, "blank.jsonl"), "\n  \n\t\r\n"), "bad-input", /blank\.jsonl: holds only blank lines, no records$/],
    [
      "random JSON",
      write(join(TMP, "random.jsonl"), '{"name":"x","version":"1.0.0"}\n'),
      "bad-input",
      /random\.jsonl:1: JSON that is neither a Claude Code transcript nor a Codex rollout$/,
    ],
    [
      "plain text",
      write(join(TMP, "notes.txt"), "# notes\nnothing here\n"),
      "bad-input",
      /notes\.txt:1: not valid JSON \(.*\): "# notes"; neither a Claude Code transcript nor a Codex rollout$/,
    ],
  ])("%s: one-line error naming both expected formats", (_, path, code, message) => {
    const e = errorOf(() => detectHost(path));
    expect(e.code).toBe(code as BcError["code"]);
    expect(e.message).toMatch(message);
    expect(e.message).not.toContain("\n");
    expect(e.hint).toContain("Claude Code transcript");
    expect(e.hint).toContain("Codex rollout");
  });
});

test("a session file the user may not read: 'permission denied', with what to look at, whichever reader meets it first", () => {
  const path = write(join(TMP, "locked.jsonl"), `${CLAUDE_LINE("s")}\n`);
  const denied = () => {
    throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: "EACCES" });
  };
  // as root a file's mode would not stop the read: the system's answer, stood in for
  for (const call of ["openSync", "readFileSync"] as const) {
    const spy = spyOn(fs, call).mockImplementation(denied as never);
    try {
      const e = errorOf(() => (call === "openSync" ? detectHost(path) : loadSessionFile(path)));
      expect(e.message).toBe(`${path}: cannot be read (permission denied)`);
      expect(e.hint).toBe("check who may read it: ls -l on the file and its folders");
    } finally {
      spy.mockRestore();
    }
  }
});

describe("loadSessionFile", () => {
  test("dispatches a Claude Code transcript to the Claude reader", () => {
    const s = loadSessionFile(join(FIXTURES, "claude", "compacted-twice.jsonl"));
    expect([s.host, s.id, s.timeline.messages.length, s.compactions.length]).toEqual(["claude", "7f3c2a10-5b1e-4c9d-8e2f-0a1b2c3d4e5f", 15, 2]);
  });

  test("dispatches a Codex rollout to the Codex reader", () => {
    const s = loadSessionFile(join(FIXTURES, "codex", "legacy-one-compaction.jsonl"));
    expect(s.host).toBe("codex");
    expect(s.timeline.messages.length).toBeGreaterThan(0);
    expect(s.compactions).toHaveLength(1);
  });
});

describe("finding sessions", () => {
  const home = join(TMP, "home");
  const codexHome = join(TMP, "codex-home");
  const CLAUDE_ID = "5b7e1c2a-0000-4000-8000-00000000aaaa";
  const CODEX_ID = "019f1111-2222-7333-8444-555566667777";
  const claudePath = write(join(home, ".claude", "projects", "-home-dev-shop", `${CLAUDE_ID}.jsonl`), `${CLAUDE_LINE(CLAUDE_ID)}\n`);
  write(join(home, ".claude", "projects", "-home-dev-shop", CLAUDE_ID, "subagents", "agent-a1.jsonl"), `${CLAUDE_LINE(CLAUDE_ID)}\n`);
  write(join(home, ".claude", "projects", "-home-dev-shop", "notes.txt"), "not a session\n");
  const codexPath = write(join(codexHome, "sessions", "2026", "03", "01", `rollout-2026-03-01T10-00-00-${CODEX_ID}.jsonl`), `${CODEX_LINE(CODEX_ID)}\n`);
  write(join(codexHome, "sessions", "2026", "03", "01", "unrelated.jsonl"), `${CODEX_LINE("z")}\n`);
  const places = { home, codexHome };

  test("discoverSessions lists both hosts' session files (not subagent files), and filters by host", () => {
    expect(discoverSessions(places)).toEqual([
      { host: "claude", path: claudePath, id: CLAUDE_ID },
      { host: "codex", path: codexPath, id: CODEX_ID },
    ]);
    expect(discoverSessions({ ...places, host: "codex" })).toEqual([{ host: "codex", path: codexPath, id: CODEX_ID }]);
  });

  test("resolveSession: a path stays a path; an id is found under either host's folder", () => {
    const fixture = join(FIXTURES, "claude", "parallel-tool-calls.jsonl");
    expect(resolveSession(fixture, places)).toBe(fixture);
    expect(resolveSession(CLAUDE_ID, places)).toBe(claudePath);
    expect(resolveSession(CODEX_ID, places)).toBe(codexPath);
  });

  test("an id in upper case is found (Codex takes one so); a thread both live and archived is the live one", () => {
    expect(resolveSession(CODEX_ID.toUpperCase(), places)).toBe(codexPath);
    const archived = write(join(codexHome, "archived_sessions", `rollout-2026-03-01T10-00-00-${CODEX_ID}.jsonl`), `${CODEX_LINE(CODEX_ID)}\n`);
    try {
      expect(resolveSession(CODEX_ID, places)).toBe(codexPath);
    } finally {
      rmSync(archived);
    }
  });

  test("a thread Codex went on in new files after reverts (<thread id>_<file id>): its id, its start and its name are its latest file; two copies of one file are refused", () => {
    const day = join(codexHome, "sessions", "2026", "03", "02");
    // file ids are UUIDv7s: the later one sorts after the earlier one, whatever their folders and times
    const first = write(join(day, `rollout-2026-03-02T10-00-00-${CODEX_ID}_019f2222-0000-7000-8000-000000000001.jsonl`), `${CODEX_LINE(CODEX_ID)}\n`);
    const latest = write(
      join(codexHome, "sessions", "2026", "03", "01", `rollout-2026-03-01T09-00-00-${CODEX_ID}_019f2222-0000-7000-8000-000000000002.jsonl`),
      `${CODEX_LINE(CODEX_ID)}\n`,
    );
    try {
      expect(resolveSession(CODEX_ID, places)).toBe(latest);
      expect(resolveSession(CODEX_ID.slice(0, 13), places)).toBe(latest);
      // every file of the thread is a session of discoverSessions, under the thread's id
      expect(
        discoverSessions({ ...places, host: "codex" })
          .filter((f) => f.path.includes(CODEX_ID))
          .map((f) => [f.id, f.replacement]),
      ).toEqual([
        [CODEX_ID, "019f2222-0000-7000-8000-000000000002"],
        [CODEX_ID, undefined],
        [CODEX_ID, "019f2222-0000-7000-8000-000000000001"],
      ]);
      const index = join(codexHome, "session_index.jsonl");
      writeFileSync(index, `${JSON.stringify({ id: CODEX_ID, thread_name: "went on after a revert", updated_at: "2026-03-02T10:00:00Z" })}\n`);
      try {
        expect(resolveSession("went on after a revert", places)).toBe(latest);
      } finally {
        rmSync(index);
      }
      // an archived copy of the thread's latest file does not stand before the live one
      const archivedLatest = write(
        join(codexHome, "archived_sessions", `rollout-2026-03-03T10-00-00-${CODEX_ID}_019f2222-0000-7000-8000-000000000003.jsonl`),
        `${CODEX_LINE(CODEX_ID)}\n`,
      );
      try {
        expect(resolveSession(CODEX_ID, places)).toBe(latest);
      } finally {
        rmSync(archivedLatest);
      }
      const copy = write(join(day, `rollout-2026-03-02T11-00-00-${CODEX_ID}_019f2222-0000-7000-8000-000000000002.jsonl`), `${CODEX_LINE(CODEX_ID)}\n`);
      try {
        const e = errorOf(() => resolveSession(CODEX_ID, places));
        expect(e.code).toBe("usage");
        expect(e.message).toStartWith(`session id ${CODEX_ID} matches 4 files: `);
      } finally {
        rmSync(copy);
      }
    } finally {
      rmSync(first);
      rmSync(latest);
    }
  });

  test("the start of an id: the one session whose id starts so (any case, a thread also archived once); two are refused, naming them", () => {
    expect(resolveSession(CLAUDE_ID.slice(0, 8), places)).toBe(claudePath);
    expect(resolveSession(CODEX_ID.slice(0, 13).toUpperCase(), places)).toBe(codexPath);
    const archived = write(join(codexHome, "archived_sessions", `rollout-2026-03-01T10-00-00-${CODEX_ID}.jsonl`), `${CODEX_LINE(CODEX_ID)}\n`);
    const OTHER_ID = "019f1111-9999-7333-8444-555566667777";
    try {
      expect(resolveSession("019f1111-2", places)).toBe(codexPath);
      const other = write(join(codexHome, "sessions", "2026", "03", "02", `rollout-2026-03-02T10-00-00-${OTHER_ID}.jsonl`), `${CODEX_LINE(OTHER_ID)}\n`);
      try {
        const e = errorOf(() => resolveSession("019f1111", places));
        expect(e.code).toBe("usage");
        expect(e.message).toBe(`019f1111 is the start of 2 session ids: ${CODEX_ID}, ${OTHER_ID}`);
        expect(resolveSession("019f1111-9", places)).toBe(other);
      } finally {
        rmSync(other);
      }
    } finally {
      rmSync(archived);
    }
  });

  test("an unknown id: one-line not-found error saying where bc looked", () => {
    const e = errorOf(() => resolveSession("0000-nope", places));
    expect(e.code).toBe("not-found");
    expect(e.message).toBe("0000-nope: no such file, and no session with that id or name");
    expect(e.hint).toBe(
      `looked for ${join(home, ".claude", "projects", "*", "0000-nope.jsonl")}, ${join(codexHome, "sessions", "**", "rollout-*-0000-nope.jsonl[.zst]")}, ${join(codexHome, "archived_sessions", "rollout-*-0000-nope.jsonl[.zst]")}, the names in ${join(codexHome, "session_index.jsonl")} and Claude Code's session names`,
    );
  });

  test("a Codex thread's name (session_index.jsonl, as `codex resume <name>` takes it): the newest thread currently so named that has a rollout", () => {
    const OLD_ID = "0190c000-0000-7000-8000-0000000000b1";
    const GONE_ID = "0190c000-0000-7000-8000-0000000000b3";
    const old = write(join(codexHome, "archived_sessions", `rollout-2026-03-02T10-00-00-${OLD_ID}.jsonl`), `${CODEX_LINE(OLD_ID)}\n`);
    const index = join(codexHome, "session_index.jsonl");
    const row = (id: string, name: string) => `${JSON.stringify({ id, thread_name: name, updated_at: "2026-03-02T10:00:00Z" })}\n`;
    try {
      // the older thread is "fix login", then the newer one takes the name
      writeFileSync(index, row(OLD_ID, "fix login") + row(CODEX_ID, "first try") + row(CODEX_ID, "fix login"));
      expect(resolveSession("fix login", places)).toBe(codexPath);
      // renamed since: its old name is no longer its name, so the name falls to the other thread
      writeFileSync(index, row(OLD_ID, "fix login") + row(CODEX_ID, "fix login") + row(CODEX_ID, "login, take two"));
      expect(resolveSession("fix login", places)).toBe(old);
      expect(resolveSession("login, take two", places)).toBe(codexPath);
      expect(() => resolveSession("first try", places)).toThrow("no session with that id or name");
      // the newest so named has no rollout (never written, or deleted): the next one does; a damaged row is passed over
      writeFileSync(index, `${row(OLD_ID, "fix login")}{"id":\n${row(GONE_ID, "fix login")}`);
      expect(resolveSession("fix login", places)).toBe(old);
      // an id is an id before it is a name
      writeFileSync(index, row(OLD_ID, CODEX_ID));
      expect(resolveSession(CODEX_ID, places)).toBe(codexPath);
    } finally {
      rmSync(old);
      rmSync(index, { force: true });
    }
  });

  test("a Claude Code session's name (its last custom-title, as `claude --resume <name>` takes it): this project's first, then any; two so named are refused", () => {
    const title = (name: string) => `${JSON.stringify({ type: "custom-title", customTitle: name, sessionId: "x" })}\n`;
    const cwd = join(TMP, "work", "shop");
    const hereDir = join(home, ".claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));
    const here = write(join(hereDir, "here-1.jsonl"), `${CLAUDE_LINE("here-1")}\n${title("checkout flow")}`);
    const elsewhere = write(join(home, ".claude", "projects", "-home-dev-blog", "blog-1.jsonl"), `${CLAUDE_LINE("blog-1")}\n${title("checkout flow")}`);
    const renamed = write(
      join(home, ".claude", "projects", "-home-dev-blog", "blog-2.jsonl"),
      `${CLAUDE_LINE("blog-2")}\n${title("draft")}${title("published")}`,
    );
    const at = { ...places, cwd };
    try {
      expect(resolveSession("checkout flow", at)).toBe(here);
      // from another project the name is two sessions': refused, naming both
      const e = errorOf(() => resolveSession("checkout flow", { ...places, cwd: join(TMP, "work", "other") }));
      expect(e.code).toBe("usage");
      expect(e.message).toContain(`the name "checkout flow" is 2 Claude Code sessions'`);
      expect(e.message).toContain(here);
      expect(e.message).toContain(elsewhere);
      // a session renamed: its last name is its name
      expect(resolveSession("published", at)).toBe(renamed);
      expect(() => resolveSession("draft", at)).toThrow("no session with that id or name");
      // a long session named at its start: its end holds no name, so the whole file is searched
      const filler = `${JSON.stringify({ type: "user", message: { content: "x".repeat(1000) } })}\n`.repeat(300);
      const long = write(join(hereDir, "here-3.jsonl"), `${CLAUDE_LINE("here-3")}\n${title("long haul")}${filler}`);
      expect(resolveSession("long haul", at)).toBe(long);
      // renamed near its end: the end's name is the name, the first one no longer is
      writeFileSync(long, `${CLAUDE_LINE("here-3")}\n${title("long haul")}${filler}${title("short haul")}`);
      expect(resolveSession("short haul", at)).toBe(long);
      expect(() => resolveSession("long haul", at)).toThrow("no session with that id or name");
      // the words inside a message are no name
      write(join(hereDir, "here-2.jsonl"), `${JSON.stringify({ type: "user", message: { content: '"customTitle":"quoted"' } })}\n`);
      expect(() => resolveSession("quoted", at)).toThrow("no session with that id or name");
    } finally {
      rmSync(hereDir, { recursive: true });
      rmSync(join(home, ".claude", "projects", "-home-dev-blog"), { recursive: true });
    }
  });

  test("a name both a Claude Code session of this project and a Codex thread hold: the Claude one, unless only Codex's are asked for (codex-fork)", () => {
    const cwd = join(TMP, "work", "both");
    const hereDir = join(home, ".claude", "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));
    const here = write(
      join(hereDir, "here-9.jsonl"),
      `${CLAUDE_LINE("here-9")}\n${JSON.stringify({ type: "custom-title", customTitle: "mywork", sessionId: "x" })}\n`,
    );
    const index = join(codexHome, "session_index.jsonl");
    writeFileSync(index, `${JSON.stringify({ id: CODEX_ID, thread_name: "mywork", updated_at: "2026-03-02T10:00:00Z" })}\n`);
    try {
      expect(resolveSession("mywork", { ...places, cwd })).toBe(here);
      expect(resolveSession("mywork", { ...places, cwd }, "codex")).toBe(codexPath);
      // an id or name only the other host's session holds is that session, whose reader then says what it is
      expect(resolveSession(CLAUDE_ID, places, "codex")).toBe(claudePath);
      expect(() => resolveSession("0000-nope", places, "codex")).toThrow("no session with that id or name");
    } finally {
      rmSync(hereDir, { recursive: true });
      rmSync(index, { force: true });
    }
  });

  test("$CLAUDE_CONFIG_DIR: Claude Code's sessions are looked for there, as Claude Code keeps them", () => {
    const configDir = join(TMP, "claude-config");
    const moved = write(join(configDir, "projects", "-home-dev-shop", "moved-session.jsonl"), `${CLAUDE_LINE("moved-session")}\n`);
    const before = process.env.CLAUDE_CONFIG_DIR;
    process.env.CLAUDE_CONFIG_DIR = configDir;
    try {
      expect(resolveSession("moved-session", places)).toBe(moved);
      expect(discoverSessions({ ...places, host: "claude" })).toEqual([{ host: "claude", path: moved, id: "moved-session" }]);
    } finally {
      if (before === undefined) delete process.env.CLAUDE_CONFIG_DIR;
      else process.env.CLAUDE_CONFIG_DIR = before;
    }
  });

  test("a thread Codex archived (moved to $CODEX_HOME/archived_sessions) is found by its id; it is no session of discoverSessions unless asked", () => {
    const ARCHIVED_ID = "0190c000-0000-7000-8000-00000000000a";
    const archived = write(join(codexHome, "archived_sessions", `rollout-2026-03-02T10-00-00-${ARCHIVED_ID}.jsonl`), `${CODEX_LINE(ARCHIVED_ID)}\n`);
    try {
      expect(resolveSession(ARCHIVED_ID, places)).toBe(archived);
      expect(discoverSessions({ ...places, host: "codex" }).map((f) => f.path)).toEqual([codexPath]);
      expect(discoverSessions({ ...places, host: "codex", archived: true }).map((f) => f.path)).toEqual([archived, codexPath].sort());
    } finally {
      rmSync(archived);
    }
  });

  test("an id found twice is refused, naming both files (sorted by path)", () => {
    const dup = write(join(home, ".claude", "projects", "-home-dev-other", `${CLAUDE_ID}.jsonl`), `${CLAUDE_LINE(CLAUDE_ID)}\n`);
    const e = errorOf(() => resolveSession(CLAUDE_ID, places));
    expect(e.message).toBe(`session id ${CLAUDE_ID} matches 2 files: ${dup}, ${claudePath}`);
    rmSync(dup);
  });
});
