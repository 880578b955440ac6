import { describe, expect, test } from "bun:test";
import { apply } from "../../src/engine/apply.ts";
import { plan } from "../../src/engine/plan.ts";
import { BEYOND_RECENT, SessionBuilder, fileLines, numbered } from "./support/build.ts";
import { RULES_ONLY_NEED, decisionFor, verdictFor } from "./support/decide.ts";
import { checkFixedPoint, checkShownElsewhere } from "./support/laws.ts";

const lines = fileLines("widget", 40);

/** A file read, the assistant using it, then an edit of it: the read's lines in the Edit's input. */
const readThenEdit = (read: string, edited: readonly string[]): { b: SessionBuilder; readId: string } => {
  const b = new SessionBuilder().user("tidy the widget module");
  const readId = b.read("/repo/src/widget.ts", read);
  b.assistant("widgetValue3 and widgetValue7 need a rename.");
  const old = edited.join("\n");
  b.call("Edit", { file_path: "/repo/src/widget.ts", old_string: old, new_string: `${old}\nexport const added = 1;` }, "The file has been updated.");
  b.filler(BEYOND_RECENT);
  return { b, readId };
};

/** The same output printed twice, the later copy too recent to judge (kept whatever it shows). */
const printedTwice = (command: string): { b: SessionBuilder; first: string; again: string } => {
  const b = new SessionBuilder().user("check the deploy targets");
  const probe = lines.join("\n");
  const first = b.bash(command, probe);
  b.assistant("widgetValue3 looks wrong.");
  b.filler(BEYOND_RECENT);
  const again = b.bash(`${command} --again`, probe);
  b.assistant("widgetValue3 is right now.");
  return { b, first, again };
};

const laws = (b: SessionBuilder): string[] => {
  const s = b.session();
  const p = plan(s, { needModels: RULES_ONLY_NEED });
  const out = apply(s, p);
  return [...checkShownElsewhere(s, p, out, "test"), ...checkFixedPoint(s, out, "test", { needModels: RULES_ONLY_NEED })];
};

describe("shown-elsewhere", () => {
  test("a read whose every line a later Edit's input shows is dropped, and says where they are", () => {
    const { b, readId } = readThenEdit(numbered(lines), lines);
    expect(decisionFor(b.session(), readId)).toMatchObject({
      action: "drop",
      rule: "shown-elsewhere",
      reason: "all 40 lines shown word for word in prose or call inputs",
    });
    expect(laws(b)).toEqual([]);
  });

  test("one line shown nowhere else keeps it whole", () => {
    const { b, readId } = readThenEdit(numbered([...lines, "const onlyHere = 42;"]), lines);
    expect(verdictFor(b.session(), readId)).not.toBe("drop shown-elsewhere");
    expect(decisionFor(b.session(), readId).action).toBe("keep");
  });

  test("a line number of four digits is a token of its own: not compared without it", () => {
    const { b, readId } = readThenEdit(numbered(lines, 1000), lines);
    expect(decisionFor(b.session(), readId).action).toBe("keep");
    const { b: b2, readId: id2 } = readThenEdit(numbered(lines, 900), lines);
    expect(verdictFor(b2.session(), id2)).toBe("drop shown-elsewhere");
  });

  test("an input line with a quote does not count (it stands escaped in the call's JSON)", () => {
    const quoted = lines.map((l, i) => (i === 5 ? `const label = "widget label five";` : l));
    const { b, readId } = readThenEdit(numbered(quoted), quoted);
    expect(decisionFor(b.session(), readId).action).toBe("keep");
  });

  test("an output printed twice keeps its latest copy; both in one pass, and a pass over it changes nothing", () => {
    const { b, first, again } = printedTwice("./probe --all");
    const s = b.session();
    expect(verdictFor(s, first)).toBe("drop shown-elsewhere");
    expect(decisionFor(s, first).reason).toBe("all 40 lines shown word for word in other kept results");
    expect(decisionFor(s, again).action).toBe("keep");
    expect(laws(b)).toEqual([]);
  });

  test("a Codex output's header does not count, and a patch's lines count without their mark", () => {
    const b = new SessionBuilder("codex").user("tidy the widget module");
    const header = "Chunk ID: 3b0f31\nWall time: 0.0100 seconds\nProcess exited with code 0\nOriginal token count: 400\nOutput:\n";
    const shown = b.call("exec_command", { cmd: "sed -n 1,40p src/widget.ts" }, `${header}${lines.join("\n")}`);
    b.assistant("widgetValue3 needs a rename.");
    const patch = ["*** Begin Patch", "*** Update File: src/widget.ts", "@@", ...lines.map((l) => ` ${l}`), "+export const added = 1;", "*** End Patch"];
    b.call("apply_patch", patch.join("\n"), "Success. Updated the following files:\nM src/widget.ts");
    b.filler(BEYOND_RECENT);
    expect(verdictFor(b.session(), shown)).toBe("drop shown-elsewhere");
    expect(laws(b)).toEqual([]);
  });

  test("never a pin, an error, a person's answer, or a result a later reply quotes", () => {
    const b = new SessionBuilder().user("check the deploy targets");
    const probe = lines.join("\n");
    const failed = b.bash("./probe --all", probe, { isError: true });
    const answer = b.call("AskUserQuestion", { question: "which targets?" }, probe);
    const quoted = b.bash("./probe --one", probe);
    b.assistant(`It printed:\n${lines[12]}\nwhich is wrong.`);
    b.filler(3);
    b.bash("./probe --all --again", probe);
    b.filler(BEYOND_RECENT);
    const s = b.session();
    for (const id of [failed, answer, quoted]) expect(decisionFor(s, id).action).toBe("keep");
  });

  test("a result with an image beside its text is kept: the image stands nowhere else", () => {
    const { b, first: shot } = printedTwice("./probe --all --screenshot");
    const s = b.session();
    const withImage = (x: typeof s): typeof s => ({
      ...x,
      messages: x.messages.map((m) => ({ ...m, toolResults: m.toolResults.map((r) => (r.callId === shot ? { ...r, images: 1 } : r)) })),
    });
    expect(verdictFor(s, shot)).toBe("drop shown-elsewhere");
    expect(decisionFor(withImage(s), shot).action).toBe("keep");
  });

  test("each line keeps a holder: of three copies, two go", () => {
    const b = new SessionBuilder().user("check the deploy targets");
    const probe = lines.join("\n");
    const ids = [b.bash("./probe a", probe), b.bash("./probe b", probe), b.bash("./probe c", probe)];
    b.assistant("widgetValue3 is fine.");
    b.filler(BEYOND_RECENT);
    const s = b.session();
    expect(ids.map((id) => decisionFor(s, id).action)).toEqual(["drop", "drop", "keep"]);
    expect(laws(b)).toEqual([]);
  });
});
