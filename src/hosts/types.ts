// What a host reader hands the rest of bc: the session model plus what eval and the
// fork writer need to know about the file (host compactions, malformed lines).
import type { Host, Message, Session } from "../engine/types.ts";

/** A compaction the host itself ran, as recorded in the file. */
export interface HostCompaction {
  /** timeline index of the first message after the compaction */
  readonly at: number;
  /** timeline index where the history the host compacted begins (the previous compaction's `at`, or 0) */
  readonly from: number;
  /** what the host sent forward in place of timeline[from, at): its summary and whatever it preserved */
  readonly kept: readonly Message[];
  /** manual | auto | ... where the file says */
  readonly trigger?: string;
}

/** What a session file records of the model's window and of the host's last request (Codex rollouts do). */
export interface RecordedWindow {
  /** the model's context window, as last recorded */
  readonly window?: number;
  /** tokens of the last request the host recorded; absent when the history was compacted since (that count is of a history no longer there) */
  readonly lastInput?: number;
}

export interface LoadedSession {
  readonly host: Host;
  readonly path: string;
  readonly id: string;
  /** everything that happened, in order, across host compactions; host summaries left out */
  readonly timeline: Session;
  /** the model-visible history now (what a compaction would operate on) */
  readonly live: Session;
  readonly compactions: readonly HostCompaction[];
  /** `file:line: why` for each malformed line skipped */
  readonly malformed: readonly string[];
  /** `file:line: ...` for a tool result without its call (and, for Claude Code, a call without its result) */
  readonly warnings?: readonly string[];
  /** host version(s) seen in the file, e.g. "2.1.81" or "0.141.0" */
  readonly versions: readonly string[];
  /** what the file records of the model's window (a Codex rollout; a Claude Code transcript records none) */
  readonly recordedWindow?: RecordedWindow;
  /** the session's name as the file records it: a Claude Code transcript's last custom-title (claude -n, /rename) */
  readonly name?: string;
}
