// Which host wrote a record: one parsed line, and the opening of a line too long to parse.
import { describe, expect, test } from "bun:test";
import { hasClaudeKeys, hostOfOpening, hostOfRecord, isClaudeRecord, isCodexRecord, isLegacyCodexHeader } from "../../src/hosts/record-kind.ts";

const CLAUDE = {
  parentUuid: null,
  isSidechain: false,
  sessionId: "s-1",
  type: "user",
  message: { role: "user", content: "hello" },
  uuid: "u-1",
  timestamp: "2026-03-01T10:00:00.000Z",
};
const CODEX = { timestamp: "2026-03-01T10:00:00.000Z", type: "session_meta", payload: { id: "t-1", cwd: "/w" } };
const LEGACY = { id: "x", timestamp: "2025-05-01T00:00:00Z", instructions: "" };
/** a Claude Code line without `type` (a damaged record): Claude's keys, but not a record */
const CLAUDE_NO_TYPE = { parentUuid: "p", sessionId: "s-1", uuid: "u-2" };
const NEITHER = { name: "x", version: "1.0.0" };

describe("a parsed line", () => {
  test.each([
    ["a Claude Code record", CLAUDE, "claude"],
    ["a Claude Code bookkeeping record", { type: "queue-operation", operation: "dequeue", sessionId: "s" }, "claude"],
    ["Claude Code 2.1.337's request route, no session id", { type: "api-request-route", provider: "customEndpoint", credential: "key" }, "claude"],
    ["an unknown record type with a session id", { type: "something-new", sessionId: "s" }, "claude"],
    ["a Codex record", CODEX, "codex"],
    ["a legacy Codex header", LEGACY, "codex"],
    ["a Claude Code line lacking type", CLAUDE_NO_TYPE, undefined],
    ["neither", NEITHER, undefined],
    ["a Codex type without a payload", { type: "session_meta" }, undefined],
    ["an array", [CLAUDE], undefined],
    ["a string", "user", undefined],
    ["null", null, undefined],
  ])("%s", (_, value, host) => {
    expect(hostOfRecord(value)).toBe(host as "claude" | "codex" | undefined);
  });

  test("each check says yes to its own host's record only", () => {
    expect([isClaudeRecord(CLAUDE), isCodexRecord(CLAUDE), isLegacyCodexHeader(CLAUDE)]).toEqual([true, false, false]);
    expect([isClaudeRecord(CODEX), isCodexRecord(CODEX), isLegacyCodexHeader(CODEX)]).toEqual([false, true, false]);
    expect([isClaudeRecord(LEGACY), isCodexRecord(LEGACY), isLegacyCodexHeader(LEGACY)]).toEqual([false, false, true]);
    // a Codex record that also carries a session id is still Codex's
    expect(isClaudeRecord({ ...CODEX, sessionId: "s" })).toBe(false);
    // a legacy header with a uuid is not the header
    expect(isLegacyCodexHeader({ ...LEGACY, uuid: "u" })).toBe(false);
  });

  test("Claude Code's keys are seen with or without a type", () => {
    expect(hasClaudeKeys(CLAUDE)).toBe(true);
    expect(hasClaudeKeys(CLAUDE_NO_TYPE)).toBe(true);
    expect(hasClaudeKeys({ parentUuid: null })).toBe(true);
    expect(hasClaudeKeys(CODEX)).toBe(false);
    expect(hasClaudeKeys(NEITHER)).toBe(false);
  });
});

describe("the opening of a line too long to parse", () => {
  const opening = (v: object): string => JSON.stringify(v).slice(0, -1); // cut before its end
  test.each([
    ["a Claude Code record", opening(CLAUDE), "claude"],
    ["a Claude Code line lacking type", opening(CLAUDE_NO_TYPE), "claude"],
    ["a Codex record", opening(CODEX), "codex"],
    ["a legacy Codex header", opening(LEGACY), "codex"],
    ["a Codex type without a payload", '{"type":"session_meta","timestamp":"t"', undefined],
    ["neither", opening(NEITHER), undefined],
  ])("%s", (_, text, host) => {
    expect(hostOfOpening(text)).toBe(host as "claude" | "codex" | undefined);
  });
});
