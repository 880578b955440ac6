// A Claude Code session's name (`claude -n <name>`, `/rename`): Claude Code appends
// `{"type":"custom-title","customTitle":<name>,"sessionId":…}` to the transcript, again on each
// resume; the last one is the session's name. `claude --resume <name>` takes the session of the
// project so named, and refuses a name two sessions share. A file's end is read first, as Claude
// Code reads it; else the file is searched for the record's bytes in chunks (recall/scan.ts), and
// only the lines holding it are parsed.
import { statSync } from "node:fs";
import { linesContaining, tailOf } from "../recall/scan.ts";

const TITLE_KIND = '"type":"custom-title"';

/** How much of a transcript's end is read first: Claude Code writes the name again on each resume. */
const TAIL_BYTES = 256 * 1024;

/** The name a record gives the session: a custom-title record's (undefined: any other record). */
export const customTitleOf = (record: unknown): string | undefined => {
  const row = record as { type?: unknown; customTitle?: unknown } | null | undefined;
  return row?.type === "custom-title" && typeof row.customTitle === "string" ? row.customTitle : undefined;
};

/** The last custom-title among these lines (undefined: none). */
const lastTitle = (lines: readonly string[]): string | undefined => {
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.includes(TITLE_KIND)) continue;
    try {
      const title = customTitleOf(JSON.parse(lines[i]!));
      if (title !== undefined) return title;
    } catch {
      // a line being written: look further back
    }
  }
  return undefined;
};

/** The whole lines of the file's last `bytes` (the first, cut, is left out unless the file starts there). */
const tailLines = (path: string, bytes: number): { lines: string[]; whole: boolean } => {
  const tail = tailOf(path, bytes);
  const lines = tail.text.split("\n");
  if (tail.from > 0) lines.shift();
  return { lines, whole: tail.from === 0 };
};

/**
 * The transcript's last custom-title: the session's current name (undefined: never named, or
 * unreadable). Its end is read first; only when no name is there is the whole file searched.
 */
const currentTitle = (path: string): string | undefined => {
  try {
    const tail = tailLines(path, TAIL_BYTES);
    const found = lastTitle(tail.lines);
    if (found !== undefined || tail.whole) return found;
    return lastTitle(linesContaining(path, TITLE_KIND).map((l) => l.text));
  } catch {
    return undefined;
  }
};

/** Of these transcripts, those whose current name is `name`, most recently written first. */
export const transcriptsTitled = (paths: readonly string[], name: string): string[] => {
  if (name.trim() === "") return [];
  const out: { path: string; mtime: number }[] = [];
  for (const path of paths) {
    if (currentTitle(path) !== name) continue;
    let mtime = 0;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {}
    out.push({ path, mtime });
  }
  return out.sort((a, b) => b.mtime - a.mtime).map((x) => x.path);
};
