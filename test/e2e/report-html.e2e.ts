// report.html as a person sees it: `dist/bc eval --demo` writes the report, headless Chromium
// renders it. A screenshot is taken, and in the rendered page no two chart labels overlap, no
// label leaves its chart, the legend names exactly the marks drawn, and the definitions and
// "what bc lost" sections are there. Skips, saying so, when Chromium is not installed.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REPO = join(import.meta.dir, "..", "..");
const BIN = join(REPO, "dist", process.platform === "win32" ? "bc.exe" : "bc");
const CHROMIUM = ["chromium", "chromium-browser", "google-chrome"].map((n) => Bun.which(n)).find((p) => p !== null) ?? undefined;

const tmp = mkdtempSync(join(tmpdir(), "bc-report-html-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const chromium = (args: string[]): { code: number; stdout: string } => {
  const r = Bun.spawnSync([CHROMIUM!, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", `--user-data-dir=${join(tmp, "profile")}`, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    timeout: 120_000,
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString() };
};

/** Runs in the page: every chart's label and legend boxes, and what the chart draws. */
const PROBE = `
<script>
addEventListener("load", () => {
  const charts = [...document.querySelectorAll("svg")].map((svg) => {
    const vb = svg.viewBox.baseVal;
    const texts = [...svg.querySelectorAll("text.label, text.legend")].map((t) => {
      const b = t.getBBox();
      return { text: t.textContent, kind: t.getAttribute("class"), x: b.x, y: b.y, w: b.width, h: b.height };
    });
    return {
      title: svg.getAttribute("aria-label"),
      width: vb.width,
      height: vb.height,
      texts,
      marks: {
        bc: svg.querySelectorAll("[data-mark=bc]").length,
        interval: svg.querySelectorAll("[data-mark=interval]").length,
        method: svg.querySelectorAll("[data-mark=method]").length,
        ceiling: svg.querySelectorAll("[data-mark=ceiling]").length,
        host: svg.querySelectorAll("[data-mark=host]").length,
        front: svg.querySelectorAll("[data-mark=front]").length,
      },
    };
  });
  const headings = [...document.querySelectorAll("h2")].map((h) => h.textContent);
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify({ charts, headings });
  document.body.appendChild(pre);
});
</script>`;

const LEGEND: Record<string, string> = {
  bc: "bc",
  interval: "bc, other sessions (95%)",
  method: "other methods",
  ceiling: "ceiling (hindsight)",
  host: "the host's summary",
  front: "best trade-offs (methods)",
};

test.skipIf(CHROMIUM === undefined)(
  "report.html renders: labels apart and inside their charts, the legend as drawn, every section there",
  () => {
    expect(existsSync(BIN)).toBe(true);
    const out = join(tmp, "report");
    const r = Bun.spawnSync([BIN, "eval", "--demo", "--out", out], { cwd: tmp, stdout: "pipe", stderr: "pipe" });
    expect(r.exitCode).toBe(0);
    const html = readFileSync(join(out, "report.html"), "utf8");

    const shot = join(tmp, "report.png");
    expect(chromium([`--window-size=1200,2000`, `--screenshot=${shot}`, `file://${join(out, "report.html")}`]).code).toBe(0);
    const png = readFileSync(shot);
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(png.readUInt32BE(16)).toBe(1200);

    const probed = join(tmp, "probed.html");
    writeFileSync(probed, html.replace("</body>", `${PROBE}</body>`));
    const dom = chromium(["--virtual-time-budget=5000", "--dump-dom", `file://${probed}`]);
    expect(dom.code).toBe(0);
    const m = dom.stdout.match(/<pre id="probe">([\s\S]*?)<\/pre>/);
    expect(m).not.toBeNull();
    const decoded = m![1]!
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
    const probe = JSON.parse(decoded) as {
      charts: {
        title: string;
        width: number;
        height: number;
        texts: { text: string; kind: string; x: number; y: number; w: number; h: number }[];
        marks: Record<string, number>;
      }[];
      headings: string[];
    };
    // light and pressure, for both hosts of the demo corpus
    expect(probe.charts.map((c) => c.title)).toEqual([
      "Claude Code: light compaction",
      "Codex: light compaction",
      "Claude Code: at 95% of the window",
      "Codex: at 95% of the window",
    ]);
    for (const c of probe.charts) {
      const boxes = c.texts;
      for (const b of boxes) {
        expect({ chart: c.title, text: b.text, inside: b.x >= 0 && b.y >= 0 && b.x + b.w <= c.width && b.y + b.h <= c.height }).toEqual({
          chart: c.title,
          text: b.text,
          inside: true,
        });
      }
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i]!;
          const b = boxes[j]!;
          const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
          expect({ chart: c.title, pair: [a.text, b.text], apart }).toEqual({ chart: c.title, pair: [a.text, b.text], apart: true });
        }
      const legend = c.texts.filter((t) => t.kind === "legend").map((t) => t.text);
      const drawn = Object.entries(c.marks)
        .filter(([, n]) => n > 0)
        .map(([k]) => LEGEND[k] ?? k);
      expect({ chart: c.title, legend }).toEqual({ chart: c.title, legend: drawn });
      expect(c.marks.bc).toBe(1);
      expect(c.marks.ceiling).toBeGreaterThan(0);
    }
    expect(probe.headings).toEqual(expect.arrayContaining(["Light compaction: no budget", "Definitions", "Ceilings (hindsight, not methods)"]));
    expect(probe.headings.some((h) => /^Under pressure: the history at 95% of the window/.test(h))).toBe(true);
    expect(probe.headings.some((h) => /^What bc lost \(\d+: \d+ light, \d+ under pressure\)$/.test(h))).toBe(true);
  },
  300_000,
);

test.skipIf(CHROMIUM !== undefined)("report.html in Chromium: skipped, no chromium on PATH (apt-get install chromium)", () => {
  process.stderr.write("report-html.e2e: no chromium, chromium-browser or google-chrome on PATH; the rendering checks were skipped\n");
});
