// The applier: started by the PreCompact hook after it vetoed Codex's compaction. It waits until the
// thread is idle (the vetoed turn interrupted), plans again from the rollout as it now stands,
// reverts the revised turns, injects their pruned verbatim copy, and, for an automatic compaction,
// starts a turn so the work goes on. Whatever fails, the thread keeps its history (a revert is only
// sent once the items to inject are ready, and a failed injection puts the unpruned items back),
// and the marker says the last attempt failed: the next compaction is Codex's.
import { contentText, isPersonMessage, type MessageItem } from "../items.ts";
import { readRollout } from "../rollout.ts";
import { type AppServerClient, connectSocket, controlSocketPath } from "./app-server.ts";
import { configuredLimit } from "./hook.ts";
import { type LivePlan, planFigures, planLive, startedTurnId } from "./plan.ts";
import { appendLog, clearMarker, type LiveRecord, writeMarker } from "./state.ts";

/** The message that restarts the work after an automatic compaction was answered by bc. */
export const CONTINUE_TEXT = "Continue with the task where you left off (the history was just pruned by better-compaction).";

/** How long the applier waits for the thread to become idle before it gives up. */
export const IDLE_TIMEOUT_MS = 60_000;
/** Sets that wait in seconds (in the environment codex, and so its hooks, run with). */
export const IDLE_WAIT_ENV = "BC_CODEX_IDLE_WAIT";
const IDLE_WAIT_MAX_S = 3600;

/** The wait `BC_CODEX_IDLE_WAIT` asks for (seconds, 1 to 3600), else IDLE_TIMEOUT_MS. */
export const idleWaitMs = (env: Record<string, string | undefined>): number => {
  const raw = env[IDLE_WAIT_ENV]?.trim();
  const s = raw ? Number(raw) : Number.NaN;
  return Number.isFinite(s) && s >= 1 && s <= IDLE_WAIT_MAX_S ? Math.round(s * 1000) : IDLE_TIMEOUT_MS;
};
const POLL_MS = 200;

export interface ApplierOptions {
  readonly codexHome: string;
  readonly threadId: string;
  readonly trigger: string;
  /** the turn the hook ran in (the vetoed one): the applier waits until it is over */
  readonly turnId?: string;
}

export interface ApplierDeps {
  readonly connect?: (socketPath: string) => Promise<AppServerClient>;
  readonly now?: () => Date;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly idleTimeoutMs?: number;
}

interface TurnInfo {
  readonly id: string;
  readonly status: string;
}

const listTurns = async (client: AppServerClient, threadId: string): Promise<TurnInfo[]> => {
  const turns: TurnInfo[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const r: { data: TurnInfo[]; nextCursor: string | null } = await client.request("thread/turns/list", {
      threadId,
      sortDirection: "asc",
      itemsView: "notLoaded",
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    turns.push(...r.data.map((t) => ({ id: t.id, status: t.status })));
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return turns;
};

interface ThreadInfo {
  readonly status: { readonly type: string };
  readonly path: string | null;
}

const readThread = async (client: AppServerClient, threadId: string): Promise<ThreadInfo> =>
  ((await client.request("thread/read", { threadId })) as { thread: ThreadInfo }).thread;

class ApplyFailure extends Error {}

type Json = Record<string, any>;

/**
 * What to inject and how to start the work again. An automatic compaction before a turn leaves the
 * person's new message last (Codex records it once the turn is stopped): it is sent again as the
 * new turn's input rather than injected, so the model answers it as it would have. Otherwise (a
 * compaction in the middle of a task) the turn is started with CONTINUE_TEXT.
 */
export const restartPlan = (items: readonly Json[]): { items: readonly Json[]; text: string } => {
  const last = items.at(-1);
  if (last && isPersonMessage(last as MessageItem) && (last as MessageItem).content.every((c) => c.type === "input_text"))
    return { items: items.slice(0, -1), text: contentText((last as MessageItem).content) };
  return { items, text: CONTINUE_TEXT };
};

/** The ids of the turns a rollout holds (its task_started events, a native fork's inherited ones too). */
const turnIdsIn = (rollout: ReturnType<typeof readRollout>): Set<string> => {
  const ids = new Set<string>();
  for (const l of [...(rollout.inherited?.lines ?? []), ...rollout.lines]) {
    if (l.kind !== "event_msg" || l.payload.type !== "task_started") continue;
    const id = startedTurnId(l.payload);
    if (id !== undefined) ids.add(id);
  }
  return ids;
};

/** What an applied plan cut, for the log (absent when it records none). */
const removedBy = (plan: LivePlan): Partial<LiveRecord> => (plan.removed === undefined ? {} : { removed: plan.removed });

export const runApplier = async (opts: ApplierOptions, deps: ApplierDeps = {}): Promise<LiveRecord> => {
  const now = deps.now ?? (() => new Date());
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = now();
  const { codexHome, threadId } = opts;
  const head = { v: 1 as const, threadId, turnId: opts.turnId, trigger: opts.trigger };
  writeMarker(codexHome, threadId, { state: "applying", at: started.toISOString(), pid: process.pid, turnId: opts.turnId });
  let client: AppServerClient | undefined;
  let plan: LivePlan | undefined;
  let restarted = false;
  const figures = (): Partial<LiveRecord> => (plan ? { ...planFigures(plan), revertTurnId: plan.revertTurnId, fixedItems: plan.fixedItems } : {});
  const finish = (outcome: "applied" | "failed", reason: string, extra: Partial<LiveRecord> = {}): LiveRecord => {
    const record: LiveRecord = { ...head, at: now().toISOString(), outcome, reason, ...figures(), ...extra, ms: now().getTime() - started.getTime() };
    if (outcome === "failed") writeMarker(codexHome, threadId, { state: "failed", at: record.at, reason });
    else clearMarker(codexHome, threadId);
    appendLog(codexHome, record);
    return record;
  };
  try {
    try {
      client = await (deps.connect ?? ((p) => connectSocket(p)))(controlSocketPath(codexHome));
    } catch (e) {
      throw new ApplyFailure(`cannot reach the app-server: ${(e as Error).message}`);
    }
    // 1. wait until the vetoed turn is over and the thread idle
    const deadline = started.getTime() + (deps.idleTimeoutMs ?? IDLE_TIMEOUT_MS);
    let thread: ThreadInfo;
    for (;;) {
      thread = await readThread(client, threadId);
      let done = thread.status.type === "idle";
      if (done && opts.turnId) {
        const turn = (await listTurns(client, threadId)).find((t) => t.id === opts.turnId);
        done = turn === undefined || turn.status !== "inProgress";
      }
      if (done) break;
      if (thread.status.type === "systemError" || thread.status.type === "notLoaded")
        throw new ApplyFailure(`the thread is ${thread.status.type}; nothing was changed`);
      if (now().getTime() > deadline)
        throw new ApplyFailure(`the thread stayed busy for ${Math.round((deps.idleTimeoutMs ?? IDLE_TIMEOUT_MS) / 1000)} s; nothing was changed`);
      await sleep(POLL_MS);
    }
    // 2. plan from the rollout as it stands now
    if (!thread.path) throw new ApplyFailure("the app-server names no rollout for the thread; nothing was changed");
    const rollout = readRollout(thread.path);
    plan = planLive(rollout, { autoCompactLimit: configuredLimit(codexHome) });
    if (!plan.fits || !plan.revertTurnId) throw new ApplyFailure(`${plan.reason}; nothing was changed`);
    const turns = await listTurns(client, threadId);
    if (!turns.some((t) => t.id === plan!.revertTurnId))
      throw new ApplyFailure(`turn ${plan.revertTurnId} is not in the thread's turn list; nothing was changed`);
    // a turn the rollout did not hold when bc read it (a message sent meanwhile) would be reverted
    // with the others and not injected again
    const read = turnIdsIn(rollout);
    const unseen = turns.find((t) => t.id !== opts.turnId && (!read.has(t.id) || t.status === "inProgress"));
    if (unseen !== undefined) throw new ApplyFailure(`turn ${unseen.id} began after bc read the rollout (a new message?); nothing was changed`);
    if ((await readThread(client, threadId)).status.type !== "idle")
      throw new ApplyFailure("the thread became busy again (a new message?); nothing was changed");
    // 3. revert, inject
    try {
      await client.request("thread/revert", { threadId, beforeTurnId: plan.revertTurnId });
    } catch (e) {
      throw new ApplyFailure(`the revert was refused (${(e as Error).message}); nothing was changed`);
    }
    const restart = opts.trigger === "auto" ? restartPlan(plan.items) : { items: plan.items, text: CONTINUE_TEXT };
    try {
      await client.request("thread/inject_items", { threadId, items: restart.items });
    } catch (e) {
      let restored = "and putting the original items back failed too";
      try {
        await client.request("thread/inject_items", { threadId, items: plan.originalItems });
        restored = "the original items were put back";
      } catch {}
      throw new ApplyFailure(`the injection failed (${(e as Error).message}); ${restored}`);
    }
    // 4. an automatic compaction interrupted work in progress: start it again
    if (opts.trigger === "auto") {
      try {
        await client.request("turn/start", { threadId, input: [{ type: "text", text: restart.text, text_elements: [] }] });
        restarted = true;
      } catch (e) {
        // the person's message held back to be sent again goes into the history instead
        const held = plan.items.slice(restart.items.length);
        let kept = "";
        if (held.length > 0) {
          try {
            await client.request("thread/inject_items", { threadId, items: held });
            kept = "; your last message is in the history";
          } catch {
            kept = `; your last message could not be put back: ${JSON.stringify(restart.text.slice(0, 200))}`;
          }
        }
        return finish("applied", `history replaced, but the turn could not be restarted (${(e as Error).message})${kept}; send a message to go on`, {
          injectedItems: restart.items.length + (kept.startsWith("; your last message is") ? held.length : 0),
          ...removedBy(plan),
        });
      }
    }
    return finish("applied", `history replaced: ${plan.reason}`, { injectedItems: restart.items.length, restarted, ...removedBy(plan) });
  } catch (e) {
    return finish("failed", e instanceof ApplyFailure ? e.message : `bc failed: ${(e as Error).message.split("\n")[0]}`);
  } finally {
    client?.close();
  }
};
