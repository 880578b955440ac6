// `bc plan`: as a function, and once as a user runs it (a child process): the table, the
// JSON, repeated passes, one-line errors, and nothing written.
import { afterAll, describe, expect, test } from "bun:test";
import {
  appendFileSync,
  closeSync,
  constants,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { planReport, renderReport } from "../../src/cli/plan.ts";
import { needWeightsPath } from "../../src/hosts/claude/install.ts";
import { enginePruner, forkRollout } from "../../src/hosts/codex/fork.ts";
import type { BudgetSpec } from "../../src/hosts/codex/window.ts";

const REPO = join(import.meta.dir, "..", "..");
const MAIN = join(REPO, "src", "main.ts");
const TMP = mkdtempSync(join(tmpdir(), "bc-plan-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const fixture = (host: string, name: string): string => {
  const to = join(TMP, `${host}-${name}`);
  copyFileSync(join(REPO, "test", "fixtures", host, name), to);
  return to;
};

const run = (args: string[]) => {
  const r = Bun.spawnSync([process.execPath, MAIN, "plan", ...args], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

describe("bc plan", () => {
  test.each([
    ["claude", "parallel-tool-calls.jsonl"],
    ["codex", "legacy-every-item-variant.jsonl"],
  ])("%s %s: one decision per tool result, the table and the totals", (host, name) => {
    const f = fixture(host, name);
    const r = planReport(f, {});
    const p = r.passes[0]!.plan;
    expect(r.host).toBe(host);
    expect(p.decisions.length).toBe(p.totals.results);
    expect(p.totals.resultsKept + p.totals.resultsTruncated + p.totals.resultsDropped).toBe(p.totals.results);
    const text = renderReport(r);
    expect(text).toContain("index  tool");
    for (const d of p.decisions) expect(text).toContain(`#${d.messageIndex}`);
    expect(text).toMatch(/results: \d+ \(kept \d+, truncated \d+, dropped \d+\)/);
  });

  test("--passes N gives N passes; the last sees every message", () => {
    const f = fixture("claude", "compacted-twice.jsonl");
    const one = planReport(f, { timeline: true });
    const three = planReport(f, { timeline: true, passes: 3 });
    expect(three.passes.map((p) => p.pass)).toEqual([1, 2, 3]);
    expect(three.passes[2]!.messages).toBe(one.passes[0]!.messages);
    expect(three.passes[0]!.messages).toBeLessThan(three.passes[2]!.messages);
    // each pass's line counts its messages and results, one or many
    const lines = renderReport(three)
      .split("\n")
      .filter((l) => l.startsWith("pass "));
    expect(lines).toHaveLength(3);
    for (const [i, l] of lines.entries()) {
      const { messages, plan } = three.passes[i]!;
      expect(l).toStartWith(
        `pass ${i + 1}: ${messages} message${messages === 1 ? "" : "s"}, ${plan.totals.results} result${plan.totals.results === 1 ? "" : "s"}, `,
      );
    }
  });

  test("--min-removal over what the pass frees: skipped, saying what it would free beside the threshold", () => {
    const f = fixture("codex", "fork-legacy-0.140.jsonl");
    const freed = planReport(f, {}).passes[0]!.plan.totals;
    const share = (freed.toolTokensBefore - freed.toolTokensAfter) / freed.toolTokensBefore;
    expect(share).toBeGreaterThan(0);
    const r = planReport(f, { minRemoval: 0.99 });
    expect(r.passes[0]!.plan.skipped).toBe(true);
    expect(renderReport(r)).toContain(`skipped: this pass would free ${(100 * share).toFixed(1)}% of the tool output, less than --min-removal 0.99 (99.0%)`);
    // under the threshold: no such line
    expect(renderReport(planReport(f, { minRemoval: share / 2 }))).not.toContain("skipped:");
  });

  test("as a child process: --json parses, the file is untouched, nothing new is written", () => {
    const f = fixture("claude", "errors-images-meta.jsonl");
    const before = readFileSync(f, "utf8");
    const mtime = statSync(f).mtimeMs;
    const files = readdirSync(TMP).sort();
    const r = run([f, "--json", "--passes", "2"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.passes.length).toBe(2);
    expect(report.passes[1].plan.decisions.length).toBe(report.passes[1].plan.totals.results);
    expect(readFileSync(f, "utf8")).toBe(before);
    expect(statSync(f).mtimeMs).toBe(mtime);
    expect(readdirSync(TMP).sort()).toEqual(files);
  });

  test("--budget of a Codex rollout, N% or tokens: the plan is cut as a fork with the same --budget is; a Claude Code transcript records no window", () => {
    const f = fixture("codex", "legacy-every-item-variant.jsonl");
    const fork = (budget: BudgetSpec) => forkRollout(f, { context: "fresh", pruner: enginePruner(undefined, budget), dryRun: true, codexHome: TMP }).pruning;
    for (const spec of [{ percent: 50 }, { percent: 1 }, { tokens: 2000 }] as const) {
      const r = planReport(f, { budget: spec });
      const p = fork(spec);
      const b = p.budget!;
      // the budget as Codex counts the history is the fork's; the engine plans its text to the fork's last budget
      expect(r.codexBudget).toEqual({ tokens: b.tokens!, engineTokens: b.engineTokens! });
      expect(b.engineTokens!).toBeGreaterThanOrEqual(0);
      expect(b.engineTokens!).toBeLessThan(b.tokens!);
      expect(r.options.budgetTokens).toBe(b.engineTokens!);
      // every output the fork cuts, the plan cuts (the plan also lists results a fork cannot rewrite, a tool search's)
      const planned = new Set(r.passes[0]!.plan.decisions.filter((d) => d.action !== "keep").map((d) => d.messageIndex));
      expect([...p.outputs.keys()].filter((i) => !planned.has(i))).toEqual([]);
      if (!("percent" in spec && spec.percent === 50)) expect(p.outputs.size).toBeGreaterThan(0);
      expect(renderReport(r)).toContain("of what the resumed fork holds as Codex counts it (JSON, reasoning, the context it re-injects)");
      if ("percent" in spec) {
        expect(r.budgetShare).toEqual({
          percent: spec.percent as number,
          window: b.window!,
          ...(b.unseenTokens === undefined ? {} : { unseenTokens: b.unseenTokens }),
        });
        expect(renderReport(r)).toContain(`budget: ${spec.percent}% of a `);
      } else expect(r.budgetShare).toBeUndefined();
    }
    // a number of tokens is taken as given for a Claude Code transcript
    expect(planReport(fixture("claude", "parallel-tool-calls.jsonl"), { budget: { tokens: 1000 } }).options.budgetTokens).toBe(1000);
    expect(() => planReport(fixture("claude", "parallel-tool-calls.jsonl"), { budget: { percent: 60 } })).toThrow(
      "--budget 60% needs the model's context window, and a Claude Code transcript does not record it",
    );
    const bad = run([f, "--budget", "12x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "bc: --budget must be a number of tokens (up to 1,000,000,000), a share of the window from 1% to 100% such as 60%, or none; got '12x'\nhint: for example --budget 120000 or --budget 60%\n",
    );
  });

  test.skipIf(process.platform === "win32")(
    "--budget of a Codex rollout that grows while it is planned: the budget and the plan are of the file as it was read once",
    async () => {
      // Codex appends to a rollout while its thread runs. The need weights file is a FIFO, which
      // bc opens after it has read the session: the test appends then, before bc goes on.
      const f = fixture("codex", "legacy-every-item-variant.jsonl");
      const asRead = run([f, "--budget", "60%", "--json"]);
      expect(asRead.code).toBe(0);
      const claude = mkdtempSync(join(TMP, "claude-"));
      const fifo = needWeightsPath({ CLAUDE_CONFIG_DIR: claude });
      mkdirSync(dirname(fifo), { recursive: true });
      expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
      const child = Bun.spawn([process.execPath, MAIN, "plan", f, "--budget", "60%", "--json"], {
        cwd: REPO,
        env: { ...process.env, CLAUDE_CONFIG_DIR: claude },
        stdout: "pipe",
        stderr: "pipe",
      });
      // opening a FIFO to write without a reader fails (ENXIO) rather than blocks: tried until bc reads it
      let fd: number | undefined;
      for (let tries = 0; fd === undefined && tries < 1000; tries++)
        try {
          fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
        } catch {
          await Bun.sleep(10);
        }
      expect(fd).toBeDefined();
      // a smaller window, and a larger last request: a budget of this file would be another
      const last =
        readFileSync(f, "utf8")
          .split("\n")
          .findLast((l) => l.includes('"token_count"')) ?? "";
      const count = last.replace('"model_context_window":258400', '"model_context_window":2000').replace(/"total_tokens":5010/g, '"total_tokens":9000');
      expect(count).toContain('"model_context_window":2000');
      appendFileSync(f, `${count}\n`);
      closeSync(fd!);
      expect(await child.exited).toBe(0);
      const grown = JSON.parse(await new Response(child.stdout).text());
      const before = JSON.parse(asRead.stdout);
      const { needWeights: _a, ...expected } = before;
      const { needWeights: _b, ...got } = grown;
      expect(got).toEqual(expected);
      // the file read afresh has another budget: the appended record counts
      expect(JSON.parse(run([f, "--budget", "60%", "--json"]).stdout).budgetShare.window).toBe(2000);
    },
  );

  test("a bad value is a one-line usage error and a hint (exit 2); a missing file, one line (exit 1)", () => {
    const bad = run([join(TMP, "x.jsonl"), "--passes", "0"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("bc: --passes must be a whole number from 1 to 100, got '0'\nhint: run 'bc plan --help' to see its options\n");
    const missing = run([join(TMP, "nope.jsonl")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.split("\n")[0]).toBe(`bc: ${join(TMP, "nope.jsonl")}: no such file`);
  });

  test("many broken lines: ten warnings with file and line, then one naming the file for the rest; the rest is planned", () => {
    const good = readFileSync(join(REPO, "test", "fixtures", "claude", "parallel-tool-calls.jsonl"), "utf8")
      .trimEnd()
      .split("\n");
    const f = join(TMP, "many-broken.jsonl");
    writeFileSync(f, `${[good[0], ...Array.from({ length: 13 }, (_, i) => `broken ${i}`), ...good.slice(1)].join("\n")}\n`);
    const r = run([f]);
    expect(r.code).toBe(0);
    const warnings = r.stderr.trimEnd().split("\n");
    expect(warnings).toHaveLength(11);
    warnings.slice(0, 10).forEach((w, i) => expect(w).toStartWith(`warning: ${f}:${i + 2}: not valid JSON`));
    expect(warnings[10]).toBe(`warning: and 3 more lines skipped, in ${f}`);
    expect(r.stdout).toMatch(/results: \d+ \(kept/);
  });
});
