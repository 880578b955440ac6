// Which host wrote a session file, where a user's sessions live, and one way to load any of them.
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Host } from "../engine/types.ts";
import { claudeDirFor, projectFolders } from "./claude/home.ts";
import { transcriptsTitled } from "./claude/titles.ts";
import { defaultCodexHome } from "./codex/home.ts";
import { archivedDir, currentRollout, homeOfRollout, isArchivedRollout, laterRollouts, rolloutFiles, sessionsDir } from "./codex/rollout-files.ts";
import { byThreadName, sessionIndexPath, threadName } from "./codex/thread-names.ts";
import { BcError } from "../util/errors.ts";
import { cannotRead, checkFile, decodeUtf8, emptyPipe, isHeld, isStream, isZstd, parseJsonl, readFileBytes, readOnce } from "../util/jsonl.ts";
import { loadClaudeTranscript, subagentFiles } from "./claude/transcript.ts";
import { type HistoryItem, rebuildHistory } from "./codex/history.ts";
import { type Rollout, readRollout, toLoadedSession } from "./codex/rollout.ts";
import { hostOfOpening, hostOfRecord } from "./record-kind.ts";
import type { LoadedSession } from "./types.ts";
import { listDir } from "../util/dirs.ts";

const EXPECTED = "a Claude Code transcript (~/.claude/projects/<project>/<session>.jsonl) or a Codex rollout ($CODEX_HOME/sessions/**/rollout-*.jsonl)";

/** Enough of the file to see its first records; a single line can be hundreds of MB. */
const SNIFF_BYTES = 256 * 1024;

/** A line of the head: a whole line is parsed; a first line longer than the sniff window is judged by its opening keys. */
const sniffLine = (line: string, complete: boolean): Host | undefined => {
  if (!complete) return hostOfOpening(line);
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  return hostOfRecord(v);
};

/** The host that wrote a session file, judged by its content; a one-line BcError when it is neither. */
export const detectHost = (path: string): Host => {
  checkFile(path, EXPECTED);
  let head: Uint8Array;
  const stream = isStream(path);
  try {
    // a pipe is read whole, once (readOnce keeps it for the reader); a file only at its start, unless read already
    if (stream || isHeld(path)) head = readOnce(path).subarray(0, SNIFF_BYTES);
    else {
      const fd = openSync(path, "r");
      try {
        const buf = Buffer.alloc(SNIFF_BYTES);
        head = buf.subarray(0, readSync(fd, buf, 0, SNIFF_BYTES, 0));
      } finally {
        closeSync(fd);
      }
    }
  } catch (e) {
    throw cannotRead(path, e, EXPECTED);
  }
  if (stream && head.length === 0) throw emptyPipe(path, EXPECTED);
  // a compressed rollout (.jsonl.zst) is judged by what it holds
  const compressed = isZstd(head) || path.endsWith(".zst");
  if (compressed) head = readFileBytes(path, EXPECTED).subarray(0, SNIFF_BYTES);
  const text = decodeUtf8(head);
  if (compressed && text.trim() === "") throw new BcError("bad-input", `${path}: holds nothing once decompressed`, `expected ${EXPECTED}`);
  const whole = head.length < SNIFF_BYTES;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    const complete = i < lines.length - 1 || whole;
    const host = sniffLine(line, complete);
    if (host) return host;
  }
  // name the first line that is not a record of either host, and what it is
  const first = parseJsonl(text.slice(0, whole ? text.length : Math.max(0, text.lastIndexOf("\n"))), path).lines.find(
    (l) => l.value !== undefined || l.error !== undefined,
  );
  if (first?.error !== undefined)
    throw new BcError("bad-input", `${path}:${first.lineNo}: ${first.error}; neither a Claude Code transcript nor a Codex rollout`, `expected ${EXPECTED}`);
  if (first === undefined && whole) throw new BcError("bad-input", `${path}: holds only blank lines, no records`, `expected ${EXPECTED}`);
  throw new BcError(
    "bad-input",
    `${path}${first ? `:${first.lineNo}` : ""}: JSON that is neither a Claude Code transcript nor a Codex rollout`,
    `expected ${EXPECTED}`,
  );
};

/** A session file loaded, and a Codex rollout's records and rebuilt history, which its live history was mapped from. */
export interface SessionSource {
  readonly session: LoadedSession;
  readonly codex?: { readonly rollout: Rollout; readonly history: readonly HistoryItem[] };
}

/**
 * Load any session file, keeping a Codex rollout's records for what reads them as well as the
 * session (a plan to a fork's budget), so the file is read once. loadSessionFile keeps only the
 * session: a corpus read holds no file's records longer than it needs them.
 */
export const loadSessionSource = (path: string): SessionSource => {
  const host = detectHost(path);
  switch (host) {
    case "claude":
      return { session: loadClaudeTranscript(path) };
    case "codex": {
      const rollout = readRollout(path);
      const history = rebuildHistory(rollout);
      return { session: toLoadedSession(rollout, history), codex: { rollout, history: history.items } };
    }
    default:
      return host satisfies never;
  }
};

/** Load any session file into the session model, whichever host wrote it. */
export const loadSessionFile = (path: string): LoadedSession => loadSessionSource(path).session;

// ---------------------------------------------------------------------------------------------
// Where sessions live

export interface SessionFile {
  readonly host: Host;
  readonly path: string;
  /** Claude Code session id / Codex thread id, from the file name */
  readonly id: string;
  /** Codex: the file id of a file Codex went on in after reverting the thread (rollout-files.ts) */
  readonly replacement?: string;
}

/** Where to look; by default $CLAUDE_CONFIG_DIR (else ~/.claude) and $CODEX_HOME (else ~/.codex), ~ being the user's home (os.homedir(), i.e. $HOME). */
export interface SessionPlaces {
  readonly home?: string;
  readonly claudeDir?: string;
  readonly codexHome?: string;
  /** the working directory, whose project's sessions a name is looked for in first (default: process.cwd()) */
  readonly cwd?: string;
}

const claudeProjects = (p: SessionPlaces): string => join(claudeDirFor(p), "projects");
const codexHomeOf = (p: SessionPlaces): string => p.codexHome ?? defaultCodexHome(p.home);

/** `~/.claude/projects/<project>/<session>.jsonl` (subagent files, one level deeper, are part of their session). */
const claudeSessionFiles = (p: SessionPlaces): SessionFile[] => {
  const out: SessionFile[] = [];
  const root = claudeProjects(p);
  for (const project of listDir(root)) {
    if (!project.dir) continue;
    for (const f of listDir(join(root, project.name)))
      if (!f.dir && f.name.endsWith(".jsonl")) out.push({ host: "claude", path: join(root, project.name, f.name), id: f.name.slice(0, -6) });
  }
  return out;
};

/** `$CODEX_HOME/sessions/**\/rollout-<time>-<id>.jsonl`, and with `archived` those in `$CODEX_HOME/archived_sessions` too. */
const codexSessionFiles = (p: SessionPlaces, archived = false): SessionFile[] => rolloutFiles(codexHomeOf(p), archived).map((f) => ({ host: "codex", ...f }));

/**
 * The user's session files: Claude Code's under ~/.claude/projects, Codex's under
 * $CODEX_HOME/sessions; with `archived`, also the threads Codex archived.
 */
export const discoverSessions = (opts: { host?: Host; archived?: boolean } & SessionPlaces = {}): SessionFile[] => {
  const files = [
    ...(opts.host === undefined || opts.host === "claude" ? claudeSessionFiles(opts) : []),
    ...(opts.host === undefined || opts.host === "codex" ? codexSessionFiles(opts, opts.archived === true) : []),
  ];
  return files.sort((a, b) => (a.host === b.host ? (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) : a.host === "claude" ? -1 : 1));
};

/**
 * The user's sessions to replay or learn from (bc eval and bc calibrate with no path), as a folder
 * given to bc eval is read: those of discoverSessions, each Claude Code session followed by its
 * subagents' own conversations (their files beside it: Claude Code compacts a subagent's context
 * too), less each file a Codex thread went on in after bc compacted it live (it repeats the history
 * before it with bc's own cuts): the thread is read from its first file, else from the earliest
 * file it went on in (laterRollouts).
 */
export const replayableSessions = (opts: { host?: Host } & SessionPlaces = {}): SessionFile[] => {
  const all = discoverSessions(opts);
  const later = laterRollouts(all, (f) => f.path);
  return all
    .filter((f) => !later.has(f))
    .flatMap((f) =>
      f.host === "claude"
        ? [f, ...subagentFiles(f.path).map((path) => ({ host: f.host, path, id: `${f.id}/${basename(path).slice(0, -".jsonl".length)}` }))]
        : [f],
    );
};

/**
 * A loaded session's name, when it has one: a Claude Code transcript's last custom-title (read with
 * the transcript), a Codex thread's in the index of the Codex home its rollout lies in.
 */
export const sessionName = (s: LoadedSession): string | undefined => {
  if (s.host === "claude") return s.name;
  const home = homeOfRollout(s.path);
  return home === undefined ? undefined : threadName(home, s.id);
};

/** The one Claude Code session so named; two or more are refused, as Claude Code refuses them, newest first. */
const onlyTitled = (name: string, paths: readonly string[]): string => {
  if (paths.length === 1) return paths[0]!;
  throw new BcError(
    "usage",
    `the name "${name}" is ${paths.length} Claude Code sessions' (newest first): ${paths.join(", ")}`,
    "pass the session id or file instead",
  );
};

/**
 * Of the files that hold one id, the one a command reads: for a Codex thread, the file Codex goes on
 * from (a live one before an archived one, the latest after a revert); undefined when that cannot be
 * told (two copies of a file).
 */
const currentOf = (matches: readonly SessionFile[]): SessionFile | undefined =>
  matches.length === 1 ? matches[0] : matches.every((f) => f.host === "codex") ? currentRollout(matches) : undefined;

/** The sessions whose id starts with `prefix` (lower case), one per id: of a thread's files, the current one. */
const byIdPrefix = (files: readonly SessionFile[], prefix: string): SessionFile[] => {
  const byId = new Map<string, SessionFile[]>();
  for (const f of files) {
    const key = f.id.toLowerCase();
    if (!key.startsWith(prefix)) continue;
    const same = byId.get(key);
    if (same === undefined) byId.set(key, [f]);
    else same.push(f);
  }
  return [...byId.values()].map((same) => currentOf(same) ?? same.find((f) => !isArchivedRollout(f.path)) ?? same[0]!);
};

/**
 * A path, or a session id looked up where Claude Code and Codex keep their sessions (a thread Codex
 * archived included), or else a session's name (Claude Code's `-n`/`/rename`, Codex's thread name).
 */
export const resolveSession = (arg: string, places: SessionPlaces = {}, only?: Host): string => {
  if (arg.trim() === "") throw new BcError("usage", "no session given", "pass a session file or a session id");
  if (existsSync(arg) || arg.includes("/") || arg.includes("\\") || arg.endsWith(".jsonl") || arg.endsWith(".zst")) return arg;
  // `only`: a command for one host's sessions (codex-fork) looks among that host's alone
  const files = discoverSessions({ ...places, archived: true, ...(only === undefined ? {} : { host: only }) });
  // ids as the hosts write them are lower case; Codex takes one in any case
  const id = arg.toLowerCase();
  const matches = files.filter((f) => f.id.toLowerCase() === id);
  // a thread both live and archived, or gone on in a new file after a revert: the file Codex resumes
  const current = currentOf(matches);
  if (current !== undefined) return current.path;
  if (matches.length > 1)
    throw new BcError("usage", `session id ${arg} matches ${matches.length} files: ${matches.map((m) => m.path).join(", ")}`, "pass the file path instead");
  // no id: a session's name, as `claude --resume <name>` takes it (this project's first), or a
  // Codex thread's, as `codex resume <name>` does
  const claudeFiles = files.filter((f) => f.host === "claude").map((f) => f.path);
  const here = new Set(projectFolders(claudeDirFor(places), resolve(places.cwd ?? process.cwd())));
  const titledHere = transcriptsTitled(
    claudeFiles.filter((f) => here.has(dirname(f))),
    arg,
  );
  if (titledHere.length > 0) return onlyTitled(arg, titledHere);
  const named = byThreadName(codexHomeOf(places), arg, (id) => {
    const same = files.filter((f) => f.host === "codex" && f.id === id);
    return currentOf(same) ?? same[0];
  });
  if (named !== undefined) return named.path;
  const titled = transcriptsTitled(
    claudeFiles.filter((f) => !here.has(dirname(f))),
    arg,
  );
  if (titled.length > 0) return onlyTitled(arg, titled);
  // no name: the start of one session's id (the first characters of a UUID, as `bc claude log`
  // takes them); a thread both live and archived counts once
  const prefixed = byIdPrefix(files, id);
  if (prefixed.length === 1) return prefixed[0]!.path;
  if (prefixed.length > 1)
    throw new BcError(
      "usage",
      `${arg} is the start of ${prefixed.length} session ids: ${prefixed.map((m) => m.id).join(", ")}`,
      "give more of the id, or the file path",
    );
  // none of this host's: the other host's session, if it is one, so that the command's reader
  // says what it is (as it does for the same file given by path)
  if (only !== undefined) return resolveSession(arg, places);
  throw new BcError(
    "not-found",
    `${arg}: no such file, and no session with that id or name`,
    `looked for ${join(claudeProjects(places), "*", `${arg}.jsonl`)}, ${join(sessionsDir(codexHomeOf(places)), "**", `rollout-*-${arg}.jsonl[.zst]`)}, ${join(archivedDir(codexHomeOf(places)), `rollout-*-${arg}.jsonl[.zst]`)}, the names in ${sessionIndexPath(codexHomeOf(places))} and Claude Code's session names`,
  );
};
