// `bc inspect`, driven as a user drives it (a child process) and as a function.
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, mkdtempSync, copyFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspectSession, renderInspect } from "../../src/cli/inspect.ts";
import { planReport } from "../../src/cli/plan.ts";
import { enginePruner, forkRollout } from "../../src/hosts/codex/fork.ts";

const REPO = join(import.meta.dir, "..", "..");
const MAIN = join(REPO, "src", "main.ts");
const FIXTURES = join(REPO, "test", "fixtures");
const TMP = mkdtempSync(join(tmpdir(), "bc-inspect-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const bc = (args: string[], env: Record<string, string> = {}) => {
  const e: Record<string, string | undefined> = { ...process.env, ...env };
  delete e.BC_DEBUG;
  const r = Bun.spawnSync([process.execPath, MAIN, ...args], { cwd: REPO, env: e, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

describe("bc inspect", () => {
  test("--json on a fixture: the whole report", () => {
    const path = join(FIXTURES, "claude", "compacted-twice.jsonl");
    const r = bc(["inspect", path, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const zeroRoles = { user: 0, assistant: 0, system: 0 };
    const zeroKinds = { prompt: 0, reply: 0, tool: 0, reasoning: 0, summary: 0, meta: 0 };
    expect(JSON.parse(r.stdout)).toEqual({
      host: "claude",
      path,
      id: "7f3c2a10-5b1e-4c9d-8e2f-0a1b2c3d4e5f",
      versions: ["2.1.42"],
      bytes: Bun.file(path).size,
      timeline: {
        messages: 15,
        byRole: { ...zeroRoles, user: 7, assistant: 8 },
        byKind: { ...zeroKinds, prompt: 3, reply: 8, tool: 4 },
        toolCalls: 4,
        toolResults: 4,
        toolErrors: 0,
        images: 0,
        toolOutputChars: 94 + 52 + 53 + 57,
        // each text estimated on its own, as plan estimates them
        toolOutputTokens: [94, 52, 53, 57].reduce((n, c) => n + Math.ceil(c / 4), 0),
        tokens: expect.any(Number),
      },
      live: {
        messages: 8,
        byRole: { ...zeroRoles, user: 4, assistant: 4 },
        byKind: { ...zeroKinds, prompt: 2, reply: 4, tool: 2 },
        toolCalls: 2,
        toolResults: 2,
        toolErrors: 0,
        images: 0,
        toolOutputChars: "[bc: dropped]".length + 57,
        toolOutputTokens: Math.ceil("[bc: dropped]".length / 4) + Math.ceil(57 / 4),
        tokens: expect.any(Number),
      },
      tools: [
        { name: "Edit", calls: 2, results: 2, errors: 0, outputChars: 105, outputTokens: Math.ceil(52 / 4) + Math.ceil(53 / 4) },
        { name: "Grep", calls: 1, results: 1, errors: 0, outputChars: 94, outputTokens: 24 },
        { name: "Bash", calls: 1, results: 1, errors: 0, outputChars: 57, outputTokens: 15 },
      ],
      compactions: [
        { from: 0, at: 4, kept: 1, trigger: "auto" },
        { from: 4, at: 11, kept: 4, trigger: "manual" },
      ],
      malformed: { count: 0, lines: [] },
      warnings: [],
      skipped: [],
      sidechains: [],
    });
  });

  test("inspect's estimate of the live history is plan's, to the token, on both hosts", () => {
    for (const file of [join(FIXTURES, "claude", "compacted-twice.jsonl"), join(FIXTURES, "codex", "legacy-one-compaction.jsonl")]) {
      const shape = JSON.parse(bc(["inspect", file, "--json"]).stdout).live;
      const totals = JSON.parse(bc(["plan", file, "--json"]).stdout).passes[0].plan.totals;
      expect([shape.tokens, shape.toolOutputTokens]).toEqual([totals.tokensBefore, totals.toolTokensBefore]);
    }
  });

  test("the people's table names every section", () => {
    const r = bc(["inspect", join(FIXTURES, "claude", "with-subagents.jsonl")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const out = r.stdout;
    expect(out).toStartWith("Claude Code 2.1.42 session 9a8b7c6d-1111-4222-8333-444455556666\n");
    expect(out).toMatch(/^messages\s+4\s+4$/m);
    expect(out).toMatch(/^Task\s+1\s+0\s+37\s+10\s+100\.0%$/m);
    expect(out).toContain("host compactions: none\n");
    expect(out).toContain("lines skipped: 0\n");
    expect(out).toContain("sidechains (subagents): 2\n");
    expect(out).toMatch(/agent-a11ce\s+4\s+1\s+48\s+12$/m);
    expect(out).toMatch(/agent-b0b\s+4\s+1\s+24\s+6$/m);
  });

  test("the tools table's share is of the output's tokens, the column before it", () => {
    const report = inspectSession(join(FIXTURES, "claude", "errors-images-meta.jsonl"));
    const total = report.timeline.toolOutputTokens;
    expect(report.tools.length).toBeGreaterThan(1);
    const lines = renderInspect(report).split("\n");
    for (const tool of report.tools) {
      const row = lines.find((l) => l.startsWith(`${tool.name} `))!;
      expect(row.trim().split(/\s+/).at(-1)).toBe(`${((100 * tool.outputTokens) / total).toFixed(1)}%`);
    }
  });

  test("a session's name, when it has one (inspect and plan): a Claude Code transcript's last custom-title, a Codex thread's in its home's index", () => {
    const claude = join(TMP, "named-claude.jsonl");
    copyFileSync(join(FIXTURES, "claude", "parallel-tool-calls.jsonl"), claude);
    expect(inspectSession(claude).name).toBeUndefined();
    appendFileSync(claude, `${JSON.stringify({ type: "custom-title", customTitle: "checkout flow", sessionId: "x" })}\n`);
    const named = inspectSession(claude);
    expect(named.name).toBe("checkout flow");
    expect(renderInspect(named).split("\n")[0]).toEndWith(`session ${named.id} ("checkout flow")`);
    expect(planReport(claude, {}).name).toBe("checkout flow");
    expect(bc(["plan", claude]).stdout.split("\n")[0]).toContain(`session ${named.id} ("checkout flow") (live history)`);

    const home = join(TMP, "named-codex-home");
    const dir = join(home, "sessions", "2026", "12", "01");
    mkdirSync(dir, { recursive: true });
    const rollout = join(dir, "rollout-2026-12-01T09-00-00-0190c000-0000-7000-8000-0000000000c1.jsonl");
    copyFileSync(join(FIXTURES, "codex", "fork-paginated-0.169.0.jsonl"), rollout);
    const id = inspectSession(rollout).id;
    writeFileSync(join(home, "session_index.jsonl"), `${JSON.stringify({ id, thread_name: "login fix", updated_at: "2026-12-01T09:00:00Z" })}\n`);
    expect(inspectSession(rollout).name).toBe("login fix");
  });

  test("malformed lines and pairing warnings are reported, not fatal", () => {
    const path = join(FIXTURES, "claude", "malformed-and-truncated.jsonl");
    const report = inspectSession(path);
    expect(report.malformed.count).toBe(2);
    expect(report.malformed.lines[0]).toStartWith(`${path}:3: not valid JSON`);
    expect(report.malformed.lines[1]).toBe(`${path}:7: incomplete last line, cut mid-JSON (the file may still be being written)`);
    expect(report.warnings).toEqual([`${path}:5: tool_result toolu_06GHOST has no tool_use before it`]);
    const text = renderInspect(report);
    expect(text).toContain("lines skipped: 2\n");
    expect(text).toContain("pairing warnings: 1\n");
  });

  test("a file's skipped line is counted once, however many of its conversations (main, sidechains) read it", () => {
    const path = join(TMP, "sidechain-and-bad-line.jsonl");
    const rec = (uuid: string, parent: string | null, type: string, content: string, side?: string) =>
      JSON.stringify({
        type,
        uuid,
        parentUuid: parent,
        sessionId: "s",
        ...(side ? { isSidechain: true, agentId: side } : {}),
        message: { role: type, content },
      });
    writeFileSync(
      path,
      `${[rec("u1", null, "user", "go"), rec("s1", null, "user", "look", "ag1"), "{ broken", rec("s2", "s1", "assistant", "seen", "ag1"), rec("a1", "u1", "assistant", "ok")].join("\n")}\n`,
    );
    const report = inspectSession(path);
    expect(report.sidechains).toHaveLength(1);
    expect(report.malformed.count).toBe(1);
    expect(report.malformed.lines).toEqual([expect.stringMatching(/sidechain-and-bad-line\.jsonl:3: not valid JSON/)]);
  });

  test("every skipped or cut line is said on stderr as file:line: what was wrong, by inspect and plan alike", () => {
    const path = join(FIXTURES, "claude", "malformed-and-truncated.jsonl");
    for (const command of ["inspect", "plan"]) {
      const r = bc([command, path]);
      expect(r.code).toBe(0);
      const warnings = r.stderr.trimEnd().split("\n");
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toStartWith(`warning: ${path}:3: not valid JSON`);
      expect(warnings[1]).toBe(`warning: ${path}:7: incomplete last line, cut mid-JSON (the file may still be being written)`);
    }
  });

  test("a PNG given as a session: one line naming the file, the line and what it is", () => {
    const png = join(TMP, "screenshot.png");
    Bun.write(png, Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52));
    const r = bc(["inspect", png]);
    expect(r.code).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe(`bc: ${png}:1: a PNG image, not JSON; neither a Claude Code transcript nor a Codex rollout`);
    expect(() => planReport(png, {})).toThrow(`${png}:1: a PNG image, not JSON`);
    expect(() => forkRollout(png, { context: "fresh", pruner: enginePruner(), codexHome: join(TMP, "codex"), dryRun: true })).toThrow(
      `${png}:1: not a Codex rollout: a PNG image, not JSON`,
    );
  });

  test("several sessions: inspect and plan handle every one, --json an array; codex-fork refuses in one line", () => {
    const a = join(FIXTURES, "claude", "compacted-twice.jsonl");
    const b = join(FIXTURES, "codex", "legacy-one-compaction.jsonl");
    const r = bc(["inspect", a, b, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((x: { path: string }) => x.path)).toEqual([a, b]);
    // one that cannot be read is said, the others still done, and the exit code says it
    const missing = bc(["plan", a, join(TMP, "gone.jsonl"), b]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(`claude session 7f3c2a10-5b1e-4c9d-8e2f-0a1b2c3d4e5f (live history): ${a}\n`);
    expect(missing.stdout).toContain(`(live history): ${b}\n`);
    expect(missing.stderr).toStartWith(`bc: ${join(TMP, "gone.jsonl")}: no such file\n`);
    // --json: the one that failed stands in its place in the array, with why, for a script to tell
    for (const command of ["plan", "inspect"]) {
      const j = bc([command, a, join(TMP, "gone.jsonl"), b, "--json"]);
      expect(j.code).toBe(1);
      const entries = JSON.parse(j.stdout);
      expect(entries).toHaveLength(3);
      expect(entries[1]).toEqual({ session: join(TMP, "gone.jsonl"), error: `${join(TMP, "gone.jsonl")}: no such file` });
      expect([entries[0].path, entries[2].path]).toEqual([a, b]);
    }
    const fork = bc(["codex-fork", b, b]);
    expect(fork.code).toBe(2);
    expect(fork.stdout).toBe("");
    expect(fork.stderr.split("\n")[0]).toBe("bc: codex-fork takes one session, got 2");
  });

  test("images and errors are counted", () => {
    const report = inspectSession(join(FIXTURES, "claude", "errors-images-meta.jsonl"));
    expect([report.timeline.images, report.timeline.toolErrors, report.timeline.byKind.meta, report.timeline.byKind.reasoning]).toEqual([2, 1, 1, 1]);
  });

  test("a Codex rollout is detected and inspected the same way", () => {
    const r = bc(["inspect", join(FIXTURES, "codex", "legacy-one-compaction.jsonl"), "--json"]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.host).toBe("codex");
    expect(j.compactions).toHaveLength(1);
  });

  test("a session id is looked up under $HOME/.claude/projects", () => {
    const id = "7f3c2a10-5b1e-4c9d-8e2f-0a1b2c3d4e5f";
    const dir = join(TMP, "home", ".claude", "projects", "-home-dev-shop");
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(FIXTURES, "claude", "parallel-tool-calls.jsonl"), join(dir, `${id}.jsonl`));
    const r = bc(["inspect", id, "--json"], { HOME: join(TMP, "home"), CODEX_HOME: join(TMP, "no-codex") });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).path).toBe(join(dir, `${id}.jsonl`));
    // codex-fork given that Claude Code session's id: what it says of the same file given by path
    const byId = bc(["codex-fork", id, "--dry-run"], { HOME: join(TMP, "home"), CODEX_HOME: join(TMP, "no-codex") });
    const byPath = bc(["codex-fork", join(dir, `${id}.jsonl`), "--dry-run"], { HOME: join(TMP, "home"), CODEX_HOME: join(TMP, "no-codex") });
    expect(byId.code).toBe(1);
    expect(byId.stderr).toBe(byPath.stderr);
    expect(byId.stderr).toContain("hint: this looks like a Claude Code transcript");
  });

  test.each([
    ["a missing file", ["inspect", "missing-session.jsonl"], 1, "bc: missing-session.jsonl: no such file"],
    ["an unknown id", ["inspect", "no-such-id"], 1, "bc: no-such-id: no such file, and no session with that id or name"],
    ["no argument", ["inspect"], 2, "bc: Missing required positional argument: SESSION"],
  ])("%s: one line, a hint, no stack trace", (_, args, code, first) => {
    const r = bc(args, { HOME: join(TMP, "empty-home"), CODEX_HOME: join(TMP, "empty-codex") });
    expect(r.code).toBe(code);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe(first);
    expect(lines[1]).toStartWith("hint: ");
    expect(lines).toHaveLength(2);
  });
});
