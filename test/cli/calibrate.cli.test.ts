// `bc calibrate` as a user runs it, on the built-in example sessions (5 sessions, a few hundred
// results): the report, determinism, --write, and the weights file read back by bc plan.
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { foldOf } from "../../src/engine/need/fit.ts";
import { contentHash } from "../../src/eval/corpus.ts";
import { DEMO_FILES } from "../../src/eval/demo/index.ts";
import { constantNeed } from "../engine/support/need-models.ts";

const REPO = join(import.meta.dir, "..", "..");
const MAIN = join(REPO, "src", "main.ts");
const DEMO = join(REPO, "src", "eval", "demo");
const home = mkdtempSync(join(tmpdir(), "bc-calibrate-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const bc = (...args: string[]) => bcAt(home, ...args);
/** bc with its home folder elsewhere: a test of what lies where the weights go */
const bcAt = (home: string, ...args: string[]) => {
  const env: Record<string, string | undefined> = { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: join(home, ".codex") };
  const r = Bun.spawnSync([process.execPath, MAIN, ...args], { cwd: REPO, env, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

/** the error line among the progress lines */
const errorLine = (stderr: string): string | undefined => stderr.split("\n").find((l) => l.startsWith("bc: "));

const weightsFile = join(home, ".claude", "better-compaction", "need-weights.json");

describe("bc calibrate", () => {
  test("reports shipped vs refit on held-out sessions, the same way twice, writing nothing without --write", () => {
    const a = bc("calibrate", DEMO, "--json");
    expect(a.code).toBe(0);
    const r = JSON.parse(a.stdout);
    expect(r.sessions).toBe(5);
    expect(r.samples).toBeGreaterThan(200);
    for (const v of [r.shipped.auc, r.refit.auc]) expect(v >= 0 && v <= 1).toBe(true);
    expect(r.refit.folds).toBe(5);
    expect(r.skipped).toEqual([]);
    // per tool: most results first, each with its share used and the model's mean need
    expect(r.byTool.length).toBeGreaterThan(0);
    expect(r.byTool.map((t: { samples: number }) => t.samples)).toEqual([...r.byTool.map((t: { samples: number }) => t.samples)].sort((x, y) => y - x));
    for (const t of r.byTool) expect(t.samples >= 50 && t.usedShare >= 0 && t.usedShare <= 1 && t.meanNeed > 0 && t.meanNeed < 1).toBe(true);
    const text = bc("calibrate", DEMO).stdout;
    expect(text).toContain("by tool, shipped weights");
    for (const l of text.trimEnd().split("\n")) expect(l.length).toBeLessThanOrEqual(100);
    expect(r.written).toBeUndefined();
    // the advice, for a script as for a person: the text's last line, and whether it says to write the refit
    expect(text.trimEnd().split("\n").at(-1)).toBe(r.advice);
    expect(r.writeRefit).toBe(r.advice.endsWith("write it with --write"));
    expect(bc("calibrate", DEMO, "--json").stdout).toBe(a.stdout);
    expect(() => readFileSync(weightsFile)).toThrow();
  });

  test("under a budget: bc's losses on held-out sessions with the shipped weights and oracle-to-budget's are bc eval's at 95%", () => {
    const r = JSON.parse(bc("calibrate", DEMO, "--json").stdout);
    const out = join(home, "eval-budget");
    expect(bc("eval", DEMO, "--need-weights", "shipped", "--out", out).code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    const sum = (method: string, key: "lost" | "cuts" | "reached") =>
      report.hosts.reduce(
        (t: number, h: { pressure: { method: string; lost: number; cuts: number; reached: number }[] }) =>
          t + h.pressure.find((m) => m.method === method)![key],
        0,
      );
    expect(r.budget).toMatchObject({ pressure: 0.95, budgetPercent: 60 });
    expect(r.budget.cuts).toBe(sum("rules", "cuts"));
    expect(r.budget.cuts).toBeGreaterThan(0);
    expect(r.budget.shipped).toEqual({ lost: sum("rules", "lost"), reached: sum("rules", "reached") });
    expect(r.budget.oracleLost).toBe(sum("oracle-to-budget", "lost"));
    for (const v of [r.budget.refit.lost, r.budget.refit.reached]) expect(Number.isInteger(v) && v >= 0).toBe(true);
    const text = bc("calibrate", DEMO).stdout;
    expect(text).toContain(`bc loses ${r.budget.shipped.lost} results with the shipped weights, ${r.budget.refit.lost} with a refit`);
    expect(text.trimEnd().split("\n").at(-1)).toMatch(/^a refit loses .* at the budget on held-out sessions/);
  });

  test("your own sessions (no path given): a Codex thread bc compacted live is learnt from its first file, not again from the file it went on in", () => {
    const own = mkdtempSync(join(tmpdir(), "bc-calibrate-own-"));
    try {
      const project = join(own, ".claude", "projects", "-home-me-app");
      const day = join(own, ".codex", "sessions", "2026", "11", "30");
      mkdirSync(project, { recursive: true });
      mkdirSync(day, { recursive: true });
      let codex = "";
      for (const [name, text] of Object.entries(DEMO_FILES)) {
        const file = name.split("/").at(-1)!;
        if (name.includes("/claude/")) writeFileSync(join(project, file), text);
        else {
          writeFileSync(join(day, file), text);
          codex = file;
        }
      }
      const thread = /([0-9a-f-]{36})\.jsonl$/.exec(codex)![1]!;
      // the file the thread went on in: its history again as bc left it, an output cut to a note (so not a copy)
      const lines = DEMO_FILES[Object.keys(DEMO_FILES).find((k) => k.endsWith(codex))!]!.trimEnd().split("\n");
      const at = lines.findIndex((l) => l.includes('"function_call_output"'));
      const record = JSON.parse(lines[at]!);
      record.payload.output = "[bc: output removed]";
      lines[at] = JSON.stringify(record);
      writeFileSync(join(day, `rollout-2026-11-30T09-00-00-${thread}_01a30000-0000-7000-8000-000000000001.jsonl`), `${lines.join("\n")}\n`);
      const r = bcAt(own, "calibrate", "--json");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).sessions).toBe(Object.keys(DEMO_FILES).length);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  test("no session file among the paths given: one line naming them, exit 1", () => {
    const missing = join(home, "no-such-folder");
    const r = bc("calibrate", missing);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")[0]).toBe(`bc: ${missing}: no such file or folder`);
    const empty = mkdtempSync(join(home, "empty-"));
    expect(bc("calibrate", empty).stderr.trim().split("\n")[0]).toBe(`bc: no session files (*.jsonl) in ${empty}`);
  });

  test("a file that is no session is skipped with why, under its name and not its path; the rest is calibrated", () => {
    const dir = join(home, "demo-plus");
    cpSync(DEMO, dir, { recursive: true });
    writeFileSync(join(dir, "broken.jsonl"), "{not json\n");
    const r = bc("calibrate", dir, "--json");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.sessions).toBe(5);
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0]).toStartWith("demo-plus/broken.jsonl:1: not valid JSON");
    expect(report.skipped[0]).not.toContain(home);
  });

  test("too few sessions: one line saying what is needed, exit 1, nothing written", () => {
    const r = bc("calibrate", join(DEMO, "claude", "example-due-dates.jsonl"), "--write");
    expect(r.code).toBe(1);
    expect(errorLine(r.stderr)).toMatch(
      /^bc: too little to calibrate on: \d+ results \(\d+ used later\) in 1 session; need at least 200 results in 5 sessions/,
    );
    expect(() => readFileSync(weightsFile)).toThrow();
  });

  test("sessions without a tool result: how many were read, and that none has one", () => {
    const dir = join(home, "no-results");
    mkdirSync(dir);
    const [first] = readFileSync(join(DEMO, "claude", "example-due-dates.jsonl"), "utf8").split("\n");
    const reply = { ...JSON.parse(first!), type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "Done." }] } };
    const chat = `${first}\n${JSON.stringify(reply)}\n`;
    writeFileSync(join(dir, "a.jsonl"), chat);
    expect(errorLine(bc("calibrate", dir).stderr)).toBe("bc: too little to calibrate on: 1 session read, and it has no tool result to score");
    writeFileSync(join(dir, "b.jsonl"), chat);
    writeFileSync(join(dir, "c.jsonl"), chat);
    expect(errorLine(bc("calibrate", dir).stderr)).toBe("bc: too little to calibrate on: 3 sessions read, and none has a tool result to score");
  });

  test("progress to the end: every file read, every fold fitted, every session under a budget", () => {
    const r = bc("calibrate", DEMO);
    expect(r.code).toBe(0);
    for (const end of ["5 of 5 files", "fits without each fold's sessions: 5 of 5", "under a budget: 5 of 5 sessions", "fit on all 5 sessions"])
      expect(r.stderr).toContain(end);
  });

  test("a line of a session that is not JSON: warned of as file:line, listed in skipped; the session is still read", () => {
    const dir = join(home, "demo-bad-line");
    cpSync(DEMO, dir, { recursive: true });
    const file = join(dir, "claude", "recorded-sum-fix.jsonl");
    const lines = readFileSync(file, "utf8").split("\n");
    writeFileSync(file, [...lines.slice(0, 10), "{not json", ...lines.slice(10)].join("\n"));
    const r = bc("calibrate", dir, "--json");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("warning: demo-bad-line/claude/recorded-sum-fix.jsonl:11: not valid JSON");
    const report = JSON.parse(r.stdout);
    expect(report.sessions).toBe(5);
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0]).toStartWith("demo-bad-line/claude/recorded-sum-fix.jsonl:11: not valid JSON");
  });

  test("every session in one fold: no held-out figures, said so; --write refuses in one line and writes nothing", () => {
    // the demo sessions, each given blank lines at its end until its content hash falls in fold 0
    const dir = join(home, "one-fold");
    mkdirSync(dir);
    for (const [name, text] of Object.entries(DEMO_FILES)) {
      let t = text;
      while (foldOf(contentHash(Buffer.from(t)), 5) !== 0) t += "\n";
      writeFileSync(join(dir, name.split("/").at(-1)!), t);
    }
    const json = bc("calibrate", dir, "--json");
    expect(json.code).toBe(0);
    const r = JSON.parse(json.stdout);
    expect(r.sessions).toBe(5);
    expect(r.refit).toEqual({ folds: 5, scoredFolds: 0, samples: 0, auc: null, foldAuc: [], ece: null, bins: [] });
    expect(r.heldOut).toBe("all 5 sessions fall in one of the 5 folds: none can be held out from a fit");
    expect(r.budget).toBeUndefined();
    const text = bc("calibrate", dir).stdout;
    expect(text).toContain("refit on yours, scored on held-out ones: cannot be computed\n");
    expect(text).not.toContain("AUC per fold");
    expect(text).not.toContain("cuts of held-out sessions");
    expect(text.trimEnd().split("\n").at(-1)).toBe("no held-out sessions to compare a refit with the shipped weights on: keep the shipped weights");
    const w = bc("calibrate", dir, "--write");
    expect(w.code).toBe(1);
    expect(w.stderr).toContain(
      "bc: held-out figures cannot be computed: all 5 sessions fall in one of the 5 folds: none can be held out from a fit; nothing written\nhint: ",
    );
    expect(() => readFileSync(weightsFile)).toThrow();
  });

  test("--write where a folder is in the way of the file, or a file in the way of the folder: one line naming it, before any fitting, nothing left behind", () => {
    const h = mkdtempSync(join(home, "in-the-way-"));
    const folder = join(h, ".claude", "better-compaction");
    mkdirSync(join(folder, "need-weights.json"), { recursive: true });
    const a = bcAt(h, "calibrate", DEMO, "--write");
    expect(a.code).toBe(1);
    expect(a.stderr.split("\n")[0]).toBe(`bc: ${join(folder, "need-weights.json")}: is a folder, not a file; cannot write the weights there`);
    expect(a.stderr).not.toContain("files");
    expect(readdirSync(folder)).toEqual(["need-weights.json"]);
    rmSync(folder, { recursive: true });
    writeFileSync(folder, "");
    const b = bcAt(h, "calibrate", DEMO, "--write");
    expect(b.code).toBe(1);
    expect(b.stderr.split("\n")[0]).toBe(`bc: ${folder}: is a file, not a folder; cannot write ${join(folder, "need-weights.json")}`);
    expect(b.stderr).not.toContain("files");
    expect(readdirSync(join(h, ".claude"))).toEqual(["better-compaction"]);
  });

  test("--write: the weights land where bc reads them; plan --budget says it ranks by them; a broken file falls back to the shipped ones", () => {
    const w = bc("calibrate", DEMO, "--write");
    expect(w.code).toBe(0);
    const written = JSON.parse(readFileSync(weightsFile, "utf8"));
    // the example sessions' large results give the escalation nothing of its own to fit: one model, both
    const report = JSON.parse(bc("calibrate", DEMO, "--json").stdout);
    expect(report.shippedEscalation.samples).toBe(0);
    expect(report.weights).toEqual(written);
    expect(written.source).toContain("bc calibrate");
    const session = join(DEMO, "claude", "recorded-sum-fix.jsonl");
    const p = bc("plan", session, "--budget", "1000");
    expect(p.code).toBe(0);
    expect(p.stdout).toContain("need weights: yours");
    expect(bc("claude", "status").stdout).toContain("need weights:     yours");
    expect(JSON.parse(bc("claude", "status", "--json").stdout).needWeightsInUse).toEqual({ kind: "user", path: weightsFile, source: written.source });
    // written again: replaced, not refused, saying what it held
    const again = bc("calibrate", DEMO, "--write");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`\n  in place of the weights it held: ${written.source}\n`);
    writeFileSync(weightsFile, '{"source": "x"}');
    const broken = bc("plan", session, "--budget", "1000");
    expect(broken.code).toBe(0);
    expect(broken.stdout).toContain("need weights: shipped");
    expect(broken.stderr).toContain("expected { source, features");
    expect(JSON.parse(bc("claude", "status", "--json").stdout).needWeightsInUse).toMatchObject({
      kind: "shipped",
      path: weightsFile,
      problem: expect.stringContaining("expected { source, features"),
    });
    const overBroken = JSON.parse(bc("calibrate", DEMO, "--write", "--json").stdout);
    expect(overBroken.replaced).toEqual({ problem: expect.stringContaining("expected { source, features") });
  });

  test("a weights file with both models: bc plan --budget ranks by the escalation's, scores the rules by the other; status names both", () => {
    // needs between the thresholds at which the score overturns a rule (sharpen.ts): the rules' verdicts stand
    const need = { ...constantNeed(0.05), source: "need model" };
    const escalation = { ...constantNeed(0.5), source: "escalation model" };
    mkdirSync(join(home, ".claude", "better-compaction"), { recursive: true });
    writeFileSync(weightsFile, JSON.stringify({ need, escalation }));
    const session = join(DEMO, "claude", "recorded-sum-fix.jsonl");
    const p = JSON.parse(bc("plan", session, "--budget", "1000", "--json").stdout);
    expect(p.needWeights).toEndWith("need model; the escalation ranks by a model of its own");
    const ranked = p.passes[0].plan.decisions.filter((d: { need?: number }) => d.need !== undefined);
    expect(ranked.length).toBeGreaterThan(0);
    for (const d of ranked) expect(d.need).toBe(0.5);
    expect(bc("claude", "status").stdout).toContain("need weights:     yours");
    expect(JSON.parse(bc("claude", "status", "--json").stdout).needWeightsInUse.source).toBe("need model; the escalation's: escalation model");
    // the escalation's model at fault: the file is not used, and the reason names it
    writeFileSync(weightsFile, JSON.stringify({ need, escalation: { ...escalation, weights: [] } }));
    const broken = bc("plan", session, "--budget", "1000");
    expect(broken.stdout).toContain("need weights: shipped");
    expect(broken.stderr).toContain("escalation: weights has 0 values");
    rmSync(weightsFile);
  });

  test("bc eval ranks by the weights in use too, or by those --need-weights names; a bad file is a one-line error", () => {
    expect(bc("calibrate", DEMO, "--write").code).toBe(0);
    const run = (...flags: string[]) => {
      const out = join(home, `eval-${flags.join("-").replace(/\W+/g, "_") || "default"}`);
      const r = bc("eval", DEMO, "--pressure", "off", "--out", out, ...flags);
      return { ...r, report: r.code === 0 ? JSON.parse(readFileSync(join(out, "report.json"), "utf8")) : undefined };
    };
    const mine = run();
    expect(mine.code).toBe(0);
    // named by their contents, never by a path: the report stays free of machine paths
    const w = mine.report.parameters.needWeights;
    expect(w).toMatchObject({ kind: "yours", source: expect.stringContaining("bc calibrate") });
    expect(w.fingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(JSON.stringify(mine.report)).not.toContain(home);
    expect(mine.report.parameters.repeat).toContain(`--need-weights <the weights file ${w.fingerprint}>`);
    expect(mine.stdout).toContain(`bc ranks by your need weights (bc calibrate --write), fingerprint ${w.fingerprint}, not the shipped ones.`);
    // the same weights named by --need-weights: the same fingerprint
    expect(run("--need-weights", weightsFile).report.parameters.needWeights).toEqual({ ...w, kind: "file" });
    const shipped = run("--need-weights", "shipped");
    expect(shipped.report.parameters.needWeights.kind).toBe("shipped");
    expect(shipped.stdout).not.toContain("bc ranks by");
    const missing = run("--need-weights", join(home, "nothing.json"));
    expect(missing.code).not.toBe(0);
    expect(missing.stderr.trim().split("\n")[0]).toBe(`bc: --need-weights: no file ${join(home, "nothing.json")}`);
  });
});
