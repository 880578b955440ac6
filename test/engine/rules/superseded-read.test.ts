import { describe, expect, test } from "bun:test";
import { BEYOND_RECENT, SessionBuilder, fileLines, numbered } from "../support/build.ts";
import { decisionFor, verdictFor } from "../support/decide.ts";
import { bodyLines } from "../../../src/engine/rules/superseded-read.ts";

const PATH = "/repo/src/widget.ts";
const LINES = fileLines("widget", 60);
const WHOLE = numbered(LINES);
const RANGE_10_19 = numbered(LINES.slice(9, 19), 10);
const CHANGED = numbered([...LINES.slice(0, 30), "const widgetValue30 = somethingElse();", ...LINES.slice(31)]);
/** the same lines, two lines inserted at the top: every line number moved */
const SHIFTED = numbered(["// header one", "// header two", ...LINES]);

type Step = (b: SessionBuilder) => void;
const read =
  (result: string, extra: Record<string, unknown> = {}): Step =>
  (b) =>
    void b.read(PATH, result, extra);

/** first read (the one under test), the steps between, then the steps after */
const scenario = (first: Step, between: Step[], later: Step[]) => {
  const b = new SessionBuilder().user("look at the widget");
  first(b);
  const id = `call_1`;
  for (const s of between) s(b);
  for (const s of later) s(b);
  b.assistant("I have read the widget."); // mentions nothing distinctive
  b.filler(BEYOND_RECENT);
  return { session: b.session(), id };
};

test("the lines a read is compared by: non-empty, trailing blanks gone, Claude Code's line-number prefix gone, nothing else", () => {
  expect(bodyLines("     1→const a = 1;  \n     2→\n\n  indented\t\n12→x→y\nno number→ here\n 3 →spaced\n→lead\n")).toEqual([
    "const a = 1;",
    "  indented",
    "x→y",
    "no number→ here",
    " 3 →spaced",
    "→lead",
  ]);
  expect(bodyLines("")).toEqual([]);
});

describe("superseded-read", () => {
  test.each<[string, Step, Step[], string]>([
    ["re-read, unchanged", read(WHOLE), [read(WHOLE)], "drop superseded-read"],
    ["a ranged read, then a whole read containing it", read(RANGE_10_19, { offset: 10, limit: 10 }), [read(WHOLE)], "drop superseded-read"],
    [
      "a ranged read, then a wider ranged read",
      read(RANGE_10_19, { offset: 10, limit: 10 }),
      [read(numbered(LINES.slice(4, 30), 5), { offset: 5, limit: 26 })],
      "drop superseded-read",
    ],
    // a ranged later read cannot contain a whole earlier read: the earlier is judged by the lookup
    ["a whole read, then a ranged read", read(WHOLE), [read(RANGE_10_19, { offset: 10, limit: 10 })], "drop unreferenced"],
    ["re-read after the file changed (no write seen)", read(WHOLE), [read(CHANGED)], "drop unreferenced"],
    // every line shown again, whatever came between (the line pass)
    ["changed, then back to the same text: every line shown again", read(WHOLE), [read(CHANGED), read(WHOLE)], "drop superseded-read"],
    [
      "a whole read, then two ranged reads that together show every line",
      read(WHOLE),
      [read(numbered(LINES.slice(0, 30)), { offset: 1, limit: 30 }), read(numbered(LINES.slice(30), 31), { offset: 31, limit: 30 })],
      "drop superseded-read",
    ],
    [
      "a whole read, then ranged reads that leave one line unshown",
      read(WHOLE),
      [read(numbered(LINES.slice(0, 30)), { offset: 1, limit: 30 }), read(numbered(LINES.slice(31), 32), { offset: 32, limit: 29 })],
      "drop unreferenced",
    ],
    ["a re-read after lines were inserted above: every number moved, every line shown", read(WHOLE), [read(SHIFTED)], "drop superseded-read"],
    [
      "a re-read of other lines in between does not stop the search",
      read(WHOLE),
      [read(RANGE_10_19, { offset: 10, limit: 10 }), read(WHOLE)],
      "drop superseded-read",
    ],
    [
      "re-read after an Edit of the file, every line shown again",
      read(WHOLE),
      [(b) => void b.call("Edit", { file_path: PATH, old_string: "a", new_string: "b" }, "ok"), read(WHOLE)],
      "drop superseded-read",
    ],
    [
      "re-read after an Edit that changed one of its lines",
      read(WHOLE),
      [(b) => void b.call("Edit", { file_path: PATH, old_string: "a", new_string: "b" }, "ok"), read(CHANGED)],
      "drop unreferenced",
    ],
    [
      "re-read after a Write of the file (replaced whole)",
      read(WHOLE),
      [(b) => void b.call("Write", { file_path: PATH, content: "x" }, "ok"), read(WHOLE)],
      "drop superseded-read",
    ],
    ["re-read after a shell command that edits the file", read(WHOLE), [(b) => void b.bash(`sed -i 's/a/b/' ${PATH}`, ""), read(CHANGED)], "drop unreferenced"],
    ["re-read after an append to the file", read(WHOLE), [(b) => void b.bash(`echo x >> ${PATH}`, ""), read(CHANGED)], "drop unreferenced"],
    ["re-read after git checkout .", read(WHOLE), [(b) => void b.bash("git checkout .", ""), read(CHANGED)], "drop unreferenced"],
    [
      "re-read after an edit of another file",
      read(WHOLE),
      [(b) => void b.call("Edit", { file_path: "/repo/src/other.ts", old_string: "a", new_string: "b" }, "ok"), read(WHOLE)],
      "drop superseded-read",
    ],
    ["re-read after a read-only shell command naming the file", read(WHOLE), [(b) => void b.bash(`wc -l ${PATH}`, "60"), read(WHOLE)], "drop superseded-read"],
  ])("%s", (_name, first, between, expected) => {
    const { session, id } = scenario(first, between, []);
    expect(verdictFor(session, id)).toBe(expected);
  });

  test("the reason names the later read", () => {
    const { session, id } = scenario(read(WHOLE), [read(WHOLE)], []);
    expect(decisionFor(session, id).reason).toBe("re-read at #4, unchanged");
  });

  test("a write in between stops the text pass; a read whose every line is shown again says so, naming the last read", () => {
    const edit: Step = (b) => void b.call("Edit", { file_path: PATH, old_string: "a", new_string: "b" }, "ok");
    const { session, id } = scenario(read(WHOLE), [edit, read(numbered(LINES.slice(0, 30)), { offset: 1, limit: 30 }), read(SHIFTED)], []);
    expect(decisionFor(session, id)).toMatchObject({
      action: "drop",
      rule: "superseded-read",
      reason: "every line of it shown again by later reads of the file (the last at #8)",
    });
  });

  test("Codex shell reads: sed -n range, then cat of the whole file (relative to workdir)", () => {
    const b = new SessionBuilder("codex").user("look");
    const raw = LINES.join("\n");
    const header = "Chunk ID: 1a2b3c\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 99\nOutput:\n";
    const id = b.call("exec_command", { cmd: "sed -n '10,19p' src/widget.ts", workdir: "/repo" }, header + LINES.slice(9, 19).join("\n"));
    b.call("exec_command", { cmd: `cat ${PATH}`, workdir: "/elsewhere" }, header + raw);
    b.assistant("read it");
    b.filler(BEYOND_RECENT);
    expect(decisionFor(b.session(), id)).toMatchObject({ action: "drop", rule: "superseded-read", reason: "re-read at #4, contained in the later read" });
  });

  test("Codex apply_patch on the file between two reads: superseded only if every line is shown again", () => {
    for (const [later, expected] of [
      [CHANGED, "drop unreferenced"],
      [WHOLE, "drop superseded-read"],
    ] as const) {
      const b = new SessionBuilder("codex").user("look");
      const id = b.call("exec_command", { cmd: `nl -ba ${PATH} | sed -n '1,60p'` }, WHOLE);
      b.call("apply_patch", { input: `*** Begin Patch\n*** Update File: ${PATH}\n@@\n-a\n+b\n*** End Patch` }, "Exit code: 0\nOutput:\nSuccess.");
      b.call("exec_command", { cmd: `nl -ba ${PATH} | sed -n '1,60p'` }, later);
      b.assistant("read it");
      b.filler(BEYOND_RECENT);
      expect(verdictFor(b.session(), id)).toBe(expected);
    }
  });
});

describe("superseded-read: a file later replaced or deleted whole", () => {
  const cases: [string, Step, Step, string][] = [
    [
      "the latest read, then a Write of the file",
      read(WHOLE),
      (b) => void b.call("Write", { file_path: PATH, content: "export const x = 1;\n" }, "File created successfully"),
      "drop superseded-read",
    ],
    [
      "a ranged read, then a Write of the file",
      read(RANGE_10_19, { offset: 10, limit: 10 }),
      (b) => void b.call("Write", { file_path: PATH, content: "x" }, "ok"),
      "drop superseded-read",
    ],
    ["the latest read, then a shell `>` into the file", read(WHOLE), (b) => void b.bash(`cat > ${PATH} <<'EOF'\nexport {};\nEOF`, ""), "drop superseded-read"],
    [
      "the latest read, then an apply_patch deleting the file",
      read(WHOLE),
      (b) => void b.call("apply_patch", `*** Begin Patch\n*** Delete File: ${PATH}\n*** End Patch`, "Done"),
      "drop superseded-read",
    ],
    [
      "the latest read, then an Edit (a partial change): still the latest read",
      read(WHOLE),
      (b) => void b.call("Edit", { file_path: PATH, old_string: "a", new_string: "b" }, "ok"),
      "keep latest-read",
    ],
    ["the latest read, then `>>` (an append): still the latest read", read(WHOLE), (b) => void b.bash(`echo x >> ${PATH}`, ""), "keep latest-read"],
    [
      "the latest read, then a Write of another file",
      read(WHOLE),
      (b) => void b.call("Write", { file_path: "/repo/src/other.ts", content: "x" }, "ok"),
      "keep latest-read",
    ],
  ];
  test.each(cases)("%s: %s", (_name, first, after, expected) => {
    const { session, id } = scenario(first, [after], []);
    expect(verdictFor(session, id)).toBe(expected);
  });

  test("the reason names the call that replaced the file", () => {
    const { session, id } = scenario(read(WHOLE), [(b) => void b.call("Write", { file_path: PATH, content: "x" }, "ok")], []);
    expect(decisionFor(session, id)).toMatchObject({ action: "drop", rule: "superseded-read", reason: "replaced whole by Write at #3" });
  });

  test("a Write before the read does not make it obsolete", () => {
    const { session, id } = scenario(
      (b) => {
        b.call("Write", { file_path: PATH, content: "x" }, "ok");
        read(WHOLE)(b);
      },
      [],
      [],
    );
    expect(verdictFor(session, "call_2")).toBe("keep latest-read");
    void id;
  });
});
