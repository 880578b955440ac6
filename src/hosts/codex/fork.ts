// The Codex fork writer: copy a rollout under a new thread id
// and append a `compacted` record whose `replacement_history` is the pruned, verbatim history, so
// `codex resume <new id>` continues from it with nothing summarized.
//
// Codex silently skips a record it cannot parse and then resumes the FULL history, so nothing here
// falls back quietly: the text is checked strictly (re-read from the temp file) before it becomes visible.
import { mkdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { estimateSessionTokens, estimateTextTokens } from "../../engine/estimate.ts";
import { apply } from "../../engine/apply.ts";
import { plan } from "../../engine/plan.ts";
import { type BudgetSpec, type ForkBudget, budgetFor } from "./window.ts";
import { codexTokens } from "./codex-estimate.ts";
import type { Options, Plan, PlanTotals, RuleId, RuleTotals, Session } from "../../engine/types.ts";
import { defaultCodexHome } from "./home.ts";
import { homeOfRollout } from "./rollout-files.ts";
import { appendThreadName, sessionIndexPath, threadName } from "./thread-names.ts";
import { BcError } from "../../util/errors.ts";
import { lineSpans, writeAtomically } from "../../util/jsonl.ts";
import { type HistoryItem, rebuildHistory } from "./history.ts";
import {
  contentText,
  developerAuthorOf,
  isInjectedContext,
  isOutputItem,
  isSentToModel,
  type MessageItem,
  outputText,
  replaceOutputText,
  type ResponseItem,
  sentForm,
} from "./items.ts";
import { historyToMessages } from "./session-map.ts";
import { unpairedResults, unpairedText } from "../pairing.ts";
import { checkFork } from "./fork-check.ts";
import { canonicalFileName, sessionsDayDir, uuidV7 } from "./fork-names.ts";
import { isObject } from "../../util/json.ts";
import {
  countedHistory,
  lastOrdinal,
  lastTokenCount,
  lastTurnContext,
  lastWorldState,
  modelWindowOf,
  readRollout,
  recordedWindow,
  type Rollout,
  type RolloutFormat,
  threadId,
} from "./rollout.ts";

export type ContextMode = "fresh" | "keep";

type Json = Record<string, any>;

/** What the planner decided, reduced to what the fork needs and prints. */
export interface Pruning extends Omit<PlanTotals, "toolTokensBefore" | "toolTokensAfter"> {
  /** new output text, by index into the rebuilt history; absent: the item is kept as it is */
  readonly outputs: ReadonlyMap<number, string>;
  /**
   * the budget the history was cut to, whether it was reached, and what the resumed thread holds
   * as Codex counts it (heldTokens: the fork's history and the context Codex injects on resume)
   * (absent: no budget)
   */
  readonly budget?: ForkBudget & {
    readonly reached?: boolean;
    readonly codexTokens?: number;
    /** the budget of the engine's own estimate (of the history's text) the plan was cut to */
    readonly engineTokens?: number;
  };
}

/**
 * Decide new output texts for a rebuilt history (the engine, or a test's own rule), for a fork
 * written with `context`; `reinjected`: the context Codex injects when it resumes that fork
 * (reinjectedContext), where the caller has it.
 */
export type Pruner = (history: readonly HistoryItem[], rollout: Rollout, context: ContextMode, reinjected?: readonly ResponseItem[]) => Pruning;

export interface ForkOptions {
  readonly context: ContextMode;
  readonly pruner: Pruner;
  /** $CODEX_HOME (default: env CODEX_HOME, else ~/.codex) */
  readonly codexHome?: string;
  /** write the fork here instead of $CODEX_HOME/sessions/YYYY/MM/DD */
  readonly outDir?: string;
  readonly dryRun?: boolean;
  /** the clock, injected (tests) */
  readonly now?: Date;
  /** the new thread id, injected (tests); default a fresh UUID v7 */
  readonly newId?: string;
  /** test seam: runs on the temp file before it is checked (e.g. to corrupt it) */
  readonly beforeCheck?: (tmpPath: string) => void;
}

/** A developer message a `fresh` fork keeps in its place in the history: Codex does not inject it again. */
export interface KeptDeveloperMessage {
  /** the source's line it stands on (a compacted record's, for its replacement history); absent: in a native fork's parent */
  readonly line?: number;
  /**
   * hook: its metadata says a hook added it; unknown: bc cannot tell it from Codex's own context
   * (kept all the same: should Codex inject it again, the resumed thread holds it twice, where
   * leaving it out could lose it)
   */
  readonly author: "hook" | "unknown";
  /** as Codex counts it */
  readonly tokens: number;
  /** the first line of its text, cut to OPENING_CHARS */
  readonly opening: string;
}

const OPENING_CHARS = 60;

export interface ForkResult {
  readonly sourcePath: string;
  readonly sourceId: string;
  readonly newId: string;
  /** where the fork is (or, in a dry run, would be) written */
  readonly path: string;
  readonly format: RolloutFormat;
  readonly context: ContextMode;
  readonly dryRun: boolean;
  /** items in the new replacement_history */
  readonly historyItems: number;
  /** with `fresh`, the developer messages kept in the history, which Codex does not inject again (a hook's context) */
  readonly keptDeveloper: readonly KeptDeveloperMessage[];
  /** the estimate written into the fresh token_count: the fork's history alone, as Codex counts it */
  readonly estimatedTokens: number;
  /**
   * what the resumed thread holds before its first prompt, as Codex counts it: the fork's history
   * and, with `fresh`, the context Codex injects anew (heldTokens); Codex's instructions and tools
   * are not in it
   */
  readonly heldTokens: number;
  readonly pruning: Pruning;
  /** the fork's bytes (what was, or would be, written): the source's lines as they are, then bc's records */
  readonly bytes: Uint8Array;
  /** the pruned history as written in the compacted record */
  readonly replacementHistory: readonly Json[];
  /** the source's last line was incomplete (still being written) and was left out */
  readonly partialTail: boolean;
  /** `file:line: what was wrong` for each source line Codex will skip (copied as it is, not in the history) or left out */
  readonly skipped: readonly string[];
  /** `file:line: ...` for each output of the history forked with no call before it: the source holds it so, and the fork carries it as it is */
  readonly unpaired: readonly string[];
  /** the model's context window the source last recorded, if any */
  readonly contextWindow?: number;
  readonly resumeCommand: string;
  /**
   * The source thread's name, which the fork takes as Codex's own forks do (a row in
   * session_index.jsonl), when it is written under $CODEX_HOME/sessions: `codex resume <name>`
   * then resumes the fork. Undefined: the source has none, or the fork is written elsewhere.
   */
  readonly name?: string;
  /** why the fork could not be named (it is written all the same) */
  readonly nameProblem?: string;
}

// ---------------------------------------------------------------- building

/**
 * The source's lines bc copies: every line but an incomplete last one. A line Codex cannot read is
 * copied as it is; Codex skips it on resume, and so does the fork's history.
 */
const usableLines = (src: Rollout): Rollout["lines"] => {
  const lines = src.partial ? src.lines.slice(0, -1) : src.lines;
  const first = lines.find((l) => l.kind !== "blank");
  if (first?.kind !== "session_meta") throw new BcError("bad-input", `${src.path}:1: not a resumable Codex rollout: the first record is not session_meta`);
  if (src.format === "paginated") {
    const last = lines.findLast((l) => l.kind !== "blank")!;
    if (!("ordinal" in last) || typeof last.ordinal !== "number")
      throw new BcError(
        "bad-input",
        `${src.path}:${last.lineNo}: paginated rollout whose last record has no ordinal`,
        "Codex itself refuses to resume this file",
      );
  }
  return lines;
};

const ZERO_USAGE = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: 0 };

/** A fresh token_count payload: the source's last one, with the current context size set to the pruned estimate. */
const freshTokenCount = (src: Rollout, estimate: number): Json => {
  const last = lastTokenCount(src);
  const payload: Json =
    last && isObject(last.payload.info)
      ? structuredClone(last.payload)
      : {
          type: "token_count",
          info: { total_token_usage: { ...ZERO_USAGE }, last_token_usage: { ...ZERO_USAGE }, model_context_window: null },
          rate_limits: null,
        };
  const info = payload.info as Json;
  const usage: Json = isObject(info.last_token_usage) ? info.last_token_usage : { ...ZERO_USAGE };
  for (const key of Object.keys(usage)) if (typeof usage[key] === "number") usage[key] = 0;
  usage.input_tokens = estimate;
  usage.total_tokens = estimate;
  info.last_token_usage = usage;
  if (!isObject(info.total_token_usage)) info.total_token_usage = { ...ZERO_USAGE };
  return payload;
};

export interface Built {
  readonly bytes: Uint8Array;
  /** expected bytes of every copied line (session_meta lines with the new id) */
  readonly copied: readonly Uint8Array[];
  /** which copied lines bc rewrote (a session_meta with the new id) */
  readonly rewritten: ReadonlySet<number>;
  readonly appended: readonly Json[];
  readonly replacement: readonly Json[];
  /** JSON.stringify(replacement), as it stands in the compacted line */
  readonly replacementJson: string;
  readonly estimate: number;
}

/**
 * The session_meta line with `id` and `session_id` set to the new id where they hold the old one,
 * or undefined when the line is copied as it is. (A subagent's thread keeps its `session_id`: the
 * session of the thread that spawned it, not its own id.)
 */
const withNewId = (line: Rollout["lines"][number], oldId: string, newId: string): string | undefined => {
  if (line.kind !== "session_meta") return undefined;
  const p = line.payload;
  if (p.id !== oldId && p.session_id !== oldId) return undefined;
  const v = structuredClone(line.value) as Json;
  if (v.payload.id === oldId) v.payload.id = newId;
  if (v.payload.session_id === oldId) v.payload.session_id = newId;
  return JSON.stringify(v) + (line.raw.endsWith("\r") ? "\r" : "");
};

const utf8 = new TextEncoder();
const NEWLINE = Uint8Array.of(10);

/** The bytes of every source line, as stored (from the file's bytes when it was read from a file). */
const sourceLineBytes = (src: Rollout): ((i: number) => Uint8Array) => {
  if (src.source === undefined) return (i) => utf8.encode(src.lines[i]!.raw);
  const bytes = src.source;
  const { starts, ends } = lineSpans(bytes);
  return (i) => bytes.subarray(starts[i]!, ends[i]!);
};

const concatBytes = (parts: readonly Uint8Array[]): Uint8Array => {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** The planned history: context left out for `fresh`, outputs replaced, in the form Codex sends. */
export const plannedHistory = (history: readonly HistoryItem[], pruning: Pick<Pruning, "outputs">, context: ContextMode): Json[] => {
  const out: Json[] = [];
  history.forEach((h, i) => {
    if (context === "fresh" && isInjectedContext(h.item)) return;
    const item = sentForm(h.item);
    const text = pruning.outputs.get(i);
    if (text === undefined) out.push(item);
    else if (isOutputItem(item)) out.push(replaceOutputText(item, text));
    else throw new Error(`the plan changes history item ${i}, a ${item.type}, which is not a tool output`);
  });
  return out;
};

/** The developer messages a fork written with `fresh` keeps in its history (every one but Codex's own context). */
export const keptDeveloperMessages = (history: readonly HistoryItem[], rollout: Rollout): KeptDeveloperMessage[] =>
  history.flatMap(({ item, origin }) => {
    const author = developerAuthorOf(item);
    if (author === undefined || author === "codex") return [];
    const m = item as MessageItem;
    const line = origin.line < 0 ? undefined : rollout.lines[origin.line]?.lineNo;
    return [
      {
        ...(line === undefined ? {} : { line }),
        author,
        tokens: codexTokens([sentForm(m)]),
        opening: contentText(m.content).trimStart().split("\n")[0]!.slice(0, OPENING_CHARS),
      },
    ];
  });

/** An item Codex sends, and the rollout line it was written on (a compacted record's, for its replacement history). */
interface Placed {
  readonly item: ResponseItem;
  readonly line: number;
}

/** The first run of injected context among these items that Codex wrote at once: in one compacted record, or on consecutive lines. */
const firstContextRun = (placed: Iterable<Placed>): ResponseItem[] => {
  const run: ResponseItem[] = [];
  let last = 0;
  for (const { item, line } of placed) {
    const context = isInjectedContext(item);
    if (run.length > 0 && (!context || (line !== last && line !== last + 1))) break;
    if (!context) continue;
    run.push(sentForm(item));
    last = line;
  }
  return run;
};

/** Every item the rollout's lines put in a history, in file order (a native fork's inherited lines first). */
function* everyItem(rollout: Rollout): Generator<Placed> {
  for (const l of rollout.inherited === undefined ? rollout.lines : [...rollout.inherited.lines, ...rollout.lines]) {
    if (l.kind === "response_item" && isSentToModel(l.payload)) yield { item: l.payload, line: l.index };
    if (l.kind === "compacted" && Array.isArray(l.payload.replacement_history))
      for (const item of l.payload.replacement_history) if (isSentToModel(item)) yield { item, line: l.index };
  }
}

/**
 * The context Codex injects when it resumes a fork written with `context`, as the rollout shows it:
 * with `keep`, none (the history keeps its own); with `fresh`, Codex's initial context (its
 * developer message, and the user message with AGENTS.md and the environment), which it writes at
 * once at the thread's start and after a compaction. That is the first run of injected context in
 * the history; the later ones (an environment or a permissions change, a skills update) are not
 * injected again. A hook's developer message is no part of it: the fork keeps it in the history. A
 * history holding none (a fork Codex has not resumed yet) takes the first run in the rollout's lines.
 */
export const reinjectedContext = (history: readonly HistoryItem[], rollout: Rollout, context: ContextMode): ResponseItem[] => {
  if (context === "keep") return [];
  const inHistory = firstContextRun(history.map((h) => ({ item: h.item, line: h.origin.line })));
  return inHistory.length > 0 ? inHistory : firstContextRun(everyItem(rollout));
};

/**
 * What the resumed thread holds before its first prompt, as Codex counts it: the fork's history as
 * Codex is told it (`told`: its token_count, for `fresh` without the context the source holds) and
 * the context Codex injects after it (`reinjected`: reinjectedContext).
 */
export const heldTokens = (told: number, reinjected: readonly ResponseItem[]): number => told + codexTokens(reinjected);

/** A record as one JSON line, with the (large) replacement history spliced in as already-serialized text. */
const recordLine = (record: Json, replacementJson: string): string => {
  if (record.type !== "compacted") return JSON.stringify(record);
  const [head, tail, ...rest] = JSON.stringify({ ...record, payload: { ...record.payload, replacement_history: 0 } }).split('"replacement_history":0');
  if (tail === undefined || rest.length > 0) return JSON.stringify(record);
  return `${head}"replacement_history":${replacementJson}${tail}`;
};

const buildFork = (src: Rollout, lines: Rollout["lines"], replacement: Json[], context: ContextMode, newId: string, now: Date): Built => {
  // serialized once: the line and the check use this text
  const replacementJson = JSON.stringify(replacement);
  // as Codex estimates a history it has not sent yet (by its UTF-8 bytes, reasoning as the text it
  // decodes to): what Codex takes for the history's size until its first request
  const estimate = codexTokens(replacement);
  const ts = now.toISOString();
  const records: { type: string; payload: Json }[] = [{ type: "compacted", payload: { message: "", replacement_history: replacement } }];
  if (context === "keep") {
    const world = lastWorldState(src);
    const turn = lastTurnContext(src);
    if (world) records.push({ type: "world_state", payload: world.payload });
    if (turn) records.push({ type: "turn_context", payload: turn.payload });
  }
  records.push({ type: "event_msg", payload: freshTokenCount(src, estimate) });
  let ordinal = src.format === "paginated" ? lastOrdinal(src) : undefined;
  const appended = records.map(({ type, payload }) =>
    ordinal === undefined ? { timestamp: ts, type, payload } : { timestamp: ts, ordinal: ++ordinal, type, payload },
  );
  const id = threadId(src);
  const lineBytes = sourceLineBytes(src);
  const rewritten = new Set<number>();
  const copied = lines.map((l, i) => {
    const line = withNewId(l, id, newId);
    if (line === undefined) return lineBytes(i);
    rewritten.add(i);
    return utf8.encode(line);
  });
  const parts: Uint8Array[] = [];
  for (const c of copied) parts.push(c, NEWLINE);
  parts.push(utf8.encode(`${appended.map((a) => recordLine(a, replacementJson)).join("\n")}\n`));
  return { bytes: concatBytes(parts), copied, rewritten, appended, replacement, replacementJson, estimate };
};

// ---------------------------------------------------------------- the command's core

/** Fork a rollout. Never modifies the source; never overwrites; writes nothing when `dryRun`. */
export const forkRollout = (sourcePath: string, options: ForkOptions): ForkResult => {
  const now = options.now ?? new Date();
  // what Codex will resume: a line of records with no newline between them is skipped, as Codex skips it
  const src = readRollout(sourcePath, { runTogether: "skip" });
  // the fork's history replaces all Codex would read, the parent's part of a native fork too
  if (src.inherited?.missing !== undefined)
    throw new BcError(
      "bad-input",
      `${sourcePath}: a thread Codex forked (codex fork), whose history before the fork cannot be read: ${src.inherited.missing}`,
      "a fork of it would lose that history; put the parent's rollout back under $CODEX_HOME/sessions (or archived_sessions)",
    );
  const lines = usableLines(src);
  const rebuilt = rebuildHistory(src);
  const unknownItem = rebuilt.notRebuilt[0];
  if (unknownItem !== undefined) {
    const l = unknownItem < 0 ? undefined : src.lines[unknownItem];
    throw new BcError(
      "bad-input",
      `${l === undefined ? sourcePath : `${sourcePath}:${l.lineNo}`}: a record Codex puts in the model's history that bc cannot carry into a fork (${l?.kind === "unknown" ? l.type : "inter_agent_communication"}: an agent's message to another)`,
      "a fork would lose it; resume the thread itself (codex resume), where Codex's own compaction keeps it",
    );
  }
  // the context kept stays the only copy only when a world_state (Codex 0.145 and later) follows
  // the compaction: with a turn_context alone, Codex injects its context again beside it
  if (options.context === "keep" && lastWorldState(src) === undefined)
    throw new BcError(
      "usage",
      `${sourcePath}: --context keep needs a world_state record, which Codex writes from 0.145 on; this rollout has none, so the resumed thread would get its context twice`,
      "leave --context out (fresh: Codex injects its context once, anew)",
    );
  const history = rebuilt.items;
  // found once: the pruner fits its budget with it, and the result counts it
  const reinjected = reinjectedContext(history, src, options.context);
  const pruning = options.pruner(history, src, options.context, reinjected);
  const replacement = plannedHistory(history, pruning, options.context);
  const newId = options.newId ?? uuidV7(now.getTime());
  const dir = options.outDir ?? sessionsDayDir(options.codexHome ?? defaultCodexHome(), now);
  const path = join(dir, canonicalFileName(now, newId));
  const built = buildFork(src, lines, replacement, options.context, newId, now);
  const check = (bytes: Uint8Array): void => checkFork(bytes, basename(path), { src, built, newId, context: options.context });
  const window = modelWindowOf(src);
  const codexHome = options.codexHome ?? defaultCodexHome();
  const sourceId = threadId(src);
  // the fork takes its source's name where codex resume <name> can find it: under this home's
  // sessions. The name is this home's for the thread, else that of the home the source lives in.
  const sourceHome = homeOfRollout(sourcePath);
  const name =
    options.outDir === undefined ? (threadName(codexHome, sourceId) ?? (sourceHome === undefined ? undefined : threadName(sourceHome, sourceId))) : undefined;
  let nameProblem: string | undefined;
  if (options.dryRun) check(built.bytes);
  else {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (e) {
      throw new BcError(
        "bad-input",
        `${dirname(path)}: cannot be used as the fork's folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        "pass --out-dir a folder (it is created if missing), or set CODEX_HOME",
      );
    }
    writeAtomically(path, built.bytes, (tmp) => {
      options.beforeCheck?.(tmp);
      check(readFileSync(tmp));
    });
    if (name !== undefined)
      try {
        appendThreadName(codexHome, newId, name, now);
      } catch (e) {
        nameProblem = `${sessionIndexPath(codexHome)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
      }
  }
  return {
    sourcePath,
    sourceId,
    newId,
    path,
    format: src.format,
    context: options.context,
    dryRun: options.dryRun ?? false,
    historyItems: replacement.length,
    keptDeveloper: options.context === "fresh" ? keptDeveloperMessages(history, src) : [],
    estimatedTokens: built.estimate,
    heldTokens: heldTokens(built.estimate, reinjected),
    pruning,
    bytes: built.bytes,
    replacementHistory: replacement,
    partialTail: src.partial,
    skipped: src.lines.flatMap((l) =>
      l.kind !== "malformed"
        ? []
        : [`${sourcePath}:${l.lineNo}: ${l.error}${l.partial ? "; left out of the fork" : "; skipped, as Codex skips it on resume (copied as it is)"}`],
    ),
    unpaired: unpairedResults(historyToMessages(history)).map((u) => {
      const line = src.lines[history[u.index]!.origin.line]?.lineNo;
      return `${sourcePath}${line === undefined ? "" : `:${line}`}: ${unpairedText(u, "output")}; carried into the fork as it is`;
    }),
    ...(window === undefined ? {} : { contextWindow: window }),
    resumeCommand: `codex resume ${newId}`,
    ...(name === undefined || nameProblem !== undefined ? {} : { name }),
    ...(nameProblem === undefined ? {} : { nameProblem }),
  };
};

/** How many times a fork's plan is tightened when what the resumed thread holds, as Codex counts it, is still over the budget. */
const FIT_TRIES = 4;

/** The engine's pruning of a history for a fork, and the plan it comes from. */
export interface EngineFork {
  readonly pruning: Pruning;
  /** the last plan made (with a budget, to `pruning.budget.engineTokens`), whose decisions the pruning writes */
  readonly plan: Plan;
}

/**
 * The rules engine's plan of a rollout's history for a fork written with `context`: the history
 * maps one item to one message (session-map.ts), so a decision's messageIndex is the history index,
 * and the applied result text is the new output. With a budget, what the resumed thread holds must
 * fit it as Codex counts it (heldTokens: the fork's history and the context Codex injects on
 * resume, codex-estimate.ts), not as the engine counts the history's text: what only Codex counts
 * (each item's JSON, reasoning) comes off the engine's budget, the context the fork leaves out and
 * Codex does not inject again goes back on it, and a plan still over is tightened by the excess.
 * `reinjected`: that context (reinjectedContext), where the caller found it already.
 */
export const engineFork = (
  history: readonly HistoryItem[],
  rollout: Rollout,
  options: Partial<Options> | undefined,
  budget: BudgetSpec | undefined,
  context: ContextMode,
  reinjected: readonly ResponseItem[] = reinjectedContext(history, rollout, context),
): EngineFork => {
  const session: Session = { host: "codex", id: threadId(rollout), messages: historyToMessages(history) };
  const {
    forkBudget,
    engineBudget: first,
    textRatio,
  } = budget === undefined
    ? { forkBudget: undefined, engineBudget: undefined, textRatio: 1 }
    : forkBudgetOf(budget, history, rollout, session, { context, reinjected });
  let engineBudget = first;
  let pruning = prune(session, history, options, engineBudget);
  if (forkBudget?.tokens === undefined) {
    const { engineReached: _, plan: last, ...rest } = pruning;
    return { pruning: forkBudget === undefined ? rest : { ...rest, budget: forkBudget }, plan: last };
  }
  let codexAfter = heldTokens(codexTokens(plannedHistory(history, pruning, context)), reinjected);
  for (let i = 1; i < FIT_TRIES && engineBudget !== undefined && codexAfter > forkBudget.tokens && pruning.engineReached; i++) {
    // what is still over, as Codex counts it, off what the engine left: a token of output text
    // the engine cuts takes textRatio tokens off Codex's count (three for text in CJK scripts)
    const over = Math.ceil((codexAfter - forkBudget.tokens) / textRatio);
    engineBudget = Math.max(0, Math.min(engineBudget, pruning.tokensAfter) - over);
    pruning = prune(session, history, options, engineBudget);
    codexAfter = heldTokens(codexTokens(plannedHistory(history, pruning, context)), reinjected);
  }
  const { engineReached: _, plan: last, ...rest } = pruning;
  return {
    pruning: {
      ...rest,
      budget: {
        ...forkBudget,
        reached: codexAfter <= forkBudget.tokens,
        codexTokens: codexAfter,
        ...(engineBudget === undefined ? {} : { engineTokens: engineBudget }),
      },
    },
    plan: last,
  };
};

/** The rules engine as a pruner (engineFork). */
export const enginePruner =
  (options?: Partial<Options>, budget?: BudgetSpec): Pruner =>
  (history, rollout, context, reinjected) =>
    engineFork(history, rollout, options, budget, context, reinjected).pruning;

/**
 * A fork's budget for a history (`session` is the history as the engine reads it), as Codex counts
 * what the resumed thread holds, and the engine's first budget: that less what only Codex counts of
 * what no cut changes (each item's JSON around its text, reasoning), plus the context the engine
 * counts and the resumed thread does not hold (with `fresh`, every context item but the one set
 * Codex injects again). What Codex counts beyond an output's text (its UTF-8 bytes past one a
 * character, its JSON escapes) goes with the output when it is cut, so it is not taken off: a plan
 * still over is tightened by what is left (engineFork).
 */
export const forkBudgetOf = (
  spec: BudgetSpec,
  history: readonly HistoryItem[],
  rollout: Rollout,
  session: Session,
  fork: { readonly context: ContextMode; readonly reinjected: readonly ResponseItem[] },
): { forkBudget: ForkBudget; engineBudget?: number; textRatio: number } => {
  const sent = history.map((h) => sentForm(h.item));
  const codexBefore = codexTokens(sent);
  // the history as Codex last sent it, every context item in it (not the response to that request,
  // nor what came after; a turn rolled back since, still): its last request less this is what the
  // request carries besides (instructions, tools)
  const counted = codexTokens(countedHistory(rollout).map((h) => sentForm(h.item)));
  const forkBudget = budgetFor(spec, recordedWindow(rollout), counted);
  // the outputs' text as Codex counts it, and as the engine does
  let codexText = 0;
  let engineText = 0;
  for (const item of sent) {
    if (!isOutputItem(item)) continue;
    codexText += Math.max(0, codexTokens([item]) - codexTokens([replaceOutputText(item, "")]));
    engineText += estimateTextTokens(outputText(item.output).text);
  }
  const textRatio = engineText > 0 ? Math.max(1, codexText / engineText) : 1;
  if (forkBudget.tokens === undefined) return { forkBudget, textRatio };
  const onlyCodexCounts = Math.max(0, codexBefore - estimateSessionTokens(session).total - Math.max(0, codexText - engineText));
  const notHeld = fork.context === "fresh" ? Math.max(0, codexTokens(sent.filter(isInjectedContext)) - codexTokens(fork.reinjected)) : 0;
  return { forkBudget, engineBudget: Math.max(0, forkBudget.tokens - onlyCodexCounts + notHeld), textRatio };
};

/** One plan of the session, to `budgetTokens` of the engine's estimate when given. */
const prune = (
  session: Session,
  history: readonly HistoryItem[],
  options: Partial<Options> | undefined,
  budgetTokens: number | undefined,
): Pruning & { engineReached: boolean; plan: Plan } => {
  const p = plan(session, budgetTokens === undefined ? options : { ...options, budgetTokens: Math.max(0, budgetTokens) });
  const after = apply(session, p);
  const outputs = new Map<number, string>();
  const t = p.totals;
  const byRule: Partial<Record<RuleId, RuleTotals>> = { ...t.byRule };
  let kept = t.resultsKept;
  let truncated = t.resultsTruncated;
  let dropped = t.resultsDropped;
  let unfreed = 0;
  for (const d of p.decisions) {
    if (d.action === "keep") continue;
    const item = history[d.messageIndex]?.item;
    const before = session.messages[d.messageIndex]?.toolResults.find((r) => r.callId === d.callId)?.text;
    const text = after[d.messageIndex]?.toolResults.find((r) => r.callId === d.callId)?.text;
    if (item !== undefined && isOutputItem(item) && text !== undefined) {
      outputs.set(d.messageIndex, text);
      continue;
    }
    // a result whose text is not an output string (tool_search_output lists tools): kept as it is
    const freed = before === undefined || text === undefined ? 0 : estimateTextTokens(before) - estimateTextTokens(text);
    unfreed += freed;
    const r = byRule[d.rule];
    if (r) byRule[d.rule] = { results: r.results, removed: r.removed - 1, tokensFreed: r.tokensFreed - freed };
    kept++;
    if (d.action === "drop") dropped--;
    else truncated--;
  }
  return {
    outputs,
    results: t.results,
    resultsKept: kept,
    resultsTruncated: truncated,
    resultsDropped: dropped,
    tokensBefore: t.tokensBefore,
    tokensAfter: t.tokensAfter + unfreed,
    byRule,
    engineReached: budgetTokens === undefined || t.tokensAfter + unfreed <= Math.max(0, budgetTokens),
    plan: p,
  };
};
