// A Codex thread's name: `$CODEX_HOME/session_index.jsonl`, where Codex appends
// `{"id", "thread_name", "updated_at"}` each time a thread is named (its app-server's thread/name/set).
// The file only grows; a thread's last row is its name. `codex resume <name>` takes the newest
// thread whose current name it is and whose rollout is there; bc resolves a name the same way.
import { appendFileSync, closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";

export const sessionIndexPath = (codexHome: string): string => join(codexHome, "session_index.jsonl");

/** Each thread's current name, newest first (a thread renamed since counts under its last name only). */
export const currentThreadNames = (codexHome: string): { id: string; name: string }[] => {
  let text: string;
  try {
    text = readFileSync(sessionIndexPath(codexHome), "utf8");
  } catch {
    return [];
  }
  const out: { id: string; name: string }[] = [];
  const seen = new Set<string>();
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      continue; // a row being written, or damaged: Codex passes over it too
    }
    const { id, thread_name: name } = (row ?? {}) as { id?: unknown; thread_name?: unknown };
    if (typeof id !== "string" || typeof name !== "string" || seen.has(id)) continue;
    seen.add(id);
    out.push({ id, name });
  }
  return out;
};

/**
 * Of the threads currently named `name`, newest first, what `of` finds for the first it finds
 * anything for (its rollout; its log), as Codex passes over a name's newest thread when it has no
 * rollout. Undefined: none.
 */
export const byThreadName = <T>(codexHome: string, name: string, of: (id: string) => T | undefined): T | undefined => {
  if (name.trim() === "") return undefined;
  for (const t of currentThreadNames(codexHome)) {
    if (t.name !== name) continue;
    const found = of(t.id);
    if (found !== undefined) return found;
  }
  return undefined;
};

/** A thread's current name (undefined: never named). */
export const threadName = (codexHome: string, id: string): string | undefined => currentThreadNames(codexHome).find((t) => t.id === id)?.name;

/** Whether the file is missing, empty, or ends its last line: a row appended then stands on a line of its own. */
const endsWithNewline = (path: string): boolean => {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return true;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
};

/**
 * Name a thread, as Codex does: one row appended to the index (never a row rewritten). Codex
 * names the fork of a named thread after it, so that `codex resume <name>` takes the fork.
 */
export const appendThreadName = (codexHome: string, id: string, name: string, now: Date): void => {
  const path = sessionIndexPath(codexHome);
  const row = JSON.stringify({ id, thread_name: name, updated_at: now.toISOString() });
  appendFileSync(path, `${endsWithNewline(path) ? "" : "\n"}${row}\n`);
};
