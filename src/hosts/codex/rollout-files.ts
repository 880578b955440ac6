// Where a Codex home keeps its rollouts: `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (or
// `.jsonl.zst`), and the threads `codex archive` moved to `archived_sessions/` (one folder, no dates).
// A thread reverted on Codex's app-server (bc's live compaction reverts and re-injects) goes on in
// a new file, `rollout-<time>-<thread id>_<file id>.jsonl`, holding the history as it now stands;
// the earlier file stays as it was. The file ids are UUIDv7s, so the greatest is the latest.
import { readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

export const sessionsDir = (codexHome: string): string => join(codexHome, "sessions");
export const archivedDir = (codexHome: string): string => join(codexHome, "archived_sessions");

/** The Codex home a rollout lives in: the folder above its nearest `sessions` or `archived_sessions` (undefined: neither). */
export const homeOfRollout = (rolloutPath: string): string | undefined => {
  for (let dir = dirname(rolloutPath); dirname(dir) !== dir; dir = dirname(dir)) {
    const name = basename(dir);
    if (name === "sessions" || name === "archived_sessions") return dirname(dir);
  }
  return undefined;
};

const ROLLOUT_NAME = /^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-(.+)\.jsonl(\.zst)?$/;
const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
const REPLACEMENT_ID = new RegExp(`^(${UUID})_(${UUID})$`);

export interface RolloutFile {
  readonly path: string;
  /** the thread id in its name */
  readonly id: string;
  /** the file id of a file Codex went on in after reverting the thread (`<thread id>_<file id>`) */
  readonly replacement?: string;
}

const THREAD_IN_NAME = new RegExp(`(${UUID})(?:_${UUID})?\\.jsonl$`);

/** The thread's UUID that ends a rollout's file name (before `_<file id>` in a file Codex went on in after a revert), or undefined. */
export const threadIdInName = (fileName: string): string | undefined => THREAD_IN_NAME.exec(fileName)?.[1];

/** The thread id and, for a file Codex went on in after a revert, its file id, from the id part of a rollout's name. */
const rolloutIdOf = (name: string): { id: string; replacement?: string } => {
  const m = REPLACEMENT_ID.exec(name);
  return m === null ? { id: name } : { id: m[1]!, replacement: m[2]!.toLowerCase() };
};

/** The thread id and (for a file Codex went on in after a revert) the file id a rollout's file name gives, or undefined for a name Codex does not give rollouts. */
export const rolloutNameIds = (fileName: string): { id: string; replacement?: string } | undefined => {
  const m = ROLLOUT_NAME.exec(fileName);
  return m === null ? undefined : rolloutIdOf(m[1]!);
};

/**
 * Of one thread's files, the one Codex goes on from: a live one before an archived one, then the
 * latest file Codex went on in after a revert, then the thread's first file. Undefined when two
 * files of the same standing could each be it (two copies of a rollout).
 */
export const currentRollout = <F extends { readonly path: string; readonly replacement?: string }>(files: readonly F[]): F | undefined => {
  const live = files.filter((f) => !isArchivedRollout(f.path));
  const pool = live.length > 0 ? live : files;
  const latest = pool
    .filter((f) => f.replacement !== undefined)
    .sort((a, b) => (a.replacement! < b.replacement! ? 1 : a.replacement! > b.replacement! ? -1 : 0));
  if (latest.length > 0) return latest.length === 1 || latest[0]!.replacement !== latest[1]!.replacement ? latest[0] : undefined;
  return pool.length === 1 ? pool[0] : undefined;
};

/**
 * Of `files`, each one a thread went on in after a revert (`<thread id>_<file id>` in its name,
 * repeating the history before it as bc left it) that another of `files` replays better: the
 * thread's first file where it is among them, else the thread's earliest such file. Each is
 * mapped to that file, and whether it is the thread's first.
 */
export const laterRollouts = <F>(files: readonly F[], pathOf: (f: F) => string): Map<F, { file: F; first: boolean }> => {
  // a file's place in its thread: "" for the first file, else its file id (UUIDv7s: the smaller, the earlier)
  const best = new Map<string, { file: F; place: string }>();
  const named = files.map((f) => ({ f, ids: rolloutNameIds(basename(pathOf(f))) }));
  for (const { f, ids } of named) {
    if (ids === undefined) continue;
    const id = ids.id.toLowerCase();
    const place = ids.replacement ?? "";
    const held = best.get(id);
    if (held === undefined || place < held.place) best.set(id, { file: f, place });
  }
  const out = new Map<F, { file: F; first: boolean }>();
  for (const { f, ids } of named) {
    if (ids?.replacement === undefined) continue;
    const b = best.get(ids.id.toLowerCase())!;
    if (b.file !== f) out.set(f, { file: b.file, first: b.place === "" });
  }
  return out;
};

/** Whether a rollout lies among the threads Codex archived ($CODEX_HOME/archived_sessions). */
export const isArchivedRollout = (path: string): boolean => /[/\\]archived_sessions[/\\]/.test(path);

/**
 * The home's rollouts, those under `sessions` first, then (with `archived`) the archived ones. Beside
 * a plain rollout, its compressed copy is left out: Codex reads the plain one.
 */
export const rolloutFiles = (codexHome: string, archived: boolean): RolloutFile[] => {
  const out: RolloutFile[] = [];
  const walk = (dir: string, depth: number): void => {
    let entries: { name: string; isDirectory: () => boolean }[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < 8) walk(path, depth + 1);
        continue;
      }
      const ids = rolloutNameIds(e.name);
      if (ids !== undefined) out.push({ path, ...ids });
    }
  };
  walk(sessionsDir(codexHome), 0);
  if (archived) walk(archivedDir(codexHome), 8);
  const plain = new Set(out.filter((f) => f.path.endsWith(".jsonl")).map((f) => f.path));
  return out.filter((f) => !f.path.endsWith(".zst") || !plain.has(f.path.slice(0, -4)));
};

/**
 * The thread's other files in the Codex home a rollout lies in (sessions and archived_sessions):
 * the files before and after each revert. None when the path is not where Codex keeps rollouts, or
 * not named as Codex names them.
 */
export const otherThreadFiles = (rolloutPath: string): string[] => {
  const home = homeOfRollout(rolloutPath);
  const ids = rolloutNameIds(basename(rolloutPath));
  if (home === undefined || ids === undefined) return [];
  const id = ids.id.toLowerCase();
  const here = resolve(rolloutPath);
  return rolloutFiles(home, true)
    .filter((f) => f.id.toLowerCase() === id && resolve(f.path) !== here)
    .map((f) => f.path);
};
