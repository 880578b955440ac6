#!/usr/bin/env bun
// Of the results a `bc eval` report counts bc lost, how many the frozen yardstick counts lost only
// because it reads call inputs as written: JSON text, where a name after a line break or a tab in a
// Write's content reads "\n\tname", and v1.ts takes "tname" for the token. For each such loss, every
// token the yardstick found nowhere in what was left is looked for, with the same extractor, in the
// unescaped strings of the calls before the cut: where all of them stand there, the session still
// showed them. The yardstick stays as it is (a new one would be v2.ts); this says how much of a
// figure is that reading.
//
//   bun build/escaped-losses.ts <report.json> <the files or folders bc eval was given>...
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { inputStrings } from "../src/engine/call-meaning.ts";
import type { Session } from "../src/engine/types.ts";
import { extractTokens } from "../src/eval/yardstick/v1.ts";
import { loadSessionFile } from "../src/hosts/load.ts";

interface Lost {
  readonly mode: string;
  readonly share: number;
  readonly invisible: readonly string[];
}

/** Tokens of the unescaped strings of every call input before message `at`. */
export const inputTokensBefore = (timeline: Session, at: number): Set<string> => {
  const out = new Set<string>();
  for (const m of timeline.messages.slice(0, at)) for (const c of m.toolCalls) for (const t of extractTokens(inputStrings(c.input, c.inputText))) out.add(t);
  return out;
};

if (import.meta.main) {
  const [reportPath, ...given] = process.argv.slice(2);
  if (reportPath === undefined || given.length === 0) {
    process.stderr.write("usage: bun build/escaped-losses.ts <report.json> <the files or folders bc eval was given>...\n");
    process.exit(2);
  }
  const fail = (why: string): never => {
    process.stderr.write(`escaped-losses: ${why}\n`);
    process.exit(1);
  };
  let report: { sessions?: unknown };
  try {
    report = JSON.parse(readFileSync(reportPath, "utf8"));
  } catch (e) {
    fail(`${reportPath}: cannot be read as a report (${(e as Error).message}); expected the report.json bc eval --out writes`);
  }
  if (!Array.isArray(report!.sessions)) fail(`${reportPath}: no sessions; expected the report.json bc eval --out writes`);
  // a session's file is named in the report by the path given's last part and what lies under it
  const roots = new Map(given.map((g) => [basename(g.replace(/\/+$/, "")), dirname(g.replace(/\/+$/, ""))]));
  const tally = new Map<string, { lost: number; escaped: number }>();
  for (const s of report!.sessions as { host: string; file: string; rulesMisses: (Lost & { lost: boolean })[]; cuts: { share: number; at: number }[] }[]) {
    const lost = s.rulesMisses.filter((m) => m.lost);
    if (lost.length === 0) continue;
    const root = roots.get(String(s.file).split("/")[0]!);
    if (root === undefined) fail(`${s.file}: under none of the paths given; give the files or folders bc eval was given`);
    let timeline: Session;
    try {
      timeline = loadSessionFile(join(root!, s.file)).timeline;
    } catch (e) {
      fail((e as Error).message);
    }
    const at = new Map<number, number>(s.cuts.map((c) => [c.share, c.at]));
    const inView = new Map<number, Set<string>>();
    for (const m of lost) {
      const seen = inView.get(m.share) ?? inputTokensBefore(timeline!, at.get(m.share)!);
      inView.set(m.share, seen);
      const key = `${s.host} ${m.mode}`;
      const t = tally.get(key) ?? { lost: 0, escaped: 0 };
      t.lost++;
      if (m.invisible.every((x) => seen.has(x))) t.escaped++;
      tally.set(key, t);
    }
  }
  for (const [key, t] of [...tally].sort())
    process.stdout.write(`${key}: ${t.lost} lost, ${t.escaped} of them with every token in a call input before the cut, unescaped\n`);
}
