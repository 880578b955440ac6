// better-compaction's hooks module for Claude Code. HAND-WRITTEN, never bundled: Claude Code
// scans this file before loading it and refuses a bundled register module.
// Rules kept here: `register` is a function declared at the top; `$` is only ever spelled
// `$.noun.event(...)` at the call site; each `on(...)` takes its `.catch` where it is called.
// Every `$` call happens in this file; the engine gets plain data (rows, usage, the thinking
// Claude Code's count holds, options).
import {
  appendRecord,
  claudeDirOf,
  compactRows,
  debugLine,
  failureSkip,
  logPathFor,
  needWeightsPathFor,
  pluginOptions,
  shouldCompactAfterTurn,
  lastAnswerCalls,
  thinkingInCount,
  TURN_COOLDOWN,
  warmUp,
  within,
} from "../src/hosts/claude/plugin.ts";
import type { SessionRow as Row, ThinkingCount } from "../src/hosts/claude/plugin.ts";

// The few shapes of Claude Code's hook API used here (the full declarations live in Claude Code's
// claude-code.d.ts; importing them would be a bare package, which the module scan refuses).
type Usage = { context: { tokens?: number; window?: number; percent?: number } };
type Dollar = {
  session: {
    usage(): Promise<Usage>;
    messages(args: { as: "api" }): Promise<unknown>;
    id(): Promise<string>;
    info(): Promise<{ transcriptPath?: string }>;
    compact(args?: { instructions?: string }): Promise<{ skip?: string }>;
  };
  fs: { read(path: string): Promise<string>; write(path: string, text: string): Promise<void>; exists(path: string): Promise<boolean> };
  ui: { log(text: string, options?: { to?: "debug" }): void };
};
type CompactEvent = { trigger: string; agentId?: string; instructions?: string; messages: readonly Row[] };
type CompactResult = { messages: Row[]; tokensBefore?: number; tokensAfter?: number } | { skip: string };
type Next<E, R> = ((e: E) => Promise<R>) & { called?: boolean; error?: { kind: string; message: string } };
type TurnEvent = { agentId?: string; reason: string };
type TurnResult = { text: string };
type Hook<E, R> = ($: Dollar, e: E, next: Next<E, R>) => R | Promise<R>;
type Catch<E, R> = ($: Dollar, e: E, next: Next<E, R>) => R | undefined | Promise<R | undefined>;
type On = {
  (event: "session.compact", hook: Hook<CompactEvent, CompactResult>): { catch(handler: Catch<CompactEvent, CompactResult>): void };
  (event: "turn.complete", hook: Hook<TurnEvent, TurnResult>): { catch(handler: Catch<TurnEvent, TurnResult>): void };
};

/** How long the read of Claude Code's messages (for their thinking) may take; past it, the compaction goes on without. */
const THINKING_READ_MS = 2_000;

export function register(on: On, options: Record<string, unknown>) {
  const opts = pluginOptions(options);
  let turnsSinceLast = TURN_COOLDOWN + 1;
  let headless = false;
  // compactions of one session can run at once (the main thread and its subagents share a log,
  // and $.fs has no append): the log is read and written back one compaction at a time
  let logWrites: Promise<void> = Promise.resolve();
  try {
    warmUp();
  } catch {
    // only a head start for the first compaction; the hook itself reports real failures
  }

  // Its .catch: a failure before any handover answers "not compacted" with the reason. After a
  // handover, next's own outcome stands: asked again, Claude Code gives the same answer without
  // running its summarizer twice (a failed summary is reported by Claude Code and the session goes
  // on; test/e2e/claude.e2e.ts, "a handover whose summary fails").
  on("session.compact", async ($, e, next) => {
    const usage = e.trigger === "precompute" ? undefined : await $.session.usage();
    const sessionId = await $.session.id();
    // the thinking Claude Code's count holds, and each answer's: the answer drops it but the open
    // tool loop's (main thread, with a count to take it from); not known, the whole count stands
    // against the budget
    let thinking: ThinkingCount | undefined;
    // and the calls of the answer to the request the count is of: where that answer begins among the rows
    let lastAnswer: string[] | undefined;
    if (e.agentId === undefined && usage?.context?.tokens !== undefined) {
      try {
        const messages = await within(THINKING_READ_MS, $.session.messages({ as: "api" }));
        thinking = thinkingInCount(messages);
        lastAnswer = lastAnswerCalls(messages);
      } catch (err) {
        thinking = { problem: `Claude Code's messages were not read (${(err as Error)?.message ?? err})` };
      }
    }
    // where the logs and the user's own need weights (bc calibrate --write) live; neither is
    // worth failing the compaction over
    let claudeDir: string | undefined;
    let needWeights: string | undefined;
    if (e.trigger !== "precompute") {
      try {
        const info = await $.session.info();
        claudeDir = claudeDirOf(info.transcriptPath ?? "");
        const path = claudeDir === undefined ? undefined : needWeightsPathFor(claudeDir);
        if (path !== undefined && (await $.fs.exists(path))) needWeights = await $.fs.read(path);
      } catch (err) {
        $.ui.log(`better-compaction: need weights not read (${(err as Error)?.message ?? err}); using the shipped ones`, { to: "debug" });
      }
    }
    const { answer, record } = compactRows({
      trigger: e.trigger,
      agentId: e.agentId,
      sessionId,
      rows: e.messages,
      usage: usage?.context,
      ...(thinking === undefined ? {} : { thinking }),
      ...(lastAnswer === undefined ? {} : { lastAnswerCalls: lastAnswer }),
      options: opts,
      now: () => Date.now(),
      ...(needWeights === undefined ? {} : { needWeights }),
    });
    $.ui.log(debugLine(record), { to: "debug" });
    if (opts.logDecisions && e.trigger !== "precompute" && claudeDir !== undefined) {
      const path = logPathFor(claudeDir, sessionId);
      const write = async (): Promise<void> => {
        try {
          const existing = (await $.fs.exists(path)) ? await $.fs.read(path) : "";
          await $.fs.write(path, appendRecord(existing, record));
        } catch (err) {
          $.ui.log(`better-compaction: decision log not written: ${(err as Error)?.message ?? err}`, { to: "debug" });
        }
      };
      logWrites = logWrites.then(write);
      await logWrites;
    }
    if ("handover" in answer) return next({ ...e, messages: answer.handover });
    return answer;
  }).catch(($, e, next) => (next.called ? next(e) : failureSkip(next.error)));

  // The loop: between turns of an interactive session, compact at compactAtPercent so bc answers
  // before Claude Code's own threshold. Headless sessions refuse $.session.compact(): stay quiet there.
  on("turn.complete", async ($, e, next) => {
    const result = await next(e);
    if (e.agentId !== undefined || headless || e.reason !== "answer") return result;
    turnsSinceLast++;
    const usage = await $.session.usage();
    if (!shouldCompactAfterTurn({ usage: usage.context, options: opts, turnsSinceLast })) return result;
    turnsSinceLast = 0;
    try {
      const r = await $.session.compact();
      if (r?.skip) $.ui.log(`better-compaction: the loop's compaction was skipped: ${r.skip}`, { to: "debug" });
    } catch (err) {
      const msg = String((err as Error)?.message ?? err);
      if (msg.includes("headless")) headless = true;
      $.ui.log(`better-compaction: the loop did not compact: ${msg}`, { to: "debug" });
    }
    return result;
  }).catch(($, e, next) => (next.called ? next(e) : undefined));
}
