#!/usr/bin/env bun
// The decision table of every session in one or more corpus folders: what each rule decided
// for each result (with and without a token budget), so that a change meant to keep the
// decisions can be checked byte for byte. Corpus files are not ours to commit, so the check in
// the repository compares hashes (decision-hashes.json: the sha256 of each session file's
// content -> the sha256 of its table).
//
//   bun test/engine/support/decision-snapshot.ts <folder>...            print every table
//   bun test/engine/support/decision-snapshot.ts --hashes <folder>...   print the hashes as JSON
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { corpusFiles } from "../../support/shared.ts";
import { plan } from "../../../src/engine/plan.ts";
import type { Plan } from "../../../src/engine/types.ts";
import { loadSessionFile } from "../../../src/hosts/load.ts";

const sha256 = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

const rows = (p: Plan): string[] =>
  p.decisions.map((d) => [`#${d.messageIndex}`, d.callId, d.tool, d.chars, d.action, d.headChars ?? "-", d.rule, d.reason].join("\t"));

/** A session's decision table: every decision and the totals, without and with a budget of half what the rules leave. */
export const decisionTable = (path: string): string => {
  const s = loadSessionFile(path).live;
  const p = plan(s);
  const budgetTokens = Math.floor(p.totals.tokensAfter / 2);
  const q = plan(s, { budgetTokens });
  return [
    "plan",
    ...rows(p),
    JSON.stringify(p.totals),
    `plan with a budget of ${budgetTokens} tokens`,
    ...rows(q),
    JSON.stringify(q.totals),
    JSON.stringify(q.budget),
    "",
  ].join("\n");
};

/** Session files (*.jsonl) under a corpus folder's claude/ and codex/, sorted. */
export const sessionFiles = (root: string): string[] => (["claude", "codex"] as const).flatMap((host) => corpusFiles(host, [root]));

/** sha256 of a session file's bytes -> sha256 of its decision table. */
export const decisionHash = (path: string): { file: string; table: string } => ({
  file: sha256(readFileSync(path)),
  table: sha256(decisionTable(path)),
});

if (import.meta.main) {
  const args = process.argv.slice(2);
  const hashes = args[0] === "--hashes";
  const roots = hashes ? args.slice(1) : args;
  if (roots.length === 0) {
    process.stderr.write("usage: bun test/engine/support/decision-snapshot.ts [--hashes] <corpus folder>...\n");
    process.exit(2);
  }
  const files = roots.flatMap(sessionFiles);
  if (hashes) {
    const out: Record<string, string> = {};
    for (const f of files) {
      const h = decisionHash(f);
      out[h.file] = h.table;
    }
    const sorted = Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
    process.stdout.write(`${JSON.stringify(sorted, null, 2)}\n`);
  } else {
    for (const f of files) process.stdout.write(`=== ${f.split("/").slice(-2).join("/")}\n${decisionTable(f)}`);
  }
}
