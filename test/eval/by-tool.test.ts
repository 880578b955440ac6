// What bc and the ceilings beside it removed, by the tool whose output it was: each method's
// per-tool tallies add up to its own row, sessions sum, and the reports show the tables.
import { describe, expect, test } from "bun:test";
import type { Message } from "../../src/engine/types.ts";
import { BY_TOOL_CEILINGS, RULES_ID, type SessionReplay } from "../../src/eval/replay.ts";
import { MAX_TOOL_ROWS, TOOL_HEAD, toolTables } from "../../src/eval/report/format.ts";
import { renderHtml } from "../../src/eval/report/html.ts";
import { type HostSummary, summarizeTools } from "../../src/eval/summary.ts";
import { codexSection, outputsUsedLater, pair, removalsOf, replayedAtTwoCuts, reportOf, sized, totalOf } from "./build.ts";

/** shell outputs and file reads, a few used right after them and some only after the cut */
const messages = (): Message[] =>
  outputsUsedLater(
    40,
    (i) =>
      i % 2 === 0
        ? { messages: pair(`c${i}`, "Bash", { command: `step ${i}` }, sized(`output_number_${i}`, 300 + 40 * i)), name: `output_number_${i}` }
        : {
            messages: pair(`c${i}`, "Read", { file_path: `/repo/src/file_${i}.ts` }, sized(`export const value_of_${i} = ${i};`, 400 + 30 * i)),
            name: `value_of_${i}`,
          },
    ["again output_number_2, value_of_3 and value_of_7", "and output_number_12, value_of_11"],
  );

describe.each(["claude", "codex"] as const)("%s", (host) => {
  test("each method's per-tool tallies add up to its own row: bc in both modes, and each mode's ceilings", () => {
    const r = replayedAtTwoCuts(messages(), host);
    const checked = [
      ["light", RULES_ID],
      ["pressure", RULES_ID],
      ...BY_TOOL_CEILINGS.light.map((c) => ["light", c] as const),
      ...BY_TOOL_CEILINGS.pressure.map((c) => ["pressure", c] as const),
    ] as const;
    for (const [mode, method] of checked) {
      const rows = r.byTool.filter((t) => t.mode === mode && t.method === method);
      const t = totalOf(r, mode, method);
      expect(removalsOf(rows)).toEqual(removalsOf(t));
      for (const x of rows) expect(["Bash", "Read"]).toContain(x.tool);
    }
    // under pressure the budget reaches both tools, and something is lost
    const pressure = r.byTool.filter((t) => t.mode === "pressure" && t.method === RULES_ID);
    expect(new Set(pressure.map((t) => t.tool))).toEqual(new Set(["Bash", "Read"]));
    expect(totalOf(r, "pressure", RULES_ID).lost).toBeGreaterThan(0);
    // light, oracle-head frees more than bc's rules, of both tools; no other method is tallied
    const freed = (method: string, tool: string) =>
      r.byTool.filter((t) => t.mode === "light" && t.method === method && t.tool === tool).reduce((n, t) => n + t.tokensFreed, 0);
    for (const tool of ["Bash", "Read"]) expect(freed("oracle-head", tool)).toBeGreaterThan(freed(RULES_ID, tool));
    expect(r.byTool.every((t) => t.method === RULES_ID || BY_TOOL_CEILINGS[t.mode].includes(t.method))).toBe(true);
  });
});

test("over sessions: summed per mode and tool, the ceilings' beside bc's; light, the most room first; under pressure, the most bc lost", () => {
  const a = replayedAtTwoCuts(messages(), "codex");
  const tally = (mode: "light" | "pressure", method: string, tool: string, removed: number, lost: number, tokensFreed: number) => ({
    mode,
    method,
    tool,
    removed,
    scorable: removed,
    lost,
    tokensFreed,
  });
  const sessions: SessionReplay[] = [
    {
      ...a,
      byTool: [
        tally("light", RULES_ID, "Read", 4, 0, 300),
        tally("light", "oracle-head", "Read", 9, 0, 2000),
        tally("pressure", RULES_ID, "Read", 10, 3, 5000),
        tally("pressure", RULES_ID, "Bash", 6, 1, 1000),
        tally("pressure", "oracle-to-budget", "Read", 12, 1, 5200),
        tally("pressure", "need-oracle", "Bash", 5, 2, 900),
      ],
    },
    {
      ...a,
      byTool: [
        tally("light", RULES_ID, "Bash", 2, 1, 100),
        tally("light", "oracle-head", "Read", 1, 0, 50),
        tally("pressure", RULES_ID, "Bash", 4, 4, 2000),
        tally("pressure", "oracle-to-budget", "Grep", 3, 1, 100),
      ],
    },
  ];
  const z = (removed: number, lost: number, tokensFreed: number) => ({ removed, scorable: removed, lost, tokensFreed });
  const c = (lost: number, tokensFreed: number) => ({ lost, tokensFreed });
  expect(summarizeTools(sessions)).toEqual([
    // light: where oracle-head frees most first, though bc lost nothing there
    { mode: "light", tool: "Read", bc: z(4, 0, 300), freedShare: 0.75, ceilings: { "oracle-head": c(0, 2050) } },
    { mode: "light", tool: "Bash", bc: z(2, 1, 100), freedShare: 0.25, ceilings: { "oracle-head": c(0, 0) } },
    { mode: "pressure", tool: "Bash", bc: z(10, 5, 3000), freedShare: 0.375, ceilings: { "oracle-to-budget": c(0, 0), "need-oracle": c(2, 900) } },
    { mode: "pressure", tool: "Read", bc: z(10, 3, 5000), freedShare: 0.625, ceilings: { "oracle-to-budget": c(1, 5200), "need-oracle": c(0, 0) } },
    // a tool only a ceiling removed: bc's zeros beside the ceiling's
    { mode: "pressure", tool: "Grep", bc: z(0, 0, 0), freedShare: 0, ceilings: { "oracle-to-budget": c(1, 100), "need-oracle": c(0, 0) } },
  ]);
});

const hostWith = (byTool: HostSummary["byTool"]): HostSummary => reportOf({ host: "codex", ...(byTool === undefined ? {} : { byTool }) }, []).hosts[0]!;

test("the tables: light, the tokens each frees; under pressure, the ceilings' losses; tools past the limit summed in one row", () => {
  const many = Array.from({ length: MAX_TOOL_ROWS + 3 }, (_, i) => ({
    mode: "pressure" as const,
    tool: `tool_${i}`,
    bc: { removed: 2, scorable: 2, lost: i === 0 ? 1 : 0, tokensFreed: 100 },
    freedShare: 1 / (MAX_TOOL_ROWS + 3),
    ceilings: { "oracle-to-budget": { lost: 1, tokensFreed: 90 }, "need-oracle": { lost: 0, tokensFreed: 80 } },
  }));
  const light = {
    mode: "light" as const,
    tool: "Read",
    bc: { removed: 3, scorable: 1, lost: 0, tokensFreed: 1500 },
    freedShare: 1,
    ceilings: { "oracle-head": { lost: 0, tokensFreed: 9000 } },
  };
  const [l, p] = toolTables(hostWith([light, ...many]));
  expect(l!.heading).toBe("Codex, light compaction");
  expect(l!.head).toEqual([...TOOL_HEAD, "tokens freed by bc", "tokens freed by oracle-head"]);
  expect(l!.rows).toEqual([["Read", "3", "1", "0", "0.00%", "100.0%", "1,500", "9,000"]]);
  expect(p!.heading).toBe("Codex, under pressure");
  expect(p!.head).toEqual([...TOOL_HEAD, "lost by oracle-to-budget", "lost by need-oracle"]);
  expect(p!.rows).toHaveLength(MAX_TOOL_ROWS);
  expect(p!.rows[0]).toEqual(["tool_0", "2", "2", "1", "50.00%", "6.7%", "1", "0"]);
  // the last row: the four tools past the eleven shown, summed
  expect(p!.rows.at(-1)).toEqual(["4 other tools", "8", "8", "0", "0.00%", "26.7%", "4", "0"]);
  // a host with no tallies (a report written before them) has no tables
  expect(toolTables(hostWith(undefined))).toEqual([]);
});

test("report.md and report.html show the by-tool tables per host", () => {
  const { report, section, pressure } = codexSection(messages(), (r) => ({ byTool: summarizeTools([r]) }), "## What bc removed, by tool");
  expect(section).toContain("### Codex, light compaction");
  expect(section).toContain(
    "| tool | removed | of which scorable | lost | lost % | share of bc's freed tokens | tokens freed by bc | tokens freed by oracle-head |",
  );
  expect(pressure).toContain(
    "| tool | removed | of which scorable | lost | lost % | share of bc's freed tokens | lost by oracle-to-budget | lost by need-oracle |",
  );
  expect(pressure).toMatch(/\n\| (Bash|Read) \| \d+ \| \d+ \| [1-9]\d* \|/);
  const html = renderHtml(report);
  expect(html).toContain("<h2>What bc removed, by tool</h2>");
  expect(html).toContain("<th>lost by need-oracle</th>");
});
