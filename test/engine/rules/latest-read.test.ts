import { describe, expect, test } from "bun:test";
import { BEYOND_RECENT, SessionBuilder, fileLines, numbered } from "../support/build.ts";
import { decisionFor, verdictFor } from "../support/decide.ts";

const A = numbered(fileLines("alpha", 30));
const B = numbered(fileLines("bravo", 30));

describe("latest-read", () => {
  test("the most recent read of each file is kept, even when nothing refers to it", () => {
    const b = new SessionBuilder().user("read them");
    const a = b.read("/repo/a.ts", A);
    const bb = b.read("/repo/b.ts", B);
    b.assistant("read both");
    b.filler(BEYOND_RECENT);
    const s = b.session();
    expect(decisionFor(s, a)).toMatchObject({ action: "keep", rule: "latest-read", reason: "latest read of /repo/a.ts" });
    expect(verdictFor(s, bb)).toBe("keep latest-read");
  });

  test("an earlier read that the later one does not contain is not the latest: the lookup judges it", () => {
    const b = new SessionBuilder().user("read it twice");
    const first = b.read("/repo/a.ts", A);
    b.call("Edit", { file_path: "/repo/a.ts", old_string: "x", new_string: "y" }, "ok");
    const second = b.read("/repo/a.ts", B);
    b.assistant("done");
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), first)).toBe("drop unreferenced");
    expect(verdictFor(b.session(), second)).toBe("keep latest-read");
  });

  test("paths are compared after folding ./ and ../ and the working directory", () => {
    const b = new SessionBuilder("codex").user("read");
    const first = b.call("exec_command", { cmd: "cat ./src/../a.ts", workdir: "/repo" }, A);
    const second = b.call("exec_command", { cmd: "cat /repo/a.ts" }, A);
    b.assistant("done");
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), first)).toBe("drop superseded-read");
    expect(verdictFor(b.session(), second)).toBe("keep latest-read");
  });

  test("a failed read is not a read of the file: the previous good read stays the latest", () => {
    const b = new SessionBuilder().user("read");
    const good = b.read("/repo/a.ts", A);
    b.call("Read", { file_path: "/repo/a.ts" }, "<tool_use_error>File does not exist.</tool_use_error>", { isError: true });
    b.assistant("done");
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), good)).toBe("keep latest-read");
  });
});
