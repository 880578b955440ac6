// The fork with the real rules engine: fork of a fork, and the CLI.
import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { dropNote, readNote } from "../../../src/engine/notes.ts";
import { codexTokens } from "../../../src/hosts/codex/codex-estimate.ts";
import { enginePruner, forkRollout } from "../../../src/hosts/codex/fork.ts";
import { isInjectedContext } from "../../../src/hosts/codex/items.ts";
import { rebuildHistory } from "../../../src/hosts/codex/history.ts";
import { isOutputItem, outputText, type ResponseItem, sentForm } from "../../../src/hosts/codex/items.ts";
import { parseRollout, readRollout } from "../../../src/hosts/codex/rollout.ts";
import { modelWindowOf } from "../../../src/hosts/codex/rollout.ts";
import { tokenCount } from "../../../src/util/format.ts";
import { REPO_DIR } from "../../support/shared.ts";
import { RolloutBuilder, bigText } from "./live/support.ts";

const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "codex");
const LEGACY = join(FIXTURES, "fork-legacy-0.140.jsonl");
const PAGINATED = join(FIXTURES, "fork-paginated-0.169.0.jsonl");
/** loose enough that the small fixtures lose something */
const LOOSE = { pinLastMessages: 2, recentResults: 1 };

const temps: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "bc-fork-engine-"));
  temps.push(d);
  return d;
};
afterEach(() => {
  while (temps.length > 0) rmSync(temps.pop()!, { recursive: true, force: true });
});

const outputsOf = (path: string): string[] =>
  rebuildHistory(readRollout(path))
    .items.filter((h) => isOutputItem(h.item))
    .map((h) => outputText((h.item as any).output).text);

describe("fork with the rules engine", () => {
  test("dropped outputs become the engine's removal note; everything else is the source's, verbatim", () => {
    const r = forkRollout(LEGACY, { context: "fresh", pruner: enginePruner(LOOSE), codexHome: tempDir() });
    expect(r.pruning.resultsDropped).toBeGreaterThan(0);
    const src = rebuildHistory(readRollout(LEGACY))
      .items.map((h) => sentForm(h.item))
      .filter((it) => !isInjectedContext(it));
    const fork = rebuildHistory(readRollout(r.path)).items.map((h) => h.item);
    expect(fork).toHaveLength(src.length);
    let dropped = 0;
    fork.forEach((it, i) => {
      const orig = src[i]!;
      if (JSON.stringify(it) === JSON.stringify(orig)) return;
      expect(isOutputItem(orig)).toBe(true);
      const text = outputText((orig as any).output).text;
      expect(outputText((it as any).output).text).toBe(dropNote(text.length, (orig as any).call_id));
      dropped++;
    });
    expect(dropped).toBe(r.pruning.resultsDropped);
    // what the command prints by rule adds up to what the fork removed
    const removedByRule = Object.values(r.pruning.byRule).reduce((a, t) => a + (t?.removed ?? 0), 0);
    expect(removedByRule).toBe(r.pruning.resultsDropped + r.pruning.resultsTruncated);
  });

  test("a fork of a fork: the newest compacted wins and every earlier removal note stays byte-identical", () => {
    const home = tempDir();
    const first = forkRollout(LEGACY, { context: "fresh", pruner: enginePruner(LOOSE), codexHome: home });
    const second = forkRollout(first.path, { context: "fresh", pruner: enginePruner(LOOSE), codexHome: home });
    const third = forkRollout(second.path, { context: "fresh", pruner: enginePruner({ pinLastMessages: 0, recentResults: 0 }), codexHome: home });
    // a rollout from before Codex wrote world_state records cannot keep its context: Codex would inject it again
    expect(() => forkRollout(second.path, { context: "keep", pruner: enginePruner(LOOSE), codexHome: home })).toThrow(
      "--context keep needs a world_state record, which Codex writes from 0.145 on",
    );
    const notes = (p: string) =>
      outputsOf(p)
        .map((t, i) => [i, t] as const)
        .filter(([, t]) => readNote(t)?.kind === "removed");
    const n1 = notes(first.path);
    expect(n1.length).toBeGreaterThan(0);
    for (const later of [second.path, third.path]) {
      const out = outputsOf(later);
      for (const [i, t] of n1) expect(out[i]).toBe(t);
    }
    // the second fork's history comes from its own appended record, not from the first fork's
    const f2 = readRollout(second.path);
    expect(rebuildHistory(f2).baseLine).toBe(f2.lines.length - 2);
    expect(f2.lines.filter((l) => l.kind === "compacted")).toHaveLength(3);
    expect(second.pruning.tokensAfter).toBeLessThanOrEqual(first.pruning.tokensAfter);
  });
});

describe("bc codex-fork (the command)", () => {
  const bc = (args: string[], env: Record<string, string>) =>
    Bun.spawnSync([process.execPath, join(REPO_DIR, "src", "main.ts"), "codex-fork", ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: env.HOME ?? tmpdir(), ...env },
      stdout: "pipe",
      stderr: "pipe",
    });

  test("--json prints the new id, path and removals; a session id is found under $CODEX_HOME", () => {
    const home = tempDir();
    const day = join(home, "sessions", "2026", "11", "30");
    mkdirSync(day, { recursive: true });
    const src = join(day, basename(PAGINATED));
    copyFileSync(PAGINATED, src);
    const srcBytes = readFileSync(src);
    const id = readRollout(src).lines[0]!.kind === "session_meta" ? (readRollout(src).lines[0] as any).payload.id : "";
    // the fixture's file name is not canonical for its id; give it one so the id lookup finds it
    const named = join(day, `rollout-2026-11-30T02-27-05-${id}.jsonl`);
    copyFileSync(src, named);
    rmSync(src);
    const r = bc([id, "--json", "--context", "keep"], { CODEX_HOME: home });
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout.toString());
    expect(out.sourceId).toBe(id);
    expect(out.newId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(out.written).toBe(true);
    expect(out.context).toBe("keep");
    // the history keeps its context and Codex injects none: it holds what it is told
    expect(out.heldTokens).toBe(out.estimatedTokens);
    expect(out.resumeCommand).toBe(`codex resume ${out.newId}`);
    expect(existsSync(out.path)).toBe(true);
    expect(out.path.startsWith(join(home, "sessions"))).toBe(true);
    expect(readFileSync(named)).toEqual(srcBytes);
  });

  test("--dry-run writes nothing; --out-dir is honoured; human output names the resume command", () => {
    const home = tempDir();
    const outDir = join(tempDir(), "forks");
    const dry = bc([LEGACY, "--dry-run", "--out-dir", outDir], { CODEX_HOME: home });
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout.toString()).toMatch(
      /would fork .* -> [0-9a-f-]{36}\n[\s\S]*resume: +mkdir -p '.*\/sessions' && mv '.*forks\/rollout-[^']+\.jsonl' '.*\/sessions'\/ && codex resume [0-9a-f-]{36}/,
    );
    // outside $CODEX_HOME/sessions codex resume does not look: said, with what to do
    // (a dry run wrote nothing: it says where the fork would be)
    expect(dry.stderr.toString()).toContain(
      `the fork would be outside ${join(home, "sessions")}, where codex resume looks; once written, to resume it: mkdir -p `,
    );
    expect(existsSync(outDir)).toBe(false);
    const real = bc([LEGACY, "--out-dir", outDir], { CODEX_HOME: home });
    expect(real.exitCode).toBe(0);
    expect(real.stderr.toString()).toContain(`the fork is outside ${join(home, "sessions")}, where codex resume looks; to resume it: mkdir -p `);
    expect(readdirSync(outDir)).toHaveLength(1);
    expect(existsSync(join(home, "sessions"))).toBe(false);
    // the command printed works as it stands, with no sessions folder yet (codex itself left out)
    const printed = /^resume: +(.*) && codex resume ([0-9a-f-]{36})$/m.exec(real.stdout.toString())!;
    expect(Bun.spawnSync(["sh", "-c", printed[1]!]).exitCode).toBe(0);
    expect(readdirSync(outDir)).toEqual([]);
    expect(readdirSync(join(home, "sessions"))).toEqual([expect.stringContaining(printed[2]!)]);
  });

  /** bc in a pseudo-terminal (script(1)), as a person runs it: stdout and stderr arrive together on stdout. */
  const inTerminal = (args: string[], env: Record<string, string>) => {
    const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
    const cmd = [process.execPath, join(REPO_DIR, "src", "main.ts"), "codex-fork", ...args].map(q).join(" ");
    return Bun.spawnSync(["/usr/bin/script", "-qefc", cmd, "/dev/null"], {
      env: { HOME: tmpdir(), SHELL: "/bin/sh", ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
  };

  test("what Codex is told (the history) and what the resumed thread holds (with the context Codex re-injects) are named apart", () => {
    const source = new RolloutBuilder()
      .turn("turn-1")
      .context()
      .push("world_state", { full: true, state: {} })
      .user("RUN: cat a.txt")
      .shell("cat a.txt", bigText("a.txt", 8_000))
      .assistant("Read it.")
      .tokens(5_000)
      .write(tempDir());
    const json = (...args: string[]) => JSON.parse(bc([source, "--dry-run", "--json", ...args], { CODEX_HOME: tempDir() }).stdout.toString());
    const human = (...args: string[]) => bc([source, "--dry-run", ...args], { CODEX_HOME: tempDir() }).stdout.toString();
    const fresh = json();
    const context = rebuildHistory(readRollout(source))
      .items.filter((h) => isInjectedContext(h.item))
      .map((h) => sentForm(h.item));
    expect(fresh.heldTokens).toBe(fresh.estimatedTokens + codexTokens(context));
    expect(fresh.budget.codexTokens).toBe(fresh.heldTokens);
    const line = (out: string) => out.split("\n").find((l) => l.startsWith("Codex:"))!;
    const freshLine = line(human());
    expect(freshLine).toBe(
      `Codex:    told ~${tokenCount(fresh.estimatedTokens)} (history); holds ~${tokenCount(fresh.heldTokens)} with the context it re-injects`,
    );
    expect(freshLine.length).toBeLessThanOrEqual(80);
    const keep = json("--context", "keep");
    expect(line(human("--context", "keep"))).toBe(`Codex:    told and holds ~${tokenCount(keep.heldTokens)} (history with its context; none re-injected)`);
  });

  test("the developer messages a fresh fork keeps (a hook's context) are said: counted on stdout, and a warning for those bc cannot tell from Codex's own", () => {
    const hook = (text: string, kinds?: string[]) => ({
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text }],
      ...(kinds === undefined ? {} : { internal_chat_message_metadata_passthrough: { content_item_kinds: kinds } }),
    });
    const build = (...hooks: Record<string, unknown>[]) => {
      const b = new RolloutBuilder().turn("turn-1").context().push("world_state", { full: true, state: {} }).user("RUN: cat a.txt");
      for (const h of hooks) b.item(h);
      return b.shell("cat a.txt", bigText("a.txt", 2_000)).assistant("Read it.").tokens(2_000).write(tempDir());
    };
    const source = build(hook("[bd prime] open issues: 3"), hook("## Related Decisions\n\n### 1. Keep the hooks", ["hooks.additional_context"]));
    const home = tempDir();
    const json = JSON.parse(bc([source, "--dry-run", "--json"], { CODEX_HOME: home }).stdout.toString());
    expect(json.keptDeveloperMessages).toEqual([
      { line: 7, author: "unknown", tokens: expect.any(Number), opening: "[bd prime] open issues: 3" },
      { line: 8, author: "hook", tokens: expect.any(Number), opening: "## Related Decisions" },
    ]);
    const tokens = json.keptDeveloperMessages[0].tokens + json.keptDeveloperMessages[1].tokens;
    const human = bc([source, "--dry-run"], { CODEX_HOME: home });
    const kept = human.stdout
      .toString()
      .split("\n")
      .find((l) => l.startsWith("kept:"))!;
    expect(kept).toBe(`kept:     2 developer messages Codex does not inject again, in place (~${tokenCount(tokens)})`);
    expect(kept.length).toBeLessThanOrEqual(80);
    expect(human.stderr.toString()).toContain(
      `${source}:7: a developer message is not Codex's own context as bc knows it (a hook's, most likely): kept in place, as Codex keeps it when it resumes the source; ` +
        "should Codex inject it again, the resumed thread holds it twice",
    );
    // a hook's, as its metadata says: kept, with no warning; with --context keep nothing is named
    const known = build(hook("## Related Decisions", ["hooks.additional_context"]));
    const quiet = bc([known, "--dry-run"], { CODEX_HOME: home });
    expect(quiet.stdout.toString()).toContain("kept:     1 developer message Codex does not inject again, in place");
    expect(quiet.stderr.toString()).not.toContain("developer message");
    const keep = bc([known, "--dry-run", "--context", "keep"], { CODEX_HOME: home }).stdout.toString();
    expect(keep).not.toContain("kept:");
  });

  test("--resume runs `codex resume <new id>` with the terminal inherited, and passes its exit code on", () => {
    const home = tempDir();
    const bin = tempDir();
    const log = join(bin, "args.txt");
    // a stand-in for the codex program (an external binary, not our code): records its arguments
    Bun.write(join(bin, "codex"), `#!/bin/sh\necho "$@" > '${log}'\nexit 7\n`);
    Bun.spawnSync(["chmod", "+x", join(bin, "codex")]);
    const r = inTerminal([LEGACY, "--resume"], { CODEX_HOME: home, PATH: `${bin}:${process.env.PATH ?? ""}` });
    expect(r.exitCode).toBe(7);
    const newId = /forked \S+ -> (\S+)/.exec(r.stdout.toString())?.[1];
    expect(readFileSync(log, "utf8").trim()).toBe(`resume ${newId}`);
    const missing = inTerminal([LEGACY, "--resume"], { CODEX_HOME: home, PATH: tempDir() });
    expect(missing.exitCode).toBe(1);
    expect(missing.stdout.toString()).toMatch(/cannot run codex[\s\S]*hint: the fork is written; run: codex resume/);
  });

  test("--resume without a terminal says so itself, before anything is written", () => {
    const home = tempDir();
    const r = bc([LEGACY, "--resume"], { CODEX_HOME: home });
    expect(r.exitCode).toBe(2);
    expect(r.stdout.toString()).toBe("");
    expect(r.stderr.toString()).toStartWith("bc: --resume needs a terminal: codex resume is interactive\nhint: ");
    expect(existsSync(join(home, "sessions"))).toBe(false);
  });

  test("a fork that still cannot fit the model's window says so, in millions", () => {
    // one 4,000,000-character output the last message "references": kept whole, and far over a 272k window
    const dir = tempDir();
    const lines = readFileSync(LEGACY, "utf8").trimEnd().split("\n");
    const item = (payload: object): string => JSON.stringify({ timestamp: "2026-06-01T10:00:00.000Z", type: "response_item", payload });
    lines.push(
      item({ type: "function_call", name: "shell", arguments: JSON.stringify({ command: ["bash", "-lc", "cat server.log"] }), call_id: "call_big" }),
      item({ type: "function_call_output", call_id: "call_big", output: `${"x".repeat(4_000_000)} port 4242` }),
      item({ type: "message", role: "assistant", content: [{ type: "output_text", text: "It listens on 4242." }] }),
    );
    const source = join(dir, "rollout-big.jsonl");
    writeFileSync(source, `${lines.join("\n")}\n`);
    const r = bc([source, "--dry-run"], { CODEX_HOME: tempDir() });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString()).toMatch(/^tokens: +~1\.\d\dM before, ~1\.\d\dM after \(text\); the model's window is 272\.0k$/m);
    // what Codex is told (the history) and what the resumed thread holds (with the context Codex injects anew), in 80 columns
    const held = /^Codex: +told ~1\.\d\dM \(history\); holds ~1\.\d\dM with the context it re-injects$/m.exec(r.stdout.toString());
    expect(held?.[0].length).toBeLessThanOrEqual(80);
    expect(r.stderr.toString()).toMatch(
      /the resumed fork would hold ~1\.\d\dM tokens with the context Codex re-injects, more than the model's 272\.0k context window: Codex cannot continue it/,
    );
  });

  test("a fork whose history fits the window only without the context Codex re-injects cannot fit, and says so", () => {
    // Codex's context (~30k tokens of instructions) and one output it cannot cut (~80k, among the last
    // messages, named by the reply) in a 100k window: the history alone is under it, the resumed thread over
    const source = new RolloutBuilder()
      .turn("turn-1")
      .item({
        type: "message",
        role: "developer",
        content: [{ type: "input_text", text: `<permissions instructions>${bigText("rules.md", 120_000)}</permissions instructions>` }],
      })
      .item({ type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>" }] })
      .push("world_state", { full: true, state: {} })
      .user("RUN: cat server.log")
      .shell("cat server.log", `${"x".repeat(320_000)} port 4242`)
      .assistant("It listens on 4242.")
      .tokens(90_000, 100_000)
      .write(tempDir());
    const r = bc([source, "--dry-run", "--json"], { CODEX_HOME: tempDir() });
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout.toString());
    expect(out.contextWindow).toBe(100_000);
    expect(out.estimatedTokens).toBeLessThan(100_000);
    expect(out.heldTokens).toBeGreaterThan(100_000);
    expect(out.fitsContextWindow).toBe(false);
    expect(r.stderr.toString()).toContain(
      `the resumed fork would hold ~${tokenCount(out.heldTokens)} tokens with the context Codex re-injects, more than the model's 100.0k context window: Codex cannot continue it`,
    );
    // with --context keep the history holds that context itself: the same verdict
    const keep = JSON.parse(bc([source, "--dry-run", "--json", "--context", "keep"], { CODEX_HOME: tempDir() }).stdout.toString());
    expect(keep).toMatchObject({ heldTokens: keep.estimatedTokens, fitsContextWindow: false });
  });

  test("the largest kept item it names is counted as Codex counts the fork (a CJK output's UTF-8 bytes, not its characters), and named as what it is", () => {
    // 400,000 CJK characters: ~100k tokens by characters, ~300k by Codex's bytes / 4 (over a 272k window)
    const dir = tempDir();
    const lines = readFileSync(LEGACY, "utf8").trimEnd().split("\n");
    const item = (payload: object): string => JSON.stringify({ timestamp: "2026-06-01T10:00:00.000Z", type: "response_item", payload });
    const output = { type: "function_call_output", call_id: "call_big", output: `${"日志".repeat(200_000)} port 4242` };
    lines.push(
      item({ type: "function_call", name: "shell", arguments: JSON.stringify({ command: ["bash", "-lc", "cat server.log"] }), call_id: "call_big" }),
      item(output),
      item({ type: "message", role: "assistant", content: [{ type: "output_text", text: "It listens on 4242." }] }),
    );
    const source = join(dir, "rollout-big-cjk.jsonl");
    writeFileSync(source, `${lines.join("\n")}\n`);
    const r = bc([source, "--dry-run"], { CODEX_HOME: tempDir() });
    expect(r.exitCode).toBe(0);
    expect(codexTokens([output])).toBeGreaterThan(272_000);
    expect(r.stderr.toString()).toContain(
      `Codex cannot continue it (its largest tool output alone is ~${tokenCount(codexTokens([output]))} tokens); start a new session instead`,
    );
    // what is too large is named as what it is: a person's message, not a tool output
    const user = { type: "message", role: "user", content: [{ type: "input_text", text: "日志".repeat(200_000) }] };
    const asked = join(dir, "rollout-big-prompt.jsonl");
    writeFileSync(asked, `${[...lines.slice(0, -3), item(user)].join("\n")}\n`);
    const p = bc([asked, "--dry-run"], { CODEX_HOME: tempDir() });
    expect(p.stderr.toString()).toContain(`Codex cannot continue it (its largest user message alone is ~${tokenCount(codexTokens([user]))} tokens)`);
  });

  test("--budget: 60% of the window the rollout reports by default, N% or tokens when given, none for the rules alone", () => {
    // the fixture with three large outputs at its end, each referenced, then enough replies to leave them unpinned
    const lines = readFileSync(LEGACY, "utf8").trimEnd().split("\n");
    const item = (payload: object): string => JSON.stringify({ timestamp: "2026-06-01T10:00:00.000Z", type: "response_item", payload });
    const extra: string[] = [];
    for (const k of [1, 2, 3]) {
      extra.push(
        item({ type: "function_call", name: "shell", arguments: JSON.stringify({ command: ["bash", "-lc", `./report-${k}`] }), call_id: `call_r${k}` }),
        item({
          type: "function_call_output",
          call_id: `call_r${k}`,
          output: Array.from({ length: 80 }, (_, i) => `report ${k} line ${i}: value_${k}_${i}`).join("\n"),
        }),
        item({ type: "message", role: "assistant", content: [{ type: "output_text", text: `value_${k}_5 is set.` }] }),
      );
    }
    const source = join(tempDir(), "rollout-budget.jsonl");
    for (let k = 0; k < 8; k++) extra.push(item({ type: "message", role: "assistant", content: [{ type: "output_text", text: `step ${k} done` }] }));
    writeFileSync(source, `${[...lines, ...extra].join("\n")}\n`);
    const json = (...args: string[]) => {
      const r = bc([source, "--dry-run", "--json", ...args], { CODEX_HOME: tempDir() });
      expect(r.exitCode).toBe(0);
      return JSON.parse(r.stdout.toString());
    };
    const window = modelWindowOf(readRollout(source))!;
    expect(window).toBeGreaterThan(0);
    // the fixture's last count (912 tokens) is of the request its last answer (its line 29 on) answered:
    // what that request held beyond the history before that answer comes off the share (the items
    // appended since are not in the count)
    const heldByCount = codexTokens(rebuildHistory(parseRollout(`${lines.slice(0, 28).join("\n")}\n`, LEGACY)).items.map((h) => sentForm(h.item)));
    const unseen = 912 - heldByCount;
    expect(unseen).toBeGreaterThan(0);
    const byDefault = json();
    // which need weights ranked the cuts is said with every budget
    expect(byDefault.needWeights).toStartWith("shipped: fitted by build/fit-need.ts");
    expect(bc([source, "--dry-run"], { CODEX_HOME: tempDir() }).stdout.toString()).toMatch(/^weights: +shipped: fitted by/m);
    expect(byDefault.budget).toEqual({
      tokens: Math.floor(window * 0.6) - unseen,
      unseenTokens: unseen,
      window,
      reached: true,
      codexTokens: expect.any(Number),
      engineTokens: expect.any(Number),
    });
    expect(byDefault.budget.codexTokens).toBeLessThanOrEqual(byDefault.budget.tokens);
    expect(json("--budget", "50%").budget.tokens).toBe(Math.floor(window * 0.5) - unseen);
    const none = json("--budget", "none");
    // no budget: nothing was ranked, and no weights are named
    expect(none.needWeights).toBeNull();
    expect(none.budget.tokens).toBeUndefined();
    expect(none.budget.why).toContain("none");
    // a budget below what the rules leave: the escalation cuts further, and says whether it got there
    const tight = json("--budget", String(Math.floor(none.tokens.after * 0.8)));
    expect(tight.tokens.after).toBeLessThan(none.tokens.after);
    expect(tight.byRule.escalation.removed).toBeGreaterThan(0);
    // reached as Codex counts the history (its JSON, reasoning), which is more than its text
    expect(tight.budget.reached).toBe(tight.budget.codexTokens <= tight.budget.tokens);
    expect(tight.budget.codexTokens).toBeGreaterThan(tight.tokens.after);
    const human = bc([source, "--dry-run", "--budget", "1"], { CODEX_HOME: tempDir() });
    expect(human.stdout.toString()).toMatch(/^budget: +~1 tokens \(of a .*-token window\) for what Codex holds: NOT reached/m);
    // a budget over the window is said to be
    const over = bc([source, "--dry-run", "--budget", String(window + 1000)], { CODEX_HOME: tempDir() });
    expect(over.stdout.toString()).toMatch(
      /^budget: +~.* tokens \(more than the model's .*-token window: Codex compacts before a thread reaches it\) for what Codex holds: reached/m,
    );
    // a share under 1% and a count no window comes near are refused as 12x is; --budget alone is the default
    expect(json("--budget", "").budget.tokens).toBe(Math.floor(window * 0.6) - unseen);
    for (const odd of ["0.0001%", "1000000000000000000000"]) {
      const r = bc([source, "--dry-run", "--budget", odd], { CODEX_HOME: tempDir() });
      expect([odd, r.exitCode, r.stderr.toString().split("\n")[0]]).toEqual([odd, 2, expect.stringContaining("--budget must be")]);
    }
    const bad = bc([source, "--dry-run", "--budget", "12x"], { CODEX_HOME: tempDir() });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.toString()).toContain(
      "--budget must be a number of tokens (up to 1,000,000,000), a share of the window from 1% to 100% such as 60%, or none",
    );

    // Codex's last request was larger than the history: its instructions and tools. A share of the
    // window is for the whole request, so they come off it; a number of tokens is the history's own.
    const count = (input: number): string =>
      JSON.stringify({
        timestamp: "2026-06-01T10:00:01.000Z",
        type: "event_msg",
        payload: {
          type: "token_count",
          info: {
            total_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 50, reasoning_output_tokens: 0, total_tokens: input + 50 },
            last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 50, reasoning_output_tokens: 0, total_tokens: input + 50 },
            model_context_window: window,
          },
          rate_limits: null,
        },
      });
    // the history as Codex counts it, but the nine answers the count follows (the request it counted
    // did not hold them): the rest of that request is what it sends besides
    const history = codexTokens(
      rebuildHistory(readRollout(source))
        .items.slice(0, -9)
        .map((h) => sentForm(h.item)),
    );
    const share = Math.floor(window * 0.6);
    const withCount = (input: number): string => {
      const file = join(tempDir(), "rollout-budget-count.jsonl");
      writeFileSync(file, `${readFileSync(source, "utf8")}${count(input)}\n`);
      return file;
    };
    const forked = (file: string, ...args: string[]) => JSON.parse(bc([file, "--dry-run", "--json", ...args], { CODEX_HOME: tempDir() }).stdout.toString());
    const counted = withCount(history + 12_000);
    expect(forked(counted).budget).toMatchObject({ tokens: share - 12_000, unseenTokens: 12_000, window });
    expect(bc([counted, "--dry-run"], { CODEX_HOME: tempDir() }).stdout.toString()).toMatch(/^budget: .*less ~12(\.0)?k for Codex's instructions and tools/m);
    expect(forked(counted, "--budget", "5000").budget).toEqual({
      tokens: 5000,
      window,
      reached: expect.any(Boolean),
      codexTokens: expect.any(Number),
      engineTokens: expect.any(Number),
    });
    // at most half the share, however far off the count
    expect(forked(withCount(history * 1000)).budget).toMatchObject({ tokens: share - Math.floor(share / 2), unseenTokens: Math.floor(share / 2) });
  });

  test("a rollout that records no window: by default the fork has no budget and says why; a share asked for is refused before anything is written, as plan refuses it; tokens still work", () => {
    const source = join(tempDir(), "rollout-2026-06-01T10-00-00-0190c000-0000-7000-8000-00000000c0de.jsonl");
    const kept = readFileSync(LEGACY, "utf8")
      .split("\n")
      .filter((l) => !l.includes("model_context_window"));
    writeFileSync(source, kept.join("\n"));
    expect(modelWindowOf(readRollout(source))).toBeUndefined();
    const home = tempDir();
    const byDefault = bc([source, "--json"], { CODEX_HOME: home });
    expect(byDefault.exitCode).toBe(0);
    expect(JSON.parse(byDefault.stdout.toString()).budget.why).toContain("records no model_context_window");
    for (const share of ["50%", ""]) {
      const before = readdirSync(join(home, "sessions"), { recursive: true }).length;
      const r = bc([source, "--budget", share], { CODEX_HOME: home });
      expect(r.exitCode).toBe(2);
      expect(r.stdout.toString()).toBe("");
      expect(r.stderr.toString().split("\n")[0]).toBe(`bc: ${source}: the rollout records no model_context_window, so no budget (pass --budget <tokens>)`);
      expect(readdirSync(join(home, "sessions"), { recursive: true }).length).toBe(before);
      const plan = Bun.spawnSync([process.execPath, join(REPO_DIR, "src", "main.ts"), "plan", source, "--budget", share], { stdout: "pipe", stderr: "pipe" });
      expect([plan.exitCode, plan.stderr.toString().split("\n")[0]]).toEqual([r.exitCode, r.stderr.toString().split("\n")[0]]);
    }
    const tokens = bc([source, "--dry-run", "--json", "--budget", "5000"], { CODEX_HOME: home });
    expect(JSON.parse(tokens.stdout.toString()).budget.tokens).toBe(5000);
  });

  test.each([
    [["--context", "fast", LEGACY], /--context must be 'fresh' or 'keep'/, 2],
    [["/no/such/rollout.jsonl"], /no such file/, 1],
    [[join(REPO_DIR, "package.json")], /not a Codex rollout|bad|JSON/i, 1],
    [[LEGACY, "--dry-run", "--resume"], /cannot be used together/, 2],
  ] as const)("misuse %p is one line and a hint, no stack", (args, why, code) => {
    const r = bc([...args], { CODEX_HOME: tempDir() });
    const err = r.stderr.toString();
    expect(r.exitCode).toBe(code);
    expect(err).toMatch(why);
    expect(err).not.toMatch(/\n\s+at /);
    expect(r.stdout.toString()).toBe("");
    expect(statSync(LEGACY).isFile()).toBe(true);
  });
});

test("--out-dir naming a file: a one-line error, nothing written, no stack trace", () => {
  const file = join(tempDir(), "not-a-folder");
  writeFileSync(file, "");
  const r = Bun.spawnSync([process.execPath, join(REPO_DIR, "src", "main.ts"), "codex-fork", LEGACY, "--out-dir", file], {
    env: { ...process.env, CODEX_HOME: tempDir() },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(r.exitCode).toBe(1);
  expect(r.stderr.toString()).toBe(
    `bc: ${file}: cannot be used as the fork's folder (EEXIST)\nhint: pass --out-dir a folder (it is created if missing), or set CODEX_HOME\n`,
  );
  expect(r.stdout.toString()).toBe("");
});

/** A dry-run fork of `source` cut by the engine to `tokens` as Codex counts the history. */
const dryFork = (source: string, tokens: number) =>
  forkRollout(source, {
    context: "fresh",
    pruner: enginePruner(undefined, { tokens }),
    codexHome: tempDir(),
    dryRun: true,
    now: new Date("2026-12-01T09:00:00Z"),
  });

test("a budget is reached as Codex counts the history, reasoning included: the token count the fork tells Codex is then at or under it", () => {
  const b = new RolloutBuilder().turn("turn-1").context();
  for (let k = 0; k < 12; k++)
    b.user(`RUN: cat part-${k}.txt`)
      .item({
        type: "reasoning",
        summary: [{ type: "summary_text", text: `Reading part ${k}.` }],
        content: null,
        encrypted_content: "gAAAAB".padEnd(12_000, "x"),
      })
      .shell(`cat part-${k}.txt`, bigText(`part-${k}.txt`, 12_000))
      .assistant(`part ${k} read`);
  const source = b.tokens(60_000).write(tempDir());
  const pruning = (tokens: number) => dryFork(source, tokens);
  // the text alone is under 45k tokens; the reasoning adds ~2k an item (12 × 8,350 bytes) as Codex counts it
  const r = pruning(60_000);
  expect(r.pruning.tokensBefore).toBeLessThan(45_000);
  expect(r.pruning.budget).toMatchObject({ tokens: 60_000, reached: true });
  expect(r.estimatedTokens).toBeLessThanOrEqual(60_000);
  expect(r.pruning.budget!.codexTokens).toBeLessThanOrEqual(60_000);
  // text alone would be under 60k with nothing cut: the reasoning makes the escalation cut
  expect(r.pruning.resultsDropped + r.pruning.resultsTruncated).toBeGreaterThan(0);
  // a budget the reasoning alone (~25k) exceeds cannot be reached, and says so
  const under = pruning(20_000);
  expect(under.pruning.budget).toMatchObject({ tokens: 20_000, reached: false });
  expect(under.estimatedTokens).toBeGreaterThan(20_000);
});

test("output in a CJK script (three UTF-8 bytes a character as Codex counts it) is cut no further than the budget needs", () => {
  const b = new RolloutBuilder().turn("turn-1").context();
  for (let k = 0; k < 10; k++)
    b.user(`RUN: cat docs/ja-${k}.md`)
      .shell(`cat docs/ja-${k}.md`, `第${k}章 ${"日本語の文書です。".repeat(600)}`)
      .assistant(`read chapter ${k}`);
  for (let k = 0; k < 12; k++) b.user(`next ${k}`).shell(`echo ${k}`, `${k}\n`).assistant(`step ${k}`);
  const source = b.tokens(30_000, 100_000).write(tempDir());
  const fork = (tokens: number) => dryFork(source, tokens).pruning;
  const whole = fork(1_000_000).budget!.codexTokens!;
  // one chapter cut to its head frees ~4k as Codex counts it: enough for 2k
  const p = fork(whole - 2000);
  expect(p.budget).toMatchObject({ reached: true });
  expect(p.budget!.codexTokens!).toBeGreaterThan(whole - 6000);
  expect(p.resultsTruncated + p.resultsDropped).toBe(1);
});

test("with --context fresh, what the resumed thread holds counts one set of context, as Codex injects it, not every set the history holds", () => {
  // Codex's initial context (a large developer message and the environment), written again in full
  // at each later turn (as a skills and permissions update is), and an output a turn that most
  // need least
  const developer = (turn: number) => ({
    type: "message",
    role: "developer",
    content: [{ type: "input_text", text: `<permissions instructions>${bigText(`rules-${turn}.md`, 40_000)}</permissions instructions>` }],
  });
  const environment = {
    type: "message",
    role: "user",
    content: [{ type: "input_text", text: "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>" }],
  };
  const b = new RolloutBuilder();
  for (let turn = 0; turn < 3; turn++) {
    b.turn(`turn-${turn}`)
      .item(developer(turn))
      .item(environment)
      .push("world_state", { full: turn === 0, state: {} });
    for (let k = 0; k < 4; k++)
      b.user(`RUN: cat part-${turn}-${k}.txt`)
        .shell(`cat part-${turn}-${k}.txt`, bigText(`part-${turn}-${k}.txt`, 8_000))
        .assistant(`part ${turn}-${k} read`);
  }
  for (let k = 0; k < 8; k++) b.user(`next ${k}`).assistant(`step ${k}`);
  const source = b.tokens(90_000).write(tempDir());
  // the rules alone (a budget no history reaches): the fork leaves every set out, Codex injects the first
  const rulesOnly = dryFork(source, 1_000_000_000);
  const once = codexTokens([developer(0), environment]);
  const held = codexTokens(rulesOnly.replacementHistory) + once;
  expect(rulesOnly.replacementHistory.some((it) => isInjectedContext(it as ResponseItem))).toBe(false);
  expect(rulesOnly.pruning.budget!.codexTokens).toBe(held);
  expect(rulesOnly.heldTokens).toBe(held);
  // two more sets (~20k) the resumed thread does not hold
  expect(codexTokens([developer(1), environment, developer(2), environment])).toBeGreaterThan(20_000);
  // a budget what the thread holds already meets: nothing more is cut (counting every set, it cut
  // ~20k of results for nothing)
  const atHeld = dryFork(source, held);
  expect(atHeld.pruning.budget).toMatchObject({ tokens: held, reached: true, codexTokens: held });
  expect(atHeld.pruning.byRule.escalation?.removed ?? 0).toBe(0);
  expect(atHeld.replacementHistory).toEqual(rulesOnly.replacementHistory);
  // under it, the escalation cuts what the budget needs, and what the thread holds is counted the same way
  const under = dryFork(source, held - 3000);
  expect(under.pruning.budget).toMatchObject({ reached: true, codexTokens: codexTokens(under.replacementHistory) + once });
  expect(under.pruning.budget!.codexTokens!).toBeGreaterThan(held - 10_000);
});

test("a fork of a fork Codex has not resumed yet (a history holding no context) counts the context the rollout's lines show first", () => {
  const source = new RolloutBuilder()
    .turn("turn-1")
    .context()
    .user("RUN: cat a.txt")
    .shell("cat a.txt", bigText("a.txt", 8_000))
    .assistant("Read it.")
    .write(tempDir());
  const once = codexTokens(
    rebuildHistory(readRollout(source))
      .items.filter((h) => isInjectedContext(h.item))
      .map((h) => sentForm(h.item)),
  );
  expect(once).toBeGreaterThan(0);
  const first = forkRollout(source, { context: "fresh", pruner: enginePruner(undefined, { tokens: 1_000_000 }), codexHome: tempDir() });
  expect(rebuildHistory(readRollout(first.path)).items.some((h) => isInjectedContext(h.item))).toBe(false);
  const second = dryFork(first.path, 1_000_000);
  expect(second.heldTokens).toBe(codexTokens(second.replacementHistory) + once);
  expect(second.pruning.budget!.codexTokens).toBe(second.heldTokens);
  expect(second.heldTokens).toBe(first.heldTokens);
});
