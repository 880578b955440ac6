// End to end with the real Codex: pinned @openai/codex releases installed into
// test/e2e/.cache, a temp CODEX_HOME whose provider is the scripted Responses mock on 127.0.0.1,
// `codex exec` over real files, `bc codex-fork`, then `codex exec resume <new id>`: the mock's
// logged request bodies must carry exactly the pruned history. And a thread archived with
// `codex archive`, forked by its id, resumes from the fork; a thread Codex forked itself
// (`codex exec fork`, its history before the fork in the parent's file), forked by bc, resumes
// with that history.
//
// Run: npm run test:e2e (or: bun test ./test/e2e/codex.e2e.ts). Uses dist/bc when present, else bun src/main.ts.
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { dropNote, readNote, truncatedText } from "../../src/engine/notes.ts";
import { codexTokens } from "../../src/hosts/codex/codex-estimate.ts";
import { isInjectedContext } from "../../src/hosts/codex/items.ts";
import { CANONICAL_NAME_RE } from "../../src/hosts/codex/fork-names.ts";
import { rebuildHistory } from "../../src/hosts/codex/history.ts";
import { contentText, isOutputItem, isPersonMessage, outputText, sentForm } from "../../src/hosts/codex/items.ts";
import { spawnStdio } from "../../src/hosts/codex/live/app-server.ts";
import { trustText } from "../../src/hosts/codex/live/install.ts";
import { lastOrdinal, readRollout } from "../../src/hosts/codex/rollout.ts";
import { CORPUS_DIR, corpusFiles, SKIP_NOTE } from "../support/shared.ts";
import { codexExec, codexResume, type CodexEnv, listRollouts, makeCodexEnv, run, WORK_FILES } from "./support/codex-env.ts";
import { installCodex, type InstalledCodex } from "./support/codex-install.ts";
import { type HostTarget, hostTargets } from "./support/versions.ts";
import { type LoggedRequest, type MockServer, startMock } from "./support/codex-mock.ts";
import { baseInstructionsOf, inputAfterBaseInstructions } from "./support/codex-requests.ts";

const REPO = join(import.meta.dir, "..", "..");
const DIST = join(REPO, "dist", process.platform === "win32" ? "bc.exe" : "bc");
const BC = existsSync(DIST) ? [DIST] : [process.execPath, join(REPO, "src", "main.ts")];
const SLOW = 240_000;
const CANARY = "CANARY-7f3a-PELICAN";
/** How the context the test's hooks add begins. */
const HOOK_MARK = "HOOK-CONTEXT-5e1d";

/** Enough shell calls, with re-reads, that the default rules have something to remove. */
const COMMANDS = [
  "cat a.txt",
  "cat b.txt",
  "ls",
  "cat notes.md",
  "wc -c b.txt",
  "cat a.txt",
  "grep -n alpha a.txt",
  "cat b.txt",
  "ls -la",
  "echo step-10",
  "cat notes.md",
  "head -c 20 b.txt",
  "echo step-13",
  "cat a.txt",
  "ls",
  "echo step-16",
];
const PROMPT = COMMANDS.map((c) => `RUN: ${c}`).join(" ");

type Item = Record<string, any>;

const bc = (args: string[], e: CodexEnv) => run([...BC, ...args], { cwd: e.work, env: e.env, timeoutMs: 60_000 });

const fileState = (p: string) => ({ bytes: readFileSync(p), mtimeMs: statSync(p).mtimeMs });

const show = (v: unknown): string => {
  const s = JSON.stringify(v, null, 1);
  return s.length > 1500 ? `${s.slice(0, 1500)}…` : s;
};

/**
 * Codex re-serializes the items it reads: its own key order, absent optional fields written as
 * null (e.g. an old reasoning item gains "content": null). Compare values, not serializations:
 * keys sorted, null fields set aside; every string (prose, arguments, outputs) still compared whole.
 */
const normalize = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(normalize);
  if (typeof v !== "object" || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== null && x !== undefined) out[k] = normalize(x);
  }
  return out;
};

/**
 * Compare the items sent with the items expected; on a difference, fail with the first differing
 * item of each, readably. Codex's own `internal_chat_message_metadata_passthrough` is set aside:
 * with the built-in openai provider Codex adds it to requests itself (it is not in the fork).
 */
const expectSameItems = (label: string, sent: readonly Item[], expected: readonly Item[]): void => {
  const actual = sent.map((it) => sentForm(it as any) as Item);
  const n = Math.max(actual.length, expected.length);
  for (let i = 0; i < n; i++) {
    if (JSON.stringify(normalize(actual[i])) === JSON.stringify(normalize(expected[i]))) continue;
    throw new Error(
      `${label}: item ${i} of ${actual.length} (expected ${expected.length}) differs\n--- expected\n${show(expected[i])}\n--- sent\n${show(actual[i])}`,
    );
  }
};

const textOf = (item: Item): string => (Array.isArray(item.content) ? contentText(item.content) : "");

/** The resumed request must be: [base] + replacement history verbatim + (fresh: re-injected context) + prompt. */
const expectResumeRequest = (req: LoggedRequest, fork: Item, context: "fresh" | "keep", prompt: string, base: string): Item[] => {
  const f = readRollout(fork.path);
  const compacted = [...f.lines].reverse().find((l) => l.kind === "compacted") as any;
  const rh = compacted.payload.replacement_history as Item[];
  const input = inputAfterBaseInstructions(req.body, base);
  expectSameItems("the resumed request's history", input.slice(0, rh.length), rh);
  const rest = input.slice(rh.length);
  const last = rest.at(-1)!;
  expect(last.role).toBe("user");
  expect(textOf(last)).toBe(prompt);
  const between = rest.slice(0, -1);
  if (context === "keep") expect(between).toEqual([]);
  else {
    expect(between.length).toBeGreaterThan(0);
    for (const it of between) expect(isInjectedContext(it as any)).toBe(true);
  }
  return input.slice(0, rh.length).map((it) => sentForm(it as any) as Item);
};

/** The context Codex injected anew in a resumed request: the items between the fork's history and the prompt. */
const reinjectedIn = (req: LoggedRequest, fork: Item, base: string): Item[] => {
  const compacted = [...readRollout(fork.path).lines].reverse().find((l) => l.kind === "compacted") as any;
  const input = inputAfterBaseInstructions(req.body, base);
  return input.slice((compacted.payload.replacement_history as Item[]).length, -1).map((it) => sentForm(it as any) as Item);
};

/** Each output sent is the source's byte for byte, or bc's note for it; user prompts are intact. */
const expectPrunedVerbatim = (sent: readonly Item[], sourcePath: string): { kept: number; dropped: number; truncated: number } => {
  const src = rebuildHistory(readRollout(sourcePath)).items.map((h) => sentForm(h.item) as Item);
  const srcOutputs = new Map(src.filter((it) => isOutputItem(it as any)).map((it) => [it.call_id as string, outputText(it.output).text]));
  let kept = 0;
  let dropped = 0;
  let truncated = 0;
  for (const it of sent) {
    if (!isOutputItem(it as any)) continue;
    const original = srcOutputs.get(it.call_id);
    expect(original).toBeDefined();
    const text = outputText(it.output).text;
    if (text === original) kept++;
    else if (text === dropNote(original!.length, it.call_id)) dropped++;
    else {
      expect(text.startsWith(original!.slice(0, 20))).toBe(true);
      expect(text.length).toBeLessThan(original!.length);
      truncated++;
    }
  }
  const people = (items: readonly Item[]) => items.filter((it) => isPersonMessage(it as any)).map((it) => JSON.stringify(it));
  expect(people(sent)).toEqual(people(src));
  return { kept, dropped, truncated };
};

/** A canary source: the real rollout plus a newer compacted record whose history is only a codeword. */
const writeCanarySource = (sourcePath: string, dest: string): void => {
  const src = readRollout(sourcePath);
  const ord = lastOrdinal(src);
  const rec: Item = {
    timestamp: new Date().toISOString(),
    ...(ord === undefined ? {} : { ordinal: ord + 1 }),
    type: "compacted",
    payload: {
      message: "",
      replacement_history: [{ type: "message", role: "user", content: [{ type: "input_text", text: `Remember this codeword: ${CANARY}` }] }],
    },
  };
  writeFileSync(dest, `${readFileSync(sourcePath, "utf8") + JSON.stringify(rec)}\n`);
};

/** Mark every hook Codex lists for the work folder trusted, with the key and hash Codex itself reports (`hooks/list`), as Codex's /hooks does. */
const trustEveryHook = async (codexBin: string, e: CodexEnv): Promise<void> => {
  const client = await spawnStdio(codexBin, e.env);
  try {
    const r: { data: { hooks: { key: string; currentHash: string; trustStatus: string }[] }[] } = await client.request(
      "hooks/list",
      { cwds: [e.work] },
      30_000,
    );
    const hooks = r.data.flatMap((d) => d.hooks);
    expect(hooks.length).toBeGreaterThan(0);
    for (const h of hooks) if (h.trustStatus !== "trusted") appendFileSync(join(e.home, "config.toml"), trustText(h.key, h.currentHash));
  } finally {
    client.close();
  }
};

const forkJson = async (e: CodexEnv, args: string[]): Promise<Item> => {
  const r = await bc(["codex-fork", ...args, "--json"], e);
  if (r.exitCode !== 0) throw new Error(`bc codex-fork ${args.join(" ")} failed (${r.exitCode}):\n${r.stderr}`);
  return JSON.parse(r.stdout);
};

const mocks: MockServer[] = [];
const envs: CodexEnv[] = [];
afterAll(() => {
  for (const m of mocks) m.stop();
  if (!process.env.BC_E2E_KEEP) for (const e of envs) e.cleanup();
  else for (const e of envs) console.log(`kept ${e.root}`);
});

const suite = (version: string, opts: { legacyCorpus: boolean; target: HostTarget }) =>
  describe(`Codex ${version}`, () => {
    let codex: InstalledCodex;
    let mock: MockServer;
    let env: CodexEnv;
    let source = "";
    let before: ReturnType<typeof fileState>;
    let fresh: Item;
    /** the fork's text as bc wrote it (resuming appends to it) */
    let freshText = "";
    /** the base instructions Codex sent in the original session */
    let base = "";

    /** `codex exec resume <id> <prompt>` (a non-zero exit fails the test): the requests it sent the mock, and what it printed. */
    const resumed = async (id: string, prompt: string, extra: string[] = [], e: CodexEnv = env): Promise<{ requests: LoggedRequest[]; stdout: string }> => {
      const sizeBefore = mock.requests.length;
      const r = await codexResume(codex.bin, e, id, prompt, extra);
      if (r.exitCode !== 0) throw new Error(`codex exec resume failed (${r.exitCode}):\n${r.stderr.slice(-3000)}`);
      return { requests: mock.responses().filter((q) => q.n > sizeBefore), stdout: r.stdout };
    };

    test(
      "(a) codex exec produces a real rollout with several shell calls over real files",
      async () => {
        codex = installCodex(opts.target);
        mock = startMock({ lifetimeMs: 15 * 60_000 });
        mocks.push(mock);
        env = makeCodexEnv(mock.url);
        envs.push(env);
        const r = await codexExec(codex.bin, env, PROMPT);
        if (r.exitCode !== 0) throw new Error(`codex exec failed (${r.exitCode}):\n${r.stderr.slice(-3000)}`);
        expect(r.stdout).toContain(`Done: ran ${COMMANDS.length} command(s).`);
        const files = listRollouts(env.home);
        expect(files).toHaveLength(1);
        source = files[0]!;
        before = fileState(source);
        const rollout = readRollout(source);
        expect(rollout.format).toBe("paginated");
        expect(rollout.malformed).toEqual([]);
        expect(rollout.lines.map((l) => (l as any).ordinal)).toEqual(rollout.lines.map((_, i) => i));
        const items = rebuildHistory(rollout).items.map((h) => h.item as Item);
        const calls = items.filter((it) => it.type === "function_call");
        const outputs = items.filter((it) => it.type === "function_call_output");
        expect(calls.map((c) => JSON.parse(c.arguments).cmd ?? JSON.parse(c.arguments).command)).toEqual(COMMANDS);
        expect(outputs.map((o) => o.call_id)).toEqual(calls.map((c) => c.call_id));
        // the outputs are the real files' contents
        expect(outputText(outputs[0]!.output).text).toContain(WORK_FILES["a.txt"]!);
        expect(mock.compactionRequests()).toHaveLength(0);
        base = baseInstructionsOf(mock.responses()[0]!.body);
        expect(base.length).toBeGreaterThan(1000);
      },
      SLOW,
    );

    test(
      "(b) bc codex-fork forks it (by session id), removing some results",
      async () => {
        const id = readRollout(source).lines[0]!.kind === "session_meta" ? ((readRollout(source).lines[0] as any).payload.id as string) : "";
        fresh = await forkJson(env, [id]);
        freshText = readFileSync(fresh.path, "utf8");
        expect(fresh.sourceId).toBe(id);
        expect(fresh.written).toBe(true);
        expect(fresh.path.startsWith(join(env.home, "sessions"))).toBe(true);
        expect(CANONICAL_NAME_RE.exec(basename(fresh.path))?.[7]).toBe(fresh.newId);
        expect(fresh.results.dropped + fresh.results.truncated).toBeGreaterThan(0);
        expect(fresh.tokens.after).toBeLessThan(fresh.tokens.before);
        expect(fileState(source)).toEqual(before);
      },
      SLOW,
    );

    test(
      "(c) codex exec resume <new id> sends exactly the pruned history, with no compaction first",
      async () => {
        const prompt = "Summarize what you found.";
        // an auto-compact limit under the source's context size: without bc's fresh token_count,
        // Codex would summarize the pruned history before this turn
        const srcTokens = (
          readRollout(source)
            .lines.filter((l) => l.kind === "event_msg" && (l as any).payload.type === "token_count")
            .at(-1) as any
        ).payload.info.last_token_usage.total_tokens as number;
        const reqs = (await resumed(fresh.newId, prompt, ["-c", `model_auto_compact_token_limit=${srcTokens - 100}`])).requests;
        expect(reqs.length).toBeGreaterThan(0);
        expect(reqs[0]!.kind).not.toBe("compaction");
        const turnMeta = JSON.parse(reqs[0]!.headers["x-codex-turn-metadata"] ?? "{}");
        if ("history_initialization" in turnMeta) expect(turnMeta.history_initialization).toBe("cold_resume");
        const sent = expectResumeRequest(reqs[0]!, fresh, "fresh", prompt, base);
        const counts = expectPrunedVerbatim(sent, source);
        expect(counts.dropped).toBe(fresh.results.dropped);
        expect(counts.truncated).toBe(fresh.results.truncated);
        expect(counts.kept).toBe(fresh.results.kept);
        // a truncated output keeps its head byte for byte and ends with bc's note
        for (const it of sent)
          if (isOutputItem(it as any)) {
            const t = outputText(it.output).text;
            if (readNote(t)?.kind === "truncated") {
              const src = rebuildHistory(readRollout(source)).items.find((h) => isOutputItem(h.item) && h.item.call_id === it.call_id)!.item as Item;
              const orig = outputText(src.output).text;
              expect([...Array(orig.length).keys()].some((h) => truncatedText(orig, h, it.call_id) === t)).toBe(true);
            }
          }
        expect(fileState(source)).toEqual(before);
      },
      SLOW,
    );

    test(
      "(c, subagent) a subagent's thread (session_id: the spawning session's) forks, keeps that session_id, and resumes with exactly its pruned history",
      async () => {
        // the rollout as a subagent's thread records it: its session_id is the session that spawned it
        const parent = "01a20000-0000-7000-8000-0000000a9e17";
        const lines = readFileSync(source, "utf8").split("\n");
        const meta = JSON.parse(lines[0]!);
        if (!("session_id" in meta.payload)) return; // a Codex that writes no session_id has no such threads
        meta.payload.session_id = parent;
        meta.payload.parent_thread_id = parent;
        meta.payload.thread_source = "subagent";
        const copy = join(env.root, `subagent-${basename(source)}`);
        writeFileSync(copy, [JSON.stringify(meta), ...lines.slice(1)].join("\n"));
        const fork = await forkJson(env, [copy]);
        const forkMeta = readRollout(fork.path).lines[0] as any;
        expect(forkMeta.payload.id).toBe(fork.newId);
        expect(forkMeta.payload.session_id).toBe(parent);
        const prompt = "Summarize what you found.";
        const reqs = (await resumed(fork.newId, prompt)).requests;
        expect(reqs[0]!.kind).not.toBe("compaction");
        const sent = expectResumeRequest(reqs[0]!, fork, "fresh", prompt, base);
        expect(expectPrunedVerbatim(sent, copy).dropped).toBe(fork.results.dropped);
      },
      SLOW,
    );

    test(
      "(c, control) the same fork without bc's fresh token_count IS summarized first at that limit",
      async () => {
        // shows the limit used in (c) bites: only the appended token_count kept Codex from compacting
        const lines = freshText.trimEnd().split("\n");
        expect(JSON.parse(lines.at(-1)!).payload.type).toBe("token_count");
        const controlId = "01a20000-0000-7000-8000-00000000c0c0";
        const control = `${[lines[0]!.replaceAll(fresh.newId, controlId), ...lines.slice(1, -1)].join("\n")}\n`;
        writeFileSync(join(env.home, "sessions", `rollout-2026-01-01T00-00-00-${controlId}.jsonl`), control);
        const srcTokens = (
          readRollout(source)
            .lines.filter((l) => l.kind === "event_msg" && (l as any).payload.type === "token_count")
            .at(-1) as any
        ).payload.info.last_token_usage.total_tokens as number;
        const reqs = (await resumed(controlId, "Summarize what you found.", ["-c", `model_auto_compact_token_limit=${srcTokens - 100}`])).requests;
        expect(reqs[0]!.kind).toBe("compaction");
      },
      SLOW,
    );

    /**
     * The source with its last output's line made one Codex cannot read: the output's text and the
     * line's bytes (`spoil`: from the line as JSON.stringify writes it), under a new id.
     */
    const spoiltSource = (id: string, output: string, spoil: (line: Buffer) => Buffer = (l) => l): { path: string; at: number; callId: string } => {
      const lines = readFileSync(source, "utf8").trimEnd().split("\n");
      const sourceId = JSON.parse(lines[0]!).payload.id as string;
      const at = lines.findLastIndex((l) => l.includes('"function_call_output"'));
      const record = JSON.parse(lines[at]!);
      record.payload.output = output;
      const bytes = lines.map((l, i) =>
        i === 0 ? Buffer.from(l.replaceAll(sourceId, id)) : i === at ? spoil(Buffer.from(JSON.stringify(record))) : Buffer.from(l),
      );
      const path = join(env.home, "sessions", `rollout-2026-01-01T00-00-00-${id}.jsonl`);
      writeFileSync(path, Buffer.concat(bytes.flatMap((b) => [b, Buffer.from("\n")])));
      return { path, at, callId: record.payload.call_id as string };
    };

    /** `codex exec resume`, which may fail: its exit code and, when it ran, the text of its first request. */
    const resumeText = async (id: string): Promise<{ exitCode: number; sent: string; why: string; first?: LoggedRequest }> => {
      const sizeBefore = mock.requests.length;
      const r = await codexResume(codex.bin, env, id, "Go on.", []);
      const first = mock.responses().find((q) => q.n > sizeBefore);
      if (r.exitCode === 0) expect(first!.kind).not.toBe("compaction");
      return { exitCode: r.exitCode ?? -1, sent: JSON.stringify(first?.body ?? ""), why: r.stderr.trim().split("\n").at(-1) ?? "", first };
    };

    /** The fork's history as written, but for the output Codex itself puts after a call that has none ("aborted"), as it does resuming the source. */
    const expectHistoryButAborted = (req: LoggedRequest, fork: Item, callId: string): void => {
      const input = inputAfterBaseInstructions(req.body, base);
      expect(input.filter((it) => it.call_id === callId).map((it) => [it.type, it.output])).toEqual([
        ["function_call", undefined],
        ["function_call_output", "aborted"],
      ]);
      const compacted = [...readRollout(fork.path).lines].reverse().find((l) => l.kind === "compacted") as any;
      const rh = compacted.payload.replacement_history as Item[];
      expectSameItems(
        "the resumed request's history",
        input.filter((it) => !(it.call_id === callId && it.type === "function_call_output")).slice(0, rh.length),
        rh,
      );
    };

    test(
      "(c, lone surrogate) Codex skips a line holding a lone UTF-16 surrogate escape (JSON.parse reads it); the fork leaves it out of its history and is resumed with that history",
      async () => {
        const marker = "LONE-SURROGATE-MARKER";
        // Codex itself: the output is sent with an ordinary character, and left out with a lone surrogate
        spoiltSource("01a20000-0000-7000-8000-00000000d7ff", `${marker} plain`);
        const plain = await resumeText("01a20000-0000-7000-8000-00000000d7ff");
        expect(plain.exitCode).toBe(0);
        expect(plain.sent).toContain(marker);
        // JSON.stringify writes a lone surrogate as the escape a damaged or hand-edited rollout holds
        const lone = spoiltSource("01a20000-0000-7000-8000-00000000d800", `${marker} \ud83d`);
        expect(readFileSync(lone.path, "utf8")).toContain("\\ud83d");
        const direct = await resumeText("01a20000-0000-7000-8000-00000000d800");
        expect(direct.exitCode).toBe(0);
        expect(direct.sent).not.toContain(marker);
        // bc: the line is said and skipped; the fork's compacted record is read (an old build's was
        // skipped whole, and the full history sent), its history sent as written
        const fork = await forkJson(env, [lone.path]);
        expect(fork.skippedLines).toEqual([expect.stringContaining(`:${lone.at + 1}: a lone UTF-16 surrogate (\\ud83d) that Codex cannot read`)]);
        const reqs = (await resumed(fork.newId, "Go on.")).requests;
        expect(reqs[0]!.kind).not.toBe("compaction");
        expect(JSON.stringify(reqs[0]!.body)).not.toContain(marker);
        expectHistoryButAborted(reqs[0]!, fork, lone.callId);
      },
      SLOW,
    );

    test(
      "(c, not UTF-8) a line holding bytes that are not UTF-8: the fork leaves it out of its history as Codex does, and is resumable exactly when the source is",
      async () => {
        const marker = "NOT-UTF8-MARKER";
        const bad = spoiltSource("01a20000-0000-7000-8000-00000000ffee", `${marker} @@ end`, (line) => {
          const k = line.indexOf(`${marker} @@`) + marker.length + 1;
          line[k] = 0xff;
          line[k + 1] = 0xfe;
          return line;
        });
        const direct = await resumeText("01a20000-0000-7000-8000-00000000ffee");
        console.log(`(c, not UTF-8) Codex resumes the source: exit ${direct.exitCode}${direct.exitCode === 0 ? "" : ` (${direct.why})`}`);
        const fork = await forkJson(env, [bad.path]);
        expect(fork.skippedLines).toEqual([expect.stringContaining(`:${bad.at + 1}: bytes that are not valid UTF-8, which Codex cannot read`)]);
        // the line is copied as it is: a Codex that refuses the source (0.150.1) refuses the fork too
        const line = readFileSync(bad.path).subarray(0, -1).toString("latin1").split("\n")[bad.at]!;
        expect(readFileSync(fork.path).toString("latin1").split("\n")).toContain(line);
        const forked = await resumeText(fork.newId);
        expect(forked.exitCode).toBe(direct.exitCode);
        if (direct.exitCode !== 0) return;
        // a Codex that resumes the source leaves the line out (0.169.0 and later)
        expect(direct.sent).not.toContain(marker);
        expect(forked.sent).not.toContain(marker);
        expectHistoryButAborted(forked.first!, fork, bad.callId);
      },
      SLOW,
    );

    test(
      "(c, budget) a fork cut to a budget resumes without compacting at a limit the rules-only fork is compacted at",
      async () => {
        const id = fresh.sourceId as string;
        const rulesOnly = await forkJson(env, [id, "--budget", "none"]);
        // the history as Codex counts it (the budget's measure): with the rules alone (a budget no
        // history reaches), as far as a budget can go (pins and prose stay), and a budget halfway
        const counted = async (budget: string) => (await forkJson(env, [id, "--budget", budget, "--dry-run"])).budget.codexTokens as number;
        const whole = await counted("1000000000");
        const floor = await counted("1");
        expect(floor).toBeLessThan(whole);
        const budget = Math.floor((floor + whole) / 2);
        const cut = await forkJson(env, [id, "--budget", String(budget)]);
        expect(cut.budget).toMatchObject({ tokens: budget, reached: true });
        expect(cut.byRule.escalation.removed).toBeGreaterThan(0);
        expect(cut.estimatedTokens).toBeLessThan(rulesOnly.estimatedTokens);
        // a limit between the two: over what the rules-only fork tells Codex, under what the budgeted one does
        const limit = Math.floor((cut.estimatedTokens + rulesOnly.estimatedTokens) / 2);
        const resume = async (forkId: string) => (await resumed(forkId, "Go on.", ["-c", `model_auto_compact_token_limit=${limit}`])).requests;
        const budgeted = await resume(cut.newId);
        expect(budgeted[0]!.kind).not.toBe("compaction");
        expectPrunedVerbatim(expectResumeRequest(budgeted[0]!, cut, "fresh", "Go on.", base), source);
        // what the resumed thread holds, as the budget counts it, is the history bc told Codex and
        // the one set of context Codex injected anew (the source's own, as it first shows it)
        const injected = codexTokens(reinjectedIn(budgeted[0]!, cut, base));
        console.log(`(c, budget) held ~${cut.heldTokens}: told ~${cut.estimatedTokens}, context Codex injected ~${injected}`);
        expect(cut.heldTokens).toBe(cut.estimatedTokens + injected);
        const control = await resume(rulesOnly.newId);
        expect(control[0]!.kind).toBe("compaction");
        console.log(`(c, budget) rules only ~${rulesOnly.estimatedTokens} tokens told, with --budget ${budget} ~${cut.estimatedTokens}; limit ${limit}`);
        expect(fileState(source)).toEqual(before);
      },
      SLOW,
    );

    test(
      "(c, keep) with --context keep the request is base instructions + the history + the prompt, nothing re-injected",
      async () => {
        const keep = await forkJson(env, [source, "--context", "keep"]);
        const prompt = "And now?";
        const reqs = (await resumed(keep.newId, prompt)).requests;
        expect(reqs[0]!.kind).not.toBe("compaction");
        const sent = expectResumeRequest(reqs[0]!, keep, "keep", prompt, base);
        expect(sent.some((it) => it.role === "developer")).toBe(true);
        expectPrunedVerbatim(sent, source);
      },
      SLOW,
    );

    test(
      "(c, hooks) a hook's developer messages stay in a fresh fork: the resumed fork's first request carries each once, in its place, and the context Codex re-injects once",
      async () => {
        // a SessionStart and a UserPromptSubmit hook of the user's, each adding context that names
        // its run: what a run added is told apart from what the next one adds
        const e = makeCodexEnv(mock.url);
        envs.push(e);
        const script = join(e.root, "hook-context.sh");
        writeFileSync(
          script,
          `#!/bin/sh\ncat > /dev/null\nn=$(( $(cat '${e.root}/hook-runs' 2>/dev/null || echo 0) + 1 ))\necho $n > '${e.root}/hook-runs'\n` +
            `printf '{"hookSpecificOutput":{"hookEventName":"%s","additionalContext":"${HOOK_MARK} %s run %s: lessons the hook recalls"}}\\n' "$1" "$1" "$n"\n`,
          { mode: 0o755 },
        );
        const group = (event: string) => [{ hooks: [{ type: "command", command: `${script} ${event}`, timeout: 30 }] }];
        writeFileSync(
          join(e.home, "hooks.json"),
          JSON.stringify({ hooks: { SessionStart: group("SessionStart"), UserPromptSubmit: group("UserPromptSubmit") } }),
        );
        await trustEveryHook(codex.bin, e);
        const sizeBefore = mock.requests.length;
        const made = await codexExec(codex.bin, e, "RUN: cat a.txt RUN: cat b.txt RUN: cat a.txt RUN: echo one RUN: echo two");
        if (made.exitCode !== 0) throw new Error(`codex exec failed (${made.exitCode}):\n${made.stderr.slice(-3000)}`);
        const ownBase = baseInstructionsOf(mock.responses().find((q) => q.n > sizeBefore)!.body);
        const hookSource = listRollouts(e.home)[0]!;
        const hookText = (it: Item): boolean => it.type === "message" && it.role === "developer" && textOf(it).startsWith(HOOK_MARK);
        const hooked = rebuildHistory(readRollout(hookSource))
          .items.map((h) => sentForm(h.item) as Item)
          .filter(hookText);
        expect(hooked.map(textOf)).toEqual([
          `${HOOK_MARK} SessionStart run 1: lessons the hook recalls`,
          `${HOOK_MARK} UserPromptSubmit run 2: lessons the hook recalls`,
        ]);
        const id = (readRollout(hookSource).lines[0] as any).payload.id as string;
        const fork = await forkJson(e, [id]);
        // Codex names them a hook's in their metadata
        expect(fork.keptDeveloperMessages.map((m: Item) => [m.author, m.opening])).toEqual(hooked.map((h) => ["hook", textOf(h).slice(0, 60)]));
        const rh = [...readRollout(fork.path).lines].reverse().find((l) => l.kind === "compacted") as any;
        expect((rh.payload.replacement_history as Item[]).filter(hookText)).toEqual(hooked);
        const prompt = "Go on.";
        const first = (await resumed(fork.newId, prompt, [], e)).requests[0]!;
        expect(first.kind).not.toBe("compaction");
        const input = inputAfterBaseInstructions(first.body, ownBase);
        const history = rh.payload.replacement_history as Item[];
        // the history as bc wrote it, the hook's messages in their places, byte for byte
        expectSameItems("the resumed request's history", input.slice(0, history.length), history);
        const count = (text: string): number => input.filter((it) => it.type === "message" && textOf(it) === text).length;
        for (const h of hooked) expect(count(textOf(h))).toBe(1);
        // the context Codex re-injects, once: its developer message and its environment
        const context = input.slice(history.length).filter((it) => isInjectedContext(it as any));
        expect(context.map((it) => it.role)).toEqual(["developer", "user"]);
        for (const c of context) expect(count(textOf(c))).toBe(1);
        expect(input.filter((it) => isInjectedContext(it as any))).toHaveLength(2);
        // what Codex adds besides: the hooks' new runs (the resumed session's start, the new prompt), and the prompt
        expect(input.slice(history.length).filter(hookText).map(textOf)).toEqual([
          `${HOOK_MARK} SessionStart run 3: lessons the hook recalls`,
          `${HOOK_MARK} UserPromptSubmit run 4: lessons the hook recalls`,
        ]);
        expect(count(prompt)).toBe(1);
        // what bc counted the thread holds: the history it told Codex, the hooks' messages in it, and the context Codex injected
        expect(fork.estimatedTokens).toBe(codexTokens(history));
        expect(fork.heldTokens).toBe(fork.estimatedTokens + codexTokens(context.map((it) => sentForm(it as any))));
        console.log(`(c, hooks) ${hooked.length} hook messages kept (~${codexTokens(hooked)} tokens); held ~${fork.heldTokens}`);
      },
      SLOW,
    );

    test(
      "(d) the canary: a fork whose history is only a codeword sends the codeword and nothing of the original",
      async () => {
        const canarySource = join(env.root, basename(source).replace(/\.jsonl$/, "-canary.jsonl"));
        writeCanarySource(source, canarySource);
        const canary = await forkJson(env, [canarySource]);
        expect(canary.historyItems).toBe(1);
        const { requests: reqs, stdout } = await resumed(canary.newId, "What is the codeword?");
        expect(stdout).toContain(`The codeword is ${CANARY}.`);
        expect(reqs[0]!.kind).toBe("codeword");
        const body = JSON.stringify(reqs[0]!.body);
        expect(body).toContain(CANARY);
        for (const absent of ["RUN: cat a.txt", WORK_FILES["a.txt"]!, "The build uses", "Done: ran"])
          expect(body).not.toContain(JSON.stringify(absent).slice(1, -1));
        expect(reqs.filter((q) => q.kind === "compaction")).toHaveLength(0);
      },
      SLOW,
    );

    test("(e) the source rollout is byte-identical afterwards", () => {
      expect(source).not.toBe("");
      expect(fileState(source)).toEqual(before);
    });

    if (opts.legacyCorpus) {
      const corpus = corpusFiles("codex", [CORPUS_DIR])
        .filter((f) => readFileSync(f, "utf8").includes('"function_call_output"'))
        .sort((a, b) => statSync(a).size - statSync(b).size);
      /** A fork of a corpus rollout resumed with "Continue.": the history Codex sent first (not a compaction). */
      const resumeCorpusFork = async (fork: Item, copy: string): Promise<Item[]> => {
        const prompt = "Continue.";
        // Codex refuses to move a thread to another provider: resume with the built-in `openai`
        // provider (the rollout's), pointed at the mock
        const openai = { ...env, env: { ...env.env, OPENAI_API_KEY: "mock-key" } };
        const reqs = (await resumed(fork.newId, prompt, ["-c", "model_provider=openai", "-c", `openai_base_url=${JSON.stringify(mock.url)}`], openai)).requests;
        expect(reqs[0]!.kind).not.toBe("compaction");
        const meta = readRollout(copy).lines[0] as any;
        return expectResumeRequest(reqs[0]!, fork, "fresh", prompt, meta.payload.base_instructions.text);
      };
      test.skipIf(corpus.length === 0)(
        `(f) a real legacy rollout from the corpus, forked and resumed on ${version}, sends exactly its pruned history`,
        async () => {
          const file = corpus[0]!;
          const copy = join(env.root, basename(file));
          copyFileSync(file, copy);
          const legacyBefore = fileState(copy);
          expect(readRollout(copy).format).toBe("legacy");
          const fork = await forkJson(env, [copy]);
          expect(fork.format).toBe("legacy");
          const counts = expectPrunedVerbatim(await resumeCorpusFork(fork, copy), copy);
          expect(counts.dropped).toBe(fork.results.dropped);
          expect(fileState(copy)).toEqual(legacyBefore);
        },
        SLOW,
      );
      test.skipIf(corpus.length === 0)(
        `(f, budget twice) a fork of a budgeted fork of a real rollout, to a smaller budget, cuts the longer head the first lent back to the usual head; ${version} resumes it as written`,
        async () => {
          const copy = join(env.root, `twice-${basename(corpus[0]!)}`);
          copyFileSync(corpus[0]!, copy);
          const copyBefore = fileState(copy);
          // the history as Codex counts it (the budget's measure); "all": with the rules alone
          const after = async (from: string, budget: string) =>
            (await forkJson(env, [from, "--budget", budget === "all" ? "1000000000" : budget, "--dry-run"])).budget.codexTokens as number;
          const first = await forkJson(env, [copy, "--budget", String(Math.floor(((await after(copy, "1")) + (await after(copy, "all"))) / 2))]);
          const outputs = (path: string) =>
            new Map(
              rebuildHistory(readRollout(path))
                .items.filter((h) => isOutputItem(h.item))
                .map((h) => [(h.item as Item).call_id as string, outputText((h.item as Item).output).text]),
            );
          const originals = outputs(copy);
          const usual = (id: string) => truncatedText(originals.get(id)!, 200, id);
          // the head the first fork kept in the room its budget left: longer than the usual one
          const lent = [...outputs(first.path)].find(([id, text]) => (readNote(text)?.head?.length ?? 0) > readNote(usual(id))!.head!.length);
          expect(lent).toBeDefined();
          const [id, text] = lent!;
          // over what the rules leave of the first fork by half of what that head holds beyond the
          // usual one: cutting it back alone reaches the budget
          const budget = (await after(first.path, "all")) - Math.floor((text.length - usual(id).length) / 8);
          const second = await forkJson(env, [first.path, "--budget", String(budget)]);
          expect(second.budget).toMatchObject({ reached: true });
          expect(outputs(second.path).get(id)).toBe(usual(id));
          const sent = await resumeCorpusFork(second, copy);
          expectPrunedVerbatim(sent, copy);
          expect(outputText(sent.find((it) => isOutputItem(it as any) && it.call_id === id)!.output).text).toBe(usual(id));
          expect(fileState(copy)).toEqual(copyBefore);
        },
        SLOW,
      );
      if (corpus.length === 0) console.warn(`(f) skipped: ${SKIP_NOTE}`);
    }

    test(
      "(g) a thread archived with `codex archive`: bc codex-fork <its id> finds it in archived_sessions and forks it into sessions, where codex exec resume runs it",
      async () => {
        const archive = await run([codex.bin, "archive", "--help"], { cwd: env.work, env: env.env, timeoutMs: 60_000 });
        if (archive.exitCode !== 0) {
          console.warn(`(g) skipped: Codex ${version} has no \`codex archive\``);
          return;
        }
        const e = makeCodexEnv(mock.url);
        envs.push(e);
        const made = await codexExec(codex.bin, e, "RUN: cat a.txt RUN: ls RUN: cat a.txt");
        if (made.exitCode !== 0) throw new Error(`codex exec failed (${made.exitCode}):\n${made.stderr.slice(-3000)}`);
        const id = (readRollout(listRollouts(e.home)[0]!).lines[0] as any).payload.id as string;
        const archived = await run([codex.bin, "archive", id], { cwd: e.work, env: e.env, timeoutMs: 60_000 });
        expect(archived.exitCode).toBe(0);
        expect(listRollouts(e.home)).toEqual([]);
        const fork = await forkJson(e, [id]);
        expect(fork.sourceId).toBe(id);
        expect(fork.sourcePath).toContain("archived_sessions");
        expect(fork.path.startsWith(join(e.home, "sessions"))).toBe(true);
        const r = await codexResume(codex.bin, e, fork.newId, "Continue.");
        if (r.exitCode !== 0) throw new Error(`codex exec resume failed (${r.exitCode}):\n${r.stderr.slice(-3000)}`);
      },
      SLOW,
    );

    test(
      "(h) a thread Codex forked itself (codex exec fork, history in the parent's file): bc codex-fork of it keeps the parent's part, which the resumed fork sends",
      async () => {
        const e = makeCodexEnv(mock.url);
        envs.push(e);
        const parentPrompt = "PARENT-PROMPT-7d1c RUN: cat a.txt RUN: ls RUN: cat a.txt";
        const made = await codexExec(codex.bin, e, parentPrompt);
        if (made.exitCode !== 0) throw new Error(`codex exec failed (${made.exitCode}):\n${made.stderr.slice(-3000)}`);
        const parent = listRollouts(e.home)[0]!;
        const parentId = (readRollout(parent).lines[0] as any).payload.id as string;
        const forked = await run([codex.bin, "exec", "--skip-git-repo-check", "fork", parentId, "CHILD-PROMPT-7d1c RUN: cat notes.md"], {
          cwd: e.work,
          env: e.env,
          timeoutMs: 120_000,
        });
        if (forked.exitCode !== 0) throw new Error(`codex exec fork failed (${forked.exitCode}):\n${forked.stderr.slice(-3000)}`);
        const native = listRollouts(e.home).find((p) => p !== parent)!;
        const nativeMeta = (readRollout(native, { inherit: false }).lines[0] as any).payload;
        expect(nativeMeta.history_base.thread_id).toBe(parentId);
        expect(readFileSync(native, "utf8")).not.toContain("PARENT-PROMPT-7d1c");
        const fork = await forkJson(e, [nativeMeta.id]);
        const sizeBefore = mock.requests.length;
        const r = await codexResume(codex.bin, e, fork.newId, "Continue.");
        if (r.exitCode !== 0) throw new Error(`codex exec resume failed (${r.exitCode}):\n${r.stderr.slice(-3000)}`);
        const first = mock.responses().filter((q) => q.n > sizeBefore)[0]!;
        expect(first.kind).not.toBe("compaction");
        const sent = JSON.stringify(first.body);
        expect(sent).toContain("PARENT-PROMPT-7d1c");
        expect(sent).toContain("CHILD-PROMPT-7d1c");
      },
      SLOW,
    );

    test(
      "(i) a thread named in Codex (app-server thread/name/set): bc codex-fork <its name> finds it through Codex's session_index.jsonl and names the fork after it, and codex exec resume <the name> runs the fork, the source untouched",
      async () => {
        const e = makeCodexEnv(mock.url);
        envs.push(e);
        const made = await codexExec(codex.bin, e, "RUN: cat a.txt RUN: ls RUN: cat a.txt");
        if (made.exitCode !== 0) throw new Error(`codex exec failed (${made.exitCode}):\n${made.stderr.slice(-3000)}`);
        const id = (readRollout(listRollouts(e.home)[0]!).lines[0] as any).payload.id as string;
        const name = "fix the login bug";
        const client = await spawnStdio(codex.bin, e.env);
        try {
          await client.request("thread/name/set", { threadId: id, name }, 30_000);
        } finally {
          client.close();
        }
        expect(readFileSync(join(e.home, "session_index.jsonl"), "utf8")).toContain(`"thread_name":"${name}"`);
        const fork = await forkJson(e, [name]);
        expect(fork.sourceId).toBe(id);
        // the fork takes the name, as Codex's own forks do: Codex then resumes the fork by the name
        expect(fork.name).toBe(name);
        const source = fileState(listRollouts(e.home).find((p) => p !== fork.path)!);
        const forkSize = statSync(fork.path).size;
        const r = await codexResume(codex.bin, e, name, "Continue.");
        if (r.exitCode !== 0) throw new Error(`codex exec resume failed (${r.exitCode}):\n${r.stderr.slice(-3000)}`);
        expect(statSync(fork.path).size).toBeGreaterThan(forkSize);
        expect(fileState(listRollouts(e.home).find((p) => p !== fork.path)!)).toEqual(source);
        const unknown = await bc(["codex-fork", "no thread is called this"], e);
        expect(unknown.exitCode).not.toBe(0);
        expect(unknown.stderr).toContain("no session with that id or name");
      },
      SLOW,
    );
  });

for (const target of hostTargets("codex")) suite(target.version, { legacyCorpus: target.legacyCorpus === true, target });
