// `bc recall <call id>`: the original output of a tool call, byte for byte, from the files the host
// keeps. Nothing bc does deletes an output from disk: Claude Code keeps the records above each
// compact boundary, and a Codex fork is a copy of its source rollout plus the pruned history. So
// the original is looked for where the host keeps it, nearest first:
//   1. the session given (and, for Claude Code, its subagent files);
//   2. the current project's sessions, newest first: Claude Code's folder for the working
//      directory, and Codex rollouts whose session_meta `cwd` is the working directory;
//   3. every other session under ~/.claude/projects and $CODEX_HOME/sessions.
// A tier that holds the original ends the search. Each file is searched for the id's bytes first;
// only the lines that hold them are parsed.
import { statSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import type { Host } from "../../engine/types.ts";
import { readNote } from "../../engine/notes.ts";
import { BcError } from "../../util/errors.ts";
import { parseJsonLine } from "../../util/huge-line.ts";
import { claudeDirFor, projectFolders } from "../claude/home.ts";
import { subagentFiles } from "../claude/transcript.ts";
import { defaultCodexHome } from "../codex/home.ts";
import { detectHost, resolveSession } from "../load.ts";
import { headOf, linesContaining } from "./scan.ts";
import { sightingsIn, type CallSighting, type OutputSighting, type StoredImage } from "./records.ts";
import { listDir } from "../../util/dirs.ts";
import { rolloutFiles } from "../codex/rollout-files.ts";

export interface RecallPlaces {
  /** the user's home (default: os.homedir()) */
  readonly home?: string;
  /** Claude Code's folder (default: $CLAUDE_CONFIG_DIR, else <home>/.claude) */
  readonly claudeDir?: string;
  /** default: $CODEX_HOME, else <home>/.codex */
  readonly codexHome?: string;
  /** the project: its sessions are searched before all others (default: process.cwd()) */
  readonly cwd?: string;
}

export interface RecallOptions extends RecallPlaces {
  /** a session file, or a session id looked up where the hosts keep them */
  readonly session?: string;
}

/** Where a sighting was: file and 1-based line. */
export interface Where {
  readonly path: string;
  readonly lineNo: number;
  readonly host: Host;
}

export type Located<T> = T & Where;

export interface Recalled {
  readonly id: string;
  readonly host: Host;
  /** the tool's name and input, when the call was found */
  readonly tool?: string;
  readonly input?: unknown;
  /** the output's text, exactly as the host stored it (text blocks joined with "\n") */
  readonly text: string;
  readonly isError: boolean;
  readonly images: readonly StoredImage[];
  /** where the original is */
  readonly path: string;
  readonly lineNo: number;
  /** other files holding the same output (a Codex fork and its source, a resumed copy) */
  readonly alsoIn: readonly string[];
  /** how many session files were searched */
  readonly filesSearched: number;
}

/** A tool call id as the hosts write them: printable, no spaces, not absurdly long. */
export const checkCallId = (id: string): void => {
  if (id.trim() === "") throw new BcError("usage", "no call id given", "pass the id a removal note names, e.g. bc recall toolu_01AbC… or bc recall call_…");
  if (!/^[\x21-\x7e]{1,512}$/.test(id) || id.startsWith("-"))
    throw new BcError(
      "usage",
      `${JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id)} is not a tool call id`,
      "expected the id a removal note names (printable, no spaces), e.g. toolu_01AbC… (Claude Code) or call_… (Codex)",
    );
};

const codexHomeOf = (p: RecallPlaces): string => p.codexHome ?? defaultCodexHome(p.home);

/** The project's folders under `projects` (claude/home.ts). */
const claudeProjectDirs = (p: RecallPlaces, cwd: string): string[] => projectFolders(claudeDirFor(p), cwd);

const mtime = (path: string): number => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
};

const newestFirst = (paths: string[]): string[] =>
  paths
    .map((p) => [p, mtime(p)] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([p]) => p);

/** A project folder's transcripts, then their subagent files. */
const claudeProjectFiles = (projectDir: string): string[] => {
  const mains = listDir(projectDir)
    .filter((f) => !f.dir && f.name.endsWith(".jsonl"))
    .map((f) => join(projectDir, f.name));
  return newestFirst(mains).flatMap((m) => [m, ...subagentFiles(m)]);
};

const claudeAllFiles = (p: RecallPlaces): string[] => {
  const root = join(claudeDirFor(p), "projects");
  return listDir(root)
    .filter((d) => d.dir)
    .flatMap((d) => claudeProjectFiles(join(root, d.name)));
};

/**
 * Codex's rollouts, plain or compressed (.jsonl.zst; beside a plain one of the same name, Codex
 * reads the plain one), and those of threads Codex archived (`archived_sessions`, one folder).
 */
const codexAllFiles = (p: RecallPlaces): string[] => newestFirst(rolloutFiles(codexHomeOf(p), true).map((f) => f.path));

/**
 * The session_meta `cwd` of a rollout (its first record), read from the file's head only. A
 * compressed rollout (an older one) is not read for it: it would have to be decompressed whole,
 * and it is searched with every other session anyway.
 */
const rolloutCwd = (path: string): string | undefined => {
  if (path.endsWith(".zst")) return undefined;
  let head: string;
  try {
    head = headOf(path, 256 * 1024);
  } catch {
    return undefined;
  }
  const first = head.slice(0, head.indexOf("\n") === -1 ? head.length : head.indexOf("\n"));
  const m = /"cwd"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(first);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]!) as string;
  } catch {
    return undefined;
  }
};

interface Tier {
  readonly name: string;
  readonly files: readonly { path: string; host: Host }[];
}

/** The current project's session files, newest first: Claude Code's folder for the cwd, Codex rollouts whose cwd it is. */
export const projectSessionFiles = (opts: RecallPlaces): { path: string; host: Host }[] => {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const claude = claudeProjectDirs(opts, cwd).flatMap((projectDir) =>
    listDir(projectDir)
      .filter((f) => !f.dir && f.name.endsWith(".jsonl"))
      .map((f) => ({ path: join(projectDir, f.name), host: "claude" as const })),
  );
  const codex = codexAllFiles(opts)
    .filter((f) => rolloutCwd(f) === cwd)
    .map((path) => ({ path, host: "codex" as const }));
  return [...claude, ...codex]
    .map((f) => [f, mtime(f.path)] as const)
    .sort((a, b) => b[1] - a[1])
    .map(([f]) => f);
};

const tiers = (opts: RecallOptions): Tier[] => {
  const out: Tier[] = [];
  if (opts.session !== undefined) {
    const path = resolveSession(opts.session, { home: opts.home, claudeDir: opts.claudeDir, codexHome: opts.codexHome, cwd: opts.cwd });
    const host = detectHost(path);
    const files = [{ path, host }, ...(host === "claude" ? subagentFiles(path).map((f) => ({ path: f, host })) : [])];
    out.push({ name: `the session ${path}`, files });
  }
  const cwd = resolve(opts.cwd ?? process.cwd());
  const projectDirs = claudeProjectDirs(opts, cwd);
  const codexAll = codexAllFiles(opts);
  const codexProject = codexAll.filter((f) => rolloutCwd(f) === cwd);
  out.push({
    name: `this project's sessions (${cwd})`,
    files: [
      ...projectDirs.flatMap((d) => claudeProjectFiles(d)).map((path) => ({ path, host: "claude" as const })),
      ...codexProject.map((path) => ({ path, host: "codex" as const })),
    ],
  });
  const inProject = new Set(codexProject);
  out.push({
    name: `every session under ${join(claudeDirFor(opts), "projects")}, ${join(codexHomeOf(opts), "sessions")} and ${join(codexHomeOf(opts), "archived_sessions")}`,
    files: [
      ...claudeAllFiles(opts)
        .filter((f) => !projectDirs.some((d) => f.startsWith(`${d}${sep}`)))
        .map((path) => ({ path, host: "claude" as const })),
      ...codexAll.filter((f) => !inProject.has(f)).map((path) => ({ path, host: "codex" as const })),
    ],
  });
  return out;
};

/** Everything one file says about a call id. */
export interface FileFindings {
  readonly path: string;
  readonly host: Host;
  readonly calls: readonly Located<CallSighting>[];
  readonly outputs: readonly Located<OutputSighting>[];
  /** lines that hold the id's bytes */
  readonly mentions: readonly number[];
  /** lines holding the id that are not JSON */
  readonly malformed: readonly number[];
}

const COMPACTED_LINE = /^\{[^{]*"type"\s*:\s*"compacted"/;

/** Search one session file for a call id: byte search first, then only the lines that hold it are parsed. */
export const findInFile = (path: string, host: Host, id: string): FileFindings => {
  const needle = JSON.stringify(id).slice(1, -1);
  const calls: Located<CallSighting>[] = [];
  const outputs: Located<OutputSighting>[] = [];
  const mentions: number[] = [];
  const malformed: number[] = [];
  for (const hit of linesContaining(path, needle)) {
    mentions.push(hit.lineNo);
    // once the output as recorded is found, a Codex compacted record (a copy of the history, often
    // MBs on one line) adds nothing: it is not parsed
    if (host === "codex" && COMPACTED_LINE.test(hit.peek) && outputs.some((o) => !o.copy && !o.cut)) continue;
    let value: unknown;
    try {
      value = parseJsonLine(hit.text);
    } catch {
      malformed.push(hit.lineNo);
      continue;
    }
    for (const s of sightingsIn(value, host, id)) {
      const where = { path, lineNo: hit.lineNo, host };
      if (s.kind === "call") calls.push({ ...s, ...where });
      else outputs.push({ ...s, ...where });
    }
  }
  return { path, host, calls, outputs, mentions, malformed };
};

/** A file's original output for the id: the first uncut output recorded as it happened, else the first uncut copy. */
const originalIn = (f: FileFindings): Located<OutputSighting> | undefined => f.outputs.find((o) => !o.cut && !o.copy) ?? f.outputs.find((o) => !o.cut);

const where = (w: Where): string => `${w.path}:${w.lineNo}`;

/** Find the original output of a tool call; a one-line BcError when it cannot be given back exactly. */
export const recall = (id: string, opts: RecallOptions = {}): Recalled => {
  checkCallId(id);
  const seen = new Set<string>();
  const findings: FileFindings[] = [];
  let searched = 0;
  const looked: string[] = [];
  for (const tier of tiers(opts)) {
    looked.push(tier.name);
    const here: FileFindings[] = [];
    for (const f of tier.files) {
      if (seen.has(f.path)) continue;
      seen.add(f.path);
      searched++;
      let found: FileFindings;
      try {
        found = findInFile(f.path, f.host, id);
      } catch (e) {
        if (tier.name.startsWith("the session")) throw new BcError("bad-input", `${f.path}: cannot be read (${(e as Error).message})`);
        continue;
      }
      if (found.mentions.length > 0) here.push(found);
    }
    findings.push(...here);
    const originals = here.map((f) => [f, originalIn(f)] as const).filter((x): x is readonly [FileFindings, Located<OutputSighting>] => x[1] !== undefined);
    if (originals.length === 0) continue;
    const distinct = new Map<string, (typeof originals)[number][]>();
    for (const x of originals) {
      const key = `${x[1].isError ? 1 : 0}:${x[1].text}`;
      const group = distinct.get(key);
      if (group) group.push(x);
      else distinct.set(key, [x]);
    }
    if (distinct.size > 1)
      throw new BcError(
        "bad-input",
        `${id} names ${distinct.size} different outputs in ${originals.length} sessions: ${originals.map(([, o]) => where(o)).join(", ")}`,
        "pass --session <session id, name or file> to say which",
      );
    const [, best] = originals.reduce((a, b) => (b[1].images.length > a[1].images.length ? b : a));
    const call = findings.flatMap((f) => f.calls).find((c) => !c.copy) ?? findings.flatMap((f) => f.calls)[0];
    return {
      id,
      host: best.host,
      ...(call ? { tool: call.tool, input: call.input } : {}),
      text: best.text,
      isError: best.isError,
      images: best.images,
      path: best.path,
      lineNo: best.lineNo,
      alsoIn: originals.map(([f]) => f.path).filter((p) => p !== best.path),
      filesSearched: searched,
    };
  }
  const outputs = findings.flatMap((f) => f.outputs);
  if (outputs.length > 0) {
    const o = outputs[0]!;
    const note = readNote(o.text);
    const what = note?.kind === "truncated" ? `only bc's truncated copy (${note.chars} chars removed)` : "only bc's removal note";
    throw new BcError(
      "not-found",
      `${where(o)}: ${what} of ${id} is left; no session file holds the original output any more`,
      `searched ${searched} session files; the transcript that held it was moved or pruned. Re-run the call to see its output again`,
    );
  }
  const calls = findings.flatMap((f) => f.calls);
  if (calls.length > 0) {
    const c = calls[0]!;
    throw new BcError("not-found", `${where(c)}: tool call ${id} (${c.tool}) has no recorded output`, "the call may have been interrupted before it returned");
  }
  const mentions = findings.filter((f) => f.mentions.length > 0);
  if (mentions.length > 0) {
    const f = mentions[0]!;
    if (f.malformed.length > 0)
      throw new BcError(
        "bad-input",
        `${f.path}:${f.malformed[0]}: the line holding ${id} is not valid JSON`,
        "expected a Claude Code transcript or Codex rollout, one JSON record per line",
      );
    throw new BcError(
      "not-found",
      `no tool call ${id}: ${f.path}:${f.mentions[0]} mentions it, but no tool call or output there carries that id`,
      "expected the id a removal note names (the tool call's own id)",
    );
  }
  throw new BcError("not-found", `no tool call ${id} in ${searched} session files`, `searched ${looked.join("; then ")}`);
};
