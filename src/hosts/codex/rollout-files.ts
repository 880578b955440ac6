// Where a Codex home keeps its rollouts: `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (or
// `.jsonl.zst`), and the threads `codex archive` moved to `archived_sessions/` (one folder, no dates).
import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";

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

export interface RolloutFile {
  readonly path: string;
  /** the thread id in its name */
  readonly id: string;
}

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
      const m = ROLLOUT_NAME.exec(e.name);
      if (m) out.push({ path, id: m[1]! });
    }
  };
  walk(sessionsDir(codexHome), 0);
  if (archived) walk(archivedDir(codexHome), 8);
  const plain = new Set(out.filter((f) => f.path.endsWith(".jsonl")).map((f) => f.path));
  return out.filter((f) => !f.path.endsWith(".zst") || !plain.has(f.path.slice(0, -4)));
};
