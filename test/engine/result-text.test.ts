// The exit status and the output of a tool result, one table per shape the hosts write, and the
// same shapes read by the body and the passing-test check.
import { describe, expect, test } from "bun:test";
import { exitCode, passed, resultBody } from "../../src/engine/result-text.ts";
import { BEYOND_RECENT, SessionBuilder } from "./support/build.ts";
import { decisionFor } from "./support/decide.ts";

const LONG = "x".repeat(5_000);
const codex118 = (cmd: string, code: number, body: string): string =>
  `Command: ${cmd}\nChunk ID: 3f9a1c\nWall time: 0.2001 seconds\nProcess exited with code ${code}\nOriginal token count: 12\nOutput:\n${body}`;
const legacyJson = (body: string, code: number): string => JSON.stringify({ output: body, metadata: { exit_code: code, duration_seconds: 0.4 } });
const codeMode = (status: string, printed: string): string => `${status}\nWall time 0.9 seconds\nOutput:\n\n${printed}`;
const printedExec = (code: number, out: string): string =>
  JSON.stringify({ chunk_id: "98808a", wall_time_seconds: 0, exit_code: code, original_token_count: 10, output: out });

describe("exit status", () => {
  test.each([
    ["exec, 0.118: a command line first", codex118("go test ./...", 1, "--- FAIL: TestX"), 1],
    ["exec, 0.118: a long command line", codex118(`rg -n '${"a".repeat(600)}' src`, 2, "rg: bad flag"), 2],
    ["exec, 0.118: a command over several lines", codex118("cat <<'EOF' > a.txt\nProcess exited with code 9\nEOF", 0, ""), 0],
    ["exec, 0.118: a long output", codex118("cat big.log", 1, LONG), 1],
    ["exec: chunk first", "Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 3\nOutput:\nx", 3],
    ["exec: still running", "Chunk ID: 1\nWall time: 10.0 seconds\nProcess running with session ID 7\nOutput:\npartial", undefined],
    ["exec: exit line after Output: is output, not the header", "Chunk ID: 1\nWall time: 0 seconds\nOutput:\nProcess exited with code 4", undefined],
  ])("%s", (_name, text, code) => {
    expect(exitCode(text)).toBe(code as never);
  });

  test.each([
    ["shell, older builds", "Exit code: 0\nWall time: 0 seconds\nOutput:\nx", 0],
    ["shell, older builds, failing", "Exit code: 127\nWall time: 0 seconds\nOutput:\nsh: foo: not found", 127],
  ])("%s", (_name, text, code) => {
    expect(exitCode(text)).toBe(code as never);
  });

  test.each([
    ["legacy JSON, short", legacyJson("x", 2), 2],
    ["legacy JSON, a 1,000-character output", legacyJson("y".repeat(1_000), 2), 2],
    ["legacy JSON, a long output passing", legacyJson(LONG, 0), 0],
    ["legacy JSON, an exit_code inside the output only", JSON.stringify({ output: '{"exit_code":5}' }), undefined],
  ])("%s", (_name, text, code) => {
    expect(exitCode(text)).toBe(code as never);
  });

  test.each([
    ["code mode: a printed exec result failing", codeMode("Script completed", printedExec(1, "FAIL ./pkg")), 1],
    ["code mode: printed results, the second failing", codeMode("Script completed", `${printedExec(0, "ok")}\n${printedExec(128, "fatal: lock")}`), 128],
    ["code mode: printed results all passing", codeMode("Script completed", printedExec(0, "ok")), 0],
    ["code mode: an exit_code escaped inside an output", codeMode("Script completed", printedExec(0, '{"exit_code":3}')), 0],
    ["code mode: the script failed", "Script failed\nWall time 0.1 seconds\nOutput:\nTypeError: x is undefined", 1],
    ["code mode: plain printed text", codeMode("Script completed", "hello"), undefined],
    ["code mode: still running", "Script running with cell ID 9\nWall time 10.0 seconds\nOutput:\n", undefined],
  ])("%s", (_name, text, code) => {
    expect(exitCode(text)).toBe(code as never);
  });

  test.each([
    ["Claude Code Bash, failing", "Exit code 1\nboom", 1],
    ["plain output", "plain output", undefined],
    ["plain output mentioning an exit code later", "done\nExit code: 3", undefined],
  ])("%s", (_name, text, code) => {
    expect(exitCode(text)).toBe(code as never);
  });
});

describe("the body leaves out the header, in every shape", () => {
  test.each([
    ["exec, 0.118", codex118("cat a.ts", 0, "hello"), "hello"],
    ["exec, chunk first", "Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhello", "hello"],
    ["exec, wall time first", "Wall time: 6.0526 seconds\nOutput:\nhello", "hello"],
    ["shell, older builds", "Exit code: 0\nWall time: 0 seconds\nOutput:\nhello", "hello"],
    ["legacy JSON", legacyJson("hello", 0), "hello"],
    ["code mode", "Script completed\nWall time 0.1 seconds\nOutput:\nhello", "hello"],
    ["plain", "hello", "hello"],
    ["a header without an Output: line", "Chunk ID: 1\nWall time: 0 seconds", "Chunk ID: 1\nWall time: 0 seconds"],
  ])("%s", (_name, text, body) => {
    expect(resultBody(text)).toBe(body);
  });
});

describe("a passing test run", () => {
  test.each([
    ["bun: 0 fail", " 12 pass\n 0 fail", false, true],
    ["bun: 1 fail", " 11 pass\n 1 fail", false, false],
    ["pytest: passed", "30 passed in 1.2s", false, true],
    ["pytest: failed", "1 failed, 29 passed", false, false],
    ["cargo: 0 failed", "test result: ok. 3 passed; 0 failed", false, true],
    ["an error flag", "anything", true, false],
    ["shell, a non-zero exit", "Exit code: 1\nOutput:\nok", false, false],
    ["exec 0.118, a non-zero exit", codex118("go test ./...", 1, "ok"), false, false],
    ["exec 0.118, passing", codex118("go test ./...", 0, "ok  \tpkg\t0.2s"), false, true],
    ["legacy JSON, a long output with a non-zero exit", legacyJson(`ok\n${LONG}`, 1), false, false],
    ["code mode, a printed failing exec", codeMode("Script completed", printedExec(1, "ok")), false, false],
    ["code mode, the script failed", "Script failed\nWall time 0.1 seconds\nOutput:\nok", false, false],
  ])("%s", (_name, text, isError, expected) => {
    expect(passed(text, isError)).toBe(expected);
  });
});

describe("a failing run in any shape is never dropped", () => {
  test.each([
    ["exec, 0.118", codex118("./tools/report", 1, `report\n${LONG}`)],
    ["legacy JSON, a long output", legacyJson(`report\n${LONG}`, 2)],
    ["code mode, a printed failing exec", codeMode("Script completed", printedExec(1, `report\n${LONG}`))],
    ["code mode, the script failed", `Script failed\nWall time 0.1 seconds\nOutput:\n${LONG}`],
  ])("%s", (_name, text) => {
    const b = new SessionBuilder("codex").user("go");
    const id = b.call("exec_command", { cmd: "./tools/report", workdir: "/repo" }, text);
    b.filler(BEYOND_RECENT);
    expect(decisionFor(b.session(), id).rule).toBe("never-drop");
  });
});
