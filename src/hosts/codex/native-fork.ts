// A thread Codex forked itself (`codex fork`, `codex exec fork`, 0.150+) does not copy its
// parent's history: its session_meta's `history_base` {thread_id, end_ordinal_exclusive,
// end_byte_offset} points at the parent's rollout, and Codex reads the parent's lines before that
// point first. bc reads them the same way, so that the history it plans, forks and prunes is
// the whole history Codex sends, not only what came after the fork.
import { isObject } from "../../util/json.ts";
import { lineSpans } from "../../util/jsonl.ts";
import { defaultCodexHome } from "./home.ts";
import { archivedDir, homeOfRollout, rolloutFiles, sessionsDir } from "./rollout-files.ts";
import type { Rollout, RolloutLine } from "./rollout.ts";

/** A chain of native forks deeper than this is not followed further. */
const MAX_DEPTH = 32;

export interface HistoryBase {
  readonly threadId: string;
  readonly endOrdinal?: number;
  readonly endByte?: number;
}

/** Where a native fork's history starts, from its first session_meta (undefined: not a native fork). */
export const historyBaseOf = (lines: readonly RolloutLine[]): HistoryBase | undefined => {
  const meta = lines.find((l) => l.kind === "session_meta");
  const base = meta?.kind === "session_meta" ? meta.payload.history_base : undefined;
  if (!isObject(base) || typeof base.thread_id !== "string" || base.thread_id === "") return undefined;
  const whole = (v: unknown): number | undefined => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : undefined);
  const endOrdinal = whole(base.end_ordinal_exclusive);
  const endByte = whole(base.end_byte_offset);
  return { threadId: base.thread_id, ...(endOrdinal === undefined ? {} : { endOrdinal }), ...(endByte === undefined ? {} : { endByte }) };
};

/**
 * The rollout a history_base names, under a Codex home (sessions, then archived_sessions; a plain
 * file before a compressed one). A thread's id names its first file, which a native fork's
 * ordinals and byte offsets are of; a file Codex went on in after a revert names the file before
 * it by that file's own id (`<thread id>_<file id>`).
 */
export const findThreadRollout = (codexHome: string, threadId: string): string | undefined => {
  const id = threadId.toLowerCase();
  const files = rolloutFiles(codexHome, true);
  return (files.find((f) => f.replacement === id) ?? files.find((f) => f.id.toLowerCase() === id && f.replacement === undefined))?.path;
};

export interface Inherited {
  /** the ancestors' lines before each fork point, oldest first, indexed from -n to -1 (before every line of the fork's own file) */
  readonly lines: readonly RolloutLine[];
  /** the parent's rollout, when found */
  readonly parentPath?: string;
  /** why the history before the fork could not be read (undefined: it was, or there is none) */
  readonly missing?: string;
}

/**
 * The history a native fork inherits: its parent's lines before the fork point (by ordinal, else
 * by byte offset), after the parent's own inherited lines. `read` reads a rollout file (without
 * following its own history_base: this does, up to MAX_DEPTH).
 */
export const inheritedLines = (rollout: Rollout, read: (path: string) => Rollout, seen: ReadonlySet<string> = new Set(), depth = 0): Inherited => {
  const base = historyBaseOf(rollout.lines);
  if (base === undefined) return { lines: [] };
  const from = `thread ${base.threadId}`;
  if (depth >= MAX_DEPTH || seen.has(base.threadId))
    return { lines: [], missing: `${from} forks from a chain of more than ${MAX_DEPTH} threads, or from itself` };
  const home = homeOfRollout(rollout.path) ?? defaultCodexHome();
  const parentPath = findThreadRollout(home, base.threadId);
  if (parentPath === undefined) return { lines: [], missing: `its parent, ${from}, has no rollout under ${sessionsDir(home)} or ${archivedDir(home)}` };
  let parent: Rollout;
  try {
    parent = read(parentPath);
  } catch (e) {
    return { lines: [], parentPath, missing: `its parent's rollout cannot be read (${(e as Error).message.split("\n")[0]})` };
  }
  const above = inheritedLines(parent, read, new Set([...seen, base.threadId]), depth + 1);
  if (above.missing !== undefined) return { lines: [], parentPath, missing: `${from}: ${above.missing}` };
  const spans = parent.source === undefined ? undefined : lineSpans(parent.source);
  const before = (l: RolloutLine): boolean => {
    const ordinal = "ordinal" in l ? l.ordinal : undefined;
    if (base.endOrdinal !== undefined && typeof ordinal === "number") return ordinal < base.endOrdinal;
    if (base.endByte !== undefined && spans !== undefined) return (spans.ends[l.lineNo - 1] ?? Number.POSITIVE_INFINITY) <= base.endByte;
    return true;
  };
  const prefix = parent.lines.filter(before);
  const all = [...above.lines, ...prefix];
  return { lines: all.map((l, k) => ({ ...l, index: k - all.length })), parentPath };
};
