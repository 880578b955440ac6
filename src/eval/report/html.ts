// report.html: one self-contained page (no external assets): the Pareto picture (tokens freed
// against lost rate, per method per host) as inline SVG, then the tables.
import type { EvalReport } from "../run.ts";
import type { HostSummary, MethodSummary } from "../summary.ts";
import { COMPACTION_HEAD, HOST_NAMES, METHOD_COLUMNS, compactionRows, goalChecks, int, pct, share } from "./format.ts";
import { corpusLine } from "./markdown.ts";

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const COLORS = ["#d62728", "#7f7f7f", "#1f77b4", "#aec7e8", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"];

const niceMax = (x: number): number => {
  if (x <= 0) return 0.01;
  const steps = [0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8, 1];
  return steps.find((s) => s >= x * 1.05) ?? 1;
};

/** Methods no other method beats on both axes (more freed, less lost), left to right. */
const paretoFront = (ms: readonly MethodSummary[]): MethodSummary[] =>
  ms
    .filter((m) => !ms.some((o) => o !== m && o.freedShare >= m.freedShare && o.lostRate <= m.lostRate && (o.freedShare > m.freedShare || o.lostRate < m.lostRate)))
    .sort((a, b) => a.freedShare - b.freedShare || a.lostRate - b.lostRate);

export const renderChart = (hosts: readonly HostSummary[], methodIds: readonly string[]): string => {
  const W = 760;
  const H = 440;
  const L = 64;
  const R = 180;
  const T = 20;
  const B = 50;
  const all = hosts.flatMap((h) => h.methods);
  const xMax = niceMax(Math.max(0, ...all.map((m) => m.freedShare)));
  const yMax = niceMax(Math.max(0, ...all.map((m) => m.lostRate)));
  const x = (v: number): number => L + (v / xMax) * (W - L - R);
  const y = (v: number): number => H - B - (v / yMax) * (H - T - B);
  const color = (id: string): string => COLORS[Math.max(0, methodIds.indexOf(id)) % COLORS.length]!;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="tokens freed against lost rate, per method and host">`);
  parts.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`);
  for (let i = 0; i <= 5; i++) {
    const vx = (xMax * i) / 5;
    const vy = (yMax * i) / 5;
    parts.push(`<line x1="${x(vx).toFixed(1)}" y1="${T}" x2="${x(vx).toFixed(1)}" y2="${H - B}" stroke="#eee"/>`);
    parts.push(`<line x1="${L}" y1="${y(vy).toFixed(1)}" x2="${W - R}" y2="${y(vy).toFixed(1)}" stroke="#eee"/>`);
    parts.push(`<text x="${x(vx).toFixed(1)}" y="${H - B + 16}" font-size="11" text-anchor="middle">${pct(vx, 0)}</text>`);
    parts.push(`<text x="${L - 6}" y="${(y(vy) + 4).toFixed(1)}" font-size="11" text-anchor="end">${pct(vy, 1)}</text>`);
  }
  parts.push(`<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#333"/>`);
  parts.push(`<text x="${(L + W - R) / 2}" y="${H - 12}" font-size="12" text-anchor="middle">tokens freed (share of tokens before the cut) →</text>`);
  parts.push(`<text x="16" y="${(T + H - B) / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 16 ${(T + H - B) / 2})">lost rate (lost / removed) →</text>`);
  hosts.forEach((h, hi) => {
    const front = paretoFront(h.methods);
    if (front.length > 1)
      parts.push(
        `<polyline fill="none" stroke="#999" stroke-dasharray="${hi === 0 ? "4 3" : "1 3"}" points="${front.map((m) => `${x(m.freedShare).toFixed(1)},${y(m.lostRate).toFixed(1)}`).join(" ")}"/>`,
      );
    for (const m of h.methods) {
      const cx = x(m.freedShare);
      const cy = y(m.lostRate);
      const title = `<title>${esc(`${HOST_NAMES[h.host] ?? h.host} · ${m.method}: freed ${pct(m.freedShare)}, lost ${pct(m.lostRate, 2)} (${m.lost}/${m.removed})`)}</title>`;
      if (hi === 0) parts.push(`<circle cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="5" fill="${color(m.method)}" stroke="#000" stroke-width="0.5">${title}</circle>`);
      else parts.push(`<rect x="${(cx - 4.5).toFixed(1)}" y="${(cy - 4.5).toFixed(1)}" width="9" height="9" fill="${color(m.method)}" stroke="#000" stroke-width="0.5">${title}</rect>`);
      if (m.method !== "keep-all")
        parts.push(`<text x="${(cx + 7).toFixed(1)}" y="${(cy + (hi === 0 ? -4 : 11)).toFixed(1)}" font-size="9" fill="#555">${esc(m.method)}</text>`);
    }
  });
  // legend: methods by colour, hosts by shape
  let ly = T + 4;
  for (const id of methodIds) {
    parts.push(`<rect x="${W - R + 16}" y="${ly}" width="10" height="10" fill="${color(id)}"/><text x="${W - R + 32}" y="${ly + 9}" font-size="11">${esc(id)}</text>`);
    ly += 16;
  }
  ly += 6;
  hosts.forEach((h, hi) => {
    parts.push(
      hi === 0
        ? `<circle cx="${W - R + 21}" cy="${ly + 5}" r="5" fill="#fff" stroke="#000"/>`
        : `<rect x="${W - R + 16}" y="${ly}" width="10" height="10" fill="#fff" stroke="#000"/>`,
    );
    parts.push(`<text x="${W - R + 32}" y="${ly + 9}" font-size="11">${esc(HOST_NAMES[h.host] ?? h.host)}</text>`);
    ly += 16;
  });
  parts.push(`<text x="${W - R + 16}" y="${ly + 12}" font-size="10" fill="#666">dashed: the Pareto front</text>`);
  parts.push(`</svg>`);
  return parts.join("\n");
};

const htmlTable = (head: readonly string[], rows: readonly (readonly string[])[]): string =>
  `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`)
    .join("")}</tbody></table>`;

export const renderHtml = (r: EvalReport): string => {
  const p = r.parameters as { methods: { id: string; summary: string }[]; leftOut: readonly { method: string; why: string }[]; cuts: number[] };
  const ids = p.methods.map((m) => m.id);
  const body: string[] = [];
  body.push(`<h1>bc eval report</h1>`);
  body.push(`<p>bc ${esc(r.version)}, yardstick ${esc(r.yardstick)}. ${esc(corpusLine(r)).replace(/`([^`]*)`/g, "<code>$1</code>")}</p>`);
  body.push(
    `<p>Each session is cut at ${esc(p.cuts.map((c) => pct(c, 0)).join(", "))} of its messages; every method compacts what is before the cut, and the scorer reads only what the assistant wrote and the tool inputs it issued after it. Down and to the right is better: more freed, less lost.</p>`,
  );
  body.push(renderChart(r.hosts, ids));
  for (const g of goalChecks(r))
    body.push(
      `<p><b>${esc(HOST_NAMES[g.host] ?? g.host)}</b>: the rules lose ${pct(g.lostRate, 2)} of what they remove (${g.lostOk ? "goal met" : "goal NOT met"}) and free ${pct(g.freedShare)} of the tokens (${g.freedOk ? "goal met" : "goal NOT met"}); ${
        g.dominatedBy.length === 0 ? "no baseline frees as much and loses as little." : `matched or beaten by ${esc(g.dominatedBy.join(", "))}.`
      }</p>`,
    );
  for (const h of r.hosts) {
    body.push(`<h2>${esc(HOST_NAMES[h.host] ?? h.host)}: ${h.sessions} sessions</h2>`);
    body.push(htmlTable(METHOD_COLUMNS.map((c) => c.head), h.methods.map((m) => METHOD_COLUMNS.map((c) => c.cell(m)))));
  }
  body.push(`<h2>At the hosts' own compactions</h2>`);
  body.push(
    htmlTable(COMPACTION_HEAD, compactionRows(r.hosts)),
  );
  body.push(`<h2>Repeated passes (the rules)</h2>`);
  for (const h of r.hosts) {
    body.push(`<h3>${esc(HOST_NAMES[h.host] ?? h.host)}</h3>`);
    body.push(
      htmlTable(
        ["pass at", "freed by this pass", "freed so far", "removed", "misses", "lost", "lost rate", "fixed-point violations"],
        h.passes.map((q) => [
          pct(q.share, 0),
          int(q.passFreed),
          `${int(q.tokensFreed)} (${share(q.tokensFreed, q.tokensBefore)})`,
          int(q.removed),
          int(q.misses),
          int(q.lost),
          share(q.lost, q.removed, 2),
          int(q.fixedPointViolations),
        ]),
      ),
    );
  }
  body.push(`<h2>Methods</h2><ul>${p.methods.map((m) => `<li><code>${esc(m.id)}</code>: ${esc(m.summary)}</li>`).join("")}${p.leftOut
    .map((m) => `<li>left out: ${esc(m.method)}: ${esc(m.why)}</li>`)
    .join("")}</ul>`);
  body.push(`<h2>Skipped files (${r.corpus.skipped.length})</h2>`);
  body.push(r.corpus.skipped.length === 0 ? "<p>None.</p>" : `<ul>${r.corpus.skipped.map((s) => `<li>${esc(s.reason)}</li>`).join("")}</ul>`);
  const css =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}th,td{border:1px solid #ddd;padding:3px 7px;text-align:right}th:first-child,td:first-child{text-align:left}th{background:#f5f5f5}code{background:#f3f3f3;padding:0 3px}svg{max-width:100%;height:auto}";
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>bc eval report</title><style>${css}</style></head><body>\n${body.join("\n")}\n</body></html>\n`;
};
