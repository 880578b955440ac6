// JSON Lines in and out, losslessly: every line keeps its raw text so an unchanged file
// writes back byte for byte; a malformed line is reported as `file:line: why` and kept raw.
// Files are written whole or not at all: a new one (writeAtomically), or in place of one (replaceFile).
import {
  closeSync,
  existsSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { isUtf8 } from "node:buffer";
import { basename, dirname, join } from "node:path";
import { removeMadeDirs } from "./dirs.ts";
import { BcError } from "./errors.ts";
import { HUGE_LINE_CHARS, parseJsonLine } from "./huge-line.ts";

export interface JsonlLine {
  /** 1-based line number in the file */
  readonly lineNo: number;
  /** the line as stored, without its "\n" (a trailing "\r" stays) */
  readonly raw: string;
  /** parsed value; undefined when the line is blank or malformed */
  readonly value: unknown;
  /** why the line could not be parsed */
  readonly error?: string;
  /** the file's last line, with no newline after it, that does not parse: a file still being written */
  readonly partial?: boolean;
  /** a line holding whole records written with no newline between them (`…}}{"timestamp":…`): each record */
  readonly records?: readonly unknown[];
}

export interface JsonlFile {
  readonly path: string;
  readonly lines: readonly JsonlLine[];
  /** whether the file ended with "\n" */
  readonly endsWithNewline: boolean;
  /** `file:line: why` for each line skipped, a partial last line included */
  readonly malformed: readonly string[];
  readonly bytes: number;
}

/** A one-line error when `path` is missing, a directory or empty. */
export const checkFile = (path: string, what = "a JSONL session file"): void => {
  if (!existsSync(path)) throw new BcError("not-found", `${path}: no such file`, `expected ${what}`);
  const st = statSync(path);
  if (st.isDirectory()) throw new BcError("bad-input", `${path}: is a directory`, `expected ${what}`);
  // a pipe or a process substitution (<(zstd -dc …)) has no size until it is read
  if (st.isFile() && st.size === 0) throw new BcError("bad-input", `${path}: the file is empty`, `expected ${what}`);
};

/** A pipe that gave nothing (a regular file of no bytes is "empty" before it is read). */
export const emptyPipe = (path: string, what: string): BcError =>
  new BcError("bad-input", `${path}: nothing to read (a pipe that gave no data, or was read already)`, `expected ${what}`);

/** What was read of each pipe (a process substitution, /dev/stdin): it can be read once only, and is asked for more than once. */
const pipes = new Map<string, Uint8Array>();

/** Whether `path` is a pipe or another file that is not a regular one (its bytes come once, in order). */
export const isStream = (path: string): boolean => {
  const st = statSync(path, { throwIfNoEntry: false });
  return st !== undefined && !st.isFile() && !st.isDirectory();
};

/** Bytes read already, by path, handed to the readers while withBytes runs. */
const held = new Map<string, Uint8Array>();

/**
 * Run `during` with `bytes` as what `path` holds: the readers below take them instead of reading
 * the file again (bc eval hashes a file's bytes, then loads the same bytes as a session).
 */
export const withBytes = <T>(path: string, bytes: Uint8Array, during: () => T): T => {
  const before = held.get(path);
  held.set(path, bytes);
  try {
    return during();
  } finally {
    if (before === undefined) held.delete(path);
    else held.set(path, before);
  }
};

/** Whether withBytes holds `path`'s bytes. */
export const isHeld = (path: string): boolean => held.has(path);

/** A file's bytes as they are on disk (or as withBytes holds them); a pipe's, read once and kept for the next ask. */
export const readOnce = (path: string): Uint8Array => {
  const given = held.get(path);
  if (given !== undefined) return given;
  if (!isStream(path)) return readFileSync(path);
  let bytes = pipes.get(path);
  if (bytes === undefined) {
    bytes = readFileSync(path);
    pipes.set(path, bytes);
  }
  return bytes;
};

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
export const isZstd = (b: Uint8Array): boolean => ZSTD_MAGIC.every((x, i) => b[i] === x);

/**
 * A session file that cannot be read, said in one line: a permission the user can fix is named
 * as such, with what to look at, rather than what the file was expected to be.
 */
export const cannotRead = (path: string, e: unknown, what: string): BcError => {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM")
    return new BcError("bad-input", `${path}: cannot be read (permission denied)`, "check who may read it: ls -l on the file and its folders");
  return new BcError("bad-input", `${path}: cannot be read (${(e as Error).message})`, `expected ${what}`);
};

/**
 * A file's bytes, with one-line errors for what a user can get wrong. A zstd-compressed file
 * (`.jsonl.zst`, as Codex keeps older rollouts) comes back decompressed; the file itself is only read.
 */
export const readFileBytes = (path: string, what = "a JSONL session file"): Uint8Array => {
  checkFile(path, what);
  let bytes: Uint8Array;
  try {
    bytes = readOnce(path);
  } catch (e) {
    throw cannotRead(path, e, what);
  }
  if (bytes.length === 0) throw emptyPipe(path, what);
  if (!isZstd(bytes)) {
    if (path.endsWith(".zst")) throw new BcError("bad-input", `${path}: not zstd-compressed, though its name ends in .zst`, `expected ${what}`);
    return bytes;
  }
  try {
    return Bun.zstdDecompressSync(bytes);
  } catch (e) {
    throw new BcError("bad-input", `${path}: cannot be decompressed (${(e as Error).message})`, `expected ${what} compressed with zstd`);
  }
};

/** Bytes as text; invalid UTF-8 reads as U+FFFD (copies are made from the bytes, never from this text). */
export const decodeUtf8 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");

/** Read a file's text with one-line errors for what a user can get wrong. */
export const readTextFile = (path: string, what = "a JSONL session file"): string => decodeUtf8(readFileBytes(path, what));

/**
 * Where each line of `bytes` starts and ends (the "\n" excluded), as parseJsonl numbers them:
 * line k (1-based) is bytes[starts[k-1], ends[k-1]). "\n" is one byte in UTF-8 and never part of
 * another character, so the lines of the bytes and of their decoded text are the same lines.
 */
export const lineSpans = (bytes: Uint8Array): { starts: number[]; ends: number[] } => {
  const starts: number[] = [];
  const ends: number[] = [];
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 10 ? bytes.length - 1 : bytes.length;
  if (bytes.length === 0) return { starts, ends };
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let start = 0;
  for (;;) {
    let nl = buf.indexOf(10, start);
    if (nl === -1 || nl > end) nl = end;
    starts.push(start);
    ends.push(nl);
    if (nl >= end) break;
    start = nl + 1;
  }
  return { starts, ends };
};

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The 1-based numbers of the lines of `bytes` that are not valid UTF-8 (decoded, they hold U+FFFD
 * where the bad bytes were). Valid bytes, nearly always, cost one native check.
 */
export const linesNotUtf8 = (bytes: Uint8Array): number[] => {
  if (isUtf8(bytes)) return [];
  const { starts, ends } = lineSpans(bytes);
  const out: number[] = [];
  for (let k = 0; k < starts.length; k++) {
    try {
      strictUtf8.decode(bytes.subarray(starts[k]!, ends[k]!));
    } catch {
      out.push(k + 1);
    }
  }
  return out;
};

/** What a binary file's first bytes say it is. */
const BINARY_KINDS: [RegExp, string][] = [
  [/^\uFFFDPNG/, "a PNG image"],
  [/^GIF8/, "a GIF image"],
  [/^\uFFFD\uFFFD\uFFFD/, "binary data"],
  [/^%PDF/, "a PDF document"],
  [/^PK\u0003\u0004/, "a zip archive"],
];

const describeParseError = (raw: string, e: unknown, lineNo: number): string => {
  const head = raw.slice(0, 64);
  // NUL and other control bytes never stand bare in JSON text; a line of them is a binary file
  if (/[\u0000-\u0008\u000e-\u001a]/.test(head) || head.startsWith("\uFFFD")) {
    const kind = lineNo === 1 ? (BINARY_KINDS.find(([re]) => re.test(head))?.[1] ?? "binary data") : "binary data";
    return `${kind}, not JSON`;
  }
  const msg = e instanceof Error ? e.message : String(e);
  const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
  return `not valid JSON (${msg}): ${JSON.stringify(shown)}`;
};

/** At most this many `}{` places are tried when a line does not parse (a huge damaged line stays cheap). */
const MAX_SPLITS = 64;

/**
 * The records of a line where a writer put whole records one after another with no newline
 * between them (`{…}}{"timestamp":…`), or undefined when the line is not such a run.
 */
export const splitRecords = (body: string): unknown[] | undefined => {
  const out: unknown[] = [];
  let from = 0;
  let tries = 0;
  const limit = body.length > HUGE_LINE_CHARS ? 4 : MAX_SPLITS;
  let at = body.indexOf("}{", from);
  while (at !== -1 && tries++ < limit) {
    try {
      out.push(parseJsonLine(body.slice(from, at + 1)));
      from = at + 1;
      try {
        out.push(parseJsonLine(body.slice(from)));
        return out.every((v) => typeof v === "object" && v !== null && !Array.isArray(v)) ? out : undefined;
      } catch {
        // more than two records, or the rest is damaged: look for the next boundary
      }
    } catch {
      // a `}{` inside a string: keep looking
    }
    at = body.indexOf("}{", at + 1);
  }
  return undefined;
};

/** The message for a line of whole records run together; how each reader treats it is said by the reader. */
export const runTogether = (n: number): string => `${n} records with no newline between them`;

/** Split and parse JSONL text. Never throws on content. */
export const parseJsonl = (text: string, path: string): JsonlFile => {
  const lines: JsonlLine[] = [];
  const malformed: string[] = [];
  const endsWithNewline = text.endsWith("\n");
  const end = endsWithNewline ? text.length - 1 : text.length;
  let start = 0;
  let lineNo = 0;
  if (text.length > 0) {
    while (start <= end) {
      let nl = text.indexOf("\n", start);
      if (nl === -1 || nl > end) nl = end;
      const raw = text.slice(start, nl);
      lineNo++;
      const isLast = nl >= end;
      let body = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      // a byte-order mark before the first record: read through it (the raw line keeps it)
      if (lineNo === 1 && body.charCodeAt(0) === 0xfeff) body = body.slice(1);
      if (body.trim() === "") {
        lines.push({ lineNo, raw, value: undefined });
      } else {
        try {
          lines.push({ lineNo, raw, value: parseJsonLine(body) });
        } catch (e) {
          const records = splitRecords(body);
          const partial = records === undefined && isLast && !endsWithNewline;
          const error =
            records !== undefined
              ? runTogether(records.length)
              : partial
                ? "incomplete last line, cut mid-JSON (the file may still be being written)"
                : describeParseError(body, e, lineNo);
          lines.push({ lineNo, raw, value: undefined, error, partial, ...(records === undefined ? {} : { records }) });
          malformed.push(`${path}:${lineNo}: ${error}`);
        }
      }
      start = nl + 1;
      if (isLast) break;
    }
  }
  return { path, lines, endsWithNewline, malformed, bytes: Buffer.byteLength(text) };
};

/** Join raw lines back into file text. */
export const joinJsonl = (raws: readonly string[], endsWithNewline: boolean): string => raws.join("\n") + (endsWithNewline && raws.length > 0 ? "\n" : "");

let tempCount = 0;
/** A new name beside `path`, in its folder: a rename within one filesystem is atomic. */
const tempBeside = (path: string): string => join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.${tempCount++}.tmp`);

/**
 * Write `text` whole to a new temporary file beside `path` and fsync it; returns its name. On a
 * failure the temporary file is gone. `keep`: the file it will replace, whose mode (and owner, where
 * the system lets bc) it takes; otherwise it is made with `mode`, narrowed by the umask.
 */
const writeTemp = (path: string, text: string | Uint8Array, opts: { mode: number; keep?: Stats }): string => {
  const tmp = tempBeside(path);
  // a kept mode is set by fchmod, which the umask does not narrow
  const fd = openSync(tmp, "wx", opts.keep === undefined ? opts.mode : 0o600);
  try {
    if (opts.keep !== undefined) {
      fchmodSync(fd, opts.keep.mode & 0o7777);
      try {
        // root replacing a user's settings: were they root's now, the user could no longer read them
        fchownSync(fd, opts.keep.uid, opts.keep.gid);
      } catch {
        // only root may give a file away: anyone else's new file stays theirs
      }
    }
    const bytes = typeof text === "string" ? Buffer.from(text) : text;
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(tmp);
    throw e;
  }
  closeSync(fd);
  return tmp;
};

/**
 * Write `text` to a temporary file beside `path`, let `check` read it back, then make it
 * visible atomically. An existing `path` is never overwritten. On any failure nothing is left behind.
 * `link` is the hard-link call (replaceable to test a filesystem without hard links).
 */
export const writeAtomically = (
  path: string,
  text: string | Uint8Array,
  check?: (tmpPath: string) => void,
  link: (from: string, to: string) => void = linkSync,
): void => {
  if (existsSync(path)) throw new BcError("exists", `${path}: already exists; refusing to overwrite`);
  let tmp: string | undefined;
  try {
    tmp = writeTemp(path, text, { mode: 0o600 });
    check?.(tmp);
    // link + unlink: fails (instead of replacing) if `path` appeared meanwhile
    try {
      link(tmp, path);
      unlinkSync(tmp);
    } catch (e) {
      // a filesystem without hard links: rename, after checking once more that nothing is there
      if (!NO_LINKS.has((e as NodeJS.ErrnoException).code ?? "")) throw e;
      if (existsSync(path)) throw new BcError("exists", `${path}: already exists; refusing to overwrite`);
      renameSync(tmp, path);
    }
  } catch (e) {
    if (tmp !== undefined && existsSync(tmp)) unlinkSync(tmp);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new BcError("exists", `${path}: already exists; refusing to overwrite`);
    if (e instanceof BcError || code === undefined) throw e;
    throw new BcError(
      "bad-input",
      `${path}: cannot be written (${code}: ${(e as Error).message.replace(/^\w+: /, "")})`,
      "nothing was written; check the folder exists, is writable and has room",
    );
  }
};

/** errno codes of a filesystem that cannot make hard links */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

export interface ReplaceOptions {
  /** permission bits of a file made new (a file replaced keeps its own); by default its owner's alone */
  readonly newMode?: number;
  /** the error's hint: what a failure left as it was (one that leaves some files replaced names them instead) */
  readonly hint?: string;
}

/**
 * Put `text` in place of what `path` holds, so a reader sees the old file or the new one whole:
 * written and fsynced beside it, then renamed over it. A symlink stays a link and the file it
 * names is replaced (a dotfiles setup keeps its link); a file replaced keeps its mode (settings can
 * hold an API key). Missing folders are made. On any failure the old file is as it was, no
 * temporary file or folder made for it is left, and the error is one line naming `path`.
 */
export const replaceFile = (path: string, text: string | Uint8Array, opts: ReplaceOptions = {}): void => replaceFiles([{ path, text }], opts);

/**
 * replaceFile for files that go together: all are written, and each checked to be no folder, before
 * any is renamed, so a failure while writing leaves each as it was. A rename that still fails (a
 * folder in a file's place after its check: another program's, or the one made for a later file)
 * leaves the files renamed before it replaced: the error's hint then names them, and those left as
 * they were.
 */
export const replaceFiles = (files: readonly { readonly path: string; readonly text: string | Uint8Array }[], opts: ReplaceOptions = {}): void => {
  const made: { dir: string; created: string | undefined }[] = [];
  const staged: { path: string; tmp: string; target: string }[] = [];
  let failing = "";
  let renamed = 0;
  try {
    for (const { path, text } of files) {
      failing = path;
      const target = existsSync(path) ? realpathSync(path) : path;
      made.push({ dir: dirname(target), created: mkdirSync(dirname(target), { recursive: true }) });
      const keep = existsSync(target) ? statSync(target) : undefined;
      // a folder in its place would fail the rename, after the files before it were renamed
      if (keep?.isDirectory()) throw Object.assign(new Error(`${target}: is a folder`), { code: "EISDIR" });
      staged.push({ path, tmp: writeTemp(target, text, { mode: opts.newMode ?? 0o600, keep }), target });
    }
    for (const { path, tmp, target } of staged) {
      failing = path;
      renameSync(tmp, target);
      renamed++;
    }
  } catch (e) {
    for (const { tmp } of staged) rmSync(tmp, { force: true });
    for (const { dir, created } of made.reverse()) removeMadeDirs(dir, created);
    const code = (e as NodeJS.ErrnoException).code;
    // the system's code in words, not its message: that names the temporary file, which is gone
    const why = code === undefined ? (e instanceof Error ? e.message : String(e)) : writeErrorWords(code);
    const hint = renamed === 0 ? opts.hint : partlyReplaced(staged, renamed);
    throw new BcError("bad-input", `${failing}: cannot be written (${why})`, hint ?? "nothing was written; the file is as it was");
  }
};

/**
 * What a rename phase that failed after `renamed` of `files` left: which were written (replaced, or
 * made), which not, and what puts the set together again: every caller writes the whole set anew
 * when run again.
 */
const partlyReplaced = (files: readonly { path: string }[], renamed: number): string => {
  const done = files.slice(0, renamed).map((f) => f.path);
  const left = files.slice(renamed).map((f) => f.path);
  return `${done.join(", ")} ${done.length === 1 ? "was" : "were"} written; ${left.join(", ")} ${left.length === 1 ? "is as it was" : "are as they were"}: run the same command again once ${left[0]} can be written`;
};

/** errno codes of a failed write, in words */
const WRITE_ERRORS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "a folder is in the way",
  ENOTEMPTY: "a folder is in the way",
  EEXIST: "a file is in the way of its folder",
  ENOTDIR: "a file is in the way of its folder",
  ENOSPC: "no room left on the disk",
  EDQUOT: "no room left on the disk",
  EFBIG: "larger than the system lets a file grow",
  EROFS: "read-only file system",
};

/** A failed write's errno code in words (the code itself when it has none). */
export const writeErrorWords = (code: string): string => WRITE_ERRORS[code] ?? code;
