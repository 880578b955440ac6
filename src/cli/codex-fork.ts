// `bc codex-fork`: write a fork of a Codex rollout whose history is the pruned verbatim one, then
// (optionally) resume it. Parse flags, call forkRollout, print.
import { defineCommand } from "citty";
import { z } from "zod";
import { JSON_ARG, parseFlags, pathFlag, SESSION_ARG } from "./args.ts";
import { join, relative, resolve as resolvePath, sep } from "node:path";
import { codexTokens } from "../hosts/codex/codex-estimate.ts";
import { enginePruner, type ForkResult, forkRollout } from "../hosts/codex/fork.ts";
import { defaultCodexHome } from "../hosts/codex/home.ts";
import { parseBudget } from "../hosts/codex/window.ts";
import { needWeightsPath } from "../hosts/claude/install.ts";
import { describeWeights, needModelsOption, weightsInUse } from "../hosts/need-weights.ts";
import { resolveSession } from "../hosts/load.ts";
import { BcError } from "../util/errors.ts";
import { tokenCount as k } from "../util/format.ts";
import { log, out } from "../util/log.ts";
import { sessionsGiven, warnSkipped } from "./sessions.ts";
import { shellQuote } from "../engine/shell.ts";

const FLAGS = z.object({
  context: z.enum(["fresh", "keep"], { error: "must be 'fresh' or 'keep'" }).default("fresh"),
  "out-dir": pathFlag().optional(),
  "dry-run": z.boolean().default(false),
  json: z.boolean().default(false),
  resume: z.boolean().default(false),
  budget: z.string().optional(),
});

/** Whether `path` lies under `$CODEX_HOME/sessions`, where `codex resume <id>` looks. */
const underSessions = (codexHome: string, path: string): boolean => {
  const rel = relative(resolvePath(codexHome, "sessions"), resolvePath(path));
  return rel !== "" && !rel.startsWith("..") && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel);
};

/** How to resume the fork: `codex resume <id>`, after moving it where Codex looks when it is elsewhere. */
const resumeCommand = (r: ForkResult, codexHome: string): string => {
  if (underSessions(codexHome, r.path)) return r.resumeCommand;
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const sessions = q(join(codexHome, "sessions"));
  return `mkdir -p ${sessions} && mv ${q(r.path)} ${sessions}/ && ${r.resumeCommand}`;
};

/**
 * The resumed thread would hold more than the model's window (the history and, with `fresh`, the
 * context Codex re-injects): no compaction by bc can make it fit.
 */
const tooBig = (r: ForkResult): boolean => r.contextWindow !== undefined && r.heldTokens > r.contextWindow;

/**
 * The largest item the fork's history keeps, and what it is ("tool output", "user message"), as
 * Codex counts it: the unit the fork's size and budget are told in (a CJK output's UTF-8 bytes are
 * three to a character, not one).
 */
const largestKept = (r: ForkResult): { tokens: number; what: string } => {
  let max = { tokens: 0, what: "item" };
  for (const item of r.replacementHistory) {
    const tokens = codexTokens([item]);
    if (tokens <= max.tokens) continue;
    const type = typeof item.type === "string" ? item.type : "";
    const what = type.endsWith("_output")
      ? "tool output"
      : type === "message"
        ? `${typeof item.role === "string" ? item.role : "unknown"} message`
        : type.endsWith("_call")
          ? "tool call"
          : type || "item";
    max = { tokens, what };
  }
  return max;
};

/**
 * What Codex is told the history holds (the token_count the fork writes) and what the resumed thread
 * holds, as Codex counts both: with `fresh`, the told figure leaves out the context Codex injects
 * on resume, which Codex adds to it. One line within 80 columns.
 */
const heldLine = (r: ForkResult): string =>
  r.context === "fresh"
    ? `Codex:    told ~${k(r.estimatedTokens)} (history); holds ~${k(r.heldTokens)} with the context it re-injects`
    : `Codex:    told and holds ~${k(r.heldTokens)} (history with its context; none re-injected)`;

/** The developer messages the fork keeps because Codex does not inject them again (a hook's context), in one line within 80 columns. */
const keptLine = (r: ForkResult): string | undefined => {
  const n = r.keptDeveloper.length;
  if (n === 0) return undefined;
  const tokens = r.keptDeveloper.reduce((sum, m) => sum + m.tokens, 0);
  return `kept:     ${n} developer message${n === 1 ? "" : "s"} Codex does not inject again, in place (~${k(tokens)})`;
};

/** Up to this many lines are named when bc cannot tell kept developer messages from Codex's own context. */
const LINES_NAMED = 5;

/** What bc cannot tell from Codex's own context, kept in the fork all the same, said on stderr. */
const warnUnknownKept = (r: ForkResult): void => {
  const unknown = r.keptDeveloper.filter((m) => m.author === "unknown");
  if (unknown.length === 0) return;
  const lines = unknown.flatMap((m) => (m.line === undefined ? [] : [m.line]));
  // file:line, as every other warning names where it stands; more lines follow in brackets
  const where = lines.length === 0 ? r.sourcePath : `${r.sourcePath}:${lines[0]}`;
  const more =
    lines.length <= 1 ? "" : ` (also line${lines.length === 2 ? "" : "s"} ${lines.slice(1, LINES_NAMED).join(", ")}${lines.length > LINES_NAMED ? ", …" : ""})`;
  log.warn(
    `${where}: ${unknown.length === 1 ? "a developer message" : `${unknown.length} developer messages`}${more} ${unknown.length === 1 ? "is" : "are"} not Codex's own context as bc knows it ` +
      `(a hook's, most likely): kept in place, as Codex keeps ${unknown.length === 1 ? "it" : "them"} when it resumes the source; ` +
      `should Codex inject ${unknown.length === 1 ? "it" : "one"} again, the resumed thread holds it twice`,
  );
};

/** What the budget line says of the model's window: none known, a budget over it, or the share of it. */
const windowWords = (tokens: number, window: number | undefined, unseen: number | undefined): string => {
  if (window === undefined) return "";
  if (tokens > window) return ` (more than the model's ${k(window)}-token window: Codex compacts before a thread reaches it)`;
  return ` (of a ${k(window)}-token window${unseen === undefined ? "" : `, less ~${k(unseen)} for Codex's instructions and tools`})`;
};

const human = (r: ForkResult, resume: string, weights: string): string => {
  const p = r.pruning;
  const kept = keptLine(r);
  const lines = [
    `${r.dryRun ? "would fork" : "forked"} ${r.sourceId} -> ${r.newId}`,
    `path:     ${r.path}${r.dryRun ? "  (dry run: nothing written)" : ""}`,
    `history:  ${r.historyItems} items, ${r.format} rollout, context ${r.context}`,
    `tokens:   ~${k(p.tokensBefore)} before, ~${k(p.tokensAfter)} after (text)` +
      (r.contextWindow === undefined ? "" : `; the model's window is ${k(r.contextWindow)}`),
    heldLine(r),
    ...(kept === undefined ? [] : [kept]),
    `results:  ${p.results} (${p.resultsKept} kept, ${p.resultsTruncated} truncated, ${p.resultsDropped} dropped)`,
  ];
  const rules = Object.entries(p.byRule).filter(([, t]) => t !== undefined && t.tokensFreed > 0);
  if (rules.length > 0) {
    lines.push(`removed:  ~${k(p.tokensBefore - p.tokensAfter)} tokens, by rule:`);
    for (const [rule, t] of rules.sort((a, b) => b[1]!.tokensFreed - a[1]!.tokensFreed))
      lines.push(`  ${rule.padEnd(18)} ${String(t!.removed).padStart(5)} ${t!.removed === 1 ? "result " : "results"}  ~${k(t!.tokensFreed)} tokens`);
  } else lines.push("removed:  nothing (every result kept)");
  const b = p.budget;
  if (b !== undefined)
    lines.push(
      b.tokens === undefined
        ? `budget:   none (${b.why})`
        : `budget:   ~${k(b.tokens)} tokens${windowWords(b.tokens, b.window, b.unseenTokens)} for what Codex holds: ${b.reached ? "reached" : "NOT reached: Codex may compact the fork soon after resuming"}`,
    );
  // the need weights rank what the escalation cuts: said whenever there is a budget to cut to
  if (b?.tokens !== undefined) lines.push(`weights:  ${weights}`);
  lines.push(`resume:   ${resume}`);
  // named as its source, as Codex names its own forks
  if (r.name !== undefined)
    lines.push(`name:     ${JSON.stringify(r.name)}, as its source: codex resume ${shellQuote(r.name)} ${r.dryRun ? "would resume" : "resumes"} the fork`);
  if (p.resultsDropped + p.resultsTruncated > 0)
    lines.push(
      `recall:   each note names 'bc recall <call id>', which prints the removed output exactly; if Codex asks before running it, allow it, ` +
        `or add prefix_rule(pattern = ["bc", "recall"], decision = "allow") to $CODEX_HOME/rules/default.rules`,
    );
  return lines.join("\n");
};

const asJson = (r: ForkResult, resume: string, weights: string) => ({
  sourcePath: r.sourcePath,
  sourceId: r.sourceId,
  newId: r.newId,
  path: r.path,
  written: !r.dryRun,
  format: r.format,
  context: r.context,
  historyItems: r.historyItems,
  estimatedTokens: r.estimatedTokens,
  heldTokens: r.heldTokens,
  keptDeveloperMessages: r.keptDeveloper,
  contextWindow: r.contextWindow ?? null,
  fitsContextWindow: r.contextWindow === undefined ? null : !tooBig(r),
  partialTail: r.partialTail,
  skippedLines: r.skipped,
  unpairedOutputs: r.unpaired,
  results: {
    total: r.pruning.results,
    kept: r.pruning.resultsKept,
    truncated: r.pruning.resultsTruncated,
    dropped: r.pruning.resultsDropped,
  },
  tokens: { before: r.pruning.tokensBefore, after: r.pruning.tokensAfter },
  byRule: r.pruning.byRule,
  budget: r.pruning.budget ?? null,
  // as the human output: said when the cuts had a budget to be ranked for
  needWeights: r.pruning.budget?.tokens === undefined ? null : weights,
  resumeCommand: resume,
  name: r.name ?? null,
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
    session: {
      ...SESSION_ARG,
      description:
        "A Codex rollout ($CODEX_HOME/sessions/**/rollout-*.jsonl, or .jsonl.zst), or a Codex session id (or its start) or thread name to look up there (or among archived threads)",
    },
    context: {
      type: "enum",
      options: ["fresh", "keep"],
      default: "fresh",
      description:
        "fresh: leave Codex's old developer/environment context out; Codex injects the current one on resume (a hook's developer messages stay, as Codex does not inject them again). " +
        "keep: keep the original context messages and Codex's last world_state/turn_context, so nothing is re-injected (needs Codex 0.145+'s world_state)",
    },
    "out-dir": {
      type: "string",
      valueHint: "dir",
      description: "Write the fork in this folder instead of $CODEX_HOME/sessions/YYYY/MM/DD (codex resume only finds it under $CODEX_HOME/sessions)",
    },
    "dry-run": { type: "boolean", description: "Plan and check the fork, write nothing" },
    json: JSON_ARG,
    resume: { type: "boolean", description: "Run `codex resume <new id>` afterwards (needs a terminal)" },
    budget: {
      type: "string",
      valueHint: "tokens|N%|none",
      description:
        "Cut the history until what the resumed thread holds, with the context Codex re-injects, is within this many tokens, " +
        "or N% of the model's window as the rollout reports it (default 60%): least needed results first",
    },
  },
  async run({ args }) {
    const names = sessionsGiven(args);
    if (names.length > 1) throw new BcError("usage", `codex-fork takes one session, got ${names.length}`, "fork them one at a time: bc codex-fork <session>");
    const flags = parseFlags(FLAGS, args, "bc codex-fork");
    if (flags.resume && flags["dry-run"])
      throw new BcError("usage", "--resume and --dry-run cannot be used together", "run 'bc codex-fork --help' to see its options");
    const codexHome = defaultCodexHome();
    // everything --resume needs is checked before anything is written
    if (flags.resume && !(process.stdin.isTTY && process.stdout.isTTY))
      throw new BcError(
        "usage",
        "--resume needs a terminal: codex resume is interactive",
        "fork without --resume, then run the printed 'codex resume <id>' in a terminal",
      );
    if (flags.resume && flags["out-dir"] !== undefined && !underSessions(codexHome, join(flags["out-dir"], "x")))
      throw new BcError(
        "usage",
        `--resume cannot find a fork in ${flags["out-dir"]}: codex resume looks under ${join(codexHome, "sessions")}`,
        "drop --out-dir, or resume it yourself after moving it there",
      );
    const budget = parseBudget(flags.budget);
    const weights = weightsInUse(needWeightsPath());
    if (weights.problem !== undefined) log.warn(`need weights ${weights.problem}; using the shipped ones`);
    const source = resolveSession(names[0]!, {}, "codex");
    const pruner = enginePruner(needModelsOption(weights), budget);
    const result = forkRollout(source, {
      context: flags.context,
      // a share of the window asked for, of a rollout that records none: refused before anything
      // is written, as `bc plan --budget` refuses it (by default, the fork says it has no budget)
      pruner: (...args) => {
        const pruning = pruner(...args);
        if (flags.budget !== undefined && budget !== "none" && "percent" in budget && pruning.budget?.tokens === undefined)
          throw new BcError("usage", `${source}: ${pruning.budget?.why ?? "no budget"}`, "give --budget in tokens, or leave it out to fork with none");
        return pruning;
      },
      codexHome,
      outDir: flags["out-dir"],
      dryRun: flags["dry-run"],
    });
    warnSkipped([...result.skipped, ...result.unpaired]);
    warnUnknownKept(result);
    if (result.nameProblem !== undefined) log.warn(`the fork could not take its source's name (${result.nameProblem}); resume it by its id`);
    const resume = resumeCommand(result, codexHome);
    const said = describeWeights(weights);
    out(flags.json ? JSON.stringify(asJson(result, resume, said), null, 2) : human(result, resume, said));
    if (!underSessions(codexHome, result.path))
      log.warn(
        flags["dry-run"]
          ? `the fork would be outside ${join(codexHome, "sessions")}, where codex resume looks; once written, to resume it: ${resume}`
          : `the fork is outside ${join(codexHome, "sessions")}, where codex resume looks; to resume it: ${resume}`,
      );
    if (tooBig(result)) {
      const largest = largestKept(result);
      log.warn(
        `the resumed fork would hold ~${k(result.heldTokens)} tokens${result.context === "fresh" ? " with the context Codex re-injects" : ""}, ` +
          `more than the model's ${k(result.contextWindow!)} context window: ` +
          `Codex cannot continue it (its largest ${largest.what} alone is ~${k(largest.tokens)} tokens); start a new session instead`,
      );
      if (flags.resume) return 1;
    }
    if (!flags.resume) return 0;
    let child;
    try {
      child = Bun.spawn(["codex", "resume", result.newId], { stdin: "inherit", stdout: "inherit", stderr: "inherit" });
    } catch (e) {
      throw new BcError("external", `cannot run codex (${(e as Error).message})`, `the fork is written; run: ${resume}`);
    }
    return await child.exited;
  },
});
