// The plugin's compaction against Claude Code's contract for session.compact: rows in, rows
// or a skip (or rows handed over to Claude Code's summary) out, every answer checked by an
// independent mirror of Claude Code's validation and of the pairing it would otherwise repair.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  compactRows,
  DEFAULT_PLUGIN_OPTIONS,
  estimateRowsInCount,
  rowsInCount,
  failureSkip,
  warmUp,
  pluginOptions,
  shouldCompactAfterTurn,
  type CompactInput,
  type PluginOptions,
} from "../../../src/hosts/claude/plugin.ts";
import { blocksNote, openLoopStart, rowsToSession, type SessionRow } from "../../../src/hosts/claude/rows.ts";
import { warmUpRows } from "../../../src/hosts/claude/warm-up.ts";
import { estimateSessionTokens } from "../../../src/engine/estimate.ts";
import { formatRecord } from "../../../src/hosts/claude/decision-log.ts";
import { SHIPPED_NEED_MODEL } from "../../../src/engine/need/weights.ts";
import { readRows, turnRows } from "../../e2e/support/claude-fixtures.ts";
import { claudeResultProblems, pairingProblems } from "../../e2e/support/claude-validate.ts";

const REPO = join(import.meta.dir, "..", "..", "..");
const NOTE = /^\[bc removed \d+ chars; bc recall \S+ prints it\]$/;

/** ~1,000 tokens per file, distinct per file; `a.txt` read first and again at the end (superseded). */
const FILES = ["a.txt", ...Array.from({ length: 12 }, (_, i) => `f${i}.txt`), "a.txt"];
const body = (f: string): string => Array.from({ length: 100 }, (_, i) => `${String(i + 1).padStart(3)}\t${f} line ${i} `.padEnd(40, "x")).join("\n");
const rows = (): SessionRow[] => readRows(FILES, body);
/** 16 shell calls of ~1,000 tokens each that nothing refers to again: the recent ones are what escalation may cut. */
const logRows = (): SessionRow[] =>
  turnRows(
    "run the steps",
    Array.from({ length: 16 }, (_, i) => ({ tool: "Bash", input: { command: `./step${i}.sh` }, text: body(`step${i}`) })),
  );
/**
 * A turn whose second answer made three calls in parallel (~6k tokens of output each), its records
 * between their results as Claude Code keeps them: prompt, call 1 and its result, then the answer's
 * thinking and text rows (3 and 4), call 2, its result, call 3, its result, call 4, its result.
 */
const parallelTurn = (): SessionRow[] => {
  const use = (id: string) => ({ tool_use_id: id, tool: "Read", input: { file_path: `/p/${id}` } });
  const res = (id: string, text: string): SessionRow => ({ role: "user", text: "", toolUses: [], toolResults: [{ tool_use_id: id, text, isError: false }] });
  const big = (id: string) => body(id).repeat(6);
  return [
    { role: "user", text: "read them all", toolUses: [] },
    { role: "assistant", text: "", toolUses: [use("toolu_0001")] },
    res("toolu_0001", "small\n"),
    { role: "assistant", text: "", toolUses: [] },
    { role: "assistant", text: "Reading three.", toolUses: [] },
    { role: "assistant", text: "", toolUses: [use("toolu_0002")] },
    res("toolu_0002", big("p2")),
    { role: "assistant", text: "", toolUses: [use("toolu_0003")] },
    res("toolu_0003", big("p3")),
    { role: "assistant", text: "", toolUses: [use("toolu_0004")] },
    res("toolu_0004", big("p4")),
  ];
};

/** bc's estimate of the rows Claude Code's count holds */
const inCount = (rows: readonly SessionRow[]): number => estimateRowsInCount(rowsToSession(rows, "s"), rows);

/** a budget high enough that only the freed share decides */
const ROOMY: PluginOptions = { ...DEFAULT_PLUGIN_OPTIONS, compactAtPercent: 95 };

let clock = 1_764_460_800_000;
const input = (over: Partial<CompactInput> & { window?: number }): CompactInput => ({
  trigger: "manual",
  sessionId: "s-1",
  rows: rows(),
  usage: over.window === undefined ? undefined : { window: over.window, tokens: Math.round(over.window / 2), percent: 50 },
  options: DEFAULT_PLUGIN_OPTIONS,
  now: () => (clock += 3),
  ...over,
});

/** Everything the contract promises about a list the plugin hands Claude Code. */
const expectSound = (inRows: readonly SessionRow[], out: readonly SessionRow[]): void => {
  expect(claudeResultProblems({ messages: out })).toEqual([]);
  expect(pairingProblems(out)).toEqual([]);
  expect(out.length).toBe(inRows.length);
  out.forEach((r, i) => {
    const orig = inRows[i]!;
    expect(r.role).toBe(orig.role);
    expect(r.text).toBe(orig.text); // prose byte-identical
    expect(r.toolUses.map((u) => [u.tool_use_id, u.tool, u.input])).toEqual(orig.toolUses.map((u) => [u.tool_use_id, u.tool, u.input]));
    // handles: prompt rows and the open tool loop's assistant rows as handed in; no other row keeps one
    const isPrompt = orig.role === "user" && (orig.toolResults?.length ?? 0) === 0;
    const inLoop = orig.role === "assistant" && orig.handle !== undefined && i >= openLoopStart(inRows);
    if (isPrompt || inLoop) expect(r).toBe(orig);
    else expect(r.handle).toBeUndefined();
    (r.toolResults ?? []).forEach((t, j) => {
      const o = orig.toolResults![j]!;
      expect(t.tool_use_id).toBe(o.tool_use_id);
      expect(t.isError).toBe(o.isError);
      // kept byte for byte, or a removal note, or a head kept byte for byte
      if (t.text !== o.text)
        expect(NOTE.test(t.text) || o.text.startsWith(t.text.slice(0, t.text.indexOf("\n[output") === -1 ? 0 : t.text.indexOf("\n[output")))).toBe(true);
    });
  });
};

describe("compactRows", () => {
  test("precompute: skip, with a reason Claude Code accepts", () => {
    const { answer, record } = compactRows(input({ trigger: "precompute", window: 10_000 }));
    expect("skip" in answer).toBe(true);
    expect(claudeResultProblems(answer, { trigger: "precompute" })).toEqual([]);
    expect(record.outcome).toBe("skipped");
  });

  test("manual: the superseded read is dropped, everything else kept verbatim", () => {
    const inRows = rows();
    const { answer, record } = compactRows(input({ rows: inRows, window: 1_000_000 }));
    if (!("messages" in answer)) throw new Error(`expected messages, got ${JSON.stringify(answer)}`);
    expect(claudeResultProblems(answer)).toEqual([]);
    expectSound(inRows, answer.messages);
    const firstRead = answer.messages[3]!.toolResults![0]!;
    expect(firstRead.tool_use_id).toBe("toolu_0001");
    expect(firstRead.text).toMatch(NOTE);
    expect(answer.tokensAfter).toBeLessThan(answer.tokensBefore);
    expect(record).toMatchObject({
      v: 1,
      trigger: "manual",
      outcome: "compacted",
      sessionId: "s-1",
      rowsIn: inRows.length,
      rowsOut: inRows.length,
      window: 1_000_000,
      escalated: false,
    });
    expect(record.results.length).toBe(FILES.length);
    expect(record.results.find((r) => r.callId === "toolu_0001")).toMatchObject({ tool: "Read", action: "drop", rule: "superseded-read" });
    expect(record.ms).toBeGreaterThanOrEqual(0);
    expect(record.at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  test("a second pass over the first's output changes nothing and keeps the note byte-identical", () => {
    const first = compactRows(input({ window: 1_000_000 })).answer;
    if (!("messages" in first)) throw new Error("expected messages");
    const second = compactRows(input({ rows: first.messages, window: 1_000_000 })).answer;
    // nothing more to remove: a manual pass that frees nothing says so
    expect(second).toEqual({ skip: expect.stringContaining("nothing to remove") });
  });

  test("an image-only read kept whole comes back saying its image did not carry over; a second pass adds nothing", () => {
    const inRows = rows();
    // the last prompt asks for a picture, read after the files
    const shot: SessionRow[] = [
      { role: "assistant", text: "", toolUses: [{ tool_use_id: "img1", tool: "Read", input: { file_path: "/p/ui.png" } }] },
      {
        role: "user",
        text: "",
        toolUses: [],
        toolResults: [{ tool_use_id: "img1", text: "", isError: false, result: { type: "image", file: { base64: "iVBORw0KGgo=" } } }],
      },
      { role: "assistant", text: "The button is blue.", toolUses: [] },
    ];
    const { answer: first, record } = compactRows(input({ rows: [...inRows, ...shot], window: 1_000_000 }));
    if (!("messages" in first)) throw new Error(`expected messages, got ${JSON.stringify(first)}`);
    // the log says so too
    expect(record.blocksNoted).toBe(1);
    expect(formatRecord(record)).toContain("\n  1 result kept whole holds images or documents that did not carry over: each says so after its text");
    const image = first.messages.flatMap((r) => r.toolResults ?? []).find((t) => t.tool_use_id === "img1");
    expect(image?.text).toBe(blocksNote({ images: 1, documents: 0 }, "img1"));
    expect(pairingProblems(first.messages)).toEqual([]);
    const again = compactRows(input({ rows: first.messages, window: 1_000_000 }));
    expect(again.answer).toEqual({ skip: expect.stringContaining("nothing to remove") });
    expect(again.record.blocksNoted).toBeUndefined();
    expect(formatRecord(again.record)).not.toContain("images or documents");
  });

  test("manual with nothing to remove: skip", () => {
    const { answer } = compactRows(input({ rows: readRows(["a.txt", "b.txt"], body), window: 1_000_000 }));
    expect(answer).toEqual({ skip: expect.stringContaining("nothing to remove") });
    expect(claudeResultProblems(answer)).toEqual([]);
  });

  test("nothing to remove but the thinking Claude Code drops with the rows: the rows, which reach the budget (no skip, no summary)", () => {
    const inRows = readRows(["a.txt", "b.txt"], body);
    const rowsTokens = compactRows(input({ rows: inRows })).record.tokensBefore;
    // the rows alone are 55% of the window; the thinking in Claude Code's count brings it to 95%
    const window = Math.round(rowsTokens / 0.55);
    const thinking = Math.round(window * 0.4);
    for (const trigger of ["auto", "manual"] as const) {
      const { answer, record } = compactRows(
        input({ trigger, rows: inRows, usage: { window, tokens: inCount(inRows) + thinking, percent: 95 }, thinking: { tokens: thinking } }),
      );
      if (!("messages" in answer)) throw new Error(`${trigger}: expected messages, got ${JSON.stringify(answer).slice(0, 200)}`);
      expectSound(inRows, answer.messages);
      expect(answer.tokensAfter).toBe(answer.tokensBefore);
      expect(answer.tokensAfter).toBeLessThanOrEqual(record.budgetTokens!);
      expect(record).toMatchObject({ outcome: "compacted", thinkingTokens: thinking });
      expect(record.reason).toContain("of thinking Claude Code drops");
    }
    // without thinking in the count, as before: a manual pass skips, an automatic one hands over
    expect(compactRows(input({ rows: inRows, window })).answer).toEqual({ skip: expect.stringContaining("nothing to remove") });
    expect("handover" in compactRows(input({ trigger: "auto", rows: inRows, window })).answer).toBe(true);
  });

  test("plugin trigger freeing fewer than minFreedPercent points: skip (the loop waits)", () => {
    const { answer, record } = compactRows(input({ trigger: "plugin", window: 1_000_000 }));
    expect(answer).toEqual({ skip: expect.stringContaining("minFreedPercent 5") });
    expect(record.outcome).toBe("skipped");
    expect(record.freedPercent).toBeLessThan(5);
  });

  test("a loop pass freeing only what it cuts back of a longer head an earlier pass lent is skipped; Claude Code's own compaction counts it", () => {
    const W = 40_000;
    // the window alone: no count of the context for the budget to take what the rows do not show from
    const first = compactRows(input({ rows: logRows(), usage: { window: W }, options: { ...DEFAULT_PLUGIN_OPTIONS, compactAtPercent: 30 } }));
    expect(first.record.results.some((r) => r.reason.includes("kept in the room left under the budget"))).toBe(true);
    const lent = (first.answer as { messages: SessionRow[] }).messages;
    // a budget a little under the first pass's: cutting the longer head back reaches it alone
    const again = (trigger: CompactInput["trigger"], minFreedPercent: number) =>
      compactRows(input({ trigger, rows: lent, usage: { window: W }, options: { ...DEFAULT_PLUGIN_OPTIONS, compactAtPercent: 29.75, minFreedPercent } }));
    const counted = again("plugin", 0);
    expect(counted.record.outcome).toBe("compacted");
    expect(counted.record.results.filter((r) => r.rule === "escalation").map((r) => r.reason)).toEqual([expect.stringContaining("cut to the usual head")]);
    expect(counted.record.freedPercent).toBeGreaterThan(0.5);
    const loop = again("plugin", 0.5);
    expect(loop.answer).toEqual({ skip: expect.stringMatching(/free only 0 points of the window, not counting ~\d+ tokens of longer heads cut back/) });
    expect(again("auto", 0.5).record.outcome).toBe("compacted");
  });

  test("plugin trigger freeing enough: compacted", () => {
    const { answer } = compactRows(input({ trigger: "plugin", window: 20_000, options: ROOMY }));
    expect("messages" in answer).toBe(true);
  });

  test("a plugin pass that cannot reach the budget hands back the rows it cut, never the summary; an auto pass over handOverAbovePercent hands them to the summary", () => {
    const tight = { ...DEFAULT_PLUGIN_OPTIONS, compactAtPercent: 1, handOverAbovePercent: 1 };
    const inRows = rows();
    const loop = compactRows(input({ trigger: "plugin", rows: inRows, window: 20_000, options: tight }));
    if (!("messages" in loop.answer)) throw new Error(`expected messages, got ${JSON.stringify(loop.answer).slice(0, 200)}`);
    expectSound(inRows, loop.answer.messages);
    expect(loop.record.outcome).toBe("compacted");
    expect(loop.record.tokensAfter).toBeGreaterThan(loop.record.budgetTokens!);
    expect(loop.record.reason).toContain("still over the budget of 200, which Claude Code's own compaction will meet");
    const auto = compactRows(input({ trigger: "auto", rows: inRows, window: 20_000, options: tight }));
    expect(auto.record.outcome).toBe("handed-over");
    expect(auto.record.reason).toContain("over 200 (handOverAbovePercent 1)");
  });

  test("a manual or auto pass that cannot reach the budget but stays under handOverAbovePercent of the window is answered, not handed to the summary", () => {
    const inRows = rows();
    for (const trigger of ["auto", "manual"] as const) {
      const opts = { ...DEFAULT_PLUGIN_OPTIONS, compactAtPercent: 1 };
      const { answer, record } = compactRows(input({ trigger, rows: inRows, window: 20_000, options: opts }));
      if (!("messages" in answer)) throw new Error(`expected messages, got ${JSON.stringify(answer).slice(0, 200)}`);
      expectSound(inRows, answer.messages);
      expect(record.outcome).toBe("compacted");
      expect(record.tokensAfter).toBeGreaterThan(record.budgetTokens!);
      expect(record.tokensAfter).toBeLessThanOrEqual(15_000);
      expect(record.reason).toContain(
        "the rules cannot reach the budget of 200 (1% of the window), but this is under 15000 (handOverAbovePercent 75): answered",
      );
      // the same rows with the share lowered under what they come to: the summary's
      const lower = compactRows(
        input({ trigger, rows: inRows, window: 20_000, options: { ...opts, handOverAbovePercent: Math.floor((record.tokensAfter / 20_000) * 100) - 1 } }),
      );
      expect(lower.record.outcome).toBe("handed-over");
    }
  });

  test("a pass removing less than minRemovalFraction is not taken: manual and loop skip, auto hands the rows as they are to the summary", () => {
    const picky = { ...DEFAULT_PLUGIN_OPTIONS, minRemovalFraction: 0.99 };
    const inRows = rows();
    for (const trigger of ["manual", "plugin"] as const) {
      const { answer, record } = compactRows(input({ trigger, rows: inRows, window: 20_000, options: picky }));
      expect(answer).toEqual({ skip: expect.stringContaining("less than minRemovalFraction 0.99") });
      expect(record).toMatchObject({ outcome: "skipped", tokensAfter: record.tokensBefore });
    }
    const auto = compactRows(input({ trigger: "auto", rows: inRows, window: 20_000, options: picky }));
    if (!("handover" in auto.answer)) throw new Error("expected a handover");
    expectSound(inRows, auto.answer.handover);
    const texts = (rs: readonly SessionRow[]) => rs.flatMap((r) => r.toolResults ?? []).map((r) => r.text);
    expect(texts(auto.answer.handover)).toEqual(texts(inRows));
    expect(auto.record.tokensAfter).toBe(auto.record.tokensBefore);
  });

  test("auto trigger freeing too little: the pruned rows are handed over to Claude Code's summary", () => {
    const inRows = rows();
    const { answer, record } = compactRows(input({ trigger: "auto", rows: inRows, window: 1_000_000 }));
    if (!("handover" in answer)) throw new Error(`expected a handover, got ${JSON.stringify(answer).slice(0, 200)}`);
    expectSound(inRows, answer.handover);
    expect(answer.handover[3]!.toolResults![0]!.text).toMatch(NOTE);
    expect(record.outcome).toBe("handed-over");
  });

  test("auto trigger freeing enough: compacted without the summary", () => {
    const { answer } = compactRows(input({ trigger: "auto", window: 20_000, options: ROOMY }));
    expect("messages" in answer).toBe(true);
  });

  test("over the budget after the rules: escalation cuts further, and reports it", () => {
    const inRows = logRows();
    const rulesOnly = compactRows(input({ rows: inRows })).record;
    const window = Math.round(rulesOnly.tokensAfter * 1.2);
    const budget = Math.floor(window * 0.6);
    const { answer, record } = compactRows(input({ rows: inRows, window }));
    if (!("messages" in answer)) throw new Error(`expected messages, got ${JSON.stringify(answer).slice(0, 300)}`);
    expectSound(inRows, answer.messages);
    expect(record.escalated).toBe(true);
    expect(record.budgetTokens).toBe(budget);
    expect(answer.tokensAfter).toBeLessThanOrEqual(budget);
    expect(answer.tokensAfter).toBeLessThan(rulesOnly.tokensAfter);
    expect(record.results.filter((r) => r.rule === "escalation").length).toBeGreaterThan(0);
    expect(record.reason).toContain("escalated");
  });

  test("the user's need weights rank the escalation when they parse; a broken file falls back to the shipped ones", () => {
    const inRows = logRows();
    const rulesOnly = compactRows(input({ rows: inRows })).record;
    const window = Math.round(rulesOnly.tokensAfter * 1.2);
    expect(compactRows(input({ rows: inRows, window })).record.needWeights).toBe("shipped");
    // weights of the test's own that rank older results as more needed: the escalation then
    // cuts the newest unpinned output first, unlike the shipped order
    const names = [...SHIPPED_NEED_MODEL.features];
    // (need from about 5% for the newest to about 45% for the oldest: no sharpening either way)
    const own = {
      ...SHIPPED_NEED_MODEL,
      source: "test",
      mean: names.map(() => 0),
      scale: names.map(() => 1),
      weights: names.map((f) => (f === "log_results_after" ? 1 : 0)),
      intercept: -3,
    };
    const ownRulesOnly = compactRows(input({ rows: inRows, needWeights: JSON.stringify(own) })).record;
    const mine = compactRows(input({ rows: inRows, window: Math.round(ownRulesOnly.tokensAfter * 1.2), needWeights: JSON.stringify(own) }));
    expect(mine.record.needWeights).toBe("user");
    expect(mine.record.escalated).toBe(true);
    const cut = mine.record.results.filter((r) => r.rule === "escalation").map((r) => r.callId);
    const order = mine.record.results.map((r) => r.callId);
    const newestCut = Math.max(...cut.map((id) => order.indexOf(id)));
    const unpinned = mine.record.results.filter((r) => r.rule !== "pinned" && r.action === "keep").map((r) => order.indexOf(r.callId));
    // nothing kept (unpinned) is newer than the newest cut
    for (const k of unpinned) expect(k).toBeLessThan(newestCut);
    // a file of both models ({ need, escalation }, as bc calibrate writes it): the escalation ranks
    // by its own; a flat need model (5%: no sharpening either) leaves the rules as they were
    const flat = { ...own, weights: names.map(() => 0), intercept: Math.log(0.05 / 0.95) };
    const pair = compactRows(
      input({ rows: inRows, window: Math.round(ownRulesOnly.tokensAfter * 1.2), needWeights: JSON.stringify({ need: flat, escalation: own }) }),
    );
    expect(pair.record.needWeights).toBe("user");
    expect(pair.record.results.filter((r) => r.rule === "escalation").map((r) => r.callId)).toEqual(cut);
    const broken = compactRows(input({ rows: inRows, window, needWeights: "{not json" })).record;
    expect(broken.needWeights).toBe("shipped");
    // the log says why the user's file was passed over
    expect(broken.needWeightsProblem).toContain("not JSON");
    expect(formatRecord(broken)).toContain("need weights: shipped; yours not used: not JSON");
    expect(mine.record.needWeightsProblem).toBeUndefined();
  });

  test("still over the budget after escalation: handed over", () => {
    const inRows = logRows();
    const { answer, record } = compactRows(input({ rows: inRows, window: 2_000 }));
    if (!("handover" in answer)) throw new Error(`expected a handover, got ${JSON.stringify(answer).slice(0, 200)}`);
    expectSound(inRows, answer.handover);
    expect(record.reason).toContain("over the budget");
  });

  describe("what the rows do not show (system prompt, tool definitions, thinking) counts against the budget", () => {
    const inRows = logRows();
    const rowsTokens = compactRows(input({ rows: inRows })).record.tokensBefore;
    // Claude Code's count is of the rows before the last answer (the last request's input side)
    const counted = inCount(inRows);
    const window = Math.round(rowsTokens * 1.2);
    const share = Math.floor(window * 0.6);
    const withUsage = (tokens: number, over: Partial<CompactInput> = {}) =>
      compactRows(input({ rows: inRows, usage: { window, tokens, percent: Math.round((100 * tokens) / window) }, ...over }));

    test("the host counts more than the rows hold: the rows get the budget less the difference", () => {
      const { answer, record } = withUsage(counted + 3_000);
      if (!("messages" in answer)) throw new Error(`expected messages, got ${JSON.stringify(answer).slice(0, 200)}`);
      expect(record.unseenTokens).toBe(3_000);
      expect(record.budgetTokens).toBe(share - 3_000);
      expect(answer.tokensAfter).toBeLessThanOrEqual(share - 3_000);
      // what it would have kept without them is more
      expect(answer.tokensAfter).toBeLessThan(withUsage(counted).record.tokensAfter);
    });

    test("the count is of the last request: the last answer and the results after it are not in it, however large", () => {
      // an automatic compaction mid-turn: the answer to the counted request made a call whose result is large
      const big = { tool: "Bash", input: { command: "./dump.sh" }, text: body("dump").repeat(6) };
      const loopRows = [...inRows, ...turnRows("go on", [{ tool: "Bash", input: { command: "./a.sh" }, text: body("a") }, big], 17, { end: "open" })];
      const loopCounted = inCount(loopRows);
      const all = compactRows(input({ rows: loopRows })).record.tokensBefore;
      // the large result alone is more than what the rows do not show
      expect(all - loopCounted).toBeGreaterThan(3_000);
      const w = Math.round(all * 1.2);
      const s = Math.floor(w * 0.6);
      const { answer, record } = compactRows(input({ rows: loopRows, usage: { window: w, tokens: loopCounted + 3_000, percent: 50 } }));
      if (!("messages" in answer)) throw new Error(`expected messages, got ${JSON.stringify(answer).slice(0, 200)}`);
      // taken off the whole history's estimate, the count would leave nothing for what the rows do not show
      expect(record.unseenTokens).toBe(3_000);
      expect(record.budgetTokens).toBe(s - 3_000);
      // so the next request, the rows and what they do not show, is within the share
      expect(answer.tokensAfter + 3_000).toBeLessThanOrEqual(s);
    });

    test("an answer that made calls in parallel: none of its records and results is in the count, told its calls", () => {
      const rows = parallelTurn();
      const calls = ["toolu_0002", "toolu_0003", "toolu_0004"];
      // the count: the prompt, call 1 and its result, and 3,000 beside them
      const before = estimateSessionTokens(rowsToSession(rows.slice(0, 3), "s")).total;
      const all = compactRows(input({ rows })).record.tokensBefore;
      const w = Math.round(all * 1.5);
      const at = (lastAnswerCalls?: string[]) =>
        compactRows(input({ rows, usage: { window: w, tokens: before + 3_000, percent: 50 }, ...(lastAnswerCalls ? { lastAnswerCalls } : {}) })).record;
      expect(at(calls)).toMatchObject({ unseenTokens: 3_000, budgetTokens: Math.floor(w * 0.6) - 3_000 });
      // not told: the results of the first two parallel calls (~12k tokens) count as held, and nothing is left for what the rows do not show
      expect(at().unseenTokens).toBeUndefined();
    });

    test("the host counts no more than the rows: the whole share", () => {
      for (const tokens of [counted, counted - 500, 0]) {
        const { record } = withUsage(tokens);
        expect(record.unseenTokens).toBeUndefined();
        expect(record.budgetTokens).toBe(share);
      }
    });

    test("at most half the budget, however far off the count", () => {
      expect(withUsage(rowsTokens * 10).record.budgetTokens).toBe(share - Math.floor(share / 2));
    });

    test("a subagent's compaction: its usage is not known to be its own, so the whole share", () => {
      const { record } = withUsage(counted + 3_000, { agentId: "agent-7" });
      expect(record.unseenTokens).toBeUndefined();
      expect(record.budgetTokens).toBe(share);
    });

    test("over the budget less the unseen: handed over, saying so", () => {
      const { answer, record } = withUsage(rowsTokens * 10, { trigger: "auto", usage: { window: 2_000, tokens: 20_000 } });
      expect("handover" in answer).toBe(true);
      expect(record.reason).toContain("the rows do not show");
    });

    describe("thinking in the count: Claude Code drops it with the rows bc rewrites, so it does not count", () => {
      test("the rows get the budget less only what stays; the record says how much thinking was left out", () => {
        const { answer, record } = withUsage(counted + 3_000, { thinking: { tokens: 2_000 } });
        if (!("messages" in answer)) throw new Error(`expected messages, got ${JSON.stringify(answer).slice(0, 200)}`);
        expect(record).toMatchObject({ unseenTokens: 1_000, thinkingTokens: 2_000, budgetTokens: share - 1_000 });
        expect(record.thinkingProblem).toBeUndefined();
        expect(answer.tokensAfter).toBeLessThanOrEqual(share - 1_000);
        // counted as if it stayed, it took 2,000 tokens more of the rows
        expect(answer.tokensAfter).toBeGreaterThan(withUsage(counted + 3_000).record.tokensAfter);
        expect(formatRecord(record)).toContain("thinking ~2.0k tokens not counted: Claude Code drops it with the rows bc rewrites");
      });

      test("thinking that is all the count holds beyond the rows: the whole share", () => {
        const { record } = withUsage(counted + 3_000, { thinking: { tokens: 3_000 } });
        expect(record.unseenTokens).toBeUndefined();
        expect(record.thinkingTokens).toBe(3_000);
        expect(record.budgetTokens).toBe(share);
      });

      test("none, not known, not a count, or more than the count holds beyond the rows: the whole difference counts, as before, and the record says why", () => {
        const cases: [CompactInput["thinking"], string | undefined][] = [
          [undefined, undefined],
          [{ tokens: 0 }, undefined],
          [{ problem: "Claude Code's messages were not read (no answer in 2000 ms)" }, "no answer in 2000 ms"],
          [{ tokens: Number.NaN }, "not a number of tokens"],
          [{ tokens: -5 }, "not a number of tokens"],
          [{ tokens: 3_001 }, "more than Claude Code's count holds beyond the rows (~3000)"],
        ];
        for (const [thinking, problem] of cases) {
          const { record } = withUsage(counted + 3_000, thinking === undefined ? {} : { thinking });
          expect(record).toMatchObject({ unseenTokens: 3_000, budgetTokens: share - 3_000 });
          expect(record.thinkingTokens).toBeUndefined();
          if (problem === undefined) expect(record.thinkingProblem).toBeUndefined();
          else expect(record.thinkingProblem).toContain(problem);
          if (problem !== undefined) expect(formatRecord(record)).toContain(`thinking counted against the budget: ${record.thinkingProblem}`);
        }
      });

      test("the open tool loop's thinking stays with its rows: it counts against the budget, its last answer's too, which the count does not hold", () => {
        // a finished turn, then a turn whose third call's result is the last row (an automatic compaction mid-turn)
        const more = [0, 1, 2].map((i) => ({ tool: "Bash", input: { command: `./more${i}.sh` }, text: body(`more${i}`) }));
        const loopRows = [...inRows, ...turnRows("go on", more, 17, { thinking: true, end: "open" })];
        const loopTokens = compactRows(input({ rows: loopRows })).record.tokensBefore;
        const loopCounted = inCount(loopRows);
        const w = Math.round(loopTokens * 1.2);
        const s = Math.floor(w * 0.6);
        const answers = [
          // the compacted history's: dropped
          { tokens: 1_500, callIds: ["toolu_0001"], counted: true },
          { tokens: 500, callIds: ["toolu_0002"], counted: true },
          // the loop's: they stay
          { tokens: 300, callIds: ["toolu_0017"], counted: true },
          { tokens: 200, callIds: ["toolu_0018"], counted: true },
          { tokens: 400, callIds: ["toolu_0019"], counted: false },
        ];
        const at = (tokens: number, thinking: CompactInput["thinking"], rows = loopRows) =>
          compactRows(input({ rows, usage: { window: w, tokens, percent: Math.round((100 * tokens) / w) }, ...(thinking ? { thinking } : {}) })).record;
        // the count: the rows, 1,000 beside them (system prompt, tools), 2,500 of thinking
        const record = at(loopCounted + 3_500, { tokens: 2_500, answers });
        expect(record).toMatchObject({ thinkingTokens: 2_000, keptThinkingTokens: 900, unseenTokens: 1_000 + 500 + 400, budgetTokens: s - 1_900 });
        expect(record.thinkingProblem).toBeUndefined();
        const shown = formatRecord(record).split("\n");
        expect(shown[2]).toEndWith(
          " tokens for the rows (the window's share less ~1.9k the rows do not show: system prompt, tools, the open tool loop's thinking)",
        );
        expect(shown.slice(3, 5)).toEqual([
          "  thinking ~2.0k tokens not counted: Claude Code drops it with the rows bc rewrites",
          "  thinking ~900 tokens counted: the open tool loop's, which stays with the rows bc hands back as they are",
        ]);
        // all the thinking in the count is the loop's: none is left out
        const loopOnly = at(loopCounted + 1_500, { tokens: 500, answers: answers.slice(2) });
        expect(loopOnly).toMatchObject({ keptThinkingTokens: 900, unseenTokens: 1_500 + 400, budgetTokens: s - 1_900 });
        expect(loopOnly.thinkingTokens).toBeUndefined();
        // no loop open (the turn ended): all of it is left out, as before
        const closed = at(
          counted + 3_500,
          { tokens: 2_500, answers: answers.slice(0, 2).concat({ tokens: 500, callIds: ["toolu_0016"], counted: true }) },
          inRows,
        );
        expect(closed).toMatchObject({ thinkingTokens: 2_500, unseenTokens: 1_000 });
        expect(closed.keptThinkingTokens).toBeUndefined();
      });

      test("a subagent's compaction, or no count: no thinking is taken out of anything", () => {
        expect(withUsage(counted + 3_000, { agentId: "agent-7", thinking: { tokens: 2_000 } }).record).toMatchObject({ budgetTokens: share });
        const noCount = compactRows(input({ rows: inRows, usage: { window }, thinking: { tokens: 2_000 } })).record;
        expect(noCount.budgetTokens).toBe(share);
        expect(noCount.thinkingTokens).toBeUndefined();
      });

      test("an automatic compaction frees the thinking too: rows that free little beside much thinking are compacted, not handed to the summary", () => {
        // the count at 95% of the window: the rows 55 points of it, the thinking 32, what stays 8;
        // the rows must go from 55 to 52 points, fewer than minFreedPercent 5
        const big = Math.round(rowsTokens / 0.55);
        const usage = { window: big, tokens: Math.round(big * 0.95), percent: 95 };
        const { answer, record } = compactRows(input({ rows: inRows, trigger: "auto", usage, thinking: { tokens: Math.round(big * 0.32) } }));
        expect("messages" in answer).toBe(true);
        expect(record.outcome).toBe("compacted");
        expect(record.tokensBefore - record.tokensAfter).toBeLessThan(big * 0.05);
        expect(record.freedPercent).toBeGreaterThanOrEqual(35);
        expect(record.reason).toContain("tokens of thinking Claude Code drops)");
        // the thinking not known: the rows alone must free 35 points, and do
        expect(compactRows(input({ rows: inRows, trigger: "auto", usage })).record.tokensAfter).toBeLessThan(record.tokensAfter);
      });
    });
  });

  test("a subagent's compaction gets the same treatment, logged with its agent id", () => {
    const { answer, record } = compactRows(input({ agentId: "agent-7", window: 1_000_000 }));
    expect("messages" in answer).toBe(true);
    expect(record.agentId).toBe("agent-7");
  });

  test("no usage known: the rules alone, no budget", () => {
    const { answer, record } = compactRows(input({}));
    expect("messages" in answer).toBe(true);
    expect(record.window).toBeUndefined();
    expect(record.budgetTokens).toBeUndefined();
  });

  test("rows Claude Code should never send: skip rather than guess", () => {
    const bad = [{ role: "user", text: 3, toolUses: [] }] as unknown as SessionRow[];
    const { answer } = compactRows(input({ rows: bad }));
    expect(answer).toEqual({ skip: expect.stringContaining("has no text") });
  });

  test("an unknown trigger: skip", () => {
    expect(compactRows(input({ trigger: "later" })).answer).toEqual({ skip: expect.stringContaining("unknown trigger") });
  });

  test("an orphan already in the input is left as it was, and no new one appears", () => {
    const inRows = [
      ...rows(),
      { role: "assistant", text: "", toolUses: [{ tool_use_id: "toolu_open", tool: "Read", input: { file_path: "/x" } }] } as SessionRow,
    ];
    const { answer } = compactRows(input({ rows: inRows, window: 1_000_000 }));
    if (!("messages" in answer)) throw new Error("expected messages");
    expect(pairingProblems(answer.messages)).toEqual(["tool_use toolu_open has no tool_result"]);
  });
});

describe("options", () => {
  test("userConfig values, strings or numbers, over the defaults; bad values fall back", () => {
    expect(pluginOptions(undefined)).toEqual(DEFAULT_PLUGIN_OPTIONS);
    expect(pluginOptions({ compactAtPercent: "70", minFreedPercent: 2, logDecisions: "false", pinLastMessages: "x", truncateHeadChars: -1 })).toEqual({
      ...DEFAULT_PLUGIN_OPTIONS,
      compactAtPercent: 70,
      minFreedPercent: 2,
      logDecisions: false,
    });
  });

  test("every option has a userConfig field in .claude-plugin/plugin.json with the same default", () => {
    const manifest = JSON.parse(readFileSync(join(REPO, ".claude-plugin", "plugin.json"), "utf8"));
    const defaults = Object.fromEntries(Object.entries(manifest.userConfig).map(([k, v]) => [k, (v as { default: unknown }).default]));
    expect(defaults).toEqual({ ...DEFAULT_PLUGIN_OPTIONS } as Record<keyof PluginOptions, unknown>);
    expect(manifest.name).toBe("better-compaction");
    expect(JSON.parse(readFileSync(join(REPO, "hooks", "hooks.json"), "utf8"))).toEqual({ modules: ["./register.ts"] });
  });

  test("the loop compacts at compactAtPercent, not within two turns of the last try", () => {
    const o = DEFAULT_PLUGIN_OPTIONS;
    const at = (percent: number | undefined, turnsSinceLast: number) =>
      shouldCompactAfterTurn({ usage: { window: 1000, percent }, options: o, turnsSinceLast });
    expect(at(59, 9)).toBe(false);
    expect(at(60, 9)).toBe(true);
    expect(at(undefined, 9)).toBe(false);
    expect(at(90, 1)).toBe(false);
    expect(at(90, 2)).toBe(false);
    expect(at(90, 3)).toBe(true);
    expect(shouldCompactAfterTurn({ usage: { window: 1000, tokens: 700 }, options: o, turnsSinceLast: 9 })).toBe(true);
  });

  test("the load-time warm-up runs the engine as a real automatic compaction does: the escalation too", () => {
    const [manual, auto] = warmUp();
    expect(manual?.outcome).toBe("compacted");
    expect(auto?.trigger).toBe("auto");
    expect(auto?.outcome).toBe("compacted");
    expect(auto?.escalated).toBe(true);
    // a session of the kinds a real one holds: results decided by many rules, those that drop among them
    const rules = new Set(manual!.results.map((r) => r.rule));
    expect(rules.size).toBeGreaterThanOrEqual(6);
    for (const rule of ["shown-elsewhere", "superseded-read", "never-drop", "latest-read"] as const) expect(rules).toContain(rule);
    expect(auto!.results.some((r) => r.rule === "escalation")).toBe(true);
  });

  test("the warm-up's made-up session: the same every time, reads with Claude Code's line numbers (not Latin-1 only), edits, a failing test run, a reply quoting a line a result showed", () => {
    const rows = warmUpRows();
    expect(JSON.stringify(warmUpRows())).toBe(JSON.stringify(rows));
    const results = rows.flatMap((r) => r.toolResults ?? []);
    const tools = new Set(rows.flatMap((r) => r.toolUses.map((u) => u.tool)));
    for (const tool of ["Read", "Edit", "Grep", "Bash"]) expect(tools).toContain(tool);
    expect(results.some((r) => /^ +1\u2192/.test(r.text))).toBe(true);
    expect(results.some((r) => r.isError)).toBe(true);
    const quoted = rows.filter((r) => r.role === "assistant").flatMap((r) => [...r.text.matchAll(/```\n(.*)\n```/g)].map((m) => m[1]!));
    expect(quoted.length).toBeGreaterThan(0);
    for (const line of quoted) expect(results.some((r) => r.text.includes(line))).toBe(true);
  });

  test("a failure becomes a skip Claude Code accepts", () => {
    expect(failureSkip({ kind: "timeout", message: "10 s" })).toEqual({ skip: "better-compaction timed out (10 s); not compacted" });
    expect(claudeResultProblems(failureSkip(undefined))).toEqual([]);
  });
});

describe("rowsInCount: the rows Claude Code's count (the last request's input side) holds", () => {
  const step = (i: number) => ({ tool: "Bash", input: { command: `./s${i}.sh` }, text: `out ${i}\n` });
  test("a finished turn: all but its last answer (its thinking and its text)", () => {
    const rows = turnRows("go", [step(0), step(1)], 1, { thinking: true });
    expect(rowsInCount(rows)).toBe(rows.length - 2);
    expect(rows.slice(rowsInCount(rows)).map((r) => r.role)).toEqual(["assistant", "assistant"]);
  });
  test("mid-turn: all but the answer that made the last call (its thinking, text and call) and that call's result", () => {
    const rows = turnRows("go", [step(0), step(1)], 1, { thinking: true, end: "open" });
    expect(rowsInCount(rows)).toBe(rows.length - 4);
    expect(rows[rows.length - 1]!.toolResults?.[0]?.tool_use_id).toBe("toolu_0002");
  });
  test("an answer that made calls in parallel, its records between their results: from its first row, given its calls", () => {
    const rows = parallelTurn();
    // the answer: its thinking and text rows, then call A, A's result, call B, B's result, call C, C's result
    expect(rowsInCount(rows, ["toolu_0002", "toolu_0003", "toolu_0004"])).toBe(3);
    // its calls not known: the last run of assistant rows, its last call alone
    expect(rowsInCount(rows)).toBe(rows.length - 2);
    // calls no row holds: as if not known
    expect(rowsInCount(rows, ["toolu_9999"])).toBe(rows.length - 2);
    expect(rowsInCount(rows, [])).toBe(rows.length - 2);
  });
  test("a prompt typed since the last answer is not in it either; no answer at all: every row", () => {
    const rows = [...turnRows("go", [step(0)], 1), { role: "user" as const, text: "next", toolUses: [] }];
    expect(rowsInCount(rows)).toBe(rows.length - 2);
    const prompt: SessionRow[] = [{ role: "user", text: "hello", toolUses: [] }];
    expect(rowsInCount(prompt)).toBe(1);
    expect(rowsInCount([])).toBe(0);
  });
});

describe("inputs the audit found", () => {
  test("a row without toolUses (Claude Code's validator allows it) is compacted, not failed", () => {
    const rows = [
      { role: "user", text: "hi", toolUses: [], handle: "h0" },
      { role: "assistant", text: "", toolUses: [{ tool_use_id: "b1", tool: "Bash", input: { command: "ls" } }] },
      { role: "user", text: "", toolUses: [], toolResults: [{ tool_use_id: "b1", text: "a\nb\n".repeat(5000), isError: false }] },
      ...["a", "b", "c", "d", "e", "f", "g"].map((t) => ({ role: "assistant", text: t })),
    ] as unknown as SessionRow[];
    expect(rowsInCount(rows, ["b1"])).toBe(1);
    // a call no row answers: every row is looked at, those without toolUses too
    expect(rowsInCount(rows, ["zz"])).toBe(3);
    const { answer } = compactRows({
      trigger: "auto",
      sessionId: "s",
      rows,
      usage: { tokens: 12_000, window: 12_600 },
      lastAnswerCalls: ["zz"],
      options: DEFAULT_PLUGIN_OPTIONS,
      now: () => 0,
    });
    expect(Object.keys(answer)).toEqual(["messages", "tokensBefore", "tokensAfter"]);
  });

  test("a read whose last line looks like a bc note is output the budget may cut, not a result already cut", () => {
    const big = Array.from({ length: 40000 }, (_, i) => `${String(i + 1).padStart(6)}\u2192line ${i} of notes.md`).join("\n");
    const rows = [
      { role: "user", text: "read notes.md", toolUses: [], handle: "h0" },
      { role: "assistant", text: "", toolUses: [{ tool_use_id: "r1", tool: "Read", input: { file_path: "/p/notes.md" } }] },
      {
        role: "user",
        text: "",
        toolUses: [],
        toolResults: [{ tool_use_id: "r1", text: `${big}\n 40001\u2192[bc removed 12 chars; bc recall x prints it]`, isError: false }],
      },
      ...["a", "b", "c", "d", "e", "f", "g"].map((t) => ({ role: "assistant", text: t, toolUses: [] })),
    ] as SessionRow[];
    const { answer } = compactRows({
      trigger: "auto",
      sessionId: "s",
      rows,
      usage: { tokens: 250000, window: 263000 },
      options: DEFAULT_PLUGIN_OPTIONS,
      now: () => 0,
    });
    expect(Object.keys(answer)).toEqual(["messages", "tokensBefore", "tokensAfter"]);
  });
});
