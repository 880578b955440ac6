// What bc keeps per Codex thread, under `$CODEX_HOME/better-compaction/`:
// - `threads/<thread id>.json`: the marker: an attempt under way (the applier's pid), or the last
//   attempt failed (then the next compaction is left to Codex);
// - `logs/<thread id>.jsonl`: the decision log, one line per compaction: what bc did and why.
import { z } from "zod";
import { tokenCount } from "../../../util/format.ts";
import { replaceFile } from "../../../util/jsonl.ts";
import { parseRecordLines } from "../../../util/record-lines.ts";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { homeOfRollout } from "../rollout-files.ts";

export const BC_DIR_NAME = "better-compaction";

export const bcCodexDir = (codexHome: string): string => join(codexHome, BC_DIR_NAME);
export const logsDir = (codexHome: string): string => join(bcCodexDir(codexHome), "logs");
const safeName = (threadId: string): string => threadId.replace(/[^A-Za-z0-9._-]/g, "_") || "unknown";
export const markerPath = (codexHome: string, threadId: string): string => join(bcCodexDir(codexHome), "threads", `${safeName(threadId)}.json`);
export const logPath = (codexHome: string, threadId: string): string => join(logsDir(codexHome), `${safeName(threadId)}.jsonl`);

/** `$CODEX_HOME` of a hook: the env var Codex passes on, else the folder holding `sessions/` in the transcript path. */
export const codexHomeOf = (env: Record<string, string | undefined>, transcriptPath: string | undefined, fallback: string): string =>
  env.CODEX_HOME || (transcriptPath === undefined ? undefined : homeOfRollout(transcriptPath)) || fallback;

// ---------------------------------------------------------------- marker

export type Marker =
  | { readonly state: "applying"; readonly at: string; readonly pid?: number; readonly turnId?: string }
  | { readonly state: "failed"; readonly at: string; readonly reason: string };

export const readMarker = (codexHome: string, threadId: string): Marker | undefined => {
  try {
    const v = JSON.parse(readFileSync(markerPath(codexHome, threadId), "utf8"));
    return v && (v.state === "applying" || v.state === "failed") ? (v as Marker) : undefined;
  } catch {
    return undefined;
  }
};

/** Replaced whole: the next compaction's hook may read it while the applier writes it. */
export const writeMarker = (codexHome: string, threadId: string, marker: Marker): void =>
  replaceFile(markerPath(codexHome, threadId), `${JSON.stringify(marker)}\n`);

export const clearMarker = (codexHome: string, threadId: string): void => rmSync(markerPath(codexHome, threadId), { force: true });

/** Whether a process is alive (signal 0); a pid bc cannot see counts as gone. */
export const isAlive = (pid: number | undefined): boolean => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

// ---------------------------------------------------------------- decision log

/** What happened to one compaction. */
export type LiveOutcome =
  | "vetoed" // the hook said continue: false and started the applier
  | "handed-over" // the hook answered nothing: Codex compacted as usual
  | "applied" // the applier replaced the history
  | "failed"; // the applier could not; the next compaction is left to Codex

/** An output a replacement cut: its call, and the rule that cut it and why. */
export interface LiveRemoval {
  readonly callId: string;
  readonly rule: string;
  readonly reason: string;
}

export interface LiveRecord {
  readonly v: 1;
  readonly at: string;
  readonly threadId: string;
  readonly turnId?: string;
  readonly trigger?: string;
  readonly outcome: LiveOutcome;
  readonly reason: string;
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
  readonly target?: number;
  readonly limit?: number;
  readonly results?: number;
  readonly resultsTruncated?: number;
  readonly resultsDropped?: number;
  readonly revertTurnId?: string;
  readonly injectedItems?: number;
  readonly fixedItems?: number;
  readonly restarted?: boolean;
  readonly ms?: number;
  /** applied: each output the replacement cut (what `bc recall --list` names the rule of) */
  readonly removed?: readonly LiveRemoval[];
}

export const appendLog = (codexHome: string, record: LiveRecord): void => {
  const path = logPath(codexHome, record.threadId);
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, `${JSON.stringify(record)}\n`);
};

export interface LogFile {
  readonly threadId: string;
  readonly path: string;
  readonly mtimeMs: number;
}

/** Decision logs, oldest first. */
export const listLogs = (codexHome: string): LogFile[] => {
  const dir = logsDir(codexHome);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => ({ threadId: f.slice(0, -".jsonl".length), path: join(dir, f), mtimeMs: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => a.mtimeMs - b.mtimeMs || a.threadId.localeCompare(b.threadId));
};

const count = z.number().finite().nonnegative();

/** A log line as bc writes it (a file on the user's disk: checked before it is shown). */
const LiveRecordSchema = z.looseObject({
  v: z.literal(1),
  at: z.string(),
  threadId: z.string(),
  turnId: z.string().optional(),
  trigger: z.string().optional(),
  outcome: z.enum(["vetoed", "handed-over", "applied", "failed"]),
  reason: z.string(),
  tokensBefore: count.optional(),
  tokensAfter: count.optional(),
  target: count.optional(),
  limit: count.optional(),
  results: count.optional(),
  resultsTruncated: count.optional(),
  resultsDropped: count.optional(),
  revertTurnId: z.string().optional(),
  injectedItems: count.optional(),
  fixedItems: count.optional(),
  restarted: z.boolean().optional(),
  ms: count.optional(),
  removed: z.array(z.looseObject({ callId: z.string(), rule: z.string(), reason: z.string() })).optional(),
});

/** The records of one log; lines that are not records are reported as `line N: why` and skipped. */
export const parseLiveLog = (text: string): { records: LiveRecord[]; problems: string[] } => parseRecordLines(text, LiveRecordSchema as z.ZodType<LiveRecord>);

const k = (n: number | undefined): string => (n === undefined ? "?" : tokenCount(n));

/** One record as a person reads it. */
export const formatLiveRecord = (r: LiveRecord): string => {
  const head = `${r.at}  ${r.trigger ?? "-"}  ${r.outcome}${r.ms !== undefined ? `  (${r.ms.toFixed(1)} ms)` : ""}`;
  const lines = [head, `  ${r.reason}`];
  // only an applied replacement changed the thread; a vetoed or failed one's figures are its plan's
  const planned = r.outcome === "applied" ? "" : "planned: ";
  if (r.tokensBefore !== undefined && r.tokensAfter !== undefined && r.outcome !== "handed-over")
    lines.push(
      `  ${planned}tokens ~${k(r.tokensBefore)} -> ~${k(r.tokensAfter)}${r.target !== undefined ? ` (target ${k(r.target)} of limit ${k(r.limit)})` : ""}`,
    );
  if (r.results !== undefined && r.outcome !== "handed-over")
    lines.push(`  ${planned}results ${r.results}: ${r.resultsDropped ?? 0} dropped, ${r.resultsTruncated ?? 0} truncated`);
  if (r.injectedItems !== undefined)
    lines.push(`  injected ${r.injectedItems} items after ${r.fixedItems ?? 0} kept in front${r.restarted ? "; the turn was restarted" : ""}`);
  return lines.join("\n");
};
