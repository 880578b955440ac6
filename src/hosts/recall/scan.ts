// Finding the lines of a session file that mention a string, without parsing the file: a byte
// search through the file in large chunks, then only the lines holding a hit are read whole
// (a line can be hundreds of MB) and handed back for parsing. Sessions run to GBs; almost every
// file holds no hit, and costs only a read and a memchr-like search. A compressed rollout
// (.jsonl.zst, as Codex keeps older ones) is decompressed in memory and searched there.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { isZstd, readFileBytes } from "../../util/jsonl.ts";

const CHUNK = 8 * 1024 * 1024;
const BACK_STEP = 64 * 1024;
const NL = 0x0a;

export interface HitLine {
  /** 1-based line number */
  readonly lineNo: number;
  /** byte offset of the line's start */
  readonly offset: number;
  /** the line's first PEEK_BYTES bytes as text (the whole line when shorter): what kind of record it is */
  readonly peek: string;
  /** the line's text, without its newline: read when first asked (a line can be hundreds of MB) */
  readonly text: string;
}

/** How much of a hit line is read before its text is asked for. */
export const PEEK_BYTES = 512;

/** A hit line whose text is read from `read` when first asked, once. */
const hitLine = (lineNo: number, offset: number, peek: string, read: () => string): HitLine => {
  let text: string | undefined;
  return {
    lineNo,
    offset,
    peek,
    get text(): string {
      if (text === undefined) {
        text = read();
        if (text.endsWith("\r")) text = text.slice(0, -1);
      }
      return text;
    },
  };
};

/** Offset of the line start at or before `at` (just after the previous "\n"). */
const lineStart = (fd: number, at: number, buf: Buffer): number => {
  let end = at;
  while (end > 0) {
    const from = Math.max(0, end - BACK_STEP);
    const n = readSync(fd, buf, 0, end - from, from);
    const i = buf.subarray(0, n).lastIndexOf(NL);
    if (i !== -1) return from + i + 1;
    end = from;
  }
  return 0;
};

/** Offset of the "\n" ending the line that holds `at` (or the file size). */
const lineEnd = (fd: number, at: number, size: number, buf: Buffer): number => {
  let pos = at;
  while (pos < size) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
    if (n <= 0) break;
    const i = buf.subarray(0, n).indexOf(NL);
    if (i !== -1) return pos + i;
    pos += n;
  }
  return size;
};

const readRange = (fd: number, from: number, to: number): string => {
  const out = Buffer.allocUnsafe(to - from);
  let got = 0;
  while (got < out.length) {
    const n = readSync(fd, out, got, out.length - got, from + got);
    if (n <= 0) break;
    got += n;
  }
  return out.subarray(0, got).toString("utf8");
};

/** Bytes [from, to) of the file at `path` as text, the file opened again (a hit line read after the search). */
const readRangeOf = (path: string, from: number, to: number): string => {
  const fd = openSync(path, "r");
  try {
    return readRange(fd, from, to);
  } finally {
    closeSync(fd);
  }
};

/** Newlines in [from, to). */
const countLines = (fd: number, from: number, to: number, buf: Buffer): number => {
  let count = 0;
  let pos = from;
  while (pos < to) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos);
    if (n <= 0) break;
    const view = buf.subarray(0, n);
    for (let i = view.indexOf(NL); i !== -1; i = view.indexOf(NL, i + 1)) count++;
    pos += n;
  }
  return count;
};

/** The lines of `bytes` (a whole decompressed file) that contain `want`, as linesContaining gives them. */
const linesIn = (bytes: Buffer, want: Buffer): HitLine[] => {
  const hits: HitLine[] = [];
  let lineNo = 1;
  let counted = 0;
  for (let at = bytes.indexOf(want); at !== -1; ) {
    const start = bytes.lastIndexOf(NL, at) + 1;
    const nl = bytes.indexOf(NL, at);
    const end = nl === -1 ? bytes.length : nl;
    for (let i = bytes.indexOf(NL, counted); i !== -1 && i < start; i = bytes.indexOf(NL, i + 1)) lineNo++;
    counted = start;
    hits.push(
      hitLine(lineNo, start, bytes.subarray(start, Math.min(end, start + PEEK_BYTES)).toString("utf8"), () => bytes.subarray(start, end).toString("utf8")),
    );
    at = end >= bytes.length ? -1 : bytes.indexOf(want, end + 1);
  }
  return hits;
};

/** Whether the open file starts with zstd's magic number. */
const zstdAt = (fd: number): boolean => {
  const head = Buffer.alloc(4);
  return readSync(fd, head, 0, 4, 0) === 4 && isZstd(head);
};

/** The distinct lines of `path` that contain `needle` (as UTF-8 bytes), in file order. */
export const linesContaining = (path: string, needle: string): HitLine[] => {
  const want = Buffer.from(needle, "utf8");
  if (want.length === 0) return [];
  const fd = openSync(path, "r");
  try {
    if (zstdAt(fd)) {
      const bytes = readFileBytes(path, "a Codex rollout");
      return linesIn(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), want);
    }
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(size, want.length)));
    const aux = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(BACK_STEP, 1)));
    const hits: HitLine[] = [];
    let pos = 0;
    let counted = 0;
    let lineNo = 1;
    while (pos < size) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
      if (n <= 0) break;
      const i = buf.subarray(0, n).indexOf(want);
      if (i === -1) {
        if (pos + n >= size) break;
        pos += Math.max(1, n - (want.length - 1));
        continue;
      }
      const at = pos + i;
      const start = lineStart(fd, at, aux);
      const end = lineEnd(fd, at, size, aux);
      lineNo += countLines(fd, counted, start, aux);
      counted = start;
      hits.push(hitLine(lineNo, start, readRange(fd, start, Math.min(end, start + PEEK_BYTES)), () => readRangeOf(path, start, end)));
      pos = end + 1;
    }
    return hits;
  } finally {
    closeSync(fd);
  }
};

/** The first `bytes` of a file as text (a session's opening record, for its cwd). */
export const headOf = (path: string, bytes: number): string => {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    return readRange(fd, 0, Math.min(size, bytes));
  } finally {
    closeSync(fd);
  }
};

/** The last `bytes` of a file as text, and the offset they start at (0: the whole file). */
export const tailOf = (path: string, bytes: number): { text: string; from: number } => {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const from = Math.max(0, size - bytes);
    return { text: readRange(fd, from, size), from };
  } finally {
    closeSync(fd);
  }
};
