// A Claude Code session's name (`claude -n <name>`, `/rename`): Claude Code appends
// `{"type":"custom-title","customTitle":<name>,"sessionId":…}` to the transcript, again on each
// resume; the last one is the session's name. `claude --resume <name>` takes the session of the
// project so named, and refuses a name two sessions share. A file is searched for the name's bytes
// before any line of it is parsed.
import { readFileSync, statSync } from "node:fs";

const TITLE_KIND = '"type":"custom-title"';

/** The transcript's last custom-title: the session's current name (undefined: never named). */
const lastTitleIn = (bytes: Buffer): string | undefined => {
  for (let at = bytes.lastIndexOf(TITLE_KIND); at !== -1; at = at === 0 ? -1 : bytes.lastIndexOf(TITLE_KIND, at - 1)) {
    const start = bytes.lastIndexOf(10, at) + 1;
    const nl = bytes.indexOf(10, at);
    const end = nl === -1 ? bytes.length : nl;
    try {
      const row = JSON.parse(bytes.toString("utf8", start, end)) as { type?: unknown; customTitle?: unknown };
      if (row.type === "custom-title" && typeof row.customTitle === "string") return row.customTitle;
    } catch {
      // a line being written, or the words inside some other record's text: look further back
    }
  }
  return undefined;
};

/** Of these transcripts, those whose current name is `name`, most recently written first. */
export const transcriptsTitled = (paths: readonly string[], name: string): string[] => {
  if (name.trim() === "") return [];
  const needle = `"customTitle":${JSON.stringify(name)}`;
  const out: { path: string; mtime: number }[] = [];
  for (const path of paths) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      continue;
    }
    if (bytes.indexOf(needle) === -1 || lastTitleIn(bytes) !== name) continue;
    let mtime = 0;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {}
    out.push({ path, mtime });
  }
  return out.sort((a, b) => b.mtime - a.mtime).map((x) => x.path);
};
