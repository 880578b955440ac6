// The chart's label placement and legend, on made-up rows: labels never overlap one another or a
// point, and the legend lists exactly the kinds of marks drawn.
import { expect, test } from "bun:test";
import { placeLabels, renderChart, type Box } from "../../src/eval/report/html.ts";
import { summarizeTallies, type MethodSummary } from "../../src/eval/summary.ts";
import { ZERO_TALLY } from "../../src/eval/score.ts";

const overlap = (a: Box, b: Box): boolean => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

test("labels of points piled on one spot are placed apart, inside the canvas, the rest in the margin with leaders", () => {
  const points = Array.from({ length: 20 }, (_, i) => ({ x: 200 + (i % 2), y: 150, text: `method-number-${i}` }));
  const placed = placeLabels(points, { x: 56, y: 28, w: 300, h: 300 }, { x: 370, top: 140 });
  expect(placed).toHaveLength(20);
  for (let i = 0; i < placed.length; i++) {
    for (let j = i + 1; j < placed.length; j++) expect(overlap(placed[i]!.box, placed[j]!.box)).toBe(false);
    for (const p of points) expect(overlap(placed[i]!.box, { x: p.x - 5, y: p.y - 5, w: 10, h: 10 })).toBe(false);
  }
  const inMargin = placed.filter((p) => p.box.x >= 370);
  expect(inMargin.length).toBeGreaterThan(0);
  for (const p of inMargin) expect(p.leader).toBeDefined();
});

const row = (method: string, kind: MethodSummary["kind"], freed: number, lost: number): MethodSummary =>
  summarizeTallies(method, kind, [{ ...ZERO_TALLY, cuts: 1, removed: 100, tokensBefore: 1000, tokensFreed: freed * 1000, lost: lost * 100 }]);

test("the legend names exactly the kinds of marks the chart draws", () => {
  const host = { host: "claude" as const, sessions: 1, methods: [], compactions: {} as never, passes: [], recall: { removed: 0, recalled: 0 }, byRule: [] };
  const legendOf = (svg: string): string[] => [...svg.matchAll(/<text class="legend"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
  const light = renderChart(host, [row("rules", "method", 0.1, 0.01), row("size-cap", "method", 0.2, 0.1), row("oracle", "ceiling", 0.3, 0)], "light", "t");
  expect(legendOf(light)).toEqual(["bc", "other methods", "ceiling (hindsight)", "best trade-offs (methods)"]);
  expect(light).not.toContain('data-mark="host"');
  const pressure = renderChart(host, [row("rules", "method", 0.1, 0.01), row("host-summary", "host", 0.9, 0.2)], "pressure", "t");
  expect(legendOf(pressure)).toEqual(["bc", "the host's summary"]);
  expect(pressure).not.toContain('data-mark="ceiling"');
  expect(pressure).not.toContain('data-mark="front"');
});

test("bc's lost rate over resampled sessions is a bar through its point, in the legend only when drawn", () => {
  const base = { host: "codex" as const, sessions: 8, methods: [], compactions: {} as never, passes: [], recall: { removed: 0, recalled: 0 }, byRule: [] };
  const rows = [row("rules", "method", 0.1, 0.02), row("size-cap", "method", 0.2, 0.01)];
  const legendOf = (svg: string): string[] => [...svg.matchAll(/<text class="legend"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
  const withBar = renderChart({ ...base, intervals: { lightLostRate: { low: 0.005, high: 0.09 } } }, rows, "light", "t");
  expect(withBar).toContain('data-mark="interval"');
  expect(withBar).toContain("0.50%-9.00%");
  expect(legendOf(withBar)).toContain("bc, other sessions (95%)");
  // the axis reaches the top of the bar, above every point
  expect(withBar).toContain(">10.0%</text>");
  // the light bar is not drawn under pressure, nor without intervals
  for (const svg of [
    renderChart({ ...base, intervals: { lightLostRate: { low: 0.005, high: 0.09 } } }, rows, "pressure", "t"),
    renderChart(base, rows, "light", "t"),
  ]) {
    expect(svg).not.toContain('data-mark="interval"');
    expect(legendOf(svg)).not.toContain("bc, other sessions (95%)");
  }
});

test("the axes are the methods' and ceilings': the host's summary, beyond them, is drawn at their edge with its figures in its label", () => {
  const host = { host: "claude" as const, sessions: 1, methods: [], compactions: {} as never, passes: [], recall: { removed: 0, recalled: 0 }, byRule: [] };
  const rows = [row("rules", "method", 0.35, 0.08), row("oldest-first", "method", 0.38, 0.13), row("host-summary", "host", 0.95, 0.4)];
  const svg = renderChart(host, rows, "pressure", "t");
  const ticks = [...svg.matchAll(/text-anchor="middle">(\d+)%<\/text>/g)].map((m) => Number(m[1]));
  expect(Math.max(...ticks)).toBe(40);
  const at = (mark: string): { x: number; y: number } => {
    const m = new RegExp(`<(?:circle cx="([\\d.]+)" cy="([\\d.]+)"|path d="M([\\d.]+) ([\\d.]+))[^>]*data-mark="${mark}"`).exec(svg)!;
    return { x: Number(m[1] ?? m[3]), y: Number(m[2] ?? m[4]) };
  };
  // the plot's right edge and top, as the grid draws them
  const right = Math.max(...[...svg.matchAll(/<line x1="([\d.]+)" y1="28"/g)].map((m) => Number(m[1])));
  expect(at("host").x).toBe(right);
  expect(at("host").y).toBe(28 - 6);
  expect(at("bc").x).toBeLessThan(right);
  expect(svg).toContain(">host summary: 95% freed, 40% lost</text>");
  // one that falls inside the methods' axes keeps its short label
  expect(renderChart(host, [row("rules", "method", 0.35, 0.08), row("host-summary", "host", 0.3, 0.05)], "pressure", "t")).toContain(">host summary</text>");
});
