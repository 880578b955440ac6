#!/usr/bin/env bun
// Speed of the rules engine, in process: plan() on the largest corpus session of each host
// and on generated sessions of 2,000 and 4,000 tool results (about 20 MB and 40 MB: doubling
// the size should about double the time), each beside JSON.parse of the same bytes and beside
// the engine's "reference" mode (every token of every result extracted, every place checked
// for quotes: the plain definition the fast path is tested against, as the engine ran before). Then
// the whole `bc plan --json` process on the largest corpus file, beside a bun process that
// only reads and parses it. Goals: < 50 ms for 20 MB in process; < 300 ms for the process;
// with a budget (a compaction at 95% of the window, cut to 60%: need score and escalation) < 100 ms.
//
//   bun test/bench/engine.bench.ts [--runs N]
//
// "cold" plans a fresh copy made by JSON.parse (new objects and strings, as a session arrives
// from its file: no per-object cache can help; the first compaction of a session); "warm"
// plans the same objects again (a later pass over unchanged history).
// The generated sessions repeat outputs the way sessions do (a file read again unchanged, the
// same listing or test run), and the engine scans a repeated text once; how much of their
// output repeats is printed. The "unique" rows give every output a line of its own, so nothing
// repeats: the same size with none of that help. Real sessions cost more per megabyte (more
// prose and call inputs to read, more tokens to look for), so the "corpus joined" rows plan the
// corpus's own sessions of each host joined end to end into one of about 20 MB. Each row also
// counts the fresh pages a budgeted plan touches (minor page faults) beside the time to touch as
// many pages and do nothing else: where a fault is dear (~17 µs each on the 2-core virtual
// machine the README's figures come from), much of a plan's time is the memory it first touches.
// Figures, not assertions.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { plan, planWith } from "../../src/engine/plan.ts";
import type { Message, Session } from "../../src/engine/types.ts";
import { loadSessionFile } from "../../src/hosts/load.ts";
import { generateSession } from "../engine/support/generate.ts";
import { CORPUS_DIR, SKIP_NOTE, corpusFiles, hasCorpus, largestCorpusFile } from "../support/shared.ts";
import { median, runsArg as runsArgOf } from "./support.ts";

const REPO = join(import.meta.dir, "..", "..");
const BIN = join(REPO, "dist", "bc");

const runsArg = (): number => runsArgOf("engine.bench", 5);

const RUNS = runsArg();

/** Runs that warm the JIT first (its optimizing tiers take a few calls): steady state, as in a long-lived process. */
const WARM_UP = 3;

const timeMs = (f: () => void, runs = RUNS, prepare?: () => void): number => {
  const xs: number[] = [];
  for (let i = 0; i < WARM_UP + runs; i++) {
    prepare?.();
    const t0 = performance.now();
    f();
    const ms = performance.now() - t0;
    if (i >= WARM_UP) xs.push(ms);
  }
  return median(xs);
};

const resultBytes = (s: Session): number => s.messages.reduce((a, m) => a + m.toolResults.reduce((b, r) => b + r.text.length, 0), 0);

/** Share of the tool output's characters that repeat an earlier output exactly. */
const repeatedShare = (s: Session): number => {
  const seen = new Set<string>();
  let repeated = 0;
  for (const m of s.messages)
    for (const r of m.toolResults) {
      if (seen.has(r.text)) repeated += r.text.length;
      seen.add(r.text);
    }
  const total = resultBytes(s);
  return total === 0 ? 0 : repeated / total;
};

/** Give every output a last line of its own: nothing repeats (same size, give or take a line). */
const makeUnique = (s: Session): void => {
  let k = 0;
  for (const m of s.messages) for (const r of m.toolResults) (r as { text: string }).text = `${r.text}\n(output ${k++})`;
};

/**
 * Real sessions of one host, joined end to end until about JOINED_BYTES of their files: a long
 * session of real output, prose and inputs (generated sessions have little prose, and real
 * sessions cost more per megabyte than generated ones). Undefined when the corpus holds less.
 */
const JOINED_BYTES = 20e6;
const joinedCorpus = (host: "claude" | "codex"): { session: Session; text: string; files: number } | undefined => {
  const messages: Message[] = [];
  const texts: string[] = [];
  let bytes = 0;
  let files = 0;
  for (const f of corpusFiles(host, [CORPUS_DIR])) {
    if (bytes >= JOINED_BYTES) break;
    messages.push(...loadSessionFile(f).timeline.messages);
    texts.push(readFileSync(f, "utf8"));
    bytes += statSync(f).size;
    files++;
  }
  if (bytes < JOINED_BYTES * 0.8) return undefined;
  return { session: { host, id: `${host}-joined`, messages }, text: texts.join("\n"), files };
};

const PAGE_BYTES = 4096;

/** The minor page faults while f runs: the fresh memory it touches, which a new process pays for page by page. */
const pagesTouched = (f: () => void): number => {
  const before = process.resourceUsage().minorPageFault;
  f();
  return process.resourceUsage().minorPageFault - before;
};

/** The time to touch `pages` pages of newly allocated memory and do nothing else: what those faults alone cost here. */
const touchMs = (pages: number): number => {
  const t0 = performance.now();
  const bytes = new Uint8Array(pages * PAGE_BYTES);
  for (let i = 0; i < bytes.length; i += PAGE_BYTES) bytes[i] = 1;
  return performance.now() - t0;
};

const parseLines = (text: string): void => {
  for (const line of text.split("\n")) if (line.length > 0) JSON.parse(line);
};

const row = (label: string, s: Session, bytesText: string): string => {
  const json = JSON.stringify(s);
  let copy = JSON.parse(json) as Session;
  const fresh = (): void => {
    copy = JSON.parse(json) as Session;
    // start each cold run from a collected heap, as a fresh process would (not timed)
    Bun.gc(true);
  };
  const cold = timeMs(() => plan(copy), RUNS, fresh);
  const warm = timeMs(() => plan(s));
  // a compaction at 95% of the window, cut to 60% of it: the rules, the need score and the escalation
  const budgetTokens = Math.floor((plan(s).totals.tokensBefore / 0.95) * 0.6);
  const budgeted = timeMs(() => plan(copy, { budgetTokens }), RUNS, fresh);
  fresh();
  const pages = pagesTouched(() => plan(copy, { budgetTokens }));
  const touch = touchMs(pages);
  const reference = timeMs(() => planWith(copy, undefined, "reference"), RUNS, fresh);
  const parse = timeMs(() => parseLines(bytesText));
  const mb = Buffer.byteLength(bytesText) / 1e6;
  const results = s.messages.reduce((a, m) => a + m.toolResults.length, 0);
  return `${label.padEnd(34)} ${mb.toFixed(1).padStart(5)} MB  ${String(results).padStart(5)} results  plan cold ${cold.toFixed(1).padStart(7)} ms  warm ${warm.toFixed(1).padStart(6)} ms  with budget cold ${budgeted.toFixed(1).padStart(7)} ms (${pages} fresh pages; touching as many alone ${touch.toFixed(1)} ms)  reference cold ${reference.toFixed(1).padStart(7)} ms  JSON.parse ${parse.toFixed(1).padStart(6)} ms  (${(mb / (cold / 1000)).toFixed(1)} MB/s cold)`;
};

const main = (): void => {
  const lines: string[] = [];
  process.stderr.write("engine.bench: generating sessions...\n");
  for (const unique of [false, true]) {
    for (const results of [2000, 4000]) {
      const s = generateSession({ seed: 7, host: "claude", results, outputChars: 12_500 });
      if (unique) makeUnique(s);
      const text = s.messages.map((m) => JSON.stringify(m)).join("\n");
      const line = row(`generated ${results} results${unique ? ", unique" : ""}`, s, text);
      lines.push(line);
      process.stdout.write(`${line}\n`);
      process.stdout.write(
        `  (tool output ${(resultBytes(s) / 1e6).toFixed(1)} M chars, ${(100 * repeatedShare(s)).toFixed(0)}% of them in outputs repeating an earlier one)\n`,
      );
    }
  }
  if (!hasCorpus()) {
    process.stdout.write(`${SKIP_NOTE}\n`);
  } else {
    for (const host of ["claude", "codex"] as const) {
      const f = largestCorpusFile(host);
      if (!f) continue;
      const loaded = loadSessionFile(f);
      const text = readFileSync(f, "utf8");
      for (const which of ["live", "timeline"] as const) {
        const line = row(`${host} largest (${which})`, loaded[which], text);
        lines.push(line);
        process.stdout.write(`${line}\n`);
      }
      const joined = joinedCorpus(host);
      if (joined !== undefined) {
        const line = row(`${host} corpus joined (timeline)`, joined.session, joined.text);
        lines.push(line);
        process.stdout.write(`${line}\n  (${joined.files} sessions, ${joined.session.messages.length} messages)\n`);
      }
    }
    // the whole process
    const cmd = existsSync(BIN) ? [BIN] : [process.execPath, join(REPO, "src", "main.ts")];
    const floorScript = `const t=await Bun.file(process.argv[1]).text();for(const l of t.split("\\n"))if(l.length>0)JSON.parse(l);`;
    for (const host of ["claude", "codex"] as const) {
      const f = largestCorpusFile(host);
      if (!f) continue;
      const proc = timeMs(() => {
        const r = Bun.spawnSync([...cmd, "plan", f, "--json"], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
        if (r.exitCode !== 0) throw new Error(`bc plan exited ${r.exitCode}: ${r.stderr.toString().split("\n")[0]}`);
      });
      const floor = timeMs(() => {
        Bun.spawnSync([process.execPath, "-e", floorScript, f], { stdout: "pipe", stderr: "pipe" });
      });
      const line = `process: bc plan --json ${host} largest (${(statSync(f).size / 1e6).toFixed(1)} MB): ${proc.toFixed(0)} ms, read+JSON.parse process ${floor.toFixed(0)} ms (${cmd.length === 1 ? "dist/bc" : "bun src/main.ts"})`;
      lines.push(line);
      process.stdout.write(`${line}\n`);
    }
  }
  for (const l of lines) process.stdout.write(`summary: ${l.trim()}\n`);
};

main();
