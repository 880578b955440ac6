// `bc codex-fork`: write a fork of a Codex rollout whose history is the pruned verbatim one, then
// (optionally) resume it. Parse flags, call forkRollout, print.
import { defineCommand } from "citty";
import { SESSION_ARG } from "./args.ts";
import { join, relative, resolve as resolvePath, sep } from "node:path";
import { type ContextMode, enginePruner, type ForkResult, forkRollout } from "../hosts/codex/fork.ts";
import { defaultCodexHome } from "../hosts/codex/home.ts";
import { resolveSession } from "../hosts/load.ts";
import { BcError } from "../util/errors.ts";
import { log, out } from "../util/log.ts";

const k = (tokens: number): string => (tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens));

const human = (r: ForkResult): string => {
  const p = r.pruning;
  const lines = [
    `${r.dryRun ? "would fork" : "forked"} ${r.sourceId} -> ${r.newId}`,
    `path:     ${r.path}${r.dryRun ? "  (dry run: nothing written)" : ""}`,
    `history:  ${r.historyItems} items, ${r.format} rollout, context ${r.context}; ~${k(p.tokensBefore)} -> ~${k(p.tokensAfter)} tokens (estimate written: ${k(r.estimatedTokens)})`,
    `results:  ${p.results} (${p.resultsKept} kept, ${p.resultsTruncated} truncated, ${p.resultsDropped} dropped)`,
  ];
  const rules = Object.entries(p.byRule).filter(([, t]) => t !== undefined && t.tokensFreed > 0);
  if (rules.length > 0) {
    lines.push(`removed:  ~${k(p.tokensBefore - p.tokensAfter)} tokens, by rule:`);
    for (const [rule, t] of rules.sort((a, b) => b[1]!.tokensFreed - a[1]!.tokensFreed))
      lines.push(`  ${rule.padEnd(18)} ${String(t!.removed).padStart(5)} results  ~${k(t!.tokensFreed)} tokens`);
  } else lines.push("removed:  nothing (every result kept)");
  lines.push(`resume:   ${r.resumeCommand}`);
  if (p.resultsDropped + p.resultsTruncated > 0)
    lines.push(
      `recall:   each note names 'bc recall <call id>', which prints the removed output exactly; if Codex asks before running it, allow it, ` +
        `or add prefix_rule(pattern = ["bc", "recall"], decision = "allow") to $CODEX_HOME/rules/default.rules`,
    );
  return lines.join("\n");
};

const asJson = (r: ForkResult) => ({
  sourcePath: r.sourcePath,
  sourceId: r.sourceId,
  newId: r.newId,
  path: r.path,
  written: !r.dryRun,
  format: r.format,
  context: r.context,
  historyItems: r.historyItems,
  estimatedTokens: r.estimatedTokens,
  partialTail: r.partialTail,
  results: {
    total: r.pruning.results,
    kept: r.pruning.resultsKept,
    truncated: r.pruning.resultsTruncated,
    dropped: r.pruning.resultsDropped,
  },
  tokens: { before: r.pruning.tokensBefore, after: r.pruning.tokensAfter },
  byRule: r.pruning.byRule,
  resumeCommand: r.resumeCommand,
});

export default defineCommand({
  meta: {
    name: "codex-fork",
    description:
      "Fork a Codex session into a new one whose history is the pruned, verbatim one (no summary): " +
      "the source rollout is copied under a new id with a `compacted` record holding the pruned history, " +
      "checked strictly, then made visible; resume it with `codex resume <new id>`. The source is never modified.",
  },
  args: {
    session: { ...SESSION_ARG, description: "A Codex rollout ($CODEX_HOME/sessions/**/rollout-*.jsonl) or a Codex session id to look up there" },
    context: {
      type: "string",
      default: "fresh",
      valueHint: "fresh|keep",
      description:
        "fresh (default): leave the old developer/environment context out; Codex injects the current one on resume. " +
        "keep: keep the original context messages and Codex's last world_state/turn_context, so nothing is re-injected",
    },
    outDir: { type: "string", description: "write the fork in this folder instead of $CODEX_HOME/sessions/YYYY/MM/DD" },
    dryRun: { type: "boolean", default: false, description: "plan and check the fork, write nothing" },
    json: { type: "boolean", default: false, description: "print the result as JSON on stdout" },
    resume: { type: "boolean", default: false, description: "run `codex resume <new id>` afterwards (interactive)" },
  },
  async run({ args }) {
    const context = args.context as string;
    if (context !== "fresh" && context !== "keep")
      throw new BcError("usage", `--context must be 'fresh' or 'keep', not '${context}'`, "run 'bc codex-fork --help'");
    if (args.resume && args.dryRun) throw new BcError("usage", "--resume and --dry-run cannot be used together");
    const codexHome = defaultCodexHome();
    const source = resolveSession(args.session as string);
    const result = forkRollout(source, {
      context: context as ContextMode,
      pruner: enginePruner(),
      codexHome,
      outDir: args.outDir as string | undefined,
      dryRun: args.dryRun as boolean,
    });
    if (result.partialTail) log.warn(`${source}: the last line is incomplete (the session is still being written); forked up to the last complete line`);
    out(args.json ? JSON.stringify(asJson(result), null, 2) : human(result));
    if (!args.resume) return 0;
    const rel = relative(join(codexHome, "sessions"), resolvePath(result.path));
    if (rel.startsWith("..") || rel.startsWith(sep))
      log.warn(`the fork is outside ${join(codexHome, "sessions")}; codex may not find session ${result.newId}`);
    let child;
    try {
      child = Bun.spawn(["codex", "resume", result.newId], { stdin: "inherit", stdout: "inherit", stderr: "inherit" });
    } catch (e) {
      throw new BcError("external", `cannot run codex (${(e as Error).message})`, `the fork is written; run: ${result.resumeCommand}`);
    }
    return await child.exited;
  },
});
