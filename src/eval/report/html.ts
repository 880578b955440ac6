// report.html: one self-contained page (no external assets): per mode and host, a chart of
// tokens freed against lost rate (methods as dots, ceilings as reference marks), then the
// tables, the definitions and what bc lost, as in report.md.
import type { EvalReport } from "../run.ts";
import type { HostSummary, MethodSummary } from "../summary.ts";
import {
  COMPACTION_HEAD,
  HOST_NAMES,
  METHOD_COLUMNS,
  RULE_HEAD,
  RULES_SECTION,
  ceilingSentences,
  recallSentence,
  compactionRows,
  cutShare,
  pct,
  pressureColumns,
  ruleTables,
  toolTables,
  TOOLS_SECTION,
  rowName,
} from "./format.ts";
import {
  CLOSING,
  COMPACTIONS_INTRO,
  DEFINITIONS,
  LIGHT_INTRO,
  lostIntro,
  PASS_HEAD,
  corpusLine,
  lostHeading,
  lostList,
  passesIntro,
  passRows,
  pressureHeading,
  splitRows,
} from "./markdown.ts";
import { counted } from "../../util/format.ts";

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const niceMax = (x: number): number => {
  if (x <= 0) return 0.01;
  const steps = [0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1];
  return steps.find((s) => s >= x * 1.05) ?? 1;
};

/** Methods no other method beats on both axes (more freed, less lost), left to right. */
export const paretoFront = (ms: readonly MethodSummary[]): MethodSummary[] =>
  ms
    .filter(
      (m) => !ms.some((o) => o !== m && o.freedShare >= m.freedShare && o.lostRate <= m.lostRate && (o.freedShare > m.freedShare || o.lostRate < m.lostRate)),
    )
    .sort((a, b) => a.freedShare - b.freedShare || a.lostRate - b.lostRate);

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

export const LABEL_FONT = 10;
/** a generous width per character at LABEL_FONT, so an estimated box holds the drawn text */
export const CHAR_WIDTH = 6.2;

export interface PlacedLabel {
  readonly text: string;
  /** the text's box (top-left, width, height) */
  readonly box: Box;
  readonly anchor: "start" | "end";
  /** baseline position of the text */
  readonly tx: number;
  readonly ty: number;
  /** from the point to the label, when it had to move away from its point */
  readonly leader?: { x1: number; y1: number; x2: number; y2: number };
}

/**
 * Labels beside their points without overlapping one another or any point: each tries places
 * around its point, nearest first; a label with no free place goes to the margin column at the
 * right, stacked, with a leader line to its point.
 */
export const placeLabels = (points: readonly { x: number; y: number; text: string }[], area: Box, margin: { x: number; top: number }): PlacedLabel[] => {
  const h = LABEL_FONT + 2;
  const taken: Box[] = points.map((p) => ({ x: p.x - 6, y: p.y - 6, w: 12, h: 12 }));
  const placed: PlacedLabel[] = [];
  let marginY = margin.top;
  for (const p of points) {
    const w = p.text.length * CHAR_WIDTH;
    const tries: { dx: number; dy: number; anchor: "start" | "end" }[] = [];
    for (const dy of [0, -12, 12, -24, 24, -36, 36]) {
      tries.push({ dx: 8, dy, anchor: "start" });
      tries.push({ dx: -8, dy, anchor: "end" });
    }
    let done = false;
    for (const t of tries) {
      const x0 = t.anchor === "start" ? p.x + t.dx : p.x + t.dx - w;
      const box = { x: x0, y: p.y + t.dy - h / 2, w, h };
      if (box.x < area.x || box.x + box.w > area.x + area.w || box.y < area.y || box.y + box.h > area.y + area.h) continue;
      if (taken.some((b) => overlaps(b, box))) continue;
      taken.push(box);
      const far = Math.abs(t.dy) > 0;
      placed.push({
        text: p.text,
        box,
        anchor: t.anchor,
        tx: p.x + t.dx,
        ty: box.y + h - 3,
        ...(far ? { leader: { x1: p.x, y1: p.y, x2: t.anchor === "start" ? box.x : box.x + box.w, y2: box.y + h / 2 } } : {}),
      });
      done = true;
      break;
    }
    if (done) continue;
    const box = { x: margin.x, y: marginY, w, h };
    marginY += h + 2;
    placed.push({ text: p.text, box, anchor: "start", tx: margin.x, ty: box.y + h - 3, leader: { x1: p.x, y1: p.y, x2: margin.x - 2, y2: box.y + h / 2 } });
  }
  return placed;
};

const MARK = {
  bc: "#d62728",
  method: "#1f77b4",
  ceiling: "#000",
  host: "#ff7f0e",
} as const;

/** One chart: a host's rows in one mode. */
export const renderChart = (h: HostSummary, rows: readonly MethodSummary[], mode: "light" | "pressure", title: string): string => {
  const W = 540;
  const H = 380;
  const L = 56;
  const R = 175;
  const T = 28;
  const B = 44;
  const shown = rows.filter((m) => m.method !== "keep-all" && !(mode === "pressure" && m.method.startsWith("rules:")));
  // the host's own summary frees nearly everything and loses far more than any method: the axes
  // are the methods' and the ceilings', so that they are not crowded into a corner, and a host
  // point beyond them is drawn at their edge, its figures in its label
  const scaled = shown.filter((m) => m.kind !== "host");
  const xMax = niceMax(Math.max(0, ...scaled.map((m) => m.freedShare)));
  // bc's lost rate over resampled sessions (interval.ts), drawn as a bar through its point
  const spread = mode === "light" ? h.intervals?.lightLostRate : h.intervals?.pressureLostRate;
  const bc = shown.find((m) => m.method === "rules");
  const bar = bc === undefined ? undefined : spread;
  const yMax = niceMax(Math.max(0, ...scaled.map((m) => m.lostRate), bar?.high ?? 0));
  const x = (v: number): number => L + (Math.min(v, xMax) / xMax) * (W - L - R);
  const y = (v: number): number => H - B - (Math.min(v, yMax) / yMax) * (H - T - B);
  const offChart = (m: MethodSummary): boolean => m.freedShare > xMax || m.lostRate > yMax;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">`);
  parts.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`);
  parts.push(`<text x="${L}" y="16" font-size="12" font-weight="bold">${esc(title)}</text>`);
  for (let i = 0; i <= 5; i++) {
    const vx = (xMax * i) / 5;
    const vy = (yMax * i) / 5;
    parts.push(`<line x1="${x(vx).toFixed(1)}" y1="${T}" x2="${x(vx).toFixed(1)}" y2="${H - B}" stroke="#eee"/>`);
    parts.push(`<line x1="${L}" y1="${y(vy).toFixed(1)}" x2="${W - R}" y2="${y(vy).toFixed(1)}" stroke="#eee"/>`);
    parts.push(`<text x="${x(vx).toFixed(1)}" y="${H - B + 14}" font-size="10" text-anchor="middle">${pct(vx, 0)}</text>`);
    parts.push(`<text x="${L - 5}" y="${(y(vy) + 3).toFixed(1)}" font-size="10" text-anchor="end">${pct(vy, 1)}</text>`);
  }
  parts.push(`<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#333"/>`);
  parts.push(`<text x="${(L + W - R) / 2}" y="${H - 10}" font-size="11" text-anchor="middle">tokens freed (share of the history) →</text>`);
  parts.push(
    `<text x="14" y="${(T + H - B) / 2}" font-size="11" text-anchor="middle" transform="rotate(-90 14 ${(T + H - B) / 2})">lost rate (lost / removed) →</text>`,
  );
  const methods = shown.filter((m) => m.kind === "method");
  const front = paretoFront(methods);
  if (front.length > 1)
    parts.push(
      `<polyline data-mark="front" fill="none" stroke="#888" stroke-dasharray="4 3" points="${front.map((m) => `${x(m.freedShare).toFixed(1)},${y(m.lostRate).toFixed(1)}`).join(" ")}"/>`,
    );
  const name = (m: MethodSummary): string =>
    m.kind === "ceiling"
      ? `${m.method} (ceiling)`
      : m.kind === "host"
        ? offChart(m)
          ? `host summary: ${pct(m.freedShare, 0)} freed, ${pct(m.lostRate, 0)} lost`
          : "host summary"
        : m.method === "rules"
          ? "bc"
          : m.method;
  const order = [...shown].sort(
    (a, b) => (a.method === "rules" ? -1 : b.method === "rules" ? 1 : 0) || (a.kind === b.kind ? 0 : a.kind === "ceiling" ? -1 : b.kind === "ceiling" ? 1 : 0),
  );
  const labels = placeLabels(
    order.map((m) => ({ x: x(m.freedShare), y: y(m.lostRate), text: name(m) })),
    { x: L + 1, y: T, w: W - R - L - 1, h: H - B - T },
    { x: W - R + 10, top: T + 110 },
  );
  if (bc !== undefined && bar !== undefined) {
    const bx = x(bc.freedShare);
    const [lo, hi] = [y(bar.low), y(bar.high)];
    parts.push(
      `<path d="M${bx.toFixed(1)} ${lo.toFixed(1)} L${bx.toFixed(1)} ${hi.toFixed(1)} M${(bx - 4).toFixed(1)} ${lo.toFixed(1)} L${(bx + 4).toFixed(1)} ${lo.toFixed(1)} M${(bx - 4).toFixed(1)} ${hi.toFixed(1)} L${(bx + 4).toFixed(1)} ${hi.toFixed(1)}" stroke="${MARK.bc}" stroke-width="1.5" fill="none" data-mark="interval"><title>${esc(`bc's lost rate in 95% of resamplings of the sessions: ${pct(bar.low, 2)}-${pct(bar.high, 2)}`)}</title></path>`,
    );
  }
  for (const m of shown) {
    const cx = x(m.freedShare).toFixed(1);
    const cy = y(m.lostRate).toFixed(1);
    const tip = `<title>${esc(`${rowName(m, h.host, mode)}: freed ${pct(m.freedShare)}, lost ${pct(m.lostRate, 2)} (${m.lost}/${m.removed})`)}</title>`;
    if (m.kind === "ceiling")
      parts.push(
        `<path d="M${cx} ${(+cy - 6).toFixed(1)} L${(+cx + 6).toFixed(1)} ${cy} L${cx} ${(+cy + 6).toFixed(1)} L${(+cx - 6).toFixed(1)} ${cy} Z" fill="#fff" stroke="${MARK.ceiling}" stroke-width="1.5" data-mark="ceiling">${tip}</path>`,
      );
    else if (m.kind === "host")
      parts.push(
        `<path d="M${cx} ${(+cy - 6).toFixed(1)} L${(+cx + 6).toFixed(1)} ${(+cy + 5).toFixed(1)} L${(+cx - 6).toFixed(1)} ${(+cy + 5).toFixed(1)} Z" fill="${MARK.host}" stroke="#000" stroke-width="0.5" data-mark="host">${tip}</path>`,
      );
    else
      parts.push(
        `<circle cx="${cx}" cy="${cy}" r="${m.method === "rules" ? 6 : 4.5}" fill="${m.method === "rules" ? MARK.bc : MARK.method}" stroke="#000" stroke-width="0.5" data-mark="${m.method === "rules" ? "bc" : "method"}">${tip}</circle>`,
      );
  }
  for (const l of labels) {
    if (l.leader)
      parts.push(
        `<line x1="${l.leader.x1.toFixed(1)}" y1="${l.leader.y1.toFixed(1)}" x2="${l.leader.x2.toFixed(1)}" y2="${l.leader.y2.toFixed(1)}" stroke="#bbb" stroke-width="0.7"/>`,
      );
    parts.push(
      `<text class="label" x="${l.tx.toFixed(1)}" y="${l.ty.toFixed(1)}" font-size="${LABEL_FONT}" text-anchor="${l.anchor}" fill="#333">${esc(l.text)}</text>`,
    );
  }
  // legend: exactly the marks drawn in this chart
  const lx = W - R + 10;
  let ly = T;
  const legend = (mark: string, text: string): void => {
    parts.push(`${mark}<text class="legend" x="${lx + 16}" y="${ly + 8}" font-size="10">${esc(text)}</text>`);
    ly += 16;
  };
  legend(`<circle cx="${lx + 5}" cy="${ly + 5}" r="5" fill="${MARK.bc}" stroke="#000" stroke-width="0.5"/>`, "bc");
  if (bc !== undefined && bar !== undefined)
    legend(
      `<path d="M${lx + 5} ${ly - 1} L${lx + 5} ${ly + 11} M${lx + 1} ${ly - 1} L${lx + 9} ${ly - 1} M${lx + 1} ${ly + 11} L${lx + 9} ${ly + 11}" stroke="${MARK.bc}" stroke-width="1.5" fill="none"/>`,
      "bc, other sessions (95%)",
    );
  if (methods.some((m) => m.method !== "rules"))
    legend(`<circle cx="${lx + 5}" cy="${ly + 5}" r="4.5" fill="${MARK.method}" stroke="#000" stroke-width="0.5"/>`, "other methods");
  if (shown.some((m) => m.kind === "ceiling"))
    legend(
      `<path d="M${lx + 5} ${ly - 1} L${lx + 11} ${ly + 5} L${lx + 5} ${ly + 11} L${lx - 1} ${ly + 5} Z" fill="#fff" stroke="#000" stroke-width="1.5"/>`,
      "ceiling (hindsight)",
    );
  if (shown.some((m) => m.kind === "host"))
    legend(
      `<path d="M${lx + 5} ${ly - 1} L${lx + 11} ${ly + 10} L${lx - 1} ${ly + 10} Z" fill="${MARK.host}" stroke="#000" stroke-width="0.5"/>`,
      "the host's summary",
    );
  if (front.length > 1)
    legend(`<line x1="${lx - 1}" y1="${ly + 5}" x2="${lx + 11}" y2="${ly + 5}" stroke="#888" stroke-dasharray="4 3"/>`, "best trade-offs (methods)");
  parts.push(`</svg>`);
  return parts.join("\n");
};

/** A table in a box of its own that scrolls sideways: a wide one (--split, many columns) never widens the page. */
const htmlTable = (head: readonly string[], rows: readonly (readonly string[])[]): string =>
  `<div class="table"><table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`)
    .join("")}</tbody></table></div>`;

const code = (s: string): string => esc(s).replace(/`([^`]*)`/g, "<code>$1</code>");

export const renderHtml = (r: EvalReport): string => {
  const p = r.parameters as unknown as {
    methods: { id: string; summary: string }[];
    ceilings: { id: string; summary: string }[];
    leftOut: readonly { method: string; why: string }[];
    cuts: number[];
    pressure: null | { share: number; budgetShare: number; methods: { id: string; summary: string }[] };
    passes: number[];
  };
  const body: string[] = [];
  const hostName = (h: HostSummary): string => HOST_NAMES[h.host] ?? h.host;
  body.push(`<h1>bc eval report</h1>`);
  body.push(`<p>bc ${esc(r.version)}, yardstick ${esc(r.yardstick)}. ${code(corpusLine(r))}</p>`);
  if ((r.split ?? []).length > 0)
    body.push(
      `<ul>${(r.split ?? []).map((b) => `<li><code>${esc(b.name)}</code>: ${counted(b.sessions, "session")} from ${counted(b.files, "file")}, fingerprint <code>${esc(b.fingerprint)}</code></li>`).join("")}</ul>`,
    );
  body.push(
    `<p>Each session is cut at ${esc(p.cuts.map(cutShare).join(", "))} of its messages; every method compacts what is before the cut, and the scorer reads only what the assistant wrote and the tool inputs it issued after it. Down and to the right is better: more freed, less lost. Ceilings read the session's future: they mark how far a method could go and are not methods.</p>`,
  );
  body.push(`<h2>Light compaction: no budget</h2>`, `<p>${esc(LIGHT_INTRO)}</p>`);
  body.push(`<div class="charts">${r.hosts.map((h) => renderChart(h, h.methods, "light", `${hostName(h)}: light compaction`)).join("\n")}</div>`);
  for (const h of r.hosts) {
    body.push(`<h3>${esc(hostName(h))}: ${counted(h.sessions, "session")}</h3>`);
    body.push(
      htmlTable(
        METHOD_COLUMNS.map((c) => c.head),
        h.methods.map((m) => METHOD_COLUMNS.map((c) => c.cell(m))),
      ),
    );
    // the light sentence only: without bc's light row there is none, and the next would be another mode's
    const s = ceilingSentences(h).find((x) => x.startsWith("light: "));
    if (s) body.push(`<p>${esc(s.replace(/^light: /, ""))}</p>`);
    const rs = recallSentence(h, "light");
    if (rs) body.push(`<p>${esc(rs)}</p>`);
  }
  if (p.pressure !== null) {
    body.push(`<h2>${esc(pressureHeading(p.pressure.share, p.pressure.budgetShare))}</h2>`);
    body.push(
      `<p>Each cut is compacted as an automatic compaction with the history at ${pct(p.pressure.share, 0)} of the window, down to ${pct(p.pressure.budgetShare, 0)} of it (the Claude Code plugin's default budget); every method frees to that budget. bc is scored as the product answers (the plugin's session.compact with trigger auto; the plan bc codex-fork makes with the budget). Cuts where bc does not reach the budget (the plugin answers over it under handOverAbovePercent, or hands its rows to Claude Code's summary above that) are scored as what bc left, in their own row. The host's own summary is scored at the compactions it really ran.</p>`,
    );
    body.push(
      `<div class="charts">${r.hosts.map((h) => renderChart(h, h.pressure ?? [], "pressure", `${hostName(h)}: at ${pct(p.pressure!.share, 0)} of the window`)).join("\n")}</div>`,
    );
    for (const h of r.hosts) {
      const cols = pressureColumns(h.host);
      body.push(`<h3>${esc(hostName(h))}: ${counted(h.sessions, "session")}</h3>`);
      body.push(
        htmlTable(
          cols.map((c) => c.head),
          (h.pressure ?? []).map((m) => cols.map((c) => c.cell(m))),
        ),
      );
      const s = ceilingSentences(h).find((x) => x.startsWith("under pressure"));
      if (s) body.push(`<p>${esc(s.replace(/^under pressure: /, ""))}</p>`);
      const rs = recallSentence(h, "pressure");
      if (rs) body.push(`<p>${esc(rs)}</p>`);
    }
  }
  if (r.hosts.some((h) => h.byRule.length > 0)) {
    body.push(`<h2>What bc removed, by rule</h2>`, `<p>${code(RULES_SECTION)}</p>`);
    for (const h of r.hosts) for (const t of ruleTables(h)) body.push(`<h3>${esc(t.heading)}</h3>`, htmlTable(RULE_HEAD, t.rows));
  }
  if (r.hosts.some((h) => (h.byTool ?? []).length > 0)) {
    body.push(`<h2>What bc removed, by tool</h2>`, `<p>${code(TOOLS_SECTION)}</p>`);
    for (const h of r.hosts) for (const t of toolTables(h)) body.push(`<h3>${esc(t.heading)}</h3>`, htmlTable(t.head, t.rows));
  }
  if ((r.split ?? []).length > 0) {
    body.push(`<h2>Each given path beside the total</h2>`);
    body.push(`<p>A figure that improves on one path and worsens on another is a sign of tuning to one set of sessions.</p>`);
    for (const h of r.hosts)
      for (const mode of ["light", "pressure"] as const) {
        const t = splitRows(r, h.host, mode);
        if (!t) continue;
        body.push(`<h3>${esc(hostName(h))}, ${mode === "light" ? "light compaction" : "under pressure"}</h3>`);
        body.push(htmlTable(t.head, t.rows));
      }
  }
  body.push(`<h2>At the hosts' own compactions</h2>`, `<p>${esc(COMPACTIONS_INTRO)}</p>`);
  body.push(htmlTable(COMPACTION_HEAD, compactionRows(r.hosts)));
  body.push(`<h2>Repeated passes (the rules)</h2>`, `<p>${esc(passesIntro(p.passes))}</p>`);
  for (const h of r.hosts) {
    body.push(`<h3>${esc(hostName(h))}</h3>`);
    body.push(htmlTable(PASS_HEAD, passRows(h)));
  }
  body.push(
    `<h2>Methods</h2><ul>${p.methods.map((m) => `<li><code>${esc(m.id)}</code>: ${esc(m.summary)}</li>`).join("")}${(p.pressure?.methods ?? [])
      .map((m) => `<li>under pressure, <code>${esc(m.id)}</code>: ${esc(m.summary)}</li>`)
      .join("")}${p.leftOut.map((m) => `<li>left out: ${esc(m.method)}: ${esc(m.why)}</li>`).join("")}</ul>`,
  );
  body.push(`<h2>Ceilings (hindsight, not methods)</h2><ul>${p.ceilings.map((c) => `<li><code>${esc(c.id)}</code>: ${esc(c.summary)}</li>`).join("")}</ul>`);
  body.push(`<h2>Definitions</h2><ul>${DEFINITIONS.map((d) => `<li>${code(d)}</li>`).join("")}</ul>`);
  const lost = lostList(r);
  body.push(`<h2>${esc(lostHeading(lost, p.pressure != null))}</h2>`, `<p>${esc(lostIntro(p.pressure != null))}</p>`);
  body.push(
    lost.length === 0
      ? "<p>Nothing.</p>"
      : `<ul>${lost
          .slice(0, 40)
          .map((l) => `<li>${code(l.line)}</li>`)
          .join("")}${lost.length > 40 ? `<li>… and ${lost.length - 40} more in report.json</li>` : ""}</ul>`,
  );
  body.push(`<h2>Skipped files (${r.corpus.skipped.length})</h2>`);
  body.push(r.corpus.skipped.length === 0 ? "<p>None.</p>" : `<ul>${r.corpus.skipped.map((s) => `<li>${esc(s.reason)}</li>`).join("")}</ul>`);
  body.push(`<p>${esc(CLOSING)}</p>`);
  const css =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1120px;padding:0 1em;color:#222}.table{max-width:100%;overflow-x:auto;margin:.5em 0 1.5em}table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ddd;padding:3px 7px;text-align:right}th:first-child,td:first-child{text-align:left}th{background:#f5f5f5}code{background:#f3f3f3;padding:0 3px;overflow-wrap:anywhere}svg{max-width:100%;height:auto}.charts{display:flex;flex-wrap:wrap;gap:12px;overflow-x:auto}@media (max-width:600px){.charts svg{max-width:none;width:540px;flex:none}}";
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>bc eval report</title><style>${css}</style></head><body>\n${body.join("\n")}\n</body></html>\n`;
};
