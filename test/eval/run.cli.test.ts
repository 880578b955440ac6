// The eval end to end on the embedded example corpus: determinism, broken files, the CLI.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { MAX_JOBS, parseCuts, parseJobs, parseMethods, parsePressure } from "../../src/cli/eval.ts";
import { collectFiles, unreadable } from "../../src/eval/corpus.ts";
import { DEMO_FILES } from "../../src/eval/demo/index.ts";
import { scoreHostCompactions } from "../../src/eval/host-compactions.ts";
import { rulesCompactor } from "../../src/eval/methods/engine.ts";
import { renderReport } from "../../src/eval/report/write.ts";
import { renderMarkdown } from "../../src/eval/report/markdown.ts";
import { LIGHT_CEILING_IDS, METHOD_IDS } from "../../src/eval/replay.ts";
import { runEval } from "../../src/eval/run.ts";
import { indexSession } from "../../src/eval/session-index.ts";
import { BcError } from "../../src/util/errors.ts";
import { REPO_DIR } from "../support/shared.ts";
import { filler, pair, prompt, reply, session } from "./build.ts";

const tmp = mkdtempSync(join(tmpdir(), "bc-eval-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** the example corpus on disk, plus extra files */
const corpus = (name: string, extra: Record<string, string> = {}, base: Record<string, string> = { ...DEMO_FILES }): string => {
  const dir = join(tmp, name);
  for (const [file, text] of Object.entries({ ...base, ...extra })) {
    const path = join(dir, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return dir;
};

const evalDir = async (dir: string) => {
  const { files, skipped } = collectFiles([dir]);
  return runEval({ files, skipped, kind: "files", cuts: [0.5, 0.7, 0.9], passes: [0.5, 0.6, 0.7, 0.8, 0.9], methods: METHOD_IDS, compact: rulesCompactor });
};

test("a broken file is reported (file, line, why) and skipped; the run goes on and counts it", async () => {
  const small = "demo/claude/example-tag-crash.jsonl";
  const dir = corpus(
    "broken",
    { "demo/claude/broken.jsonl": '{not json\n{"also": "not a session"}\n', "demo/claude/empty.jsonl": "" },
    { [small]: DEMO_FILES[small]! },
  );
  const r = await evalDir(dir);
  expect(r.corpus.sessions).toBe(1);
  expect(r.corpus.files).toBe(3);
  expect(r.corpus.skipped.map((s) => s.file)).toEqual(["broken/demo/claude/broken.jsonl", "broken/demo/claude/empty.jsonl"]);
  expect(r.corpus.skipped[0]!.reason).toMatch(/^broken\/demo\/claude\/broken\.jsonl(:1)?: /);
  expect(r.corpus.skipped[1]!.reason).toContain("empty");
  for (const s of r.corpus.skipped) expect(s.reason).not.toContain(tmp);
  const md = renderReport(r)["report.md"];
  expect(md).toContain("## Skipped files (2)");
  // one session is said as one
  expect(md).toContain("; 1 session (");
  expect(md).toContain(": 1 session\n");
});

test("host compactions: a result used after the compaction is kept by the rules and lost by a summary that drops it", () => {
  const messages = [
    prompt("go"),
    ...pair("c1", "Read", { file_path: "src/a.ts" }, "export const loadWidgetConfig = () => 42;"),
    ...filler(8),
    reply("calling loadWidgetConfig now"),
  ];
  const index = indexSession(session(messages));
  const summary = { role: "user" as const, kind: "summary" as const, text: "We read src/a.ts.", toolCalls: [], toolResults: [] };
  const [c] = scoreHostCompactions(index, [{ from: 0, at: 11, kept: [summary] }], rulesCompactor);
  expect(c).toMatchObject({ from: 0, at: 11, until: 12, results: 1, needed: 1, keptByHost: 0, keptByRules: 1 });
});

test("flag values are checked with one-line errors", () => {
  expect(parseCuts("0.9,0.5")).toEqual([0.5, 0.9]);
  expect(() => parseCuts("0.5,1.2")).toThrow(BcError);
  expect(parseMethods("size-cap,rules")).toEqual(["rules", "size-cap"]);
  expect(() => parseMethods("rules,magic")).toThrow("unknown method magic");
});

test("bc eval --demo writes the three report files, and the same corpus gives the same report byte for byte", async () => {
  const out = join(tmp, "demo-report");
  const p = Bun.spawnSync([process.execPath, join(REPO_DIR, "src", "main.ts"), "eval", "--demo", "--json", "--need-weights", "shipped", "--out", out], {
    cwd: tmp,
    env: { ...process.env, NO_COLOR: "1" },
  });
  expect(p.exitCode).toBe(0);
  const summary = JSON.parse(p.stdout.toString());
  expect(summary.corpus.kind).toBe("demo");
  expect(summary.parameters.needWeights.kind).toBe("shipped");
  expect(summary.out).toEqual(["report.md", "report.json", "report.html"].map((f) => join(out, f)));
  for (const f of summary.out) expect(existsSync(f)).toBe(true);
  const html = readFileSync(join(out, "report.html"), "utf8");
  expect(html).toContain("<svg");
  expect(html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, "")).not.toMatch(/https?:\/\/|<link|<script/);
  expect(readFileSync(join(out, "report.md"), "utf8")).toContain("EXAMPLE corpus");

  // the same examples, replayed again in this process: identical files
  const dir = corpus("again");
  const files = Object.keys(DEMO_FILES)
    .sort()
    .map((name) => ({ path: join(dir, name), name }));
  const again = renderReport(
    await runEval({
      files,
      kind: "demo",
      cuts: [0.5, 0.7, 0.9],
      passes: [0.5, 0.6, 0.7, 0.8, 0.9],
      methods: METHOD_IDS,
      compact: rulesCompactor,
      pressure: 0.95,
    }),
  );
  for (const f of ["report.json", "report.md", "report.html"] as const) expect(again[f]).toBe(readFileSync(join(out, f), "utf8"));

  const r = JSON.parse(again["report.json"]);
  expect(r.corpus.sessions).toBe(Object.keys(DEMO_FILES).length);
  expect(r.hosts.map((h: { host: string }) => h.host)).toEqual(["claude", "codex"]);
  expect(r.hosts[0].methods.map((m: { method: string }) => m.method)).toEqual([...METHOD_IDS, ...LIGHT_CEILING_IDS]);
  expect(r.hosts[0].methods.filter((m: { kind: string }) => m.kind === "ceiling").map((m: { method: string }) => m.method)).toEqual(["oracle", "oracle-head"]);
  for (const s of r.sessions) for (const c of s.cuts) expect(Object.keys(c.methods)).toEqual([...METHOD_IDS, ...LIGHT_CEILING_IDS]);
  // the synthetic examples hold one host compaction per host; the rules keep more than the summaries did
  for (const h of r.hosts) {
    expect(h.compactions.compactions).toBeGreaterThanOrEqual(1);
    expect(h.compactions.keptByRules).toBeGreaterThan(h.compactions.keptByHost);
    expect(h.passes.map((q: { fixedPointViolations: number }) => q.fixedPointViolations)).toEqual([0, 0, 0, 0, 0]);
  }
});

test("a path that does not exist is named in a one-line error (exit 1)", () => {
  const missing = join(tmp, "no-such-folder");
  const p = Bun.spawnSync([process.execPath, join(REPO_DIR, "src", "main.ts"), "eval", missing], { stdout: "pipe", stderr: "pipe" });
  expect(p.exitCode).toBe(1);
  expect(p.stderr.toString()).toBe(`bc: ${missing}: no such file or folder\nhint: pass Claude Code transcripts or Codex rollouts, or folders holding them\n`);
  expect(p.stdout.toString()).toBe("");
});

test("--pressure takes a share of the window, or off", () => {
  expect(parsePressure(undefined)).toBe(0.95);
  expect(parsePressure("0.9")).toBe(0.9);
  expect(parsePressure("off")).toBeUndefined();
  for (const bad of ["0", "1.5", "high"]) expect(() => parsePressure(bad)).toThrow("--pressure");
});

test("--jobs takes how many processes replay at once; by default one per core, at most MAX_JOBS", () => {
  expect(parseJobs(undefined, 2)).toBe(2);
  expect(parseJobs(undefined, 64)).toBe(MAX_JOBS);
  expect(parseJobs(undefined, 0)).toBe(1);
  expect(parseJobs("1", 8)).toBe(1);
  expect(parseJobs("12", 2)).toBe(12);
  for (const bad of ["0", "65", "1.5", "-2", "two", ""]) expect(() => parseJobs(bad)).toThrow("--jobs");
});

test("--split: each given path is its own block beside the total; fingerprints depend on contents only", async () => {
  const claude = Object.fromEntries(Object.entries(DEMO_FILES).filter(([k]) => k.includes("/claude/")));
  const codex = Object.fromEntries(Object.entries(DEMO_FILES).filter(([k]) => k.includes("/codex/")));
  const a = corpus("split-a", {}, claude);
  const b = corpus("split-b", {}, codex);
  const { files, skipped, groups } = collectFiles([b, a]);
  const opts = {
    skipped,
    kind: "files" as const,
    cuts: [0.5, 0.9],
    passes: [],
    methods: ["rules", "oldest-first", "largest-first"].filter((m) => METHOD_IDS.includes(m)),
    compact: rulesCompactor,
    pressure: 0.95,
  };
  const r = await runEval({ files, ...opts, split: true, groups });
  // in the order the paths were given
  expect(r.split!.map((s) => [s.name, s.sessions, s.files])).toEqual([
    ["split-b", Object.keys(codex).length, Object.keys(codex).length],
    ["split-a", Object.keys(claude).length, Object.keys(claude).length],
  ]);
  expect(r.split!.map((s) => s.hosts.map((h) => h.host))).toEqual([["codex"], ["claude"]]);
  // the block of one path summarizes that path alone: here, each host's total
  expect(r.split![1]!.hosts[0]!.methods).toEqual(r.hosts[0]!.methods);
  expect(r.split![0]!.hosts[0]!.pressure).toEqual(r.hosts[1]!.pressure);
  const md = renderMarkdown(r);
  // each host's table has the paths holding its sessions only: split-a is all Claude Code, split-b all Codex
  expect(md).toContain(
    "| method | total: freed | total: lost rate | total: lost of scorable | total: lost | split-a: freed | split-a: lost rate | split-a: lost of scorable | split-a: lost |\n",
  );
  expect(md).toContain("| method | total: freed | total: lost rate | total: lost | split-b: freed | split-b: lost rate | split-b: lost |\n");
  // the same files from another folder, in one folder together: the same fingerprints
  const together = corpus("together", {}, { ...claude, ...codex });
  const again = await runEval({ ...opts, ...collectFiles([together]) });
  expect(again.corpus.fingerprint).toBe(r.corpus.fingerprint);
  const onlyClaude = await runEval({ ...opts, ...collectFiles([corpus("elsewhere", {}, claude)]) });
  expect(onlyClaude.corpus.fingerprint).toBe(r.split![1]!.fingerprint);
  expect(onlyClaude.corpus.fingerprint).not.toBe(r.corpus.fingerprint);
  const params = JSON.parse(renderReport(r)["report.json"]).parameters;
  expect(params.pressure).toMatchObject({ share: 0.95, budgetShare: 0.6, trigger: "auto" });
  expect(params.split).toBe(true);
});

const bcEval = (...args: string[]) => {
  const p = Bun.spawnSync([process.execPath, join(REPO_DIR, "src", "main.ts"), "eval", ...args], {
    cwd: tmp,
    stdout: "pipe",
    stderr: "pipe",
    // a home of its own: no need weights of the machine's user (bc calibrate --write) in play
    env: { ...process.env, NO_COLOR: "1", HOME: tmp, CLAUDE_CONFIG_DIR: undefined },
  });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
};

test("--out that is a file fails before any replay, and writes nothing", () => {
  const file = join(tmp, "a-file");
  writeFileSync(file, "x");
  const r = bcEval("--demo", "--out", file);
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(`bc: ${file}: exists and is not a folder\nhint: pass --out with a folder path\n`);
  expect(readFileSync(file, "utf8")).toBe("x");
});

test("nothing to replay exits non-zero and says why (--host left every file out); the --out folder it made is gone", () => {
  const dir = corpus("claude-only", {}, Object.fromEntries(Object.entries(DEMO_FILES).filter(([k]) => k.includes("/claude/"))));
  const out = join(tmp, "never-written");
  const r = bcEval(dir, "--host", "codex", "--out", out);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/nothing to replay: --host codex left out all \d+ files/);
  expect(r.stdout).toBe("");
  expect(existsSync(out)).toBe(false);
});

test("the summary for people fits 100 columns, names the report and what to do next", () => {
  const r = bcEval("--demo", "--out", join(tmp, "terminal"));
  expect(r.code).toBe(0);
  const lines = r.stdout.trimEnd().split("\n");
  for (const l of lines.filter((x) => !x.startsWith("Full report: "))) expect({ line: l, width: l.length <= 100 }).toEqual({ line: l, width: true });
  expect(r.stdout).toContain("Light compaction (no budget)");
  expect(r.stdout).toContain("At 95% of the window, compacted to 60%");
  expect(r.stdout).toContain("ceiling: oracle-head (hindsight)");
  expect(r.stdout).toMatch(/\n {2}\d+% of what bc removes holds a token the yardstick counts; of that, it loses \d+\.\d\d%\.\n/);
  expect(r.stdout).toContain(`Full report: ${join(tmp, "terminal", "report.html")}`);
  expect(r.stdout).toContain("bc claude install");
  expect(r.stdout).not.toContain("NOT met");
});

test("a compressed rollout in a folder is replayed (its plain copy beside it wins; copies of a session read before are replayed once); a last line cut mid-JSON is said as file:line", () => {
  const codex = Object.entries(DEMO_FILES).filter(([k]) => k.includes("/codex/"));
  const [name, text] = codex[0]!;
  const dir = join(tmp, "zst");
  mkdirSync(join(dir, "a"), { recursive: true });
  mkdirSync(join(dir, "b"), { recursive: true });
  // a: only the compressed file; b: both (the plain one is read, once)
  writeFileSync(join(dir, "a", "r.jsonl.zst"), Bun.zstdCompressSync(Buffer.from(text)));
  writeFileSync(join(dir, "b", "r.jsonl"), text);
  writeFileSync(join(dir, "b", "r.jsonl.zst"), Bun.zstdCompressSync(Buffer.from(text)));
  const { files } = collectFiles([dir]);
  expect(files.map((f) => f.name)).toEqual(["zst/a/r.jsonl.zst", "zst/b/r.jsonl"]);
  // a cut last line, in a file of its own
  const cut = join(tmp, "zz-cut", "rollout-cut.jsonl");
  mkdirSync(dirname(cut), { recursive: true });
  writeFileSync(cut, `${text.trimEnd()}\n{"timestamp":"2026-11-30T02:43:49.000Z","type":"respo`);
  const r = bcEval(dir, dirname(cut), "--out", join(tmp, "zst-out"), "--json");
  expect(r.code).toBe(0);
  const report = JSON.parse(readFileSync(join(tmp, "zst-out", "report.json"), "utf8"));
  // the three hold the same session: one is replayed (which, the content decides: copies.ts
  // keptFirst), the other two are copies of it
  const all = ["zst/a/r.jsonl.zst", "zst/b/r.jsonl", "zz-cut/rollout-cut.jsonl"];
  const kept: string[] = report.sessions.map((s: { file: string }) => s.file);
  expect(kept).toHaveLength(1);
  expect(report.corpus.skipped.map((s: { reason: string }) => s.reason)).toEqual(
    all.filter((f) => f !== kept[0]).map((f) => `${f}: a copy of ${kept[0]} (every tool result of it is there, with the same id and text): replayed once`),
  );
  expect(r.stderr).toMatch(/^warning: zz-cut\/rollout-cut\.jsonl:\d+: /m);
  expect(name).toContain("codex");
});

test("many files that are no sessions: ten warnings, then one line for the rest; report.json lists every one", () => {
  const junk = Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`notes/n${String(i).padStart(2, "0")}.jsonl`, "not json\n"]));
  const dir = corpus("junk", junk);
  const out = join(tmp, "junk-out");
  const r = bcEval(dir, "--out", out, "--pressure", "off");
  expect(r.code).toBe(0);
  // one line each, as the readers' skipped lines are said
  const warnings = r.stderr.split("\n").filter((l) => l.startsWith("warning: "));
  expect(warnings.length).toBe(11);
  expect(warnings.slice(0, 10).every((l) => /skipped junk\/notes\/n\d\d\.jsonl:1: /.test(l))).toBe(true);
  expect(warnings[10]).toContain("and 3 more files skipped: report.json lists every one (corpus.skipped)");
  expect(JSON.parse(readFileSync(join(out, "report.json"), "utf8")).corpus.skipped).toHaveLength(13);
});

test("a file listed and then gone, or that cannot be read: said in words under the name the report uses, and the run goes on", async () => {
  const small = "demo/claude/example-tag-crash.jsonl";
  const dir = corpus("vanishing", {}, { [small]: DEMO_FILES[small]! });
  const listed = collectFiles([dir]);
  const gone = { path: join(dir, "demo", "claude", "gone.jsonl"), name: "vanishing/demo/claude/gone.jsonl" };
  const folder = { path: join(dir, "demo"), name: "vanishing/demo" };
  const r = await runEval({
    files: [...listed.files, gone, folder],
    skipped: [],
    kind: "files",
    cuts: [0.5],
    passes: [],
    methods: ["rules"],
    compact: rulesCompactor,
  });
  expect(r.corpus.sessions).toBe(1);
  expect(r.corpus.skipped.map((s) => s.reason)).toEqual([
    "vanishing/demo: is a folder, not a file",
    "vanishing/demo/claude/gone.jsonl: no longer there (removed after it was listed)",
  ]);
  expect(unreadable("x.jsonl", Object.assign(new Error("EACCES: permission denied, open '/a/x.jsonl'"), { code: "EACCES" }))).toBe(
    "x.jsonl: cannot be read (permission denied)",
  );
  expect(unreadable("x.jsonl", new Error("disk on fire"))).toBe("x.jsonl: cannot be read (disk on fire)");
});

test("a run that fails leaves no --out folder it would have made, and keeps one that was there", () => {
  const empty = join(tmp, "no-sessions");
  mkdirSync(empty, { recursive: true });
  const kept = join(tmp, "was-there");
  mkdirSync(kept, { recursive: true });
  const failures: { args: string[]; code: number; made: string }[] = [
    { args: [empty, "--out", join(tmp, "o1")], code: 1, made: join(tmp, "o1") },
    { args: [join(tmp, "nosuch"), "--out", join(tmp, "o3", "a", "b")], code: 1, made: join(tmp, "o3") },
    { args: ["--demo", "small", "--out", join(tmp, "dm")], code: 2, made: join(tmp, "dm") },
    { args: [empty, "--out", kept], code: 1, made: "" },
  ];
  for (const f of failures) {
    const r = bcEval(...f.args);
    expect({ args: f.args, code: r.code, stdout: r.stdout }).toEqual({ args: f.args, code: f.code, stdout: "" });
    if (f.made !== "") expect({ made: f.made, there: existsSync(f.made) }).toEqual({ made: f.made, there: false });
  }
  expect(existsSync(kept)).toBe(true);
});

test("--pressure at or below the budget's share, or given empty, is a usage error (exit 2) that names the budget", () => {
  for (const flag of [["--pressure", "0.6"], ["--pressure="]]) {
    const r = bcEval("--demo", ...flag, "--out", join(tmp, "never"));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bc: --pressure .*above the budget's 0\.6 \(60% of the window\).*\nhint: for example --pressure 0\.95\n$/);
    expect(existsSync(join(tmp, "never"))).toBe(false);
  }
});

test("--cuts where no session has anything to score (near 0 or 1) is said in a warning; the cuts that scored are not named", () => {
  const small = "demo/claude/example-tag-crash.jsonl";
  const dir = corpus("edge-cuts", {}, { [small]: DEMO_FILES[small]! });
  const r = bcEval(dir, "--cuts", "0.001,0.5,0.9999", "--pressure", "off", "--methods", "rules", "--out", join(tmp, "edge-cuts-out"));
  expect(r.code).toBe(0);
  expect(r.stderr.split("\n").filter((l) => l.startsWith("warning: "))).toEqual([
    "warning: no cut at 0.001 or 0.9999 was scored: no session had a result a method may remove before it and messages after it (a cut near 0 or 1 leaves none)",
  ]);
  expect(bcEval(dir, "--cuts", "0.5", "--pressure", "off", "--methods", "rules", "--out", join(tmp, "edge-cuts-out")).stderr).not.toContain("warning");
});

test("one file given twice by two spellings leaves the corpus fingerprint as it was", async () => {
  const small = "demo/claude/example-tag-crash.jsonl";
  const dir = corpus("twice", {}, { [small]: DEMO_FILES[small]! });
  const file = join(dir, small);
  const opts = { kind: "files" as const, cuts: [0.5], passes: [], methods: ["rules"], compact: rulesCompactor };
  const once = await runEval({ ...opts, ...collectFiles([file]) });
  const twice = await runEval({ ...opts, ...collectFiles([file, `${dir}/./${small}`]) });
  expect(twice.corpus.fingerprint).toBe(once.corpus.fingerprint);
  expect(twice.corpus.files).toBe(1);
});

/** `bc eval` with no path, for one host, with HOME at `home`: its stderr and report. */
const evalAtHome = (home: string, label: string, host: "claude" | "codex") => {
  const out = join(tmp, `out-${label}`);
  const p = Bun.spawnSync([process.execPath, join(REPO_DIR, "src", "main.ts"), "eval", "--host", host, "--pressure", "off", "--jobs", "1", "--out", out], {
    cwd: tmp,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1", HOME: home, CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined },
  });
  expect(p.exitCode).toBe(0);
  return { stderr: p.stderr.toString(), report: JSON.parse(readFileSync(join(out, "report.json"), "utf8")) };
};

/**
 * A home holding the demo Codex thread's files under `names` (a name is given its text: the thread's
 * whole history, or its first 12 lines where `short`), and `bc eval` run there with no path.
 */
const evalOwnCodexThread = (label: string, files: readonly { readonly name: (thread: string) => string; readonly short?: boolean }[]) => {
  const home = join(tmp, `home-${label}`);
  const demo = Object.keys(DEMO_FILES).find((f) => f.includes("codex/rollout-2026"))!;
  const text = DEMO_FILES[demo]!;
  const thread = /([0-9a-f-]{36})\.jsonl$/.exec(demo)![1]!;
  const day = join(home, ".codex", "sessions", "2026", "11", "30");
  mkdirSync(day, { recursive: true });
  const paths = files.map((f) => {
    const path = join(day, f.name(thread));
    writeFileSync(path, f.short ? `${text.split("\n").slice(0, 12).join("\n")}\n` : text);
    return path;
  });
  return { thread, paths, ...evalAtHome(home, label, "codex") };
};

test("your own sessions (no path given): a Codex thread that went on in a new file after a revert is replayed from its first file only", () => {
  const { thread, paths, stderr, report } = evalOwnCodexThread("reverted", [
    { name: (t) => `rollout-2026-11-30T02-00-00-${t}.jsonl` },
    // the file Codex went on in: the same thread, history as bc left it (here: fewer lines, so not a copy)
    { name: (t) => `rollout-2026-11-30T03-00-00-${t}_01a30000-0000-7000-8000-000000000001.jsonl`, short: true },
  ]);
  expect(stderr).not.toContain(paths[1]!);
  expect(report.sessions.map((s: { id: string }) => s.id)).toEqual([thread]);
  expect(report.sessions[0].file).toEndWith(basename(paths[0]!));
});

test("your own sessions (no path given): a Codex thread whose first file is gone is replayed from the earliest file it went on in", () => {
  const { thread, paths, report } = evalOwnCodexThread("first-gone", [
    { name: (t) => `rollout-2026-11-30T03-00-00-${t}_01a30000-0000-7000-8000-000000000001.jsonl` },
    { name: (t) => `rollout-2026-11-30T04-00-00-${t}_01a30000-0000-7000-8000-000000000002.jsonl`, short: true },
  ]);
  expect(report.sessions.map((s: { id: string }) => s.id)).toEqual([thread]);
  expect(report.sessions[0].file).toEndWith(basename(paths[0]!));
});

test("your own sessions (no path given): a Claude Code session's subagents are replayed too, as a folder given to bc eval is read", () => {
  const home = join(tmp, "home-with-a-subagent");
  const project = join(home, ".claude", "projects", "-home-me-app");
  mkdirSync(join(project, "example-due-dates", "subagents"), { recursive: true });
  writeFileSync(join(project, "example-due-dates.jsonl"), DEMO_FILES["demo/claude/example-due-dates.jsonl"]!);
  // a subagent's own conversation, in the file Claude Code writes beside its session
  writeFileSync(join(project, "example-due-dates", "subagents", "agent-a1.jsonl"), DEMO_FILES["demo/claude/example-tag-crash.jsonl"]!);
  const { report } = evalAtHome(home, "subagent", "claude");
  expect(report.sessions.map((s: { file: string }) => basename(s.file)).sort()).toEqual(["agent-a1.jsonl", "example-due-dates.jsonl"]);
});
