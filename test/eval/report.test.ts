// The three renderers on made-up summaries: each section says only what its rows hold.
import { expect, test } from "bun:test";
import { renderHtml } from "../../src/eval/report/html.ts";
import { renderMarkdown, splitRows } from "../../src/eval/report/markdown.ts";
import { terminalSummary } from "../../src/eval/report/terminal.ts";
import type { EvalReport, SplitBlock } from "../../src/eval/run.ts";
import { ZERO_TALLY } from "../../src/eval/score.ts";
import { type HostSummary, type MethodSummary, summarizeTallies } from "../../src/eval/summary.ts";
import { reportOf } from "./build.ts";

const row = (method: string, kind: MethodSummary["kind"], tally: Partial<typeof ZERO_TALLY> = {}): MethodSummary =>
  summarizeTallies(method, kind, [{ ...ZERO_TALLY, cuts: 1, removed: 100, lost: 2, tokensBefore: 1000, tokensFreed: 400, ...tally }]);

/** bc under pressure beside its ceiling: what makes the pressure sentence */
const PRESSURE_ROWS = [row("rules", "method", { reached: 1 }), row("oracle-to-budget", "ceiling", { lost: 1, reached: 1 })];

/** a report of one Codex host with these rows, run with pressure */
const withPressure = (host: Partial<HostSummary>): EvalReport => {
  const r = reportOf({ host: "codex", pressure: PRESSURE_ROWS, ...host }, []);
  return { ...r, parameters: { ...r.parameters, pressure: { share: 0.95, budgetShare: 0.6, methods: [] } } };
};

/** the text of a report.md section: from its heading to the next of the same level */
const mdSection = (md: string, heading: string): string => {
  const from = md.indexOf(heading);
  const next = md.indexOf("\n## ", from + heading.length);
  return md.slice(from, next < 0 ? undefined : next);
};

const htmlSection = (html: string, heading: string): string => {
  const from = html.indexOf(heading);
  return html.slice(from, html.indexOf("<h2>", from + heading.length));
};

test("without bc's light row (--methods keep-all), the light section says no pressure sentence, and the terminal lists the methods that ran", () => {
  const r = withPressure({ methods: [row("keep-all", "method", { removed: 0, lost: 0, tokensFreed: 0 }), row("oracle-head", "ceiling", { lost: 0 })] });
  const md = renderMarkdown(r);
  expect(mdSection(md, "## Light compaction")).not.toContain("bc loses");
  // the sentence is in its own section
  expect(mdSection(md, "## Under pressure")).toContain("bc loses 2 results");
  const html = renderHtml(r);
  expect(htmlSection(html, "<h2>Light compaction")).not.toContain("bc loses");
  expect(htmlSection(html, "<h2>Under pressure")).toContain("bc loses 2 results");
  const terminal = terminalSummary(r, []);
  const light = terminal.slice(terminal.indexOf("Light compaction"), terminal.indexOf("At 95% of the window"));
  expect(light.split("\n").map((l) => l.trim().split(/\s{2,}/)[0])).toEqual([
    "Light compaction (no budget)",
    "freed",
    "Codex, 0 sessions",
    "keep-all",
    "ceiling: oracle-head (hindsight)",
    "",
    "",
  ]);
});

test("bc's light row with nothing freed (a session with no tool results): no light sentence, and not the pressure one in its place", () => {
  const nothing = { removed: 0, lost: 0, tokensFreed: 0 };
  const r = withPressure({ methods: [row("rules", "method", nothing), row("oracle-head", "ceiling", nothing)] });
  expect(mdSection(renderMarkdown(r), "## Light compaction")).not.toContain("bc loses");
  expect(htmlSection(renderHtml(r), "<h2>Light compaction")).not.toContain("bc loses");
});

test("--split: a host's table has only the paths holding sessions of that host; the HTML tables scroll in their own box", () => {
  const claude = reportOf({ host: "claude", methods: [row("rules", "method")], pressure: PRESSURE_ROWS }, []).hosts[0]!;
  const codex = reportOf({ host: "codex", methods: [row("rules", "method")], pressure: PRESSURE_ROWS }, []).hosts[0]!;
  const block = (name: string, hosts: HostSummary[]): SplitBlock => ({ name, fingerprint: name, files: 1, sessions: 1, hosts });
  const r: EvalReport = {
    ...withPressure({}),
    hosts: [claude, codex],
    split: [block("a", [claude]), block("b", [codex]), block("both", [claude, codex])],
  };
  const blocksOf = (host: string, mode: "light" | "pressure"): string[] => [
    ...new Set(
      splitRows(r, host, mode)!
        .head.slice(1)
        .map((h) => h.split(":")[0]!),
    ),
  ];
  expect(blocksOf("claude", "light")).toEqual(["total", "a", "both"]);
  expect(blocksOf("codex", "light")).toEqual(["total", "b", "both"]);
  expect(blocksOf("codex", "pressure")).toEqual(["total", "b", "both"]);
  for (const h of ["claude", "codex"]) for (const cells of splitRows(r, h, "light")!.rows) expect(cells).not.toContain("-");
  const html = renderHtml(r);
  const tables = html.match(/<table>/g)!.length;
  expect(html.match(/<div class="table"><table>/g)!.length).toBe(tables);
  expect(html).toContain(".table{max-width:100%;overflow-x:auto;");
});

test("the HTML passes table has the sessions column report.md has; a share of nothing is said as -, not 0% (0/0)", () => {
  const pass = { share: 0.5, sessions: 3, passFreed: 10, tokensFreed: 10, tokensBefore: 100, removed: 1, misses: 0, lost: 0, fixedPointViolations: 0 };
  const overBudget = summarizeTallies("rules:over-budget", "method", []);
  const r = withPressure({ passes: [pass] as unknown as HostSummary["passes"], pressure: [...PRESSURE_ROWS, overBudget] });
  const html = renderHtml(r);
  expect(html).toContain("<th>pass at</th><th>sessions</th>");
  expect(html).toContain("<td>50%</td><td>3</td>");
  const md = renderMarkdown(r);
  expect(md).toContain("| pass at | sessions |");
  const cells = (l: string): string[] => l.split(" | ").map((c) => c.replace(/^\| |\s*\|$/g, ""));
  const lines = md.split("\n");
  const head = cells(lines.find((l) => l.startsWith("| method | cuts |"))!);
  const over = cells(lines.find((l) => l.startsWith("| bc: cuts left over budget |"))!);
  const at = (column: string): string => over[head.indexOf(column)]!;
  expect([at("reached the budget"), at("where it can be reached"), at("sessions losing nothing")]).toEqual(["-", "-", "-"]);
  expect(html).not.toContain("(0/0)");
});

test("--split: a path none of whose cuts a row holds (no cut of its sessions over budget) shows -, not 0.0% and 0", () => {
  const over = row("rules:over-budget", "method", { lost: 1 });
  const none = summarizeTallies("rules:over-budget", "method", []);
  const all = reportOf({ host: "codex", methods: [row("rules", "method")], pressure: [...PRESSURE_ROWS, over] }, []).hosts[0]!;
  const b = reportOf({ host: "codex", methods: [row("rules", "method")], pressure: [...PRESSURE_ROWS, none] }, []).hosts[0]!;
  const block = (name: string, hosts: HostSummary[]): SplitBlock => ({ name, fingerprint: name, files: 1, sessions: 1, hosts });
  const r: EvalReport = { ...withPressure({}), hosts: [all], split: [block("a", [all]), block("b", [b])] };
  const t = splitRows(r, "codex", "pressure")!;
  const cells = t.rows.find((x) => x[0] === "bc: cuts left over budget")!;
  const at = (column: string): string => cells[t.head.indexOf(column)]!;
  expect([at("a: freed"), at("a: lost")]).toEqual(["40.0%", "1"]);
  expect([at("b: freed"), at("b: lost rate"), at("b: lost")]).toEqual(["-", "-", "-"]);
});

test("both reports say what light compaction, the hosts' compactions and repeated passes are, list bc's losses light first under a heading that counts each, and end pointing to report.json", () => {
  const miss = (mode: "light" | "pressure", message: number) => ({
    mode,
    share: 0.5,
    message,
    tool: "Read",
    rule: "escalation",
    tokens: ["fooBar"],
    invisible: ["fooBar"],
    lost: true,
  });
  const sessions = [{ file: "s.jsonl", rulesMisses: [miss("pressure", 3), miss("light", 7), miss("pressure", 9)] }] as unknown as EvalReport["sessions"];
  const base = withPressure({ methods: [row("rules", "method")] });
  const r: EvalReport = { ...base, sessions, parameters: { ...base.parameters, passes: [0.5, 0.9] } };
  const md = renderMarkdown(r);
  const html = renderHtml(r);
  for (const text of [
    "Each method compacts as it would on its own, with nothing forcing it to free more.",
    "Where a transcript holds a compaction the host really ran",
    "The rules run at 50%, 90% of each session",
    "Every parameter and the per-session rows are in report.json",
  ]) {
    expect(md).toContain(text);
    expect(html).toContain(text);
  }
  expect(md).toContain("## What bc lost (3: 1 light, 2 under pressure)");
  expect(html).toContain("<h2>What bc lost (3: 1 light, 2 under pressure)</h2>");
  const listed = mdSection(md, "## What bc lost").match(/message #\d+/g);
  expect(listed).toEqual(["message #7", "message #3", "message #9"]);
  // a run without pressure (--pressure off) has light losses alone: neither heading nor text speaks of pressure
  const light = {
    ...r,
    sessions: [{ file: "s.jsonl", rulesMisses: [miss("light", 7)] }] as unknown as EvalReport["sessions"],
    parameters: { ...r.parameters, pressure: null },
  };
  const [lightMd, lightHtml] = [renderMarkdown(light), renderHtml(light)];
  expect(lightMd).toContain("## What bc lost (1)\n");
  expect(lightHtml).toContain("<h2>What bc lost (1)</h2>");
  for (const section of [mdSection(lightMd, "## What bc lost"), htmlSection(lightHtml, "<h2>What bc lost")]) expect(section).not.toContain("pressure");
  // a phone lays the page out at its own width; a long fingerprint wraps
  expect(html).toContain('<meta name="viewport" content="width=device-width,initial-scale=1">');
  expect(html).toContain("overflow-wrap:anywhere");
});
