// Hook rows <-> session model: one message per row, and back in the shape Claude Code takes
// without the resume defect: handles only on unchanged plain prompt rows, and on the unchanged
// assistant rows of a tool loop still open (their records hold the thinking the API wants back).
import { describe, expect, test } from "bun:test";
import type { Message } from "../../../src/engine/types.ts";
import {
  blocksNote,
  blocksNoted,
  keptCallIds,
  openLoopStart,
  orphans,
  resultBlocks,
  rowsToSession,
  sessionToRows,
  validateRows,
  type SessionRow,
} from "../../../src/hosts/claude/rows.ts";
import { readRows, turnRows } from "../../e2e/support/claude-fixtures.ts";
import { claudeMessagesProblems, claudeResultProblems, pairingProblems } from "../../e2e/support/claude-validate.ts";

describe("rowsToSession", () => {
  test("one message per row, in order, with the row index as source.record", () => {
    const rows = readRows(["a.txt", "b.txt"]);
    const s = rowsToSession(rows, "sess-1");
    expect(s.host).toBe("claude");
    expect(s.id).toBe("sess-1");
    expect(s.messages.length).toBe(rows.length);
    expect(s.messages.map((m) => m.source)).toEqual(rows.map((_, record) => ({ host: "claude", record })));
    expect(s.messages.map((m) => `${m.role}:${m.kind}`)).toEqual([
      "user:prompt",
      "assistant:reply",
      "assistant:reply",
      "user:tool",
      "assistant:reply",
      "assistant:reply",
      "user:tool",
      "assistant:reply",
    ]);
    expect(s.messages[2]!.toolCalls).toEqual([
      { id: "toolu_0001", name: "Read", input: { file_path: "/project/a.txt" }, inputText: '{"file_path":"/project/a.txt"}' },
    ]);
    expect(s.messages[3]!.toolResults).toEqual([{ callId: "toolu_0001", text: "1\tcontent of a.txt\n", isError: false, images: 0 }]);
    expect(s.messages.map((m) => m.text)).toEqual(rows.map((r) => r.text));
  });

  test("an error result keeps its flag; a row without toolResults has none", () => {
    const rows: SessionRow[] = [
      { role: "user", text: "run it", toolUses: [] },
      { role: "assistant", text: "", toolUses: [{ tool_use_id: "t1", tool: "Bash", input: { command: "false" } }] },
      { role: "user", text: "", toolUses: [], toolResults: [{ tool_use_id: "t1", text: "Exit code 1", isError: true }] },
    ];
    const s = rowsToSession(rows, "x");
    expect(s.messages[0]!.toolResults).toEqual([]);
    expect(s.messages[2]!.toolResults[0]!.isError).toBe(true);
  });
});

describe("sessionToRows", () => {
  test("unchanged: prompt rows come back as the same objects, every other row rebuilt without its handle", () => {
    const rows = readRows(["a.txt", "b.txt"]);
    const out = sessionToRows(rows, rowsToSession(rows, "s").messages);
    expect(out.length).toBe(rows.length);
    expect(out[0]).toBe(rows[0]!);
    for (const r of out.slice(1)) expect(r.handle).toBeUndefined();
    // tool uses carry only what a rebuilt assistant message is made of
    expect(out[2]).toEqual({ role: "assistant", text: "", toolUses: [{ tool_use_id: "toolu_0001", tool: "Read", input: { file_path: "/project/a.txt" } }] });
    expect(out[3]).toEqual({
      role: "user",
      text: "",
      toolUses: [],
      toolResults: [{ tool_use_id: "toolu_0001", text: "1\tcontent of a.txt\n", isError: false }],
    });
    expect(out[1]).toEqual({ role: "assistant", text: "Step 1: Read.", toolUses: [] });
  });

  test("a dropped result keeps its tool_use row and its tool_result row, with the note as text", () => {
    const rows = readRows(["a.txt", "b.txt", "a.txt"]);
    const s = rowsToSession(rows, "s");
    const note = "[output removed by better-compaction: 19 chars; re-run the call to see it]";
    // what apply() hands back for a drop: the same message with the result text replaced
    const applied: Message[] = s.messages.map((m, i) => (i === 3 ? { ...m, toolResults: [{ ...m.toolResults[0]!, text: note }] } : m));
    const out = sessionToRows(rows, applied);
    expect(out[2]!.toolUses.map((u) => u.tool_use_id)).toEqual(["toolu_0001"]);
    expect(out[3]!.toolResults).toEqual([{ tool_use_id: "toolu_0001", text: note, isError: false }]);
    expect(out[6]!.toolResults![0]!.text).toBe(rows[6]!.toolResults![0]!.text);
    expect(pairingProblems(out)).toEqual([]);
    expect(claudeResultProblems({ messages: out, tokensBefore: 10, tokensAfter: 5 })).toEqual([]);
  });

  test("prose of every row is byte-identical after the round trip", () => {
    const rows: SessionRow[] = [
      { role: "user", text: "é 🧪 \r\n  trailing  ", toolUses: [], handle: "h1" },
      {
        role: "assistant",
        text: "I'll look.\n\n```ts\nconst x = 1;\n```",
        toolUses: [{ tool_use_id: "t1", tool: "Grep", input: { pattern: "x\\d+" } }],
        handle: "h2",
      },
      { role: "user", text: "also this", toolUses: [], toolResults: [{ tool_use_id: "t1", text: "a.ts:1:x1", isError: false }], handle: "h3" },
    ];
    const out = sessionToRows(rows, rowsToSession(rows, "s").messages);
    expect(out.map((r) => r.text)).toEqual(rows.map((r) => r.text));
    expect(out[1]!.toolUses[0]!.input).toBe(rows[1]!.toolUses[0]!.input);
    expect(out[2]!.handle).toBeUndefined();
  });

  test("two calls sharing an id in one row come back each with its own input", () => {
    const rows: SessionRow[] = [
      { role: "user", text: "go", toolUses: [] },
      {
        role: "assistant",
        text: "",
        toolUses: [
          { tool_use_id: "dup", tool: "Read", input: { file_path: "/a" } },
          { tool_use_id: "dup", tool: "Bash", input: { command: "ls" } },
        ],
      },
    ];
    const back = sessionToRows(rows, rowsToSession(rows, "s").messages);
    expect(back[1]!.toolUses).toEqual(rows[1]!.toolUses);
  });

  test("a message without a claude source is rebuilt from itself", () => {
    const m: Message = {
      role: "assistant",
      kind: "reply",
      text: "hi",
      toolCalls: [{ id: "t9", name: "Bash", input: { command: "ls" }, inputText: "" }],
      toolResults: [],
    };
    expect(sessionToRows([], [m])).toEqual([{ role: "assistant", text: "hi", toolUses: [{ tool_use_id: "t9", tool: "Bash", input: { command: "ls" } }] }]);
  });
});

describe("images a rebuilt row cannot carry", () => {
  const png = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };
  // a Read of an image, and an MCP screenshot with a caption, as Claude Code hands them in
  const imageRows = (): SessionRow[] => [
    { role: "user", text: "look at these", toolUses: [] },
    {
      role: "assistant",
      text: "",
      toolUses: [
        { tool_use_id: "r1", tool: "Read", input: { file_path: "/p/shot.png" } },
        { tool_use_id: "m1", tool: "mcp__browser__screenshot", input: { url: "http://localhost:3000" } },
        { tool_use_id: "b1", tool: "Bash", input: { command: "ls" } },
      ],
    },
    {
      role: "user",
      text: "",
      toolUses: [],
      toolResults: [
        { tool_use_id: "r1", text: "", isError: false, result: { type: "image", file: { base64: "iVBORw0KGgo=", type: "image/png", originalSize: 9 } } },
        {
          tool_use_id: "m1",
          text: "Screenshot of http://localhost:3000",
          isError: false,
          result: [{ type: "text", text: "Screenshot of http://localhost:3000" }, png, png],
        },
        { tool_use_id: "b1", text: "a.txt\nb.txt", isError: false, result: { stdout: "a.txt\nb.txt", stderr: "", interrupted: false } },
      ],
    },
  ];

  test("counted from the row's result: a Read of an image or a PDF, PDF pages, a notebook's pictures, an MCP result's blocks that are not text", () => {
    const img = (images: number, documents = 0) => ({ images, documents });
    expect(resultBlocks({ type: "image", file: { base64: "x" } })).toEqual(img(1));
    expect(resultBlocks({ type: "pdf", file: { base64: "x" } })).toEqual(img(0, 1));
    // PDF pages sent as pictures (a page that could not be is text), and a notebook's image outputs
    expect(resultBlocks({ type: "parts", file: { count: 3 }, pages: [{ base64: "x", mediaType: "image/jpeg" }, { error: "bad" }, { base64: "y" }] })).toEqual(
      img(2),
    );
    // as Claude Code stores it, without the pages: their count
    expect(resultBlocks({ type: "parts", file: { count: 3, filePath: "/p/a.pdf" } })).toEqual(img(3));
    expect(resultBlocks({ type: "parts", file: { count: "3" } })).toEqual(img(0));
    const cell = (outputs: unknown[]) => ({ cellType: "code", source: "plot()", outputs });
    expect(
      resultBlocks({ type: "notebook", file: { cells: [cell([{ text: "1" }, { image: { image_data: "x", media_type: "image/png" } }]), cell([])] } }),
    ).toEqual(img(1));
    expect(resultBlocks({ type: "notebook", file: { cells: "not cells" } })).toEqual(img(0));
    // an MCP result: its pictures and documents (Claude Code turns a resource into text); a ToolSearch's names are neither
    const pdfBlock = { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" } };
    expect(resultBlocks([{ type: "text", text: "a" }, png, png, pdfBlock, { type: "resource", resource: { uri: "file:///a.pdf" } }])).toEqual(img(2, 1));
    expect(
      resultBlocks([
        { type: "text", text: "a" },
        { type: "tool_reference", tool_name: "Grep" },
      ]),
    ).toEqual(img(0));
    expect(resultBlocks({ type: "text", file: { content: "a" } })).toEqual(img(0));
    for (const none of [undefined, null, "text", 3, [null, "x"]]) expect(resultBlocks(none)).toEqual(img(0));
    expect(rowsToSession(imageRows(), "s").messages[2]!.toolResults.map((r) => r.images)).toEqual([1, 2, 0]);
  });

  test("a result kept whole says so after its text; a result without images is as it was", () => {
    const rows = imageRows();
    const messages = rowsToSession(rows, "s").messages;
    const out = sessionToRows(rows, messages);
    expect(out[2]!.toolResults!.map((r) => r.text)).toEqual([
      blocksNote({ images: 1, documents: 0 }, "r1"),
      `Screenshot of http://localhost:3000\n${blocksNote({ images: 2, documents: 0 }, "m1")}`,
      "a.txt\nb.txt",
    ]);
    expect(blocksNoted(messages, messages)).toBe(2);
    expect(blocksNote({ images: 1, documents: 0 }, "r1")).toBe("[bc: an image of this result did not carry over the compaction; bc recall r1 gives it back]");
    expect(blocksNote({ images: 2, documents: 0 }, "m1")).toBe("[bc: 2 images of this result did not carry over the compaction; bc recall m1 gives them back]");
    // recall gives a PDF back too (the recall tool as a file Claude Code saves, the command with --images)
    expect(blocksNote({ images: 0, documents: 1 }, "p1")).toBe("[bc: a document of this result did not carry over the compaction; bc recall p1 gives it back]");
    expect(blocksNote({ images: 1, documents: 2 }, "p1")).toBe(
      "[bc: an image and 2 documents of this result did not carry over the compaction; bc recall p1 gives them back]",
    );
    // an id a command line cannot hold as it is: no recall to name
    expect(blocksNote({ images: 1, documents: 0 }, "a b]")).toBe(
      "[bc: an image of this result did not carry over the compaction; to see it, make the call again]",
    );
    // a later pass gets the rebuilt rows (no result): the note is text like any other, and is not added again
    expect(sessionToRows(out, rowsToSession(out, "s").messages)).toEqual(out);
    const again = rowsToSession(out, "s").messages;
    expect(blocksNoted(again, again)).toBe(0);
  });

  test("a result bc cut carries its own note alone (recall lists the images)", () => {
    const rows = imageRows();
    const s = rowsToSession(rows, "s");
    const note = "[bc removed 35 chars; bc recall m1 prints it]";
    const applied: Message[] = s.messages.map((m, i) =>
      i === 2 ? { ...m, toolResults: m.toolResults.map((r) => (r.callId === "m1" ? { ...r, text: note } : r)) } : m,
    );
    expect(sessionToRows(rows, applied)[2]!.toolResults![1]!.text).toBe(note);
  });
});

describe("a tool loop still open keeps its assistant rows as Claude Code handed them in", () => {
  const reads = (files: readonly string[]) => files.map((f) => ({ tool: "Read", input: { file_path: `/project/${f}` }, text: `1\tcontent of ${f}\n` }));
  /** a finished turn, then a turn whose third call's result is the last row: an automatic compaction mid-turn, thinking on */
  const midTurn = (): SessionRow[] => [
    ...turnRows("READFILES a.txt b.txt", reads(["a.txt", "b.txt"]), 1, { thinking: true }),
    ...turnRows("READFILES c.txt d.txt c.txt", reads(["c.txt", "d.txt", "c.txt"]), 3, { thinking: true, end: "open" }),
  ];
  const roles = (rows: readonly SessionRow[]): string[] =>
    rows.map(
      (r) => `${r.role === "user" ? (r.toolResults?.length ? "result" : "prompt") : r.toolUses.length > 0 ? "call" : r.text === "" ? "thinking" : "text"}`,
    );

  test("where the open loop starts: after the last prompt, when the rows end with results; nowhere otherwise", () => {
    const rows = midTurn();
    expect(roles(rows.slice(openLoopStart(rows) - 1))).toEqual([
      "prompt",
      ...["thinking", "text", "call", "result"],
      ...["thinking", "text", "call", "result"],
      ...["thinking", "text", "call", "result"],
    ]);
    expect(keptCallIds(rows)).toEqual(new Set(["toolu_0003", "toolu_0004", "toolu_0005"]));
    const answered = turnRows("READFILES a.txt", reads(["a.txt"]), 1, { thinking: true });
    const prompted = [...answered, { role: "user" as const, text: "and now?", toolUses: [], handle: "h-prompt" }];
    for (const closed of [answered, prompted, []]) {
      expect(openLoopStart(closed)).toBe(closed.length);
      expect(keptCallIds(closed)).toEqual(new Set());
    }
    // no prompt among the rows: the loop is all of them
    const headless = midTurn().slice(openLoopStart(midTurn()));
    expect(openLoopStart(headless)).toBe(0);
  });

  test("unchanged: the loop's thinking, text and tool_use rows come back as the same objects, handles included; every earlier assistant row and every tool_result row is rebuilt without its handle", () => {
    const rows = midTurn();
    const out = sessionToRows(rows, rowsToSession(rows, "s").messages);
    const loop = openLoopStart(rows);
    rows.forEach((row, i) => {
      const kept = (row.role === "user" && !row.toolResults?.length) || (row.role === "assistant" && i >= loop);
      if (kept) expect(out[i]).toBe(row);
      else expect(out[i]!.handle).toBeUndefined();
    });
    expect(out.filter((r) => r.handle !== undefined).length).toBe(2 + 9);
    expect(claudeResultProblems({ messages: out, tokensBefore: 10, tokensAfter: 10 })).toEqual([]);
    expect(pairingProblems(out)).toEqual([]);
  });

  test("a result dropped inside the loop: its tool_result row carries the note, rebuilt; the loop's assistant rows, its call's included, are still as handed in", () => {
    const rows = midTurn();
    const s = rowsToSession(rows, "s");
    const first = rows.findIndex((r) => r.toolResults?.[0]?.tool_use_id === "toolu_0003");
    const note = "[bc removed 19 chars; bc recall toolu_0003 prints it]";
    const applied: Message[] = s.messages.map((m, i) => (i === first ? { ...m, toolResults: [{ ...m.toolResults[0]!, text: note }] } : m));
    const out = sessionToRows(rows, applied);
    expect(out[first]).toEqual({ role: "user", text: "", toolUses: [], toolResults: [{ tool_use_id: "toolu_0003", text: note, isError: false }] });
    const call = rows.findIndex((r) => r.toolUses[0]?.tool_use_id === "toolu_0003");
    expect(out[call]).toBe(rows[call]!);
    for (let i = openLoopStart(rows); i < rows.length; i++) if (rows[i]!.role === "assistant") expect(out[i]).toBe(rows[i]!);
  });

  test("an assistant row of the loop bc changed, or one without a handle, is rebuilt (no handle, no thinking) like any other", () => {
    const rows = midTurn();
    const loop = openLoopStart(rows);
    const text = rows.findIndex((r, i) => i >= loop && r.role === "assistant" && r.text !== "");
    const s = rowsToSession(rows, "s");
    const changed: Message[] = s.messages.map((m, i) => (i === text ? { ...m, text: `${m.text} (changed)` } : m));
    const out = sessionToRows(rows, changed);
    expect(out[text]).toEqual({ role: "assistant", text: `${rows[text]!.text} (changed)`, toolUses: [] });
    const call = rows.findIndex((r, i) => i >= loop && r.toolUses.length > 0);
    const calls: Message[] = s.messages.map((m, i) => (i === call ? { ...m, toolCalls: [{ ...m.toolCalls[0]!, name: "Bash" }] } : m));
    expect(sessionToRows(rows, calls)[call]!.handle).toBeUndefined();
    const { handle: _, ...bare } = rows[text]!;
    const unhandled = rows.map((r, i) => (i === text ? bare : r));
    expect(sessionToRows(unhandled, rowsToSession(unhandled, "s").messages)[text]).toEqual({ role: "assistant", text: bare.text, toolUses: [] });
  });

  test("a finished turn (a manual or loop compaction between turns) keeps no assistant handle", () => {
    const rows = turnRows("READFILES a.txt b.txt", reads(["a.txt", "b.txt"]), 1, { thinking: true });
    const out = sessionToRows(rows, rowsToSession(rows, "s").messages);
    expect(out.filter((r) => r.handle !== undefined)).toEqual([rows[0]!]);
  });
});

describe("the runtime guards agree with the independent 7.5 mirror", () => {
  const cases: [string, unknown][] = [
    ["not a list", { a: 1 }],
    ["empty", []],
    ["not an object", [1]],
    ["bad role", [{ role: "system", text: "", toolUses: [] }]],
    ["no text", [{ role: "user", toolUses: [] }]],
    ["bad handle", [{ role: "user", text: "", toolUses: [], handle: 3 }]],
    ["bad toolUses", [{ role: "assistant", text: "", toolUses: [{ tool: "Read", input: {} }] }]],
    ["toolUses not a list", [{ role: "assistant", text: "", toolUses: "x" }]],
    ["bad toolResults", [{ role: "user", text: "", toolUses: [], toolResults: [{ tool_use_id: "t", text: 5, isError: false }] }]],
    ["valid", [{ role: "user", text: "", toolUses: [] }]],
  ];
  test.each(cases)("%s", (_, messages) => {
    expect(validateRows(messages)).toEqual(claudeMessagesProblems(messages));
  });

  test("orphans names unpaired ids both ways", () => {
    const rows: SessionRow[] = [
      { role: "assistant", text: "", toolUses: [{ tool_use_id: "a", tool: "Read", input: {} }] },
      { role: "user", text: "", toolUses: [], toolResults: [{ tool_use_id: "b", text: "", isError: false }] },
    ];
    expect(orphans(rows)).toEqual(["tool_use a has no result", "tool_result b has no tool_use"]);
    expect(orphans(readRows(["a.txt"]))).toEqual([]);
  });

  test("a row without toolUses (which validateRows accepts) has no calls, for orphans too", () => {
    const rows = [
      { role: "user", text: "hi" },
      { role: "assistant", text: "hello" },
    ] as unknown as SessionRow[];
    expect(validateRows(rows)).toEqual([]);
    expect(orphans(rows)).toEqual([]);
  });

  test("an open loop's assistant row without toolUses (a thinking row) is kept with its handle; its calls are none", () => {
    const rows = [
      { role: "user", text: "go", handle: "h-prompt" },
      { role: "assistant", text: "", handle: "h-thinking" },
      { role: "assistant", text: "", toolUses: [{ tool_use_id: "a", tool: "Read", input: {} }], handle: "h-call" },
      { role: "user", text: "", toolResults: [{ tool_use_id: "a", text: "1\tx", isError: false }], handle: "h-result" },
    ] as unknown as SessionRow[];
    expect(validateRows(rows)).toEqual([]);
    expect(keptCallIds(rows)).toEqual(new Set(["a"]));
    const out = sessionToRows(rows, rowsToSession(rows, "s").messages);
    expect(out.slice(0, 3)).toEqual(rows.slice(0, 3));
    out.slice(0, 3).forEach((r, i) => expect(r).toBe(rows[i]!));
    expect(out[3]!.handle).toBeUndefined();
  });
});
