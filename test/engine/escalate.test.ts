import { describe, expect, test } from "bun:test";
import { apply } from "../../src/engine/apply.ts";
import { estimateSessionTokens, estimateTextTokens } from "../../src/engine/estimate.ts";
import { tokensAfter } from "../../src/engine/escalate.ts";
import { bothOf, type NeedModel, needOf } from "../../src/engine/need/model.ts";
import { needTable } from "../../src/engine/need/table.ts";
import { SHIPPED_ESCALATION_MODEL, SHIPPED_NEED_MODEL } from "../../src/engine/need/weights.ts";
import { dropNote, truncatedText } from "../../src/engine/notes.ts";
import { plan } from "../../src/engine/plan.ts";
import type { Message, Session } from "../../src/engine/types.ts";
import { BEYOND_RECENT, SessionBuilder, bashTurn } from "./support/build.ts";
import { generateSession } from "./support/generate.ts";
import { checkNoSpareCut } from "./support/laws.ts";
import { modelOn } from "./support/need-models.ts";

const lines = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag} row ${i}: value_${tag}_${i} = ${i * 31}`).join("\n");

/** Six old outputs of growing size, each referenced later (the rules keep them all), then filler that leaves them unpinned. */
const session = (): { s: Session; ids: string[] } => {
  const b = new SessionBuilder().user("start");
  const ids: string[] = [];
  for (let k = 0; k < 6; k++) ids.push(b.bash(`./tool-${k}`, lines(`t${k}`, 20 + 15 * k)));
  b.assistant(`${ids.map((_, k) => `value_t${k}_7`).join(", ")} are what matter.`);
  for (let k = 0; k < BEYOND_RECENT; k++) b.bash(`echo ${k}`, `ok ${k}`);
  b.assistant("done");
  b.filler(4);
  return { s: b.session(), ids };
};

const escalated = (p: ReturnType<typeof plan>) => p.decisions.filter((d) => d.rule === "escalation").map((d) => d.callId);

/**
 * The session (and its outputs by call id) planned at budgets 5 to 1,500 tokens under what the
 * rules leave, each reached, with need rising much faster than size: the smallest outputs go
 * first, each larger than the last, and the largest cut is the most needed.
 */
const overBudgets = () => {
  const { s } = session();
  const rules = plan(s);
  const needModel = modelOn("log_chars", 8, -60);
  const budgets = [];
  for (let over = 5; over < 1500; over += 45) {
    const budgetTokens = rules.totals.tokensAfter - over;
    const p = plan(s, { budgetTokens, needModels: bothOf(needModel) });
    expect(p.budget?.reached).toBe(true);
    budgets.push({ over, budgetTokens, p });
  }
  const texts = new Map(s.messages.flatMap((m) => m.toolResults.map((r) => [r.callId, r.text] as const)));
  return { s, rules, texts, budgets };
};

describe("ranked escalation", () => {
  test("stops at the first cut that reaches the budget", () => {
    const { s } = session();
    const rules = plan(s);
    for (const over of [10, 200, 1000]) {
      const p = plan(s, { budgetTokens: rules.totals.tokensAfter - over });
      expect(p.budget?.reached).toBe(true);
      // undoing the last escalated cut (the one with the highest place) would leave it over budget
      const cuts = p.decisions.filter((d) => d.rule === "escalation");
      expect(cuts.length).toBeGreaterThan(0);
      const fewer = plan(s, { budgetTokens: p.totals.tokensAfter + 1 });
      expect(escalated(fewer).length).toBeLessThanOrEqual(cuts.length);
    }
  });

  test("cuts least need per token first (the test's own models, not the shipped weights)", () => {
    const { s, ids } = session();
    const rules = plan(s);
    expect(rules.decisions.filter((d) => ids.includes(d.callId)).map((d) => d.rule)).toEqual(ids.map(() => "referenced"));
    const budgetTokens = rules.totals.tokensAfter - 300;
    // the same need for every result: the most tokens freed first, so the largest output alone
    expect(escalated(plan(s, { budgetTokens, needModels: bothOf(modelOn("log_chars", 0)) }))).toEqual([ids[5]!]);
    // need rising much faster than size: the smallest outputs go first, in order
    const small = escalated(plan(s, { budgetTokens, needModels: bothOf(modelOn("log_chars", 8, -60)) }));
    expect(small[0]).toBe(ids[0]!);
    expect(small).toEqual(ids.slice(0, small.length));
  });

  test("a need given per call id (needOverride) stands in for the model's, where given", () => {
    const { s, ids } = session();
    const budgetTokens = plan(s).totals.tokensAfter - 300;
    const model = modelOn("log_chars", 0);
    // with the same need for all, the largest output goes; known to be needed, it stays and another goes
    expect(escalated(plan(s, { budgetTokens, needModels: bothOf(model) }))).toEqual([ids[5]!]);
    const p = plan(s, { budgetTokens, needModels: bothOf(model), needOverride: new Map([[ids[5]!, 1]]) });
    expect(escalated(p)).not.toContain(ids[5]!);
    expect(p.budget?.reached).toBe(true);
    expect(p.decisions.find((d) => d.callId === ids[5]!)?.need).toBe(1);
  });

  test("an output too short for the rules to drop (under twice its note) may still be dropped to reach a budget", () => {
    const b = new SessionBuilder().user("start");
    // 80 chars each, nothing uses them again: the rules would drop them but for their size
    const ids = Array.from({ length: 8 }, (_, k) => b.bash(`./probe-${k}`, `probe ${k}: `.padEnd(80, "z")));
    for (let k = 0; k < BEYOND_RECENT; k++) b.bash(`echo ${k}`, `ok ${k}`);
    b.assistant("done");
    b.filler(4);
    const s = b.session();
    const rules = plan(s);
    for (const id of ids) expect(rules.decisions.find((d) => d.callId === id)).toMatchObject({ action: "keep", rule: "unreferenced" });
    const p = plan(s, { budgetTokens: rules.totals.tokensAfter - 20, needModels: bothOf(modelOn("log_chars", 0)) });
    expect(p.budget?.reached).toBe(true);
    expect(escalated(p).some((id) => ids.includes(id))).toBe(true);
    expect(p.decisions.filter((d) => ids.includes(d.callId) && d.rule === "escalation").every((d) => d.action === "drop")).toBe(true);
  });

  test("no cut to spare: a cut the budget's last cut made needless is undone (the costliest first)", () => {
    const { s, rules, budgets } = overBudgets();
    let undone = 0;
    for (const { over, budgetTokens, p } of budgets) {
      expect(checkNoSpareCut(s, rules, p, budgetTokens, `${over} over`)).toEqual([]);
      // what was undone keeps its place in the order and the rules' verdict, its reason saying why
      const cut = new Set(escalated(p));
      const last = Math.max(...p.decisions.filter((d) => cut.has(d.callId)).map((d) => d.escalationOrder!));
      const back = p.decisions.filter((d) => !cut.has(d.callId) && (d.escalationOrder ?? 0) > 0 && d.escalationOrder! < last);
      for (const d of back) expect(d).toMatchObject({ rule: "referenced", reason: expect.stringContaining("a later cut freed its room") });
      undone += back.length;
    }
    expect(undone).toBeGreaterThan(0);
  });

  test("the room the cuts leave under the budget goes to a longer head of the most needed result cut, byte for byte, and no further", () => {
    const { s, texts, budgets } = overBudgets();
    let longer = 0;
    for (const { budgetTokens, p } of budgets) {
      expect(p.totals.tokensAfter).toBeLessThanOrEqual(budgetTokens);
      const out = apply(s, p).flatMap((m) => m.toolResults);
      const cut = p.decisions.filter((d) => d.rule === "escalation" && d.action !== "keep");
      for (const d of cut.filter((c) => c.action === "truncate")) {
        const now = out.find((r) => r.callId === d.callId)!.text;
        expect(now.startsWith(`${texts.get(d.callId)!.slice(0, d.headChars)}\n[bc cut `)).toBe(true);
      }
      const roomy = cut.filter((d) => d.reason.includes("kept in the room left under the budget"));
      longer += roomy.length;
      for (const d of roomy) expect(d.headChars!).toBeGreaterThan(0);
      // the most needed cut could not keep 8 more characters within the budget (unless its head is all it can be)
      const top = [...cut].sort((a, b) => b.need! - a.need!)[0]!;
      const text = texts.get(top.callId)!;
      const head = top.action === "truncate" ? top.headChars! : 0;
      if (head + 8 < text.length - 1) {
        const more = tokensAfter(text, { action: "truncate", rule: "escalation", reason: "", headChars: head + 8 }, top.callId);
        const nowTokens = tokensAfter(text, { action: top.action, rule: "escalation", reason: "", headChars: head }, top.callId);
        expect(p.totals.tokensAfter + more - nowTokens).toBeGreaterThan(budgetTokens);
      }
    }
    expect(longer).toBeGreaterThan(0);
  });

  test("a later pass over budget takes a longer head back to the usual head before any other cut; the history holds no head longer for it", () => {
    const { s, texts, budgets } = overBudgets();
    let taken = 0;
    for (const { budgetTokens, p } of budgets) {
      const roomy = p.decisions.find((d) => d.reason.includes("kept in the room left under the budget"));
      if (roomy === undefined || roomy.headChars! <= 200) continue;
      const out: Session = { ...s, messages: apply(s, p) };
      const outText = (m: Session, id: string) => m.messages.flatMap((x) => x.toolResults).find((r) => r.callId === id)!.text;
      const spare = tokensAfter(outText(out, roomy.callId), { action: "keep", rule: "already-cut", reason: "" }, roomy.callId);
      const usual = estimateTextTokens(truncatedText(texts.get(roomy.callId)!, 200, roomy.callId));
      // over by less than the spare head holds beyond the usual one: that cut alone reaches it
      const later = plan(out, { budgetTokens: budgetTokens - Math.max(1, Math.floor((spare - usual) / 2)) });
      expect(later.budget).toMatchObject({ reached: true, lentBack: spare - usual });
      expect(p.budget?.lentBack).toBeUndefined();
      const d = later.decisions.find((x) => x.callId === roomy.callId)!;
      expect(d).toMatchObject({ action: "truncate", rule: "escalation", headChars: 200, escalationOrder: 1 });
      expect(d.reason).toContain("cut to the usual head");
      expect(later.decisions.filter((x) => x.rule === "escalation" && x.action !== "keep").map((x) => x.callId)).toEqual([roomy.callId]);
      // the same text a first pass cutting it to the usual head leaves: a byte-for-byte head, every char cut counted
      const again: Session = { ...out, messages: apply(out, later) };
      expect(outText(again, roomy.callId)).toBe(truncatedText(texts.get(roomy.callId)!, 200, roomy.callId));
      taken++;
    }
    expect(taken).toBeGreaterThan(0);
  });

  test("a pass over its own output with the same budget changes nothing; pins, prose and inputs untouched", () => {
    for (const seed of [11, 12, 13]) {
      const s = generateSession({ seed, results: 100, outputChars: 2000, host: seed === 12 ? "codex" : "claude" });
      const budget = Math.floor(plan(s).totals.tokensBefore * 0.5);
      const p = plan(s, { budgetTokens: budget });
      const out: Session = { ...s, messages: apply(s, p) };
      const again = plan(out, { budgetTokens: budget });
      expect(again.decisions.filter((d) => d.action !== "keep")).toEqual([]);
      s.messages.forEach((m, i) => {
        expect(out.messages[i]!.text).toBe(m.text);
        expect(out.messages[i]!.toolCalls).toEqual(m.toolCalls);
      });
      for (const d of p.decisions) if (d.rule === "pinned") expect(d.action).toBe("keep");
    }
  });

  test("never-drop results rank by need like the rest, and are only ever cut to their head", () => {
    const b = new SessionBuilder().user("start");
    const web = b.call("WebFetch", { url: "https://example.test/doc" }, lines("web", 40));
    const plain = b.bash("./build", lines("build", 80));
    b.assistant("value_web_3 and value_build_3 matter.");
    for (let k = 0; k < BEYOND_RECENT; k++) b.bash(`echo ${k}`, `ok ${k}`);
    b.filler(4);
    const s = b.session();
    const rules = plan(s);
    expect(rules.decisions.find((d) => d.callId === web)!.rule).toBe("never-drop");
    // need rising much faster than size: the smaller output, the never-drop one, is cut first
    const needModel = modelOn("log_chars", 8, -60);
    const some = plan(s, { needModels: bothOf(needModel), budgetTokens: rules.totals.tokensAfter - 50 });
    expect(some.decisions.find((d) => d.callId === web)).toMatchObject({ action: "truncate", rule: "escalation" });
    expect(some.decisions.find((d) => d.callId === plain)!.rule).toBe("referenced");
    // whatever the budget, a head
    const all = plan(s, { needModels: bothOf(needModel), budgetTokens: 1 });
    expect(all.decisions.find((d) => d.callId === web)).toMatchObject({ action: "truncate", rule: "escalation" });
    expect(all.decisions.find((d) => d.callId === plain)!.rule).toBe("escalation");
  });

  // 12 lines: a ranked result would be dropped; 80: it too would keep a head, and only the reason tells them apart
  test.each([12, 80])(
    "a result a later reply quotes is only ever cut to its head, whichever rule kept it (a pass over the output ranks it the same): %p lines",
    (n) => {
      const b = new SessionBuilder().user("start");
      const text = lines("quoted", n);
      const quoted = b.bash("./report", text);
      // a later reply uses one of its names (the referenced rule keeps it) and quotes a line whole
      b.assistant(`value_quoted_3 matters; the report says:\n${text.split("\n")[5]}`);
      for (let k = 0; k < BEYOND_RECENT; k++) b.bash(`echo ${k}`, `ok ${k}`);
      b.filler(4);
      const s = b.session();
      const rules = plan(s);
      expect(rules.decisions.find((d) => d.callId === quoted)!.rule).toBe("referenced");
      const p = plan(s, { budgetTokens: 1 });
      expect(p.decisions.find((d) => d.callId === quoted)).toMatchObject({ action: "truncate", rule: "escalation" });
      expect(p.decisions.find((d) => d.callId === quoted)!.reason).toContain("a result never dropped");
    },
  );

  test("an impossible budget cuts everything allowed, never pins or never-drop beyond a head, and says so", () => {
    const { s } = session();
    const none = plan(s, { budgetTokens: 1 });
    expect(none.budget).toEqual({ tokens: 1, reached: false });
    for (const d of none.decisions) if (d.rule === "pinned" || d.rule === "never-drop") expect(d.action).toBe("keep");
    expect(none.decisions.filter((d) => d.rule === "escalation").length).toBeGreaterThan(0);
  });

  test("when every cut leaves it over, the heads of results the rules may drop go too; a result never dropped keeps its head", () => {
    const b = new SessionBuilder().user("start");
    // large outputs the rules keep (referenced later), and one the rules never drop (quoted later)
    const ids = Array.from({ length: 4 }, (_, k) => b.bash(`./tool-${k}`, lines(`t${k}`, 80)));
    const quoted = b.bash("./tool-9", lines("t9", 80));
    b.assistant(`${ids.map((_, k) => `value_t${k}_7`).join(", ")} matter; the last one says:\n${lines("t9", 80).split("\n")[5]}`);
    for (let k = 0; k < BEYOND_RECENT; k++) b.bash(`echo ${k}`, `ok ${k}`);
    b.assistant("done");
    b.filler(4);
    const s = b.session();
    const gone = (p: ReturnType<typeof plan>) => p.decisions.filter((d) => d.reason.includes("its head went too"));
    // out of reach whatever is cut: every head of a result the rules may drop goes
    const none = plan(s, { budgetTokens: 1 });
    expect(none.budget?.reached).toBe(false);
    expect(
      gone(none)
        .map((d) => d.callId)
        .sort(),
    ).toEqual([...ids].sort());
    for (const d of gone(none)) expect(d.action).toBe("drop");
    expect(none.decisions.find((d) => d.callId === quoted)).toMatchObject({ action: "truncate", rule: "escalation" });
    // just above what that leaves: reached, by dropping heads the first cuts kept
    const tight = plan(s, { budgetTokens: none.totals.tokensAfter + 1 });
    expect(tight.budget?.reached).toBe(true);
    expect(gone(tight).length).toBeGreaterThan(0);
    expect(checkNoSpareCut(s, plan(s), tight, none.totals.tokensAfter + 1, "tight")).toEqual([]);
    // a budget the cuts reach with heads drops no head
    const easy = plan(s, { budgetTokens: plan(s).totals.tokensAfter - 100 });
    expect(easy.budget?.reached).toBe(true);
    expect(gone(easy)).toEqual([]);
  });

  test("with the shipped weights the escalation ranks by the model fitted for it; with given models, by their escalation model", () => {
    const { s } = session();
    const budgetTokens = plan(s).totals.tokensAfter - 200;
    const rows = new Map(needTable(s).map((r) => [r.callId, r.x] as const));
    const shown = (p: ReturnType<typeof plan>, model: NeedModel): [number, number][] =>
      p.decisions.filter((d) => d.need !== undefined).map((d) => [d.need!, Math.round(needOf(model, rows.get(d.callId)!) * 1000) / 1000]);
    const shipped = shown(plan(s, { budgetTokens }), SHIPPED_ESCALATION_MODEL);
    expect(shipped.length).toBeGreaterThan(0);
    for (const [need, want] of shipped) expect(need).toBe(want);
    // the two shipped models differ on these results, so the check above tells them apart
    const other = shown(plan(s, { budgetTokens }), SHIPPED_NEED_MODEL);
    expect(other.some(([need, want]) => need !== want)).toBe(true);
    const own = modelOn("log_chars", 1, -3);
    for (const [need, want] of shown(plan(s, { budgetTokens, needModels: bothOf(own) }), own)) expect(need).toBe(want);
    // a pair: the escalation's ranks, whatever the need model is
    for (const [need, want] of shown(plan(s, { budgetTokens, needModels: { need: SHIPPED_NEED_MODEL, escalation: own } }), own)) expect(need).toBe(want);
  });

  test("determinism: the same session and budget give the same plan", () => {
    const s = generateSession({ seed: 21, results: 150 });
    const budget = Math.floor(plan(s).totals.tokensBefore * 0.4);
    expect(JSON.stringify(plan(s, { budgetTokens: budget }))).toBe(JSON.stringify(plan(s, { budgetTokens: budget })));
  });
});

test("a Codex exec output whose header (a long Command: line) runs past the header cap: a second pass at the same budget keeps the head the first kept", () => {
  const call = { id: "call_1", name: "exec_command", input: { cmd: "bash script.sh" }, inputText: '{"cmd":"bash script.sh"}' };
  // exit code 1: never dropped, so the escalation cuts it to its head, which ends inside the header
  const text = `Command: ${"x".repeat(800)}\nChunk ID: ab\nWall time: 0.1s\nProcess exited with code 1\nOutput:\n${"output line\n".repeat(300)}`;
  const prompt = (i: number) => ({ role: "user" as const, kind: "prompt" as const, text: `prompt ${i}`, toolCalls: [], toolResults: [] });
  const s: Session = {
    host: "codex",
    id: "s",
    messages: [
      prompt(0),
      { role: "assistant", kind: "reply", text: "", toolCalls: [call], toolResults: [] },
      { role: "assistant", kind: "tool", text: "", toolCalls: [], toolResults: [{ callId: "call_1", text, isError: false, images: 0 }] },
      ...[1, 2, 3, 4, 5, 6].map(prompt),
    ],
  };
  const once = apply(s, plan(s, { budgetTokens: 0 }));
  const cut = once[2]!.toolResults[0]!.text;
  expect(cut.length).toBeLessThan(text.length);
  expect(cut.startsWith(text.slice(0, 700))).toBe(true);
  const again = plan({ ...s, messages: once }, { budgetTokens: 0 });
  expect(apply({ ...s, messages: once }, again)[2]!.toolResults[0]!.text).toBe(cut);
  expect(again.budget?.lentBack ?? 0).toBe(0);
});

test("the heads the rules kept (passing test runs) go too when nothing else reaches the budget, least needed first", () => {
  const prompt = (i: number): Message => ({ role: "user", kind: "prompt", text: `p${i}`, toolCalls: [], toolResults: [] });
  const runs: Message[] = [];
  for (let k = 0; k < 30; k++) {
    const id = `toolu_${k}`;
    const text = `${Array.from({ length: 40 }, (_, j) => `(pass) suite${k} > case ${j} [0.${j}ms]\n`).join("")} 40 pass\n 0 fail\n`;
    runs.push(...bashTurn(id, "bun test", text));
    if (k % 5 === 0) runs.push(prompt(100 + k));
  }
  const s: Session = { host: "claude", id: "s", messages: [prompt(0), ...runs, ...[1, 2, 3, 4, 5, 6].map(prompt)] };
  expect(plan(s).decisions.filter((d) => d.rule === "re-runnable" && d.action === "truncate").length).toBeGreaterThan(10);
  // the budget every unpinned result dropped to its note leaves, and a little
  const floor = estimateSessionTokens({
    ...s,
    messages: s.messages.map((m) => ({ ...m, toolResults: m.toolResults.map((r) => ({ ...r, text: dropNote(r.text.length, r.callId) })) })),
  }).total;
  const budgetTokens = floor + 100;
  const p = plan(s, { budgetTokens });
  expect(p.budget?.reached).toBe(true);
  expect(p.totals.tokensAfter).toBeLessThanOrEqual(budgetTokens);
  expect(p.decisions.some((d) => d.rule === "escalation" && d.reason.includes("its head went too"))).toBe(true);
  // a second pass at the same budget changes nothing
  const once = apply(s, p);
  expect(apply({ ...s, messages: once }, plan({ ...s, messages: once }, { budgetTokens }))).toEqual(once);
});

test("a person's answer is never cut, even where its result stands before its call or another call shares its id", () => {
  const prompt = (i: number): Message => ({ role: "user", kind: "prompt", text: `prompt ${i}`, toolCalls: [], toolResults: [] });
  const answer = `The user answered: ${"use the blue option because of reasons. ".repeat(60)}`;
  const ask = { id: "toolu_q", name: "AskUserQuestion", input: { questions: [{ question: "which?" }] }, inputText: '{"questions":[{"question":"which?"}]}' };
  const bash = { id: "toolu_q", name: "Bash", input: { command: "ls" }, inputText: '{"command":"ls"}' };
  const result: Message = {
    role: "user",
    kind: "tool",
    text: "",
    toolCalls: [],
    toolResults: [{ callId: "toolu_q", text: answer, isError: false, images: 0 }],
  };
  const asked = (calls: Message["toolCalls"]): Message => ({ role: "assistant", kind: "reply", text: "", toolCalls: calls, toolResults: [] });
  for (const middle of [
    [result, asked([ask])],
    [asked([ask, bash]), result],
    [asked([ask]), result],
  ]) {
    const s: Session = { host: "claude", id: "s", messages: [prompt(0), ...middle, ...[1, 2, 3, 4, 5, 6, 7, 8].map(prompt)] };
    const out = apply(s, plan(s, { budgetTokens: 0 }));
    expect(out.flatMap((m) => m.toolResults).map((r) => r.text)).toEqual([answer]);
  }
});
