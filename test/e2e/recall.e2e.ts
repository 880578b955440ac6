// End to end: a removed output comes back, byte for byte, through the real hosts.
// - Claude Code 2.1.328 with the plugin (its session.compact hook and its MCP server `bc mcp`) and
//   the permission rules `bc claude install --allow-recall` writes: after a /compact that dropped a
//   result, the mock model calls the recall tool with the id the note names and receives the
//   original bytes, without a permission prompt (headless Claude Code refuses a tool not allowed).
//   The same through the shell (`bc recall <id>` in Bash): Claude Code trims the trailing
//   whitespace of a command's output, which is why the plugin serves the MCP tool.
//   And in a working folder whose name Claude Code cuts at 200 characters and ends with a hash,
//   or with the project folder named by $CLAUDE_CODE_PROJECT_DIR_NAME: `bc recall --list` (and
//   `bc recall <id>`) run there, without --session, find its transcript.
// - Codex 0.169.0: `bc codex-fork`, then `codex exec resume <fork>`; the mock model runs the
//   note's command in Codex's shell tool and the output it gets holds the original bytes.
// Uses dist/bc (npm run test:e2e builds it): the hosts find `bc` on PATH, as a user's would.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { rebuildHistory } from "../../src/hosts/codex/history.ts";
import { outputText } from "../../src/hosts/codex/items.ts";
import { readRollout } from "../../src/hosts/codex/rollout.ts";
import { claudeProjectName } from "../../src/hosts/claude/home.ts";
import { RECALL_RULES } from "../../src/hosts/recall/permission.ts";
import { MINIMAL_PDF } from "./support/claude-fixtures.ts";
import { ensureClaude } from "./support/claude-install.ts";
import { startMock as startClaudeMock, type Mock } from "./support/claude-mock.ts";
import { viewOf } from "./support/claude-requests.ts";
import { claudeEnv, HeadlessSession, makeSandbox, runPrint, type Sandbox } from "./support/claude-session.ts";
import { codexExec, codexResume, type CodexEnv, listRollouts, makeCodexEnv, run } from "./support/codex-env.ts";
import { installCodex } from "./support/codex-install.ts";
import { startMock as startCodexMock, type MockServer } from "./support/codex-mock.ts";

const REPO = join(import.meta.dir, "..", "..");
const BC = join(REPO, "dist", process.platform === "win32" ? "bc.exe" : "bc");
const T = 300_000;
const NOTE_ID = /; bc recall (\S+) prints it\]$/;

const sandboxes: Sandbox[] = [];
const claudeMocks: Mock[] = [];
const codexMocks: MockServer[] = [];
const codexEnvs: CodexEnv[] = [];
afterAll(() => {
  for (const m of claudeMocks) m.stop();
  for (const m of codexMocks) m.stop();
  if (!process.env.BC_E2E_KEEP) {
    for (const s of sandboxes) s.cleanup();
    for (const e of codexEnvs) e.cleanup();
  }
});

/** ~1 kB files whose Read output ends in a tab (Read numbers a last, empty line): trailing whitespace a shell tool trims */
const small = (name: string): string =>
  `${Array.from({ length: 30 }, (_, i) => `${name} line ${i}: value_${name.replace(/\W/g, "_")}_${i * 7919}`).join("\n")}\n`;

describe.skipIf(!existsSync(BC))("Claude Code: the recall tool after a compaction", () => {
  let bin = "";
  beforeAll(() => {
    bin = ensureClaude();
  }, 600_000);

  /**
   * A sandbox holding a.txt and f0.txt to f11.txt (and `more` files), a mock model, the consent step
   * (bc claude install --allow-recall writes the rules into the user's settings), and a headless
   * Claude Code with the checkout as its plugin and dist/bc on PATH.
   */
  const recallSession = (name: string, more: Record<string, Uint8Array> = {}) => {
    const sb = makeSandbox(name);
    sandboxes.push(sb);
    const names = ["a.txt", ...Array.from({ length: 12 }, (_, i) => `f${i}.txt`)];
    for (const f of names) writeFileSync(join(sb.project, f), small(f));
    for (const [f, bytes] of Object.entries(more)) writeFileSync(join(sb.project, f), bytes);
    const mock = startClaudeMock({ root: sb.project, inputTokens: 1000, lifetimeMs: 15 * 60_000 });
    claudeMocks.push(mock);
    const install = Bun.spawnSync([BC, "claude", "install", "--dir", join(sb.dir, "mp"), "--no-register", "--allow-recall"], {
      env: { PATH: process.env.PATH ?? "", HOME: sb.home },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(install.exitCode).toBe(0);
    const env = claudeEnv(sb, mock.url, { PATH: `${dirname(BC)}:${process.env.PATH ?? ""}` });
    const session = new HeadlessSession({ bin, sandbox: sb, env, pluginDir: REPO, debugFile: join(sb.dir, "debug.log") });
    return { sb, names, mock, session };
  };

  test(
    "the mock model calls the plugin's recall tool with the note's id and receives the original bytes; no permission prompt",
    async () => {
      const { sb, names, mock, session } = recallSession("recall");
      expect(JSON.parse(readFileSync(join(sb.home, ".claude", "settings.json"), "utf8")).permissions.allow).toEqual([...RECALL_RULES]);
      try {
        await session.send(`READFILES ${names.join(" ")} a.txt`);
        const before = viewOf(mock.conversationRequests().at(-1)!.body);
        const compacted = await session.send("/compact");
        expect(JSON.stringify(compacted)).not.toContain("Not compacted");
        await session.send("What did a.txt say?");
        const after = viewOf(mock.conversationRequests().at(-1)!.body);

        // the note names the call; the tool is offered with its schema
        const notes = [...after.results].filter(([, t]) => NOTE_ID.test(t));
        expect(notes.length).toBeGreaterThan(0);
        const [id, note] = notes[0]!;
        expect(NOTE_ID.exec(note)![1]).toBe(id);
        const original = before.results.get(id)!;
        expect(original.endsWith("\t")).toBe(true);
        const tools = (mock.conversationRequests().at(-1)!.body.tools ?? []) as { name: string; input_schema?: unknown }[];
        expect(tools.find((t) => t.name === RECALL_RULES[0])?.input_schema).toBeDefined();

        // the model asks for it, by the id in the note, through the MCP tool and through the shell
        await session.send(`SCRIPT [{"name":"${RECALL_RULES[0]}","input":{"id":"${id}"}},{"name":"Bash","input":{"command":"bc recall ${id}"}}]`);
        const last = mock.conversationRequests().at(-1)!.body;
        const uses = viewOf(last).uses.slice(-2);
        expect(uses.map((u) => u.name)).toEqual([RECALL_RULES[0]!, "Bash"]);
        const got = uses.map((u) => viewOf(last).results.get(u.id));
        expect(got[0]).toBe(original); // byte for byte
        expect(got[1]).toBe(original.trimEnd()); // Claude Code trims a command's trailing whitespace
        // nothing was refused for want of permission
        expect(JSON.stringify(last)).not.toContain("haven't granted it yet");
        console.log(`recall: ${id}, ${original.length} chars back byte for byte through the MCP tool; the shell gave ${got[1]!.length}`);
      } finally {
        await session.close();
      }
    },
    T,
  );

  test(
    "an image a compaction could not carry: the note names the recall tool, and the tool gives the image back",
    async () => {
      // a 1x1 PNG: Claude Code sends a Read of it as an image block
      const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
      const { names, mock, session } = recallSession("recall-image", { "ui.png": Buffer.from(png, "base64") });
      const imageBlocks = (body: any, id: string): unknown[] =>
        body.messages
          .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
          .filter((b: any) => b.type === "tool_result" && b.tool_use_id === id)
          .flatMap((b: any) => (Array.isArray(b.content) ? b.content.filter((c: any) => c.type === "image") : []));
      try {
        // a.txt read again: its first read is superseded, so the compaction has a result to remove
        await session.send(`READFILES ${names.join(" ")} ui.png a.txt`);
        const before = mock.conversationRequests().at(-1)!.body;
        const id = viewOf(before).uses.find((u) => JSON.stringify(u.input).includes("ui.png"))!.id;
        const [image] = imageBlocks(before, id) as { source: { data: string } }[];
        expect(image?.source.data).toBeDefined();
        const compacted = await session.send("/compact");
        expect(JSON.stringify(compacted)).not.toContain("Not compacted");
        await session.send("What did the picture show?");
        const after = viewOf(mock.conversationRequests().at(-1)!.body);
        expect(after.results.get(id)).toBe(`[bc: an image of this result did not carry over the compaction; bc recall ${id} gives it back]`);

        // the model asks the recall tool for it, by the id in the note: the image comes back as it was sent
        await session.send(`SCRIPT [{"name":"${RECALL_RULES[0]}","input":{"id":"${id}"}}]`);
        const last = mock.conversationRequests().at(-1)!.body;
        const use = viewOf(last).uses.at(-1)!;
        expect(use.name).toBe(RECALL_RULES[0]!);
        const back = JSON.stringify(
          last.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === "tool_result" && b.tool_use_id === use.id),
        );
        expect(back).toContain('"type":"image"');
        expect(back).toContain(image!.source.data);
        console.log(`recall: the image of ${id} (${image!.source.data.length} base64 chars) back through the MCP tool`);
      } finally {
        await session.close();
      }
    },
    T,
  );

  test(
    "a PDF: the recall tool hands its bytes back, which Claude Code saves to a file it names to the model",
    async () => {
      const pdf = Buffer.from(MINIMAL_PDF);
      const { names, mock, session } = recallSession("recall-pdf", { "spec.pdf": pdf });
      try {
        await session.send(`READFILES ${names.join(" ")} spec.pdf a.txt`);
        const id = viewOf(mock.conversationRequests().at(-1)!.body).uses.find((u) => JSON.stringify(u.input).includes("spec.pdf"))!.id;
        const compacted = await session.send("/compact");
        expect(JSON.stringify(compacted)).not.toContain("Not compacted");
        await session.send(`SCRIPT [{"name":"${RECALL_RULES[0]}","input":{"id":"${id}"}}]`);
        const last = mock.conversationRequests().at(-1)!.body;
        const use = viewOf(last).uses.at(-1)!;
        expect(use.name).toBe(RECALL_RULES[0]!);
        const back = viewOf(last).results.get(use.id)!;
        expect(back).toStartWith("PDF file read: ");
        const saved = /Binary content \(application\/pdf, (\d+) bytes\) saved to (\S+\.pdf)/.exec(back);
        expect(saved?.[1]).toBe(String(pdf.length));
        expect(readFileSync(saved![2]!).equals(pdf)).toBe(true);
        console.log(`recall: the PDF of ${id} back through the MCP tool, saved by Claude Code to ${saved![2]}`);
      } finally {
        await session.close();
      }
    },
    T,
  );

  test(
    "a project whose path is longer than a folder name Claude Code writes: bc recall --list and recall, without --session, find its sessions in the folder Claude Code cut and hashed",
    async () => {
      const base = makeSandbox("recall-long");
      sandboxes.push(base);
      // more than 200 characters once every character but letters and digits is a "-"
      const project = join(base.project, ...["alpha", "beta", "gamma", "delta"].map((w) => `${w}-${"x".repeat(56)}`));
      mkdirSync(project, { recursive: true });
      const claudeJson = join(base.home, ".claude.json");
      const config = JSON.parse(readFileSync(claudeJson, "utf8"));
      config.projects[project] = config.projects[base.project];
      writeFileSync(claudeJson, JSON.stringify(config));
      const sb: Sandbox = { ...base, project };
      const names = Array.from({ length: 12 }, (_, i) => `f${i}.txt`);
      for (const f of names) writeFileSync(join(project, f), small(f));
      const mock = startClaudeMock({ root: project, inputTokens: 1000, lifetimeMs: 15 * 60_000 });
      claudeMocks.push(mock);
      const env = claudeEnv(sb, mock.url, { PATH: `${dirname(BC)}:${process.env.PATH ?? ""}` });
      const session = new HeadlessSession({ bin, sandbox: sb, env, pluginDir: REPO, debugFile: join(base.dir, "debug.log") });
      let before: ReturnType<typeof viewOf>;
      try {
        // f0.txt read again: its first read is superseded, so the compaction has a result to remove
        await session.send(`READFILES ${names.join(" ")} f0.txt`);
        before = viewOf(mock.conversationRequests().at(-1)!.body);
        const compacted = await session.send("/compact");
        expect(JSON.stringify(compacted)).not.toContain("Not compacted");
      } finally {
        await session.close();
      }
      // the folder Claude Code wrote: not the whole name (cut, with a hash), and the one bc names
      const folders = readdirSync(join(base.home, ".claude", "projects"));
      expect(folders).toEqual([claudeProjectName(project)]);
      expect(project.replace(/[^A-Za-z0-9]/g, "-").length).toBeGreaterThan(200);
      expect(folders[0]!.startsWith(project.replace(/[^A-Za-z0-9]/g, "-").slice(0, 200))).toBe(true);
      const bcEnv = { PATH: process.env.PATH ?? "", HOME: base.home };
      const listed = Bun.spawnSync([BC, "recall", "--list", "--json"], { cwd: project, env: bcEnv, stdout: "pipe", stderr: "pipe" });
      expect(listed.stderr.toString()).toBe("");
      expect(listed.exitCode).toBe(0);
      const list = JSON.parse(listed.stdout.toString()) as { path: string; removed: { id: string }[] };
      expect(list.path.startsWith(join(base.home, ".claude", "projects", folders[0]!))).toBe(true);
      expect(list.removed.length).toBeGreaterThan(0);
      const id = list.removed[0]!.id;
      const got = Bun.spawnSync([BC, "recall", id], { cwd: project, env: bcEnv, stdout: "pipe", stderr: "pipe" });
      expect(got.exitCode).toBe(0);
      expect(got.stdout.toString()).toBe(before.results.get(id)!);
      console.log(`long project path: folder ${folders[0]!.length} chars; ${list.removed.length} removed outputs listed, ${id} back byte for byte`);
    },
    T,
  );

  test(
    "a project folder named by the environment ($CLAUDE_CONFIG_DIR and $CLAUDE_CODE_PROJECT_DIR_NAME): bc recall --list, run with the same environment, finds its sessions there",
    async () => {
      const sb = makeSandbox("recall-named");
      sandboxes.push(sb);
      const configDir = join(sb.home, ".claude");
      // with $CLAUDE_CONFIG_DIR set, Claude Code reads its global config from there
      writeFileSync(join(configDir, ".claude.json"), readFileSync(join(sb.home, ".claude.json")));
      const names = Array.from({ length: 12 }, (_, i) => `f${i}.txt`);
      for (const f of names) writeFileSync(join(sb.project, f), small(f));
      const mock = startClaudeMock({ root: sb.project, inputTokens: 1000, lifetimeMs: 15 * 60_000 });
      claudeMocks.push(mock);
      const named = { CLAUDE_CONFIG_DIR: configDir, CLAUDE_CODE_PROJECT_DIR_NAME: "bc-named-project" };
      const env = claudeEnv(sb, mock.url, { PATH: `${dirname(BC)}:${process.env.PATH ?? ""}`, ...named });
      const session = new HeadlessSession({ bin, sandbox: sb, env, pluginDir: REPO, debugFile: join(sb.dir, "debug.log") });
      try {
        await session.send(`READFILES ${names.join(" ")} f0.txt`);
        const compacted = await session.send("/compact");
        expect(JSON.stringify(compacted)).not.toContain("Not compacted");
      } finally {
        await session.close();
      }
      expect(readdirSync(join(configDir, "projects"))).toEqual(["bc-named-project"]);
      const listed = Bun.spawnSync([BC, "recall", "--list", "--json"], {
        cwd: sb.project,
        env: { PATH: process.env.PATH ?? "", HOME: sb.home, ...named },
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(listed.stderr.toString()).toBe("");
      expect(listed.exitCode).toBe(0);
      const list = JSON.parse(listed.stdout.toString()) as { path: string; removed: unknown[] };
      expect(list.path.startsWith(join(configDir, "projects", "bc-named-project"))).toBe(true);
      expect(list.removed.length).toBeGreaterThan(0);
    },
    T,
  );
});

describe.skipIf(!existsSync(BC))("Claude Code: a session given by its name", () => {
  test(
    "sessions named with claude -n: bc plan <name> finds the one of this project as claude --resume <name> does, and refuses a name two sessions share",
    async () => {
      const bin = ensureClaude();
      const sb = makeSandbox("named-session");
      sandboxes.push(sb);
      writeFileSync(join(sb.project, "a.txt"), small("a.txt"));
      const mock = startClaudeMock({ root: sb.project, inputTokens: 1000, lifetimeMs: 15 * 60_000 });
      claudeMocks.push(mock);
      const env = claudeEnv(sb, mock.url);
      const named = async (name: string): Promise<string> => {
        const r = await runPrint({ bin, sandbox: sb, env, debugFile: join(sb.dir, "debug.log"), extraArgs: ["-n", name] }, "READFILES a.txt");
        expect(r.code).toBe(0);
        return r.lines.find((l) => typeof l.session_id === "string").session_id as string;
      };
      const plan = (name: string, cwd: string) =>
        Bun.spawnSync([BC, "plan", name, "--json"], { cwd, env: { PATH: process.env.PATH ?? "", HOME: sb.home }, stdout: "pipe", stderr: "pipe" });
      const id = await named("checkout flow");
      const planned = plan("checkout flow", sb.project);
      expect(planned.stderr.toString()).toBe("");
      expect(JSON.parse(planned.stdout.toString())).toMatchObject({ id, name: "checkout flow" });
      // from outside the project too, while the name is one session's
      expect(JSON.parse(plan("checkout flow", sb.dir).stdout.toString()).id).toBe(id);
      const twin = await named("checkout flow");
      const refused = plan("checkout flow", sb.project);
      expect(refused.exitCode).not.toBe(0);
      expect(refused.stderr.toString()).toContain('the name "checkout flow" is 2 Claude Code sessions\'');
      expect(refused.stderr.toString()).toContain(id);
      expect(refused.stderr.toString()).toContain(twin);
      // Claude Code refuses it the same way
      const resumed = await runPrint(
        { bin, sandbox: sb, env, debugFile: join(sb.dir, "debug2.log"), extraArgs: ["--resume", "checkout flow"] },
        "READFILES a.txt",
      );
      expect(resumed.code).not.toBe(0);
    },
    T,
  );
});

describe.skipIf(!existsSync(BC))("Codex: the note's command in the resumed fork", () => {
  test(
    "codex exec, bc codex-fork, codex exec resume: the mock model runs bc recall <id> in Codex's shell and gets the original output",
    async () => {
      const codex = installCodex("0.169.0");
      const mock = startCodexMock({ lifetimeMs: 15 * 60_000 });
      codexMocks.push(mock);
      const e = makeCodexEnv(mock.url);
      codexEnvs.push(e);
      const env = { ...e.env, PATH: `${dirname(BC)}:${e.env.PATH}` };
      const world = { ...e, env };
      // Codex runs commands in a login shell, which sets PATH afresh: bc is put on it the way a user's
      // profile would (without it, \`bc\` is the system's calculator, if any)
      writeFileSync(join(e.root, ".profile"), `export PATH=${JSON.stringify(dirname(BC))}:"$PATH"\n`);
      const commands = [
        "cat b.txt",
        "cat a.txt",
        "ls",
        "cat notes.md",
        "cat b.txt",
        "wc -c b.txt",
        "cat a.txt",
        "echo step-8",
        "ls -la",
        "echo step-10",
        "cat notes.md",
        "echo step-12",
        "cat a.txt",
        "ls",
        "echo step-15",
      ];
      const r = await codexExec(codex.bin, world, commands.map((c) => `RUN: ${c}`).join(" "));
      if (r.exitCode !== 0) throw new Error(`codex exec failed (${r.exitCode}):\n${r.stderr.slice(-3000)}`);
      const source = listRollouts(e.home)[0]!;

      const fork = await run([BC, "codex-fork", source, "--json"], { cwd: e.work, env, timeoutMs: 60_000 });
      expect(fork.exitCode).toBe(0);
      const forked = JSON.parse(fork.stdout);
      const history = rebuildHistory(readRollout(forked.path)).items.map((h) => h.item as Record<string, any>);
      const noted = history.filter((it) => it.type === "function_call_output" && NOTE_ID.test(outputText(it.output).text));
      expect(noted.length).toBeGreaterThan(0);
      const id = NOTE_ID.exec(outputText(noted[0]!.output).text)![1]!;
      expect(id).toBe(noted[0]!.call_id);
      const original = rebuildHistory(readRollout(source))
        .items.map((h) => h.item as Record<string, any>)
        .find((it) => it.type === "function_call_output" && it.call_id === id)!;
      const originalText = outputText(original.output).text;

      const n = mock.responses().length;
      const resumed = await codexResume(codex.bin, world, forked.newId, `RUN: bc recall ${id}`);
      if (resumed.exitCode !== 0) throw new Error(`codex exec resume failed (${resumed.exitCode}):\n${resumed.stderr.slice(-3000)}`);
      // the output Codex sent the model for the recall call holds the original bytes
      const last = mock.responses().slice(n).at(-1)!.body;
      const call = (last.input as any[]).filter((it) => it.type === "function_call").at(-1);
      expect(JSON.parse(call.arguments).cmd ?? JSON.parse(call.arguments).command).toBe(`bc recall ${id}`);
      const out = (last.input as any[]).find((it) => it.type === "function_call_output" && it.call_id === call.call_id);
      expect(outputText(out.output).text).toContain(originalText);
      console.log(`recall in Codex: ${id}, ${originalText.length} chars inside the shell output of the resumed fork`);
    },
    T,
  );
});
