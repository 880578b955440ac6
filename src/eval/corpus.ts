// The corpus an eval runs on: files and folders given by the user, the user's own sessions,
// or the embedded examples. Each file is named in the report by a short, stable name, and the
// corpus fingerprint depends on the files' contents only (not on their names or paths), so the
// same sessions give the same fingerprint whoever runs them from wherever.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, relative, resolve, sep } from "node:path";
import { laterRollouts } from "../hosts/codex/rollout-files.ts";

export interface CorpusFile {
  readonly path: string;
  /** what the report calls it: relative to the folder given (with that folder's name), or the file name; where two would share one, the last parts of their paths that tell them apart */
  readonly name: string;
  /** the path given on the command line it was found by, as the report names it (for --split) */
  readonly group?: string;
}

export interface Skipped {
  readonly file: string;
  /** one line: `file:line: why` where a line is known */
  readonly reason: string;
}

const posix = (p: string): string => p.split(sep).join("/");

/** Every session file below `dir`; a folder that cannot be listed is skipped, and said with why. */
const walk = (dir: string, out: string[], skipped: Skipped[], depth = 0): void => {
  let entries: { name: string; dir: boolean }[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }).map((e) => ({ name: e.name, dir: e.isDirectory() }));
  } catch (e) {
    skipped.push({
      file: dir,
      reason: `${dir}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); the sessions in it are left out`,
    });
    return;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = join(dir, e.name);
    if (e.dir) {
      if (depth < 12) walk(p, out, skipped, depth + 1);
    } else if (e.name.endsWith(".jsonl")) out.push(p);
    // a compressed rollout, unless its plain copy is beside it
    else if (e.name.endsWith(".jsonl.zst") && !entries.some((x) => x.name === e.name.slice(0, -".zst".length))) out.push(p);
  }
};

/** Expand files and folders (folders: every *.jsonl and *.jsonl.zst below them). Missing paths are skipped, with the reason. */
export const collectFiles = (args: readonly string[]): { files: CorpusFile[]; skipped: Skipped[]; groups: string[] } => {
  const files: CorpusFile[] = [];
  const skipped: Skipped[] = [];
  const seen = new Map<string, CorpusFile>();
  const groups = groupNames(args);
  let group = "";
  const add = (path: string, name: string): CorpusFile => {
    // one file given twice (F and ./F, or a folder and a file in it) is read once: twice, its
    // contents would count twice in the fingerprint
    const real = realPath(path);
    const known = seen.get(real);
    if (known !== undefined) return known;
    const file = { path, name, group };
    seen.set(real, file);
    files.push(file);
    return file;
  };
  // files given by name are read whatever else is given; of those found in a folder, where a Codex
  // thread bc compacted live went on in a new file, that file is left out when the thread's first
  // file is there too
  const named = new Set<CorpusFile>();
  for (const [i, arg] of args.entries()) {
    group = groups[i]!;
    if (!existsSync(arg)) {
      skipped.push({ file: arg, reason: `${arg}: no such file or folder` });
      continue;
    }
    if (statSync(arg).isDirectory()) {
      const found: string[] = [];
      walk(arg, found, skipped);
      const base = basename(join(arg, "."));
      for (const p of found) add(p, posix(join(base, relative(arg, p))));
    } else named.add(add(arg, basename(arg)));
  }
  const later = new Map([...laterRollouts(files, (f) => f.path)].filter(([f]) => !named.has(f)));
  for (const [f, { file, first }] of later)
    skipped.push({
      file: f.path,
      reason: `${f.path}: Codex went on in this file after bc compacted the thread live (it holds bc's own cuts); the thread is replayed from its ${first ? "first file" : "earliest file here"}, ${file.name}`,
    });
  return { files: sortFiles(uniqueNames(files.filter((f) => !later.has(f)))), skipped, groups };
};

const realPath = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
};

/**
 * The files, each name unique: files that share a name (s.jsonl given from two folders) are
 * named by the last parts of their paths instead, as few as tell them apart from each other and
 * from every other name, so the report (the lost list above all) says which file is which.
 */
export const uniqueNames = (files: readonly CorpusFile[]): CorpusFile[] => {
  let out = [...files];
  // each round settles one shared name; a new name that meets an old one is settled in a later round
  for (let round = 0; round <= files.length; round++) {
    const count = new Map<string, number>();
    for (const f of out) count.set(f.name, (count.get(f.name) ?? 0) + 1);
    const shared = [...count].find(([, n]) => n > 1)?.[0];
    if (shared === undefined) return out;
    const group = out.filter((f) => f.name === shared);
    const others = new Set(out.filter((f) => f.name !== shared).map((f) => f.name));
    const parts = group.map((f) => posix(resolve(f.path)).split("/"));
    const longest = Math.max(...parts.map((p) => p.length));
    let names: string[] = [];
    for (let k = 1; k <= longest; k++) {
      names = parts.map((p) => p.slice(-k).join("/"));
      if (new Set(names).size === names.length && !names.some((n) => others.has(n))) break;
    }
    out = out.map((f) => {
      const i = group.indexOf(f);
      return i < 0 ? f : { ...f, name: names[i]! };
    });
  }
  return out;
};

/** What the report calls each given path: its last component, numbered where two share one. */
export const groupNames = (args: readonly string[]): string[] => {
  const base = args.map((a) => basename(join(a, ".")) || a);
  return base.map((b, i) => (base.filter((x) => x === b).length > 1 ? `${b} (${base.slice(0, i + 1).filter((x) => x === b).length})` : b));
};

/** A discovered session's report name: its path under the home folder. */
export const homeName = (path: string): string => {
  const home = homedir();
  return path.startsWith(home + sep) ? `~/${posix(relative(home, path))}` : posix(path);
};

export const sortFiles = (files: readonly CorpusFile[]): CorpusFile[] =>
  [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

/** sha256 of a file's bytes, hex */
export const contentHash = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** sha256 over the sorted content hashes of the files: names, paths and order do not count. */
export const fingerprint = (contentHashes: readonly string[]): string => {
  const h = createHash("sha256");
  for (const c of [...contentHashes].sort()) h.update(`${c}\n`);
  return h.digest("hex");
};

/** Why a listed file could not be read, in words, named as the report names it (not the system's message with its absolute path). */
export const unreadable = (name: string, e: unknown): string => {
  const code = (e as { code?: unknown } | undefined)?.code;
  if (code === "ENOENT") return `${name}: no longer there (removed after it was listed)`;
  if (code === "EACCES" || code === "EPERM") return `${name}: cannot be read (permission denied)`;
  if (code === "EISDIR") return `${name}: is a folder, not a file`;
  return `${name}: cannot be read (${typeof code === "string" ? code : e instanceof Error ? e.message : String(e)})`;
};

/** Why a file could not be read as a session: the loader's one-line reason, under the name the report uses instead of its path. */
export const notASession = (f: CorpusFile, e: unknown): string => {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.includes(f.path) ? msg.split(f.path).join(f.name) : `${f.name}: ${msg}`;
};
