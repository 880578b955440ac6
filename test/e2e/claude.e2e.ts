// End to end with a real Claude Code (a version from support/versions.ts, installed by the test into test/e2e/.cache) and a
// scripted Messages API on 127.0.0.1: the plugin answers /compact, auto and plugin-triggered
// compactions itself, the next request carries the pruned history (notes where results were
// dropped, everything else byte for byte), --resume keeps it, a failing hook skips cleanly, a
// handover whose summary fails leaves the session going. The plugin loaded is the one
// `bc claude install` writes (the bundle), but for two tests that load the checkout itself.
// Issue 6, points 2 to 4.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pluginFiles, writePluginFiles } from "../../build/plugin.ts";
import { truncatedText } from "../../src/engine/notes.ts";
import { blocksNote } from "../../src/hosts/claude/rows.ts";
import { MINIMAL_PDF } from "./support/claude-fixtures.ts";
import { ensureClaude } from "./support/claude-install.ts";
import { firstTarget } from "./support/versions.ts";
import { signatureOf, startMock, type Mock, type MockOptions } from "./support/claude-mock.ts";
import { comparePruned, HAS_NOTE, notesOf, openLoopAnswers, thinkingTexts, unpairedCalls, viewOf, type RequestView } from "./support/claude-requests.ts";
import { claudeEnv, HeadlessSession, hookTimes, makeSandbox, readDebug, runPrint, transcriptPath, waitFor, type Sandbox } from "./support/claude-session.ts";

const REPO = join(import.meta.dir, "..", "..");
const BC = join(REPO, "dist", process.platform === "win32" ? "bc.exe" : "bc");
const T = 240_000;

/** the version under test: the first of support/versions.ts's list (run.ts runs this file once per version) */
const TARGET = firstTarget("claude");
const sandboxes: Sandbox[] = [];
let bin = "";
/**
 * The plugin as `bc claude install` writes it (the bundle): what users run, and what most tests
 * load. The checkout itself, loaded as a plugin, is covered by "claude plugin validate" and by the
 * headless /compact test.
 */
let PLUGIN = "";
beforeAll(async () => {
  bin = ensureClaude(TARGET);
  const sb = makeSandbox("installed-plugin");
  sandboxes.push(sb);
  PLUGIN = join(sb.dir, "plugin");
  writePluginFiles(PLUGIN, await pluginFiles());
}, 600_000);

const mocks: Mock[] = [];
afterAll(() => {
  for (const m of mocks) m.stop();
  if (!process.env.BC_E2E_KEEP) for (const s of sandboxes) s.cleanup();
  else console.log(`kept: ${sandboxes.map((s) => s.dir).join(" ")}`);
});

const small = (name: string): string =>
  `${Array.from({ length: 30 }, (_, i) => `${name} line ${i}: value_${name.replace(/\W/g, "_")}_${i * 7919}`).join("\n")}\n`;
/** ~84k characters once Read numbers the lines (~21k tokens): under Read's own cap */
const big = (name: string): string => `${Array.from({ length: 1000 }, (_, i) => `${name} line ${i} `.padEnd(79, "abcdefghij".charAt(i % 10))).join("\n")}\n`;

/** `bigs` files of ~21k tokens each (big0.txt, ...) and ten small ones (s0.txt to s9.txt) */
const bigAndSmall = (bigs: number): Record<string, string> => {
  const files: Record<string, string> = {};
  for (let i = 0; i < bigs; i++) files[`big${i}.txt`] = big(`big${i}`);
  for (let i = 0; i < 10; i++) files[`s${i}.txt`] = small(`s${i}`);
  return files;
};

const setup = (
  name: string,
  files: Record<string, string>,
  inputTokens?: MockOptions["inputTokens"],
  more: Partial<MockOptions> = {},
  settings?: Record<string, unknown>,
) => {
  const sb = makeSandbox(name, settings);
  sandboxes.push(sb);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(sb.project, f), text);
  const mock = startMock({ root: sb.project, inputTokens, lifetimeMs: 20 * 60_000, ...more });
  mocks.push(mock);
  return { sb, mock, debug: join(sb.dir, "debug.log") };
};

const decisionRecords = (sb: Sandbox, sessionId: string): any[] => {
  const p = join(sb.home, ".claude", "better-compaction", "logs", `${sessionId}.jsonl`);
  return existsSync(p)
    ? readFileSync(p, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
    : [];
};
/** The next turn's reads, over Claude Code's threshold: one automatic compaction, answered by bc; its record. */
const oneAutoCompaction = async (session: HeadlessSession, sb: Sandbox): Promise<any> => {
  const r = await session.send("READFILES s0.txt s1.txt");
  expect(r.at(-1).is_error).toBeFalsy();
  const records = decisionRecords(sb, session.sessionId!);
  expect(records.map((x) => `${x.trigger}:${x.outcome}`)).toEqual(["auto:compacted"]);
  return records[0];
};
const droppedIn = (record: any): Set<string> => new Set(record.results.filter((r: any) => r.action === "drop").map((r: any) => r.callId));

const lastView = (mock: Mock, from = 0): RequestView =>
  viewOf(
    mock
      .conversationRequests()
      .filter((r) => r.n >= from)
      .at(-1)!.body,
  );
const firstViewFrom = (mock: Mock, n: number): RequestView => viewOf(mock.conversationRequests().find((r) => r.n >= n)!.body);

const filesA = (): Record<string, string> => {
  const files: Record<string, string> = {};
  for (const f of ["a.txt", "b.txt", "c.txt", ...Array.from({ length: 12 }, (_, i) => `f${i}.txt`), ...Array.from({ length: 10 }, (_, i) => `g${i}.txt`)])
    files[f] = small(f);
  return files;
};
const F = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}.txt`).join(" ");
const TURN1 = `READFILES a.txt ${F("f", 12)} a.txt`;
const TURN2 = `READFILES b.txt f0.txt f1.txt f2.txt f3.txt ${F("g", 8)} b.txt`;
const TURN3 = `READFILES c.txt ${F("g", 10)} c.txt`;
/** ~230,000 tokens of reads, from bigAndSmall(8): the first three big files read twice */
const BIG_TURN = `READFILES big0.txt big1.txt big2.txt ${F("s", 10)} big0.txt big1.txt big2.txt big3.txt big4.txt big5.txt big6.txt big7.txt`;

/** After one /compact: the hook answered, no summary was requested, and the next request is the pruned history. */
const expectCompacted = (o: { mock: Mock; debug: string; before: RequestView; after: RequestView; record: any; trigger: string }) => {
  const debug = readDebug(o.debug);
  expect(debug).toContain(`better-compaction: session.compact trigger=${o.trigger} compacted`);
  expect(debug).toMatch(/better-compaction \(user\) answered session\.compact without next\(\) in [\d.]+ ?ms/);
  expect(o.mock.summarizations().length).toBe(0);
  expect(o.record.outcome).toBe("compacted");
  const dropped = droppedIn(o.record);
  expect(dropped.size).toBeGreaterThan(0);
  expect(comparePruned(o.before, o.after, dropped)).toEqual([]);
  for (const id of dropped) expect(notesOf(o.after).has(id)).toBe(true);
};

test(
  "claude plugin validate passes on the checkout",
  () => {
    const sb = makeSandbox("validate");
    sandboxes.push(sb);
    const r = Bun.spawnSync([bin, "plugin", "validate", REPO], {
      env: { PATH: process.env.PATH ?? "", HOME: sb.home, DISABLE_AUTOUPDATER: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = r.stdout.toString() + r.stderr.toString();
    expect(out).toContain("gating hook with .catch: session.compact");
    expect(out).toContain("hooks: session.compact, turn.complete");
    expect(out).toContain("Validation passed");
    expect(r.exitCode).toBe(0);
  },
  T,
);

describe("headless /compact, three times in a row, then --resume", () => {
  test(
    "(a) + point 3 + (c)",
    async () => {
      const { sb, mock, debug } = setup("manual", filesA(), 1000);
      const session = new HeadlessSession({ bin, sandbox: sb, env: claudeEnv(sb, mock.url), pluginDir: REPO, debugFile: debug });
      const notes: Map<string, string>[] = [];
      try {
        // pass 1 (a)
        await session.send(TURN1);
        const before1 = lastView(mock);
        const c1 = await session.send("/compact");
        expect(JSON.stringify(c1)).not.toContain("Not compacted");
        const n1 = mock.requests.length;
        const q1 = await session.send("What did a.txt say?");
        expect(q1.at(-1).is_error).toBeFalsy();
        const sid = session.sessionId!;
        const recs1 = decisionRecords(sb, sid);
        expect(recs1.length).toBe(1);
        const after1 = firstViewFrom(mock, n1);
        expectCompacted({ mock, debug, before: before1, after: after1, record: recs1[0], trigger: "manual" });
        expect(after1.assistantTexts.at(-1)).toBe(`MOCK DONE: 14 tool calls.`);
        notes.push(notesOf(after1));

        // passes 2 and 3 (point 3): earlier notes byte-identical, a new one per pass
        for (const turn of [TURN2, TURN3]) {
          await session.send(turn);
          const before = lastView(mock);
          await session.send("/compact");
          const n = mock.requests.length;
          await session.send(`And now? (${notes.length})`);
          const after = firstViewFrom(mock, n);
          const record = decisionRecords(sb, sid).at(-1);
          expectCompacted({ mock, debug, before, after, record, trigger: "manual" });
          const now = notesOf(after);
          for (const [id, note] of notes.at(-1)!) expect(now.get(id)).toBe(note);
          expect([...now.keys()].filter((id) => !notes.at(-1)!.has(id)).length).toBeGreaterThan(0);
          notes.push(now);
        }
        expect(decisionRecords(sb, sid).map((r) => r.outcome)).toEqual(["compacted", "compacted", "compacted"]);
        console.log(`point 3: notes after each pass: ${notes.map((n) => n.size).join(", ")}; hook ms: ${hookTimes(readDebug(debug)).join(", ")}`);
        await session.close();

        // (c) a new process resuming the session sends the pruned history, not the original
        const n = mock.requests.length;
        const resumed = await runPrint(
          { bin, sandbox: sb, env: claudeEnv(sb, mock.url), pluginDir: REPO, debugFile: join(sb.dir, "resume.log"), extraArgs: ["--resume", sid] },
          "RESUMED: what now?",
        );
        expect(resumed.code).toBe(0);
        const view = firstViewFrom(mock, n);
        const last = notes.at(-1)!;
        for (const [id, note] of last) expect(view.results.get(id)).toBe(note);
        expect(view.duplicateResults).toEqual([]);
        expect(view.userTexts.at(-1)).toBe("RESUMED: what now?");
        expect(mock.summarizations().length).toBe(0);
      } finally {
        await session.close();
      }
    },
    T,
  );
});

describe("an image and a PDF read before /compact", () => {
  test(
    "its result comes back as the note that the image did not carry over, not as an empty result; a PDF's, after its text",
    async () => {
      // a 1x1 PNG: Claude Code sends a Read of it as an image block
      const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
      const { sb, mock, debug } = setup("image", filesA(), 1000);
      writeFileSync(join(sb.project, "ui.png"), png);
      writeFileSync(join(sb.project, "spec.pdf"), MINIMAL_PDF);
      const session = new HeadlessSession({ bin, sandbox: sb, env: claudeEnv(sb, mock.url), pluginDir: PLUGIN, debugFile: debug });
      try {
        await session.send(`READFILES a.txt ${F("f", 12)} ui.png spec.pdf a.txt`);
        const beforeBody = mock.conversationRequests().at(-1)!.body;
        const before = viewOf(beforeBody);
        const imageCall = before.uses.find((u) => JSON.stringify(u.input).includes("ui.png"))!.id;
        const pdfCall = before.uses.find((u) => JSON.stringify(u.input).includes("spec.pdf"))!.id;
        const resultBlock = (body: any, id: string) =>
          body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === "tool_result" && b.tool_use_id === id);
        // before: the picture's result is an image block, no text; the PDF's, its text and a document block
        expect(JSON.stringify(resultBlock(beforeBody, imageCall).content)).toContain('"type":"image"');
        expect(JSON.stringify(resultBlock(beforeBody, pdfCall).content)).toContain('"type":"document"');
        const pdfText = before.results.get(pdfCall)!;
        expect(pdfText).toStartWith("PDF file read: ");
        expect(before.results.get(imageCall)).toBe("");
        await session.send("/compact");
        const n = mock.requests.length;
        await session.send("What did the picture show?");
        const record = decisionRecords(sb, session.sessionId!).at(-1);
        expect(record.outcome).toBe("compacted");
        const afterBody = mock.conversationRequests().find((r) => r.n >= n)!.body;
        expect(viewOf(afterBody).results.get(imageCall)).toBe(blocksNote({ images: 1, documents: 0 }, imageCall));
        // a PDF too: its text, then the note
        expect(viewOf(afterBody).results.get(pdfCall)).toBe(`${pdfText}\n${blocksNote({ images: 0, documents: 1 }, pdfCall)}`);
        expect(JSON.stringify(afterBody)).not.toContain('"type":"document"');
        expect(JSON.stringify(afterBody)).not.toContain('"type":"image"');
        expect(mock.summarizations().length).toBe(0);
      } finally {
        await session.close();
      }
    },
    T,
  );
});

describe("auto compaction mid-turn, over a ~230,000-token context (b) + point 4", () => {
  test(
    "the hook answers the auto trigger; the next request is pruned; hook time reported",
    async () => {
      const files = bigAndSmall(8);
      let high = false;
      // low usage while the context is built; then high (over the 30% threshold) until a request carries bc's notes
      const { sb, mock, debug } = setup("auto", files, (body: any) => (high && !HAS_NOTE.test(JSON.stringify(body)) ? 350_000 : 1000));
      const env = claudeEnv(sb, mock.url, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "30" });
      const session = new HeadlessSession({ bin, sandbox: sb, env, pluginDir: PLUGIN, debugFile: debug });
      try {
        await session.send(BIG_TURN);
        const before = lastView(mock);
        const chars = [...before.results.values()].reduce((n, t) => n + t.length, 0);
        high = true;
        const n = mock.requests.length;
        const r = await session.send("READFILES s0.txt s1.txt");
        expect(r.at(-1).is_error).toBeFalsy();
        const sid = session.sessionId!;
        const records = decisionRecords(sb, sid);
        expect(records.map((x) => `${x.trigger}:${x.outcome}`)).toEqual(["auto:compacted"]);
        // the turn's second request went out after the compaction
        const afterReq = mock.requests.filter((q) => q.n > n && !q.summarization).find((q) => HAS_NOTE.test(JSON.stringify(q.body)));
        expect(afterReq).toBeDefined();
        expectCompacted({ mock, debug, before, after: viewOf(afterReq!.body), record: records[0], trigger: "auto" });
        const ms = hookTimes(readDebug(debug));
        expect(ms.length).toBe(1);
        console.log(
          `point 4: session.compact (auto) over ${records[0].rowsIn} rows, ${chars} chars of tool output (~${records[0].tokensBefore} tokens estimated, ~${records[0].tokensAfter} after): ` +
            `Claude Code's debug log says "answered session.compact without next() in ${ms[0]} ms"; the hook's own record says ${records[0].ms} ms`,
        );
        expect(records[0].tokensBefore).toBeGreaterThan(200_000);
        // the budget reached by bc alone: no summarizer request reached the model
        expect(records[0].budgetTokens).toBeDefined();
        expect(records[0].tokensAfter).toBeLessThanOrEqual(records[0].budgetTokens!);
        expect(mock.summarizations().length).toBe(0);
        const rules: Record<string, number> = {};
        for (const x of records[0].results) rules[`${x.rule}:${x.action}`] = (rules[`${x.rule}:${x.action}`] ?? 0) + 1;
        console.log(`(b) budget ${records[0].budgetTokens} of a ${records[0].window}-token window; decisions: ${JSON.stringify(rules)}`);
      } finally {
        await session.close();
      }
    },
    T,
  );
});

describe("auto compaction under pressure: the budget reached without the summary", () => {
  test(
    "rules alone leave the history over the budget; the need-ranked escalation cuts latest reads too and reaches it; no summarizer request; a later compaction takes the room lent to a longer head back first (unless a later cut's surplus covers it)",
    async () => {
      const files = bigAndSmall(12);
      let high = false;
      // after the first compaction: every request counted whole, so that new reads bring the next one
      let grow = false;
      // a budget of 15% of the 1M window (150k tokens) for a ~233k-token history whose rules free ~63k;
      // the mock counts the whole request (system prompt and tool definitions too), as the API does,
      // so the budget the rows get is 150k less what they do not show
      // (minFreedPercent 1: the second compaction, 20% of the window down to 15%, frees less than the default 5 points)
      const settings = { pluginConfigs: { "better-compaction@inline": { options: { compactAtPercent: 15, minFreedPercent: 1 } } } };
      const { sb, mock, debug } = setup(
        "pressure",
        files,
        (body: any) => {
          const text = JSON.stringify(body);
          return grow || (high && !HAS_NOTE.test(text)) ? Math.ceil(text.length / 4) : 1000;
        },
        {},
        settings,
      );
      const env = claudeEnv(sb, mock.url, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "20" });
      const session = new HeadlessSession({ bin, sandbox: sb, env, pluginDir: PLUGIN, debugFile: debug });
      try {
        await session.send(BIG_TURN);
        const original = lastView(mock).results;
        high = true;
        const rec = await oneAutoCompaction(session, sb);
        expect(rec.unseenTokens).toBeGreaterThan(0);
        expect(rec.budgetTokens + rec.unseenTokens).toBe(150_000);
        expect(rec.escalated).toBe(true);
        expect(rec.tokensAfter).toBeLessThanOrEqual(rec.budgetTokens);
        // without the escalation the rules stop well above it (what the old engine handed to the summary)
        const cut = rec.results.filter((x: any) => x.rule === "escalation");
        expect(cut.length).toBeGreaterThan(1);
        // each of them the latest read of its file (the files read once), which the rules alone keep
        for (const x of cut) expect(x.tool).toBe("Read");
        expect(mock.summarizations().length).toBe(0);
        const next = mock.requests.filter((q) => !q.summarization).at(-1)!;
        expect(JSON.stringify(next.body)).toMatch(/\\n\[bc cut \d+ more chars; /);
        // the next request, as the mock counts it, lands at the budget
        const nextTokens = Math.ceil(JSON.stringify(next.body).length / 4);
        expect(nextTokens).toBeLessThanOrEqual(150_000);
        console.log(
          `pressure: ~${rec.tokensBefore} -> ~${rec.tokensAfter} tokens for a budget of ${rec.budgetTokens} (150000 less ~${rec.unseenTokens} the rows do not show); ${rec.results.filter((x: any) => x.rule === "escalation").length} results cut by the escalation; the next request ${nextTokens} tokens as the mock counts it (budget 150000); hook ${rec.ms} ms`,
        );
        // the room the cuts left under the budget went to a longer head of one of them
        const lent = rec.results.find((x: any) => x.reason.includes("kept in the room left under the budget"));
        expect(lent).toMatchObject({ rule: "escalation", action: "truncate" });
        // more large reads bring Claude Code's own threshold again: bc answers, and cuts that head back first
        grow = true;
        const r2 = await session.send("READFILES big8.txt big9.txt big10.txt big11.txt s3.txt");
        expect(r2.at(-1).is_error).toBeFalsy();
        const again = decisionRecords(sb, session.sessionId!);
        // (each further read past 20% of the window brings another: every one answered by bc)
        expect(again.length).toBeGreaterThanOrEqual(2);
        expect(new Set(again.map((x) => `${x.trigger}:${x.outcome}`))).toEqual(new Set(["auto:compacted"]));
        for (const later of again.slice(1)) expect(later.tokensAfter).toBeLessThanOrEqual(later.budgetTokens);
        // each later compaction takes the longer head first, and keeps it cut unless a later cut's surplus covers it
        const heads = again.slice(1).map((x) => x.results.find((y: any) => y.callId === lent.callId));
        for (const h of heads.slice(0, heads.findIndex((h) => h.action === "truncate") + 1))
          expect(h.reason).toMatch(/cut to the usual head|in the order, but a later cut freed its room/);
        const back = heads.findIndex((h) => h.rule === "escalation" && h.action === "truncate");
        expect(heads[back].reason).toContain("cut to the usual head");
        expect(mock.summarizations().length).toBe(0);
        // Claude Code sends the model the usual head of the original output, byte for byte, its note counting every char cut
        const text = original.get(lent.callId)!;
        expect(lastView(mock).results.get(lent.callId)).toBe(truncatedText(text, 200, lent.callId));
        console.log(
          `${again.length - 1} more compactions; the longer head of ${lent.callId} back to 200 chars in compaction ${back + 2} of ${again.length} (${back} before it kept it, a later cut's surplus covering it)`,
        );
      } finally {
        await session.close();
      }
    },
    T,
  );
});

describe("auto compaction whose budget the rules cannot reach: answered under handOverAbovePercent", () => {
  test(
    "a budget of 1% of the window, under what pins and prose alone hold: bc answers all the same (the context stays under 75% of the window), no summarizer request, and the log says why",
    async () => {
      const settings = { pluginConfigs: { "better-compaction@inline": { options: { compactAtPercent: 1 } } } };
      let high = false;
      const { sb, mock, debug } = setup(
        "over-budget",
        bigAndSmall(8),
        (body: any) => (high && !HAS_NOTE.test(JSON.stringify(body)) ? Math.ceil(JSON.stringify(body).length / 4) : 1000),
        {},
        settings,
      );
      const env = claudeEnv(sb, mock.url, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "20" });
      const session = new HeadlessSession({ bin, sandbox: sb, env, pluginDir: PLUGIN, debugFile: debug });
      try {
        await session.send(BIG_TURN);
        high = true;
        const rec = await oneAutoCompaction(session, sb);
        expect(rec.tokensAfter).toBeGreaterThan(rec.budgetTokens);
        expect(rec.reason).toContain("(handOverAbovePercent 75): answered, and the next compaction comes sooner");
        expect(mock.summarizations().length).toBe(0);
        const next = mock.requests.filter((q) => !q.summarization).at(-1)!;
        expect(JSON.stringify(next.body)).toMatch(/\[bc removed \d+ chars; /);
        const q = await session.send("Still there?");
        expect(q.at(-1).is_error).toBeFalsy();
        expect(mock.summarizations().length).toBe(0);
      } finally {
        await session.close();
      }
    },
    T,
  );
});

describe("auto compaction of a history heavy in thinking: the budget for what stays", () => {
  test(
    "the mock thinks (signed) before every answer; bc reads the thinking in Claude Code's count from its messages and leaves out of the budget what Claude Code drops with the rows bc rewrites, counting the open tool loop's, which stays: the next request lands at the budget, not under it by the thinking's size; no summarizer request",
    async () => {
      const files = bigAndSmall(8);
      let high = false;
      // ~3,000 tokens of thinking before each answer: ~65,000 in the history the compaction gets
      const thinking = (n: number): string => `Thinking ${n}: ${"weighing what the files say against the task. ".repeat(260)}`;
      // the budget: 15% of the 1M window, 150,000 tokens for the whole request, as the mock counts it
      const settings = { pluginConfigs: { "better-compaction@inline": { options: { compactAtPercent: 15, minFreedPercent: 1 } } } };
      const { sb, mock, debug } = setup("thinking", files, (body: any) => (high ? Math.ceil(JSON.stringify(body).length / 4) : 1000), { thinking }, settings);
      const env = claudeEnv(sb, mock.url, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "20" });
      const session = new HeadlessSession({ bin, sandbox: sb, env, pluginDir: PLUGIN, debugFile: debug });
      try {
        await session.send(BIG_TURN);
        // Claude Code sends the thinking back, signed, in every request
        const built = mock.conversationRequests().at(-1)!.body;
        expect(thinkingTexts(built).length).toBeGreaterThan(15);
        expect(JSON.stringify(built)).toContain(`"signature":"${signatureOf(thinking(1))}"`);
        high = true;
        const rec = await oneAutoCompaction(session, sb);
        expect(mock.summarizations().length).toBe(0);
        // the request Claude Code's count is of, the last before the compaction, and the first after it
        const requests = mock.conversationRequests();
        const after = requests.findIndex((q) => HAS_NOTE.test(JSON.stringify(q.body)));
        expect(after).toBeGreaterThan(0);
        const counted = requests[after - 1]!.body;
        const countedTokens = Math.ceil(JSON.stringify(counted).length / 4);
        // the thinking bc left out is the thinking that request carried, as bc estimates text
        const carried = thinkingTexts(counted).reduce((n, t) => n + Math.ceil(t.length / 4), 0);
        expect(rec.thinkingTokens).toBe(carried);
        expect(rec.thinkingTokens).toBeGreaterThan(40_000);
        expect(rec.thinkingProblem).toBeUndefined();
        // the thinking that stays: the open loop's one answer's, which came with the request's answer
        // (so not in the count), counted against the budget beside what stays with the rows
        const loopThinking = thinking(requests[after - 1]!.n);
        expect(rec.keptThinkingTokens).toBe(Math.ceil(loopThinking.length / 4));
        // Claude Code's count: the rows before the last answer, the thinking, and what stays beside them
        // (system prompt, tools, memory); bc's rows hold that answer and the small read it asked for besides
        const rowsInCount = countedTokens - rec.thinkingTokens - rec.unseenTokens + rec.keptThinkingTokens;
        expect(rec.tokensBefore - rowsInCount).toBeGreaterThan(0);
        expect(rec.tokensBefore - rowsInCount).toBeLessThan(1_000);
        expect(rec.budgetTokens + rec.unseenTokens).toBe(150_000);
        expect(rec.escalated).toBe(true);
        expect(rec.tokensAfter).toBeLessThanOrEqual(rec.budgetTokens);
        // the next request: no thinking of the compacted history but the open loop's (its one
        // answer, which bc hands back with its handle), and at the budget (counted as the
        // thinking stayed, it would be ~50,000 tokens under it)
        const next = requests[after]!.body;
        expect(thinkingTexts(next)).toEqual([loopThinking]);
        const nextTokens = Math.ceil(JSON.stringify(next).length / 4);
        expect(nextTokens).toBeLessThanOrEqual(150_000);
        expect(nextTokens).toBeGreaterThan(150_000 - rec.thinkingTokens / 5);
        console.log(
          `thinking: Claude Code counted ${countedTokens} tokens (~${rec.thinkingTokens} of them thinking it drops, ~${rec.unseenTokens} beside the rows with the loop's ~${rec.keptThinkingTokens}); bc's rows ~${rec.tokensBefore} -> ~${rec.tokensAfter} for a budget of ${rec.budgetTokens}; the next request ${nextTokens} tokens as the mock counts it (budget 150000); hook ${rec.ms} ms`,
        );
      } finally {
        await session.close();
      }
    },
    T,
  );
});

describe("auto compaction of a history with no tool output to remove: the thinking Claude Code drops is what frees the room", () => {
  test(
    "a conversation of answers that think but call no tool, over Claude Code's threshold: bc answers with the rows as they are (rebuilt, without the thinking), not a skip that leaves the context full; no summarizer request; the next request carries none of the old thinking and every prose text as it was",
    async () => {
      let high = false;
      const thinking = (n: number): string => `Thinking ${n}: ${"weighing the question against what was said. ".repeat(260)}`;
      const settings = { pluginConfigs: { "better-compaction@inline": { options: { compactAtPercent: 15, minFreedPercent: 1 } } } };
      const { sb, mock, debug } = setup("thinking-only", {}, () => (high ? 250_000 : 1000), { thinking }, settings);
      const env = claudeEnv(sb, mock.url, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "20" });
      const session = new HeadlessSession({ bin, sandbox: sb, env, pluginDir: PLUGIN, debugFile: debug });
      try {
        for (let i = 0; i < 8; i++) await session.send(`question ${i}: what do you make of it?`);
        expect(thinkingTexts(mock.conversationRequests().at(-1)!.body).length).toBeGreaterThan(5);
        high = true;
        // the answer to this question reports the count over the threshold; the next question brings the compaction
        await session.send("question 8: and now?");
        const before8 = mock.conversationRequests().at(-1)!.body;
        const r = await session.send("question 9: and then?");
        expect(r.at(-1).is_error).toBeFalsy();
        const records = decisionRecords(sb, session.sessionId!);
        expect(records.map((x) => `${x.trigger}:${x.outcome}`)).toEqual(["auto:compacted"]);
        const rec = records[0];
        expect(rec.results).toEqual([]);
        expect(rec.tokensAfter).toBe(rec.tokensBefore);
        expect(rec.thinkingTokens).toBeGreaterThan(15_000);
        expect(mock.summarizations().length).toBe(0);
        // the request after the compaction: the same prose, none of the compacted history's thinking
        const after = mock.conversationRequests().at(-1)!.body;
        expect(thinkingTexts(after).filter((t) => thinkingTexts(before8).includes(t))).toEqual([]);
        const prose = (body: any): string[] =>
          (body.messages as any[]).flatMap((m) =>
            typeof m.content === "string" ? [m.content] : m.content.filter((b: any) => b.type === "text").map((b: any) => b.text),
          );
        for (const text of prose(before8)) expect(prose(after)).toContain(text);
        console.log(
          `thinking only: Claude Code counted 250000 tokens, ~${rec.thinkingTokens} of them thinking it drops; bc's rows ~${rec.tokensBefore} tokens, answered as they are in ${rec.ms} ms`,
        );
      } finally {
        await session.close();
      }
    },
    T,
  );
});

/**
 * A session that thinks (signed), for an automatic compaction in the middle of a turn: Claude
 * Code's count stays low until a request holds `marker` (a read's first line), then is the whole
 * request as the mock counts it, so the answer to that request brings the compaction (threshold at
 * 20% of the 1M window; the plugin's budget 15%, 150,000 tokens). `send` sends BIG_TURN first,
 * with the count low, then `turn`.
 */
const midTurnCompaction = (name: string, files: Record<string, string>, marker: string, thought: string, more: Partial<MockOptions> = {}) => {
  let high = false;
  const counted = (body: any): number => {
    const text = JSON.stringify(body);
    return high && text.includes(marker) ? Math.ceil(text.length / 4) : 1000;
  };
  const thinking = (n: number): string => `Thinking ${n}: ${thought.repeat(30)}`;
  const settings = { pluginConfigs: { "better-compaction@inline": { options: { compactAtPercent: 15, minFreedPercent: 1 } } } };
  const { sb, mock, debug } = setup(name, files, counted, { thinking, ...more }, settings);
  const env = claudeEnv(sb, mock.url, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "20" });
  const session = new HeadlessSession({ bin, sandbox: sb, env, pluginDir: PLUGIN, debugFile: debug });
  const send = async (turn: string) => {
    await session.send(BIG_TURN);
    high = true;
    return session.send(turn);
  };
  return { sb, mock, env, session, send, thinking };
};

/**
 * A turn of `calls` scripted steps through one mid-turn compaction: no request of it refused (the
 * API would refuse one whose open loop lost its thinking), its answer no error, one automatic
 * compaction answered by bc and no summary asked for. The compaction's record.
 */
const compactedMidTurn = (sb: Sandbox, mock: Mock, session: HeadlessSession, r: any[], calls: number): any => {
  expect(mock.refusals().map((q) => q.refused)).toEqual([]);
  expect(r.at(-1).is_error).toBeFalsy();
  expect(r.at(-1).result).toBe(`MOCK DONE: ${calls} tool calls.`);
  const records = decisionRecords(sb, session.sessionId!);
  expect(records.map((x) => `${x.trigger}:${x.outcome}`)).toEqual(["auto:compacted"]);
  expect(mock.summarizations().length).toBe(0);
  return records[0];
};

describe("auto compaction mid-turn in a session that thinks: the open tool loop keeps its thinking", () => {
  test(
    "the mock holds requests to the API's rule for thinking with tool use (the answer that made the last calls opens with its thinking, as sent); an automatic compaction in the middle of a turn's tool calls is answered by bc, and the turn's next request is accepted: every answer since the prompt carries its thinking byte for byte, signature included, while bc still prunes results inside the turn",
    async () => {
      // the loop: a file read twice (bc drops the first read) among small ones
      const files: Record<string, string> = { ...bigAndSmall(8), "lbig.txt": big("lbig") };
      for (let i = 0; i < 5; i++) files[`l${i}.txt`] = small(`l${i}.txt`);
      const LOOP = "READFILES l0.txt lbig.txt l1.txt l2.txt lbig.txt l3.txt l4.txt";
      // Claude Code's count stays low until the loop's third read is in: the answer to that request
      // brings the compaction, right before the turn's next request
      const { sb, mock, env, session, send, thinking } = midTurnCompaction("thinking-loop", files, "l2.txt line 0:", "which file answers the task next. ");
      try {
        // no request of the turn was refused: the API would have refused today's with a 400
        const rec = compactedMidTurn(sb, mock, session, await send(LOOP), 7);
        // the turn's first request after the compaction: it ends in the loop's fifth call (the second read of lbig.txt)
        const next = mock.conversationRequests().find((q) => HAS_NOTE.test(JSON.stringify(q.body)))!;
        const answers = openLoopAnswers(next.body);
        const calls = answers.map((blocks) => blocks.filter((b) => b.type === "tool_use").map((b) => b.id as string));
        expect(calls.map((ids) => ids.length)).toEqual([1, 1, 1, 1, 1]);
        // every answer of the loop opens with the thinking the mock gave it, as sent
        for (const [k, blocks] of answers.entries()) {
          const given = mock.thinkingFor(calls[k]![0]!)!;
          expect(given.length).toBe(1);
          expect(blocks.slice(0, given.length)).toEqual(given.map((b) => ({ type: b.type, thinking: b.thinking, signature: b.signature })));
        }
        // and no thinking from before the loop: Claude Code rebuilt those rows without it
        expect(thinkingTexts(next.body)).toEqual(answers.map((blocks) => blocks[0].thinking));
        // the budget counted the loop's thinking, which stays, and left out the rest, as bc estimates text
        const estimate = (texts: string[]): number => texts.reduce((k, t) => k + Math.ceil(t.length / 4), 0);
        const countedBody = mock
          .conversationRequests()
          .filter((q) => q.n < next.n)
          .at(-1)!.body;
        expect(rec.keptThinkingTokens).toBe(estimate(thinkingTexts(next.body)));
        expect(rec.thinkingTokens).toBe(estimate(thinkingTexts(countedBody)) - estimate(thinkingTexts(next.body).slice(0, -1)));
        expect(rec.budgetTokens + rec.unseenTokens).toBe(150_000);
        // bc still pruned inside the loop: the first read of lbig.txt, read again since, is a note
        const firstLbig = calls[1]![0]!;
        expect(rec.results.find((x: any) => x.callId === firstLbig)).toMatchObject({ action: "drop" });
        expect(notesOf(viewOf(next.body)).has(firstLbig)).toBe(true);
        // Claude Code's count is of the request before the loop's last answer: that answer and the
        // large read it asked for come after it, and the next request still lands within the budget
        const nextTokens = Math.ceil(JSON.stringify(next.body).length / 4);
        expect(nextTokens).toBeLessThanOrEqual(150_000);
        console.log(
          `thinking loop: bc's rows ~${rec.tokensBefore} -> ~${rec.tokensAfter} for a budget of ${rec.budgetTokens} (150000 less ~${rec.unseenTokens}); the next request ${nextTokens} tokens as the mock counts it; the next request (${next.n}) carries the loop's ${answers.length} answers with their thinking; ${rec.results.filter((x: any) => x.action === "drop").length} results dropped, the loop's first read of lbig.txt among them; hook ${rec.ms} ms`,
        );
        await session.close();

        // --resume in a new process: every result before the loop is as bc left it, byte for byte
        // (notes, truncated heads, kept results). The loop's assistant rows went back with their
        // handles, so their records after the compaction share message.id with the ones before it,
        // and Claude Code's resume takes those back in with what they carried (its recovery of
        // parallel tool calls): the result bc dropped inside the loop is whole again, and each of
        // the loop's answers carries its thinking and text twice. A known cost of keeping the
        // loop's thinking, for a session resumed after a compaction in the middle of a turn
        const loopCalls = new Set(calls.flat());
        const live = viewOf(next.body);
        expect([...droppedIn(rec)].every((id) => notesOf(live).has(id))).toBe(true);
        const original = viewOf(
          mock
            .conversationRequests()
            .filter((q) => q.n < next.n)
            .at(-1)!.body,
        ).results.get(firstLbig)!;
        const n = mock.requests.length;
        const last = mock.conversationRequests().at(-1)!;
        const resumed = await runPrint(
          { bin, sandbox: sb, env, pluginDir: PLUGIN, debugFile: join(sb.dir, "resume.log"), extraArgs: ["--resume", session.sessionId!] },
          "RESUMED: what now?",
        );
        expect(resumed.code).toBe(0);
        expect(mock.refusals()).toEqual([]);
        const first = mock.conversationRequests().find((q) => q.n >= n)!;
        const view = viewOf(first.body);
        const before = [...live.results].filter(([id]) => !loopCalls.has(id));
        expect(before.filter(([id]) => droppedIn(rec).has(id)).length).toBeGreaterThan(0);
        for (const [id, text] of before) expect(view.results.get(id)).toBe(text);
        expect(view.results.get(firstLbig)).toBe(original);
        expect(view.duplicateResults).toEqual([]);
        expect(view.uses.map((u) => u.id)).toEqual([...new Set(view.uses.map((u) => u.id))]);
        expect(view.userTexts.at(-1)).toBe("RESUMED: what now?");
        const loopThinking = answers.map((blocks) => blocks[0].thinking as string);
        expect(thinkingTexts(first.body)).toEqual([
          ...loopThinking.flatMap((t) => [t, t]),
          ...thinkingTexts(last.body).slice(loopThinking.length),
          thinking(last.n),
        ]);
        console.log(
          `resume: ${before.length} results before the loop as bc left them; the loop's dropped ${firstLbig} back whole (${original.length} chars); the loop's ${loopThinking.length} thinking blocks twice`,
        );
      } finally {
        await session.close();
      }
    },
    T,
  );
});

/**
 * The transcript's records from the first Read of `first` on, as "call:<file>" and "result:<file>":
 * the order Claude Code wrote a parallel answer's calls and their results in.
 */
const readOrder = (sb: Sandbox, sessionId: string, first: string): string[] => {
  const names = new Map<string, string>();
  const order: string[] = [];
  for (const line of readFileSync(transcriptPath(sb, sessionId), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const row = JSON.parse(line);
    const content = row?.message?.content;
    if (!Array.isArray(content)) continue;
    for (const b of content) {
      if (b?.type === "tool_use" && typeof b.input?.file_path === "string") {
        names.set(b.id, b.input.file_path.split("/").at(-1));
        order.push(`call:${names.get(b.id)}`);
      } else if (b?.type === "tool_result" && names.has(b.tool_use_id)) order.push(`result:${names.get(b.tool_use_id)}`);
    }
  }
  return order.slice(Math.max(0, order.indexOf(`call:${first}`)));
};

describe("auto compaction right after an answer that read files in parallel", () => {
  // At once: Claude Code writes the answer's calls together, their results after them. Streamed
  // slowly (a pause after each block, as a model streams), it runs the first read before the
  // second call has arrived and writes call, result, call, result, as real transcripts of
  // 2.1.39 to 2.1.235 do (the test logs the order it found). Either way the request after the
  // compaction pairs each call with its result, within the budget.
  for (const [pace, more] of [
    ["at once", {}],
    ["streamed slowly", { parallelBlockDelayMs: 500 }],
  ] as const) {
    test(
      `${pace}: the count is of the request before the answer that read two large files at once; bc reads that answer's calls from Claude Code's messages (the API joins its records into one message) and counts none of its records or results as held: the next request lands within the budget`,
      async () => {
        const files: Record<string, string> = { ...bigAndSmall(8), "pbig1.txt": big("pbig1"), "pbig2.txt": big("pbig2") };
        for (let i = 0; i < 4; i++) files[`p${i}.txt`] = small(`p${i}.txt`);
        // the count stays low until p2.txt's result is in: the answer to that request reads two large files at once
        const TURN = "READFILES p0.txt p1.txt p2.txt pbig1.txt,pbig2.txt p3.txt";
        const { sb, mock, session, send } = midTurnCompaction(
          `parallel-${pace.replace(/ /g, "-")}`,
          files,
          "p2.txt line 0:",
          "which files to read together. ",
          more,
        );
        try {
          const rec = compactedMidTurn(sb, mock, session, await send(TURN), 5);
          const requests = mock.conversationRequests();
          const after = requests.findIndex((q) => HAS_NOTE.test(JSON.stringify(q.body)) || /\\n\[bc cut \d+ more chars; /.test(JSON.stringify(q.body)));
          expect(after).toBeGreaterThan(0);
          // the request the count is of held neither large read; the one after the compaction is the first to carry them
          const countedBody = JSON.stringify(requests[after - 1]!.body);
          expect(countedBody).not.toContain("pbig1 line 0");
          expect(countedBody).not.toContain("pbig2 line 0");
          // the request after it pairs both parallel calls with their results, in one answer
          const parallel = openLoopAnswers(requests[after]!.body)
            .at(-1)!
            .filter((b) => b.type === "tool_use");
          expect(
            parallel.map((b) =>
              String((b.input as { file_path: string }).file_path)
                .split("/")
                .at(-1),
            ),
          ).toEqual(["pbig1.txt", "pbig2.txt"]);
          expect(unpairedCalls(requests[after]!.body)).toEqual([]);
          // what the rows do not show: about what the rows of the other compactions do not show (system prompt, tools), not less by a large read
          expect(rec.budgetTokens + rec.unseenTokens).toBe(150_000);
          expect(rec.unseenTokens).toBeGreaterThan(15_000);
          const nextTokens = Math.ceil(JSON.stringify(requests[after]!.body).length / 4);
          expect(nextTokens).toBeLessThanOrEqual(150_000);
          const order = readOrder(sb, session.sessionId!, "pbig1.txt").slice(0, 4);
          console.log(
            `parallel, ${pace}: the transcript holds the answer as ${order.join(", ")}; bc's rows ~${rec.tokensBefore} -> ~${rec.tokensAfter} for a budget of ${rec.budgetTokens} (150000 less ~${rec.unseenTokens}); the next request ${nextTokens} tokens as the mock counts it; hook ${rec.ms} ms`,
          );
        } finally {
          await session.close();
        }
      },
      T,
    );
  }
});

describe("(d) a failing hook", () => {
  test(
    "gives 'Not compacted' and the session answers the next prompt",
    async () => {
      const { sb, mock, debug } = setup("fail", filesA(), 1000);
      // the real plugin, with compactRows replaced by one that throws (register.ts and its .catch unchanged)
      const plugin = join(sb.dir, "plugin");
      writePluginFiles(plugin, await pluginFiles());
      renameSync(join(plugin, "hooks", "better-compaction.js"), join(plugin, "hooks", "bc-inner.js"));
      writeFileSync(
        join(plugin, "hooks", "better-compaction.js"),
        `export * from "./bc-inner.js";\nexport function compactRows() { throw new Error("injected failure"); }\n`,
      );
      const session = new HeadlessSession({ bin, sandbox: sb, env: claudeEnv(sb, mock.url), pluginDir: plugin, debugFile: debug });
      try {
        await session.send(TURN1);
        const c = await session.send("/compact");
        const said = JSON.stringify(c);
        expect(said).toContain("Not compacted");
        expect(said).toContain("better-compaction failed (injected failure); not compacted");
        const q = await session.send("Still there?");
        expect(q.at(-1).is_error).toBeFalsy();
        expect(JSON.stringify(q)).toContain("MOCK ANSWER to: Still there?");
        expect(mock.summarizations().length).toBe(0);
        expect(readDebug(debug)).toContain("its .catch answered");
      } finally {
        await session.close();
      }
    },
    T,
  );
});

describe("a handover whose summary fails", () => {
  test(
    "the rules free too little, so bc hands over; Claude Code's summary fails once per compaction (bc does not ask again); the compaction is reported failed and the session answers the next prompt",
    async () => {
      let high = false;
      // a short session (every result too recent to judge: the rules free nothing), then usage over the threshold
      const { sb, mock, debug } = setup("handover-fails", filesA(), () => (high ? 350_000 : 1000), { failSummaries: true });
      const env = claudeEnv(sb, mock.url, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "30" });
      const session = new HeadlessSession({ bin, sandbox: sb, env, pluginDir: PLUGIN, debugFile: debug });
      try {
        await session.send("READFILES a.txt b.txt");
        high = true;
        const r = await session.send("READFILES c.txt");
        high = false;
        const statuses = r.filter((x: any) => x.type === "system" && x.subtype === "status" && x.compact_result !== undefined);
        expect(statuses.map((x: any) => x.compact_result)).toContain("failed");
        expect(JSON.stringify(statuses)).toContain("mock: summarization refused");
        expect(r.at(-1).is_error).toBeFalsy();
        const q = await session.send("Still there?");
        expect(q.at(-1).is_error).toBeFalsy();
        expect(JSON.stringify(q)).toContain("MOCK ANSWER to: Still there?");
        const records = decisionRecords(sb, session.sessionId!);
        expect(records.length).toBeGreaterThan(0);
        for (const x of records) expect(`${x.trigger}:${x.outcome}`).toBe("auto:handed-over");
        // one summary per handover: bc's .catch does not run Claude Code's summarizer a second time
        const failures = readDebug(debug)
          .split("\n")
          .filter((l) => l.includes("summarization returned API error"));
        expect(failures.length).toBe(records.length);
        expect(mock.summarizations().length).toBeGreaterThan(0);
      } finally {
        await session.close();
      }
    },
    T,
  );
});

describe("headless sessions: the turn.complete loop stays quiet", () => {
  test(
    "at 70% of the window the loop's $.session.compact() is refused once, caught, and not tried again",
    async () => {
      const { sb, mock, debug } = setup("quiet", filesA(), 700_000);
      const session = new HeadlessSession({ bin, sandbox: sb, env: claudeEnv(sb, mock.url), pluginDir: PLUGIN, debugFile: debug });
      try {
        for (const p of ["First question", "Second question", "Third question", "Fourth question"]) {
          const r = await session.send(p);
          expect(r.at(-1).is_error).toBeFalsy();
          expect(JSON.stringify(r)).toContain(`MOCK ANSWER to: ${p}`);
        }
        const tries = readDebug(debug)
          .split("\n")
          .filter((l) => l.includes("better-compaction: the loop did not compact"));
        expect(tries.length).toBe(1);
        expect(tries[0]).toContain("headless");
        expect(readDebug(debug)).not.toContain("session.compact trigger=");
      } finally {
        await session.close();
      }
    },
    T,
  );
});

const tmuxAvailable = Bun.which("tmux") !== null;

describe("(e) interactive: turn.complete compacts at compactAtPercent", () => {
  test.skipIf(!tmuxAvailable)(
    "under tmux, the loop's $.session.compact() runs the plugin with trigger plugin",
    async () => {
      const files = bigAndSmall(3);
      // 70% of the 1M window until bc's notes are in a request
      const { sb, mock, debug } = setup("tmux", files, (body: any) => (HAS_NOTE.test(JSON.stringify(body)) ? 100_000 : 700_000));
      const env = claudeEnv(sb, mock.url, { TERM: "xterm-256color" });
      const socket = `bc-e2e-${process.pid}`;
      const tmux = (...args: string[]) => Bun.spawnSync(["tmux", "-L", socket, ...args], { stdout: "pipe", stderr: "pipe" });
      const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
      const cmd = ["env", "-i", ...envArgs, bin, "--plugin-dir", PLUGIN, "--debug-file", debug, "--permission-mode", "acceptEdits"];
      const quoted = cmd.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
      const started = tmux("new-session", "-d", "-s", "main", "-x", "200", "-y", "50", "-c", sb.project, quoted);
      expect(started.exitCode).toBe(0);
      const screen = () => tmux("capture-pane", "-p", "-t", "main").stdout.toString();
      try {
        await waitFor(() => readDebug(debug).includes("hooks module better-compaction@inline loaded"), 60_000, "the plugin to load");
        await waitFor(() => /❯|>/.test(screen()), 30_000, "the prompt");
        await Bun.sleep(1500);
        tmux("send-keys", "-t", "main", "-l", `READFILES big0.txt big1.txt big2.txt ${F("s", 10)} big0.txt big1.txt big2.txt`);
        await Bun.sleep(300);
        tmux("send-keys", "-t", "main", "Enter");
        await waitFor(() => readDebug(debug).includes("session.compact trigger=plugin"), 120_000, `the loop's compaction; screen:\n${screen()}`).catch((e) => {
          throw new Error(`${e.message}\n--- screen ---\n${screen()}\n--- debug tail ---\n${readDebug(debug).split("\n").slice(-30).join("\n")}`);
        });
        // Claude Code writes its own verdict on the dispatch a moment after the hook's line
        const STANDS = /session\.compact \(plugin\): a hook's \d+ messages stand/;
        await waitFor(() => STANDS.test(readDebug(debug)), 30_000, "Claude Code to install the hook's messages");
        const debugText = readDebug(debug);
        expect(debugText).toContain("better-compaction: session.compact trigger=plugin compacted");
        expect(debugText).toMatch(STANDS);
        expect(mock.summarizations().length).toBe(0);
        // the next prompt's request carries the notes
        const n = mock.requests.length;
        tmux("send-keys", "-t", "main", "-l", "What now?");
        await Bun.sleep(300);
        tmux("send-keys", "-t", "main", "Enter");
        // (Claude Code 2.1.337 asks for the session's title first: that request is not the prompt's)
        const next = () => mock.conversationRequests().find((r) => r.n >= n);
        await waitFor(() => next() !== undefined, 60_000, "the next request");
        expect(notesOf(viewOf(next()!.body)).size).toBe(3);
      } finally {
        tmux("kill-server");
      }
    },
    T,
  );
  if (!tmuxAvailable) test("tmux is not installed: the interactive check (e) is skipped (apt-get install -y tmux)", () => {});
});

describe("(f) the plugin installed from the binary with bc claude install --dir", () => {
  test.skipIf(!existsSync(BC))(
    "behaves the same, validates, shows in status and log, and uninstalls",
    async () => {
      const { sb, mock, debug } = setup("installed", filesA(), 1000);
      const env = claudeEnv(sb, mock.url, { PATH: `${dirname(bin)}:${process.env.PATH ?? ""}` });
      const bc = (...args: string[]) => {
        const r = Bun.spawnSync([BC, ...args], { env, stdout: "pipe", stderr: "pipe", timeout: 180_000 });
        return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
      };
      const market = join(sb.dir, "marketplace");
      const inst = bc("claude", "install", "--dir", market);
      expect(inst.stderr).toContain("installed better-compaction@better-compaction-local");
      expect(inst.code).toBe(0);
      const plugin = join(market, "plugins", "better-compaction");
      const v = Bun.spawnSync([bin, "plugin", "validate", plugin], { env, stdout: "pipe", stderr: "pipe" });
      expect(v.stdout.toString() + v.stderr.toString()).toContain("gating hook with .catch: session.compact");
      expect(v.exitCode).toBe(0);
      const status = JSON.parse(bc("claude", "status", "--json").stdout);
      expect(status.installed).toMatchObject({ id: "better-compaction@better-compaction-local", enabled: true });
      expect(status.claude.version).toBe(TARGET.version);

      const session = new HeadlessSession({ bin, sandbox: sb, env, debugFile: debug });
      try {
        await session.send(TURN1);
        const before = lastView(mock);
        await session.send("/compact");
        const n = mock.requests.length;
        await session.send("What did a.txt say?");
        const sid = session.sessionId!;
        expect(readDebug(debug)).toContain("hooks module better-compaction@better-compaction-local loaded");
        expectCompacted({ mock, debug, before, after: firstViewFrom(mock, n), record: decisionRecords(sb, sid)[0], trigger: "manual" });
      } finally {
        await session.close();
      }
      const shown = bc("claude", "log");
      expect(shown.stdout).toContain("manual  compacted:");
      expect(shown.stdout).toContain("superseded-read");
      const un = bc("claude", "uninstall");
      expect(un.code).toBe(0);
      expect(existsSync(market)).toBe(false);
      expect(JSON.parse(bc("claude", "status", "--json").stdout).installed).toBeUndefined();
    },
    T,
  );
  if (!existsSync(BC)) test("dist/bc is missing: (f) is skipped (npm run test:e2e builds it first)", () => {});
});

describe("the installed plugin (the bundle bc claude install writes)", () => {
  test(
    "compacts a ~230,000-token history three times in a row, each without the summary (the hook's milliseconds are logged: the bundle binds the built-ins it names, which Claude Code's hooks worker looks up slowly by name)",
    async () => {
      const { sb, mock, debug } = setup("bundle", bigAndSmall(8), 1000);
      const session = new HeadlessSession({ bin, sandbox: sb, env: claudeEnv(sb, mock.url), pluginDir: PLUGIN, debugFile: debug });
      try {
        await session.send(BIG_TURN);
        for (let i = 0; i < 3; i++) {
          await session.send("/compact");
          await session.send(`READFILES big${i}.txt s${i}.txt`);
        }
        const records = decisionRecords(sb, session.sessionId!);
        expect(records.map((r) => `${r.trigger}:${r.outcome}`)).toEqual(["manual:compacted", "manual:compacted", "manual:compacted"]);
        expect(records[0].tokensBefore).toBeGreaterThan(200_000);
        expect(mock.summarizations().length).toBe(0);
        console.log(`bundle: ${records.map((r) => `~${r.tokensBefore} -> ~${r.tokensAfter} tokens in ${r.ms} ms`).join("; ")}`);
      } finally {
        await session.close();
      }
    },
    T,
  );
});
