// `bc codex-hook precompact`: Codex's PreCompact hook. It answers `{"continue": false}` (Codex skips
// its own compaction and interrupts the turn) only when bc can do better and finish the job: the
// pruned verbatim history fits, the thread runs on the shared app-server, and nothing failed last
// time. Then it starts the applier, detached, and returns at once. In every other case it answers
// nothing and Codex compacts as usual. Any error inside is a hand-over, never a broken session.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { readRollout, sessionMeta } from "../rollout.ts";
import { type AppServerClient, connectSocket, controlSocketPath, socketExists } from "./app-server.ts";
import { planFigures, planLive } from "./plan.ts";
import { appendLog, clearMarker, isAlive, type LiveRecord, readMarker, writeMarker } from "./state.ts";

export const HookInput = z.looseObject({
  session_id: z.string().min(1),
  turn_id: z.string().optional(),
  transcript_path: z.string().nullish(),
  cwd: z.string().optional(),
  trigger: z.string().optional(),
  model: z.string().optional(),
});
export type HookInput = z.infer<typeof HookInput>;

/** What the hook tells Codex when bc takes over (shown as "Hook stopped" in the TUI). */
export const STOP_REASON = "better-compaction is replacing the history with its pruned verbatim copy; the session goes on in a moment";

/** An applier that has not written its pid this long after the hook started it never ran. */
const APPLIER_START_MS = 60_000;

/** How long the hook waits for the app-server to say whether it runs the thread. */
const LOADED_CHECK_MS = 3_000;

export interface HookDeps {
  readonly codexHome: string;
  readonly now: () => Date;
  /** start the applier, detached; returns its pid */
  readonly startApplier: (args: readonly string[]) => number | undefined;
  /** connect to the app-server (tests pass a fake) */
  readonly connect?: (socketPath: string, timeoutMs: number) => Promise<AppServerClient>;
}

/** `model_auto_compact_token_limit` from `$CODEX_HOME/config.toml`, when it is set there. */
export const configuredLimit = (codexHome: string): number | undefined => {
  try {
    const v = Bun.TOML.parse(readFileSync(join(codexHome, "config.toml"), "utf8")) as Record<string, unknown>;
    const n = v.model_auto_compact_token_limit;
    return typeof n === "number" && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
};

export interface HookResult {
  /** what the hook prints on stdout ("" = no opinion: Codex compacts) */
  readonly stdout: string;
  readonly record: LiveRecord;
}

/** Whether the shared app-server has this thread loaded (a `codex exec` thread is not). */
const loadedOnServer = async (deps: HookDeps, threadId: string): Promise<boolean | string> => {
  let client: AppServerClient | undefined;
  try {
    client = await (deps.connect ?? connectSocket)(controlSocketPath(deps.codexHome), LOADED_CHECK_MS);
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const r: { data: string[]; nextCursor: string | null } = await client.request("thread/loaded/list", cursor ? { cursor } : {}, LOADED_CHECK_MS);
      if (r.data.includes(threadId)) return true;
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    return false;
  } catch (e) {
    return (e as Error).message;
  } finally {
    client?.close();
  }
};

export const runPreCompact = async (stdin: string, deps: HookDeps): Promise<HookResult> => {
  const started = deps.now();
  const at = started.toISOString();
  let input: HookInput;
  try {
    input = HookInput.parse(JSON.parse(stdin));
  } catch (e) {
    return {
      stdout: "",
      record: { v: 1, at, threadId: "unknown", outcome: "handed-over", reason: `unreadable hook input: ${(e as Error).message.split("\n")[0]}` },
    };
  }
  const { codexHome } = deps;
  const threadId = input.session_id;
  const head = { v: 1 as const, at, threadId, turnId: input.turn_id, trigger: input.trigger };
  const handOver = (reason: string, extra: Partial<LiveRecord> = {}): HookResult => {
    const record: LiveRecord = { ...head, outcome: "handed-over", reason, ...extra, ms: deps.now().getTime() - started.getTime() };
    appendLog(codexHome, record);
    return { stdout: "", record };
  };
  try {
    const marker = readMarker(codexHome, threadId);
    if (marker?.state === "failed") {
      clearMarker(codexHome, threadId);
      return handOver(`the last attempt failed (${marker.reason}); this compaction is left to Codex`);
    }
    if (marker?.state === "applying") {
      const young = started.getTime() - Date.parse(marker.at) < APPLIER_START_MS;
      if (marker.pid === undefined ? young : isAlive(marker.pid))
        return handOver("bc is still applying the previous replacement; this compaction is left to Codex");
      clearMarker(codexHome, threadId);
      return handOver("the previous applier stopped before it finished; this compaction is left to Codex");
    }
    if (!socketExists(codexHome))
      return handOver("no app-server socket (codex exec, --no-daemon, or an older Codex): Codex compacts; 'bc codex-fork' is the way there");
    if (!input.transcript_path) return handOver("the hook input names no transcript");
    const rollout = readRollout(input.transcript_path);
    if (rollout.format !== "paginated")
      return handOver("a thread in the older (legacy) history format cannot be reverted: Codex compacts ('codex migrate-rollouts' converts it)");
    const plan = planLive(rollout, { autoCompactLimit: configuredLimit(codexHome) });
    const figures = planFigures(plan);
    if (!plan.fits) return handOver(plan.reason, figures);
    // the app-server, not the session's origin, says where the thread runs now: a session `codex
    // exec` started may since have been resumed in the interactive CLI
    const loaded = await loadedOnServer(deps, threadId);
    if (loaded !== true)
      return handOver(
        loaded !== false
          ? `cannot ask the app-server: ${loaded}`
          : sessionMeta(rollout)?.payload.originator === "codex_exec"
            ? "a codex exec session runs in its own process, out of the app-server's reach: Codex compacts"
            : "the shared app-server does not run this thread (codex exec?): Codex compacts",
        figures,
      );
    writeMarker(codexHome, threadId, { state: "applying", at, turnId: input.turn_id });
    const args = ["--thread", threadId, "--codex-home", codexHome, "--trigger", input.trigger ?? "manual", ...(input.turn_id ? ["--turn", input.turn_id] : [])];
    const pid = deps.startApplier(args);
    if (pid === undefined) {
      clearMarker(codexHome, threadId);
      return handOver("could not start the applier", figures);
    }
    const record: LiveRecord = {
      ...head,
      outcome: "vetoed",
      reason: `bc replaces the history: ${plan.reason}`,
      ...figures,
      ms: deps.now().getTime() - started.getTime(),
    };
    appendLog(codexHome, record);
    return { stdout: JSON.stringify({ continue: false, stopReason: STOP_REASON }), record };
  } catch (e) {
    try {
      return handOver(`bc failed while planning: ${(e as Error).message.split("\n")[0]}`);
    } catch {
      return { stdout: "", record: { ...head, outcome: "handed-over", reason: (e as Error).message } };
    }
  }
};
