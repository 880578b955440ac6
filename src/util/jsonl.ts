// JSON Lines in and out, losslessly: every line keeps its raw text so an unchanged file
// writes back byte for byte; a malformed line is reported as `file:line: why` and kept raw.
import { closeSync, existsSync, fsyncSync, linkSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { BcError } from "./errors.ts";
import { parseJsonLine } from "./huge-line.ts";

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
}

export interface JsonlFile {
  readonly path: string;
  readonly lines: readonly JsonlLine[];
  /** whether the file ended with "\n" */
  readonly endsWithNewline: boolean;
  /** `file:line: why` for each malformed line (a partial last line is not counted) */
  readonly malformed: readonly string[];
  readonly bytes: number;
}

/** A one-line error when `path` is missing, a directory or empty. */
export const checkFile = (path: string, what = "a JSONL session file"): void => {
  if (!existsSync(path)) throw new BcError("not-found", `${path}: no such file`, `expected ${what}`);
  const st = statSync(path);
  if (st.isDirectory()) throw new BcError("bad-input", `${path}: is a directory`, `expected ${what}`);
  if (st.size === 0) throw new BcError("bad-input", `${path}: the file is empty`, `expected ${what}`);
};

/** Read a file's text with one-line errors for what a user can get wrong. */
export const readTextFile = (path: string, what = "a JSONL session file"): string => {
  checkFile(path, what);
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new BcError("bad-input", `${path}: cannot be read (${(e as Error).message})`, `expected ${what}`);
  }
};

const describeParseError = (raw: string, e: unknown): string => {
  const msg = e instanceof Error ? e.message : String(e);
  const head = raw.length > 40 ? raw.slice(0, 40) + "…" : raw;
  return `not valid JSON (${msg}): ${JSON.stringify(head)}`;
};

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
      const body = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (body.trim() === "") {
        lines.push({ lineNo, raw, value: undefined });
      } else {
        try {
          lines.push({ lineNo, raw, value: parseJsonLine(body) });
        } catch (e) {
          const partial = isLast && !endsWithNewline;
          const error = partial ? "incomplete last line (the file is still being written)" : describeParseError(body, e);
          lines.push({ lineNo, raw, value: undefined, error, partial });
          if (!partial) malformed.push(`${path}:${lineNo}: ${error}`);
        }
      }
      start = nl + 1;
      if (isLast) break;
    }
  }
  return { path, lines, endsWithNewline, malformed, bytes: Buffer.byteLength(text) };
};

/** Join raw lines back into file text. */
export const joinJsonl = (raws: readonly string[], endsWithNewline: boolean): string =>
  raws.join("\n") + (endsWithNewline && raws.length > 0 ? "\n" : "");

/**
 * Write `text` to a temporary file beside `path`, let `check` read it back, then make it
 * visible atomically. An existing `path` is never overwritten. On any failure nothing is left behind.
 * `link` is the hard-link call (replaceable to test a filesystem without hard links).
 */
export const writeAtomically = (path: string, text: string, check?: (tmpPath: string) => void, link: (from: string, to: string) => void = linkSync): void => {
  if (existsSync(path)) throw new BcError("exists", `${path}: already exists; refusing to overwrite`);
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, "wx", 0o600);
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
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
    if (fd !== undefined) closeSync(fd);
    if (existsSync(tmp)) unlinkSync(tmp);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new BcError("exists", `${path}: already exists; refusing to overwrite`);
    if (e instanceof BcError || code === undefined) throw e;
    throw new BcError("bad-input", `${path}: cannot be written (${code}: ${(e as Error).message.replace(/^\w+: /, "")})`, "nothing was written; check the folder exists, is writable and has room");
  }
};

/** errno codes of a filesystem that cannot make hard links */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

