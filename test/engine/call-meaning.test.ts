// What a call means (call-meaning.ts) and what its shell command does (shell.ts), for both hosts' tools.
import { describe, expect, test } from "bun:test";
import { describeCall } from "../../src/engine/call-meaning.ts";
import { ANY_FILE, parseCommand, readOf, rerunnableOf, writesOf } from "../../src/engine/shell.ts";
import type { ToolCall } from "../../src/engine/types.ts";

const shellRead = (command: string, workdir?: string) => readOf(parseCommand(command, workdir));
const shellWrites = (command: string, workdir?: string) => writesOf(parseCommand(command, workdir));
const rerunnableKind = (command: string) => rerunnableOf(parseCommand(command, undefined));

const call = (name: string, input: unknown): ToolCall => ({ id: "c", name, input, inputText: JSON.stringify(input) });

describe("what a call reads", () => {
  test.each([
    ["Read whole", call("Read", { file_path: "/r/a.ts" }), { path: "/r/a.ts" }],
    ["Read ranged", call("Read", { file_path: "/r/a.ts", offset: 10, limit: 5 }), { path: "/r/a.ts", range: { start: 10, end: 14 } }],
    ["exec_command cat (workdir)", call("exec_command", { cmd: "cat src/a.ts", workdir: "/r" }), { path: "/r/src/a.ts" }],
    ["exec_command sed -n", call("exec_command", { cmd: "sed -n '1,240p' /r/a.ts" }), { path: "/r/a.ts", range: { start: 1, end: 240 } }],
    ["nl -ba | sed -n", call("exec_command", { cmd: "nl -ba /r/a.ts | sed -n '20,40p'" }), { path: "/r/a.ts", range: { start: 20, end: 40 } }],
    ["cd && head -n", call("exec_command", { cmd: "cd /r && head -n 30 a.ts" }), { path: "/r/a.ts", range: { start: 1, end: 30 } }],
    ["shell argv", call("shell", { command: ["bash", "-lc", "cat /r/a.ts"] }), { path: "/r/a.ts" }],
    ["shell_command", call("shell_command", { command: "cat /r/a.ts" }), { path: "/r/a.ts" }],
    ["local_shell_call", call("local_shell_call", { action: { command: ["cat", "/r/a.ts"] } }), { path: "/r/a.ts" }],
    ["code mode exec", call("exec", 'const r = await tools.exec_command({"cmd":"cat /r/a.ts"});\ntext(r.output);'), { path: "/r/a.ts" }],
  ])("%s", (_name, c, read) => {
    expect(describeCall(c).read).toEqual(read);
  });

  test.each([
    ["two files", "cat a.ts b.ts"],
    ["a read and more", "cat a.ts && rm a.ts"],
    ["a grep", "grep -n foo a.ts"],
    ["several code-mode calls", 'await tools.exec_command({"cmd":"cat a"}); await tools.exec_command({"cmd":"cat b"});'],
  ])("not a single-file read: %s", (_name, cmd) => {
    expect(describeCall(cmd.includes("tools.") ? call("exec", cmd) : call("Bash", { command: cmd })).read).toBeUndefined();
  });
});

describe("what a call may write", () => {
  test.each([
    ["Edit", call("Edit", { file_path: "/r/a.ts" }), ["/r/a.ts"]],
    ["MultiEdit", call("MultiEdit", { file_path: "/r/a.ts", edits: [] }), ["/r/a.ts"]],
    ["NotebookEdit", call("NotebookEdit", { notebook_path: "/r/n.ipynb" }), ["/r/n.ipynb"]],
    [
      "apply_patch",
      call("apply_patch", {
        input: "*** Begin Patch\n*** Update File: /r/a.ts\n*** Move to: /r/b.ts\n*** Add File: /r/c.ts\n*** Delete File: /r/d.ts\n*** End Patch",
      }),
      ["/r/a.ts", "/r/b.ts", "/r/c.ts", "/r/d.ts"],
    ],
  ])("%s", (_name, c, writes) => {
    expect(describeCall(c)).toMatchObject({ writes, mutating: true });
  });

  test.each([
    ["sed -i", "sed -i 's/a/b/' /r/a.ts", ["/r/a.ts"]],
    ["redirect", "echo x > /r/a.ts", ["/r/a.ts"]],
    ["append", "cd /r && echo x >> a.ts", ["/r/a.ts"]],
    ["mv", "mv /r/a.ts /r/b.ts", ["/r/a.ts", "/r/b.ts"]],
    ["rm", "rm -f /r/a.ts", ["/r/a.ts"]],
    ["tee", "echo x | tee /r/a.ts", ["/r/a.ts"]],
    ["git checkout", "git checkout -- src/a.ts", [ANY_FILE]],
    ["a formatter", "npx prettier --write .", [ANY_FILE]],
    ["stderr to /dev/null is no write", "ls 2>/dev/null", []],
    ["a read-only command", "wc -l /r/a.ts", []],
  ])("shell: %s", (_name, cmd, writes) => {
    expect(shellWrites(cmd)).toEqual(writes);
  });

  test("a read is not a write", () => {
    expect(shellRead("cat /r/a.ts")).toEqual({ path: "/r/a.ts" });
    expect(describeCall(call("Bash", { command: "cat /r/a.ts" })).writes).toEqual([]);
  });
});

describe("re-runnable commands and results", () => {
  test.each([
    ["ls -la", "listing"],
    ["pwd", "listing"],
    ["cd /r && git status --short", "git"],
    ["git log --oneline -20 | head", "git"],
    ["git diff --stat HEAD~1", "git"],
    ["git branch", "git"],
    ["npm test", "test"],
    ["CI=1 bun test test/x.test.ts 2>&1 | tail -20", "test"],
    ["python -m pytest -q", "test"],
    ["cargo test --all", "test"],
    ["go test ./...", "test"],
    ["git diff", undefined],
    ["git branch -D x", undefined],
    ["ls > out.txt", undefined],
    ["./run.sh", undefined],
  ])("%s", (cmd, kind) => {
    expect(rerunnableKind(cmd)).toBe(kind as never);
  });
});

describe("what a call replaces whole (rewrites)", () => {
  const call = (name: string, input: unknown) => ({ id: "c", name, input, inputText: typeof input === "string" ? input : JSON.stringify(input) });
  test.each([
    ["Write", { file_path: "/repo/a.ts", content: "x" }, ["/repo/a.ts"]],
    ["Edit", { file_path: "/repo/a.ts", old_string: "a", new_string: "b" }, []],
    [
      "apply_patch",
      "*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** Update File: src/old.ts\n@@\n-a\n+b\n*** Delete File: src/gone.ts\n*** End Patch",
      ["src/new.ts", "src/gone.ts"],
    ],
    ["Bash", { command: "cat > /repo/a.ts <<'EOF'\nx\nEOF" }, ["/repo/a.ts"]],
    ["Bash", { command: "echo x >> /repo/a.ts" }, []],
    ["exec_command", { cmd: "printf 'x' > out.txt", workdir: "/repo" }, ["/repo/out.txt"]],
    ["Bash", { command: "ls > /dev/null" }, []],
  ])("%s %j", (name, input, expected) => {
    expect(describeCall(call(name, input)).rewrites ?? []).toEqual(expected);
  });
});

describe("Codex code mode: a script that calls the tools", () => {
  const exec = (code: string): ToolCall => ({ id: "c", name: "exec", input: code, inputText: code });

  test.each([
    ["JSON arguments", 'const r = await tools.exec_command({"cmd":"cat a.ts","workdir":"/r"});'],
    ["bare keys", 'const r = await tools.exec_command({cmd:"cat a.ts", workdir:"/r"});\ntext(r.output);'],
    ["bare keys over lines, a trailing comma", "const r = await tools.exec_command({\n  cmd: 'cat a.ts',\n  workdir: `/r`,\n});"],
    ["other constants beside them", 'await tools.exec_command({cmd:"cat a.ts", workdir:"/r", yield_time_ms:1e4, tty:false, env:{A:[1,null]}})'],
    ["a comment inside", 'await tools.exec_command({ /* the file */ cmd: "cat a.ts", // read\n workdir: "/r" })'],
  ])("%s: the command and its folder", (_name, code) => {
    expect(describeCall(exec(code))).toMatchObject({ command: "cat a.ts", read: { path: "/r/a.ts" } });
  });

  test("a command holding `})` and escapes is read whole", () => {
    const code = String.raw`await tools.exec_command({cmd:"awk '{print $1}' a.txt | sed -n '1,5p' # \x41\u0042\u{43}\
"})`;
    expect(describeCall(exec(code)).command).toBe("awk '{print $1}' a.txt | sed -n '1,5p' # ABC");
  });

  test.each([
    ["a command computed at run time", "const c = 'cat a.ts'; await tools.exec_command({cmd: c})"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the script's own template literal
    ["a template with a substitution", "await tools.exec_command({cmd: `cat ${f}`})"],
    ["a string left open", 'await tools.exec_command({cmd:"cat a.ts'],
    ["several calls", 'await Promise.all([tools.exec_command({cmd:"cat a"}), tools.exec_command({cmd:"cat b"})])'],
    ["another tool", 'await tools.write_stdin({session_id: 3, chars: ""})'],
  ])("no command: %s", (_name, code) => {
    expect(describeCall(exec(code)).command).toBeUndefined();
  });

  test("apply_patch from a script changes the files its patch names", () => {
    const patch = "*** Begin Patch\n*** Update File: /r/a.ts\n@@\n-x\n+y\n*** Add File: /r/b.ts\n+z\n*** End Patch";
    const code = `const patch = ${JSON.stringify(patch)};\nconst r = await tools.apply_patch(patch);\ntext(r);`;
    expect(describeCall(exec(code))).toMatchObject({ mutating: true, writes: ["/r/a.ts", "/r/b.ts"], rewrites: ["/r/b.ts"] });
  });

  test("a script that searches the web and patches a file: unrepeatable, and it changes the file", () => {
    const patch = "*** Begin Patch\n*** Update File: /r/a.ts\n@@\n-x\n+y\n*** End Patch";
    const code = `const found = await tools.web__run({search_query: [{q: "x"}]});\nawait tools.apply_patch(${JSON.stringify(patch)});`;
    expect(describeCall(exec(code))).toMatchObject({ mutating: true, unrepeatable: true, writes: ["/r/a.ts"] });
  });

  test("apply_patch of a patch built at run time may change any file", () => {
    const m = describeCall(exec("const r = await tools.apply_patch(makePatch());"));
    expect(m).toMatchObject({ mutating: true, writes: [ANY_FILE] });
    expect(m.command).toBeUndefined();
  });
});
