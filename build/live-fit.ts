#!/usr/bin/env bun
// How often bc's live Codex compaction would answer instead of Codex's summary: each rollout is
// planned as the PreCompact hook plans it (src/hosts/codex/live/plan.ts) when Codex's last
// recorded request reached the auto-compact limit, and the plans are counted by outcome: under the
// target (60% of the limit), over it but under the ceiling (75%), or handed to Codex, by reason.
// A session stopped mid-command (its last call never got its output) could not have compacted
// there: Codex compacts once every call has its output. It is planned as it stood before that
// call, when the request before it reached the limit, and counted apart.
// Only paginated rollouts can be reverted live; a legacy one is counted apart (convert a copy with
// `CODEX_HOME=<scratch home> codex migrate-rollouts --apply`, never the one you work in).
//
//   bun build/live-fit.ts <rollout files or folders>... [--list]
import { basename } from "node:path";
import { collectFiles } from "../src/eval/corpus.ts";
import { beforeOpenCall, planLive } from "../src/hosts/codex/live/plan.ts";
import { readRollout, recordedUsage } from "../src/hosts/codex/rollout.ts";

const args = process.argv.slice(2);
const list = args.includes("--list");
const paths = args.filter((a) => a !== "--list");
if (paths.length === 0) {
  process.stderr.write("usage: bun build/live-fit.ts <rollout files or folders>... [--list]\n");
  process.exit(2);
}

const { files, skipped } = collectFiles(paths);
for (const s of skipped) process.stderr.write(`live-fit: skipped ${s.reason}\n`);
let legacy = 0;
let noUsage = 0;
let unreadable = 0;
let underTarget = 0;
let underCeiling = 0;
let beforeCall = 0;
const handedOver = new Map<string, number>();
for (const f of files) {
  let rollout: ReturnType<typeof readRollout>;
  try {
    rollout = readRollout(f.path);
  } catch (e) {
    unreadable++;
    process.stderr.write(`live-fit: ${(e as Error).message.split("\n")[0]}\n`);
    continue;
  }
  if (rollout.format !== "paginated") {
    legacy++;
    continue;
  }
  let before: ReturnType<typeof beforeOpenCall>;
  let plan: ReturnType<typeof planLive> | undefined;
  try {
    // stopped mid-command: planned before that call, at the request before it
    before = beforeOpenCall(rollout);
    const at = before ?? rollout;
    const lastInput = recordedUsage(at).lastInput;
    if (lastInput !== undefined) plan = planLive(at, { autoCompactLimit: lastInput });
  } catch (e) {
    // the hook would leave such a compaction to Codex: said, counted with the unreadable, and the run goes on
    unreadable++;
    process.stderr.write(`live-fit: ${f.path}: cannot be planned (${(e as Error).message.split("\n")[0]})\n`);
    continue;
  }
  if (plan === undefined) {
    noUsage++;
    continue;
  }
  if (before !== undefined) beforeCall++;
  if (list) process.stdout.write(`${basename(f.path)}  ${plan.fits ? "fits" : "handed over"}: ${plan.reason}\n`);
  if (plan.fits) {
    if (plan.tokensAfter <= plan.target!) underTarget++;
    else underCeiling++;
    continue;
  }
  // the reason without its figures and places, to count alike ones together
  const kind = plan.reason.replace(/~?\d+(?:\.\d+)?%?/g, "N");
  handedOver.set(kind, (handedOver.get(kind) ?? 0) + 1);
}
const planned = underTarget + underCeiling + [...handedOver.values()].reduce((a, b) => a + b, 0);
const lines = [
  `${planned} paginated rollouts planned at their last request (${legacy} legacy, ${noUsage} with no recorded request, ${unreadable} unreadable, left out)`,
  `  of them ${beforeCall} stopped mid-command, planned at the request before that command`,
  `  bc answers ${underTarget + underCeiling}: ${underTarget} under the target (60% of the limit), ${underCeiling} over it but under the ceiling (75%)`,
  `  handed to Codex's summary ${planned - underTarget - underCeiling}:`,
  ...[...handedOver].sort((a, b) => b[1] - a[1]).map(([kind, n]) => `    ${n}  ${kind}`),
];
process.stdout.write(`${lines.join("\n")}\n`);
