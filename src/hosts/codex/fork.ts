// The Codex fork writer: copy a rollout under a new thread id
// and append a `compacted` record whose `replacement_history` is the pruned, verbatim history, so
// `codex resume <new id>` continues from it with nothing summarized.
//
// Codex silently skips a record it cannot parse and then resumes the FULL history, so nothing here
// falls back quietly: the text is checked strictly (re-read from the temp file) before it becomes visible.
import { mkdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { estimateTextTokens, estimateTokens } from "../../engine/estimate.ts";
import { apply } from "../../engine/apply.ts";
import { plan } from "../../engine/plan.ts";
import { type BudgetSpec, type ForkBudget, budgetFor } from "./window.ts";
import type { Options, PlanTotals, RuleId, RuleTotals, Session } from "../../engine/types.ts";
import { defaultCodexHome } from "./home.ts";
import { BcError } from "../../util/errors.ts";
import { decodeUtf8, lineSpans, writeAtomically } from "../../util/jsonl.ts";
import { type HistoryItem, rebuildHistory } from "./history.ts";
import { contentText, isOutputItem, isReinjectedContextText, type MessageItem, replaceOutputText, type ResponseItem, sentForm } from "./items.ts";
import { historyToMessages } from "./session-map.ts";
import {
  lastOrdinal,
  lastTokenCount,
  lastTurnContext,
  lastWorldState,
  parseRollout,
  readRollout,
  type Rollout,
  type RolloutFormat,
  threadId,
} from "./rollout.ts";

export type ContextMode = "fresh" | "keep";

type Json = Record<string, any>;

/** What the planner decided, reduced to what the fork needs and prints. */
export interface Pruning extends Omit<PlanTotals, "toolTokensBefore" | "toolTokensAfter"> {
  /** new output text, by index into the rebuilt history; absent: the item is kept as it is */
  readonly outputs: ReadonlyMap<number, string>;
  /** the budget the history was cut to, and whether it was reached (absent: no budget) */
  readonly budget?: ForkBudget & { readonly reached?: boolean };
}

/** Decide new output texts for a rebuilt history (the engine, or a test's own rule). */
export type Pruner = (history: readonly HistoryItem[], rollout: Rollout) => Pruning;

export interface ForkOptions {
  readonly context: ContextMode;
  readonly pruner: Pruner;
  /** $CODEX_HOME (default: env CODEX_HOME, else ~/.codex) */
  readonly codexHome?: string;
  /** write the fork here instead of $CODEX_HOME/sessions/YYYY/MM/DD */
  readonly outDir?: string;
  readonly dryRun?: boolean;
  /** the clock, injected (tests) */
  readonly now?: Date;
  /** the new thread id, injected (tests); default a fresh UUID v7 */
  readonly newId?: string;
  /** test seam: runs on the temp file before it is checked (e.g. to corrupt it) */
  readonly beforeCheck?: (tmpPath: string) => void;
}

export interface ForkResult {
  readonly sourcePath: string;
  readonly sourceId: string;
  readonly newId: string;
  /** where the fork is (or, in a dry run, would be) written */
  readonly path: string;
  readonly format: RolloutFormat;
  readonly context: ContextMode;
  readonly dryRun: boolean;
  /** items in the new replacement_history */
  readonly historyItems: number;
  /** the estimate written into the fresh token_count */
  readonly estimatedTokens: number;
  readonly pruning: Pruning;
  /** the fork's bytes (what was, or would be, written): the source's lines as they are, then bc's records */
  readonly bytes: Uint8Array;
  /** the pruned history as written in the compacted record */
  readonly replacementHistory: readonly Json[];
  /** the source's last line was incomplete (still being written) and was left out */
  readonly partialTail: boolean;
  /** `file:line: what was wrong` for each source line Codex will skip (copied as it is, not in the history) or left out */
  readonly skipped: readonly string[];
  /** the model's context window the source last recorded, if any */
  readonly contextWindow?: number;
  readonly resumeCommand: string;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const CANONICAL_NAME_RE =
  /^rollout-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;
const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// ---------------------------------------------------------------- ids and names

/** UUID v7: 48-bit Unix ms timestamp, version 7, variant 10, the rest random. */
export const uuidV7 = (nowMs: number, random: Uint8Array = crypto.getRandomValues(new Uint8Array(10))): string => {
  if (random.length < 10) throw new Error("uuidV7 needs 10 random bytes");
  const b = new Uint8Array(16);
  let ms = Math.floor(nowMs);
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  b[6] = 0x70 | (random[0]! & 0x0f);
  b[7] = random[1]!;
  b[8] = 0x80 | (random[2]! & 0x3f);
  for (let i = 9; i < 16; i++) b[i] = random[i - 6]!;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

const pad = (n: number): string => String(n).padStart(2, "0");

/** `rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl`, in local time like Codex (recorder.rs). */
export const canonicalFileName = (now: Date, id: string): string =>
  `rollout-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}-${id}.jsonl`;

/** `$CODEX_HOME/sessions/YYYY/MM/DD` (local date, like Codex). */
export const sessionsDayDir = (codexHome: string, now: Date): string =>
  join(codexHome, "sessions", String(now.getFullYear()), pad(now.getMonth() + 1), pad(now.getDate()));

// ---------------------------------------------------------------- building

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Developer/system messages and the user-role context Codex injects itself: `fresh` leaves them for Codex to inject anew. */
export const isInjectedContext = (item: ResponseItem): boolean => {
  if (item.type !== "message") return false;
  const m = item as MessageItem;
  if (m.role === "developer" || m.role === "system") return true;
  if (m.role !== "user") return false;
  return isReinjectedContextText(contentText(m.content));
};

/**
 * The source's lines bc copies: every line but an incomplete last one. A line Codex cannot read is
 * copied as it is; Codex skips it on resume, and so does the fork's history.
 */
const usableLines = (src: Rollout): Rollout["lines"] => {
  const lines = src.partial ? src.lines.slice(0, -1) : src.lines;
  const first = lines.find((l) => l.kind !== "blank");
  if (first?.kind !== "session_meta") throw new BcError("bad-input", `${src.path}:1: not a resumable Codex rollout: the first record is not session_meta`);
  if (src.format === "paginated") {
    const last = lines.findLast((l) => l.kind !== "blank")!;
    if (!("ordinal" in last) || typeof last.ordinal !== "number")
      throw new BcError(
        "bad-input",
        `${src.path}:${last.lineNo}: paginated rollout whose last record has no ordinal`,
        "Codex itself refuses to resume this file",
      );
  }
  return lines;
};

const ZERO_USAGE = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0, total_tokens: 0 };

/** A fresh token_count payload: the source's last one, with the current context size set to the pruned estimate. */
const freshTokenCount = (src: Rollout, estimate: number): Json => {
  const last = lastTokenCount(src);
  const payload: Json =
    last && isObject(last.payload.info)
      ? structuredClone(last.payload)
      : {
          type: "token_count",
          info: { total_token_usage: { ...ZERO_USAGE }, last_token_usage: { ...ZERO_USAGE }, model_context_window: null },
          rate_limits: null,
        };
  const info = payload.info as Json;
  const usage: Json = isObject(info.last_token_usage) ? info.last_token_usage : { ...ZERO_USAGE };
  for (const key of Object.keys(usage)) if (typeof usage[key] === "number") usage[key] = 0;
  usage.input_tokens = estimate;
  usage.total_tokens = estimate;
  info.last_token_usage = usage;
  if (!isObject(info.total_token_usage)) info.total_token_usage = { ...ZERO_USAGE };
  return payload;
};

interface Built {
  readonly bytes: Uint8Array;
  /** expected bytes of every copied line (session_meta lines with the new id) */
  readonly copied: readonly Uint8Array[];
  /** which copied lines bc rewrote (a session_meta with the new id) */
  readonly rewritten: ReadonlySet<number>;
  readonly appended: readonly Json[];
  readonly replacement: readonly Json[];
  /** JSON.stringify(replacement), as it stands in the compacted line */
  readonly replacementJson: string;
  readonly estimate: number;
}

/** The session_meta line with `id` and `session_id` set to the new id, or undefined when the line is copied as it is. */
const withNewId = (line: Rollout["lines"][number], oldId: string, newId: string): string | undefined => {
  if (line.kind !== "session_meta") return undefined;
  const p = line.payload;
  if (p.id !== oldId && p.session_id !== oldId) return undefined;
  const v = structuredClone(line.value) as Json;
  if (v.payload.id === oldId) v.payload.id = newId;
  if (v.payload.session_id === oldId) v.payload.session_id = newId;
  return JSON.stringify(v) + (line.raw.endsWith("\r") ? "\r" : "");
};

const utf8 = new TextEncoder();
const NEWLINE = Uint8Array.of(10);

/** The bytes of every source line, as stored (from the file's bytes when it was read from a file). */
const sourceLineBytes = (src: Rollout): ((i: number) => Uint8Array) => {
  if (src.source === undefined) return (i) => utf8.encode(src.lines[i]!.raw);
  const bytes = src.source;
  const { starts, ends } = lineSpans(bytes);
  return (i) => bytes.subarray(starts[i]!, ends[i]!);
};

const concatBytes = (parts: readonly Uint8Array[]): Uint8Array => {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** The planned history: context left out for `fresh`, outputs replaced, in the form Codex sends. */
export const plannedHistory = (history: readonly HistoryItem[], pruning: Pruning, context: ContextMode): Json[] => {
  const out: Json[] = [];
  history.forEach((h, i) => {
    if (context === "fresh" && isInjectedContext(h.item)) return;
    const item = sentForm(h.item);
    const text = pruning.outputs.get(i);
    if (text === undefined) out.push(item);
    else if (isOutputItem(item)) out.push(replaceOutputText(item, text));
    else throw new Error(`the plan changes history item ${i}, a ${item.type}, which is not a tool output`);
  });
  return out;
};

/** A record as one JSON line, with the (large) replacement history spliced in as already-serialized text. */
const recordLine = (record: Json, replacementJson: string): string => {
  if (record.type !== "compacted") return JSON.stringify(record);
  const [head, tail, ...rest] = JSON.stringify({ ...record, payload: { ...record.payload, replacement_history: 0 } }).split('"replacement_history":0');
  if (tail === undefined || rest.length > 0) return JSON.stringify(record);
  return `${head}"replacement_history":${replacementJson}${tail}`;
};

const buildFork = (src: Rollout, lines: Rollout["lines"], replacement: Json[], context: ContextMode, newId: string, now: Date): Built => {
  // serialized once: the estimate, the line and the check all use this text
  const replacementJson = JSON.stringify(replacement);
  const estimate = estimateTokens(replacementJson.length);
  const ts = now.toISOString();
  const records: { type: string; payload: Json }[] = [{ type: "compacted", payload: { message: "", replacement_history: replacement } }];
  if (context === "keep") {
    const world = lastWorldState(src);
    const turn = lastTurnContext(src);
    if (world) records.push({ type: "world_state", payload: world.payload });
    if (turn) records.push({ type: "turn_context", payload: turn.payload });
  }
  records.push({ type: "event_msg", payload: freshTokenCount(src, estimate) });
  let ordinal = src.format === "paginated" ? lastOrdinal(src) : undefined;
  const appended = records.map(({ type, payload }) =>
    ordinal === undefined ? { timestamp: ts, type, payload } : { timestamp: ts, ordinal: ++ordinal, type, payload },
  );
  const id = threadId(src);
  const lineBytes = sourceLineBytes(src);
  const rewritten = new Set<number>();
  const copied = lines.map((l, i) => {
    const line = withNewId(l, id, newId);
    if (line === undefined) return lineBytes(i);
    rewritten.add(i);
    return utf8.encode(line);
  });
  const parts: Uint8Array[] = [];
  for (const c of copied) parts.push(c, NEWLINE);
  parts.push(utf8.encode(`${appended.map((a) => recordLine(a, replacementJson)).join("\n")}\n`));
  return { bytes: concatBytes(parts), copied, rewritten, appended, replacement, replacementJson, estimate };
};

// ---------------------------------------------------------------- checking

const canon = (v: unknown): string => JSON.stringify(v);

const USAGE_FIELDS = ["input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"];

/**
 * The fork's bytes as Codex will read them. A copied line is checked byte for byte against the source
 * line it copies (already parsed when the source was read, so it is not parsed twice); every other
 * line (new session_meta ids, the appended records) is parsed here.
 */
const rereadFork = (bytes: Uint8Array, fileName: string, src: Rollout, built: Built, bad: (what: string, line?: number) => BcError): Rollout => {
  if (bytes[bytes.length - 1] !== 10) throw bad("the last line is incomplete");
  const { starts, ends } = lineSpans(bytes);
  const n = built.copied.length;
  if (starts.length !== n + built.appended.length) throw bad(`${starts.length} lines, expected ${n + built.appended.length}`);
  const lines: Rollout["lines"][number][] = new Array(starts.length);
  const malformed: string[] = [];
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < starts.length; i++) {
    const stored = buf.subarray(starts[i]!, ends[i]!);
    if (i < n) {
      if (!stored.equals(built.copied[i]!)) throw bad("a copied line differs from the source", i + 1);
      if (!built.rewritten.has(i)) {
        lines[i] = src.lines[i]!;
        continue;
      }
    }
    const raw = decodeUtf8(stored);
    let one: Rollout;
    try {
      one = parseRollout(`${raw}\n`, fileName);
    } catch (e) {
      throw bad(`a line Codex cannot read (${(e as Error).message.replace(`${fileName}: `, "")})`, i + 1);
    }
    const line = { ...one.lines[0]!, index: i, lineNo: i + 1 };
    for (const m of one.malformed) malformed.push(m.replace(`${fileName}:1:`, `${fileName}:${i + 1}:`));
    lines[i] = line as Rollout["lines"][number];
  }
  let paginated = src.format === "paginated";
  for (const l of lines) if (l.kind === "session_meta" && l.payload.history_mode === "paginated") paginated = true;
  if (malformed.length > 0) throw bad(`a line Codex would skip: ${malformed[0]}`);
  return {
    ...src,
    path: fileName,
    lines,
    endsWithNewline: true,
    partial: false,
    malformed,
    warnings: [],
    bytes: bytes.length,
    source: bytes,
    format: paginated ? "paginated" : src.format,
  };
};

/**
 * Check a fork's bytes strictly, the way Codex will read it, and throw a
 * `validation` BcError naming the first problem. `expected` is what the fork should hold.
 */
export const checkFork = (
  bytes: Uint8Array,
  fileName: string,
  expected: { readonly src: Rollout; readonly built: Built; readonly newId: string; readonly context: ContextMode },
): void => {
  const { src, built, newId, context } = expected;
  const bad = (what: string, line?: number): BcError =>
    new BcError(
      "validation",
      `${fileName}${line === undefined ? "" : `:${line}`}: the fork failed its check: ${what}`,
      "nothing was written and the source is untouched; this is a bug in bc, please report it",
    );
  const m = CANONICAL_NAME_RE.exec(fileName);
  if (!m || m[7] !== newId) throw bad(`the file name is not rollout-YYYY-MM-DDThh-mm-ss-${newId}.jsonl`);
  if (!UUID_RE.test(newId)) throw bad(`the new id ${newId} is not a lower-case UUID`);
  const fork = rereadFork(bytes, fileName, src, built, bad);
  const n = built.copied.length;
  if (fork.format !== src.format) throw bad(`the fork reads as ${fork.format}, the source as ${src.format}`);
  if (threadId(fork) !== newId) throw bad("session_meta.id is not the new id", 1);
  for (const l of fork.lines)
    if (l.kind === "session_meta" && (l.payload.id === threadId(src) || l.payload.session_id === threadId(src)))
      throw bad("a session_meta still carries the source id", l.lineNo);
  const meta = fork.lines.find((l) => l.kind === "session_meta");
  if (meta?.kind === "session_meta" && "session_id" in meta.payload && meta.payload.session_id !== newId)
    throw bad("session_meta.session_id is not the new id", meta.lineNo);
  let ordinal = src.format === "paginated" ? lastOrdinal(src) : undefined;
  for (let j = 0; j < built.appended.length; j++) {
    const l = fork.lines[n + j]!;
    const want = built.appended[j]!;
    if (!("value" in l) || l.kind === "unknown") throw bad(`a '${want.type}' record was expected`, l.lineNo);
    const v = l.value as Json;
    if (v.type !== want.type) throw bad(`type '${v.type}', expected '${want.type}'`, l.lineNo);
    if (typeof v.timestamp !== "string" || !TIMESTAMP_RE.test(v.timestamp)) throw bad("timestamp is not RFC 3339 UTC with milliseconds", l.lineNo);
    if (src.format === "paginated") {
      if (ordinal === undefined || v.ordinal !== ordinal + 1)
        throw bad(`ordinal ${v.ordinal}, expected ${ordinal === undefined ? "?" : ordinal + 1}`, l.lineNo);
      ordinal = v.ordinal;
    } else if ("ordinal" in v) throw bad("an ordinal on a legacy rollout", l.lineNo);
    if (l.kind === "compacted") {
      if (typeof l.payload.message !== "string") throw bad("compacted.message is missing (Codex would skip the record)", l.lineNo);
      if (!Array.isArray(l.payload.replacement_history)) throw bad("compacted.replacement_history is not a list", l.lineNo);
      const extra = Object.keys(l.payload).filter((key) => key !== "message" && key !== "replacement_history");
      if (extra.length > 0) throw bad(`compacted has unexpected fields: ${extra.join(", ")}`, l.lineNo);
    } else if (l.kind === "event_msg") {
      const info = l.payload.info;
      if (l.payload.type !== "token_count" || !isObject(info)) throw bad("expected a token_count with info", l.lineNo);
      for (const key of ["last_token_usage", "total_token_usage"]) {
        const u = info[key];
        if (!isObject(u)) throw bad(`token_count.info.${key} is missing`, l.lineNo);
        for (const f of USAGE_FIELDS) if (!Number.isSafeInteger(u[f]) || u[f] < 0) throw bad(`token_count.info.${key}.${f} is not a count`, l.lineNo);
      }
      if (info.last_token_usage.total_tokens !== built.estimate)
        throw bad(`token_count total ${info.last_token_usage.total_tokens}, expected the pruned estimate ${built.estimate}`, l.lineNo);
    } else if (canon(l.payload) !== canon(want.payload)) throw bad(`${v.type} differs from the source's last one`, l.lineNo);
  }
  if (context === "keep")
    for (const type of ["world_state", "turn_context"])
      if (src.lines.some((l) => l.kind === type) && !built.appended.some((a) => a.type === type)) throw bad(`context keep: no copy of the last ${type}`);

  // what Codex will rebuild from this file must be exactly the planned history ...
  const rebuilt = rebuildHistory(fork);
  if (rebuilt.baseLine !== n)
    throw bad(`the history would start at line ${rebuilt.baseLine === undefined ? "?" : rebuilt.baseLine + 1}, not at the appended compacted record`);
  const items = rebuilt.items.map((h) => h.item);
  if (items.length !== built.replacement.length) throw bad(`the rebuilt history has ${items.length} items, the planned one ${built.replacement.length}`);
  if (canon(items) !== built.replacementJson) {
    const i = items.findIndex((it, k) => canon(it) !== canon(built.replacement[k]));
    throw bad(`rebuilt history item ${i === -1 ? "?" : i} differs from the planned one`);
  }
  // ... and differ from the source's only in tool output text: prose intact, every call keeps its output
  const sourceItems = rebuildHistory(src)
    .items.map((h) => sentForm(h.item))
    .filter((it) => context === "keep" || !isInjectedContext(it));
  if (sourceItems.length !== items.length) throw bad(`the history has ${items.length} items, the source's ${sourceItems.length}`);
  for (let i = 0; i < items.length; i++) {
    const a = sourceItems[i]!;
    // the planned item equals the rebuilt one (checked above); the same object as the source's is unchanged
    const b = built.replacement[i]!;
    if (a === b) continue;
    const same = isOutputItem(a) ? canon({ ...a, output: null }) === canon({ ...b, output: null }) : canon(a) === canon(b);
    if (!same) throw bad(`history item ${i} (${a.type}) changed beyond its tool output`);
  }
};

// ---------------------------------------------------------------- the command's core

/** The model's context window, as the source's newest token_count (or task_started) recorded it. */
const contextWindowOf = (src: Rollout): { contextWindow?: number } => {
  for (let i = src.lines.length - 1; i >= 0; i--) {
    const l = src.lines[i]!;
    if (l.kind !== "event_msg") continue;
    const w =
      l.payload.type === "token_count" && isObject(l.payload.info)
        ? l.payload.info.model_context_window
        : l.payload.type === "task_started"
          ? l.payload.model_context_window
          : undefined;
    if (typeof w === "number" && Number.isSafeInteger(w) && w > 0) return { contextWindow: w };
  }
  return {};
};

/** Fork a rollout. Never modifies the source; never overwrites; writes nothing when `dryRun`. */
export const forkRollout = (sourcePath: string, options: ForkOptions): ForkResult => {
  const now = options.now ?? new Date();
  // what Codex will resume: a line of records with no newline between them is skipped, as Codex skips it
  const src = readRollout(sourcePath, { runTogether: "skip" });
  const lines = usableLines(src);
  const history = rebuildHistory(src).items;
  const pruning = options.pruner(history, src);
  const replacement = plannedHistory(history, pruning, options.context);
  const newId = options.newId ?? uuidV7(now.getTime());
  const dir = options.outDir ?? sessionsDayDir(options.codexHome ?? defaultCodexHome(), now);
  const path = join(dir, canonicalFileName(now, newId));
  const built = buildFork(src, lines, replacement, options.context, newId, now);
  const check = (bytes: Uint8Array): void => checkFork(bytes, basename(path), { src, built, newId, context: options.context });
  if (options.dryRun) check(built.bytes);
  else {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (e) {
      throw new BcError(
        "bad-input",
        `${dirname(path)}: cannot be used as the fork's folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        "pass --out-dir a folder (it is created if missing), or set CODEX_HOME",
      );
    }
    writeAtomically(path, built.bytes, (tmp) => {
      options.beforeCheck?.(tmp);
      check(readFileSync(tmp));
    });
  }
  return {
    sourcePath,
    sourceId: threadId(src),
    newId,
    path,
    format: src.format,
    context: options.context,
    dryRun: options.dryRun ?? false,
    historyItems: replacement.length,
    estimatedTokens: built.estimate,
    pruning,
    bytes: built.bytes,
    replacementHistory: replacement,
    partialTail: src.partial,
    skipped: src.lines.flatMap((l) =>
      l.kind !== "malformed"
        ? []
        : [`${sourcePath}:${l.lineNo}: ${l.error}${l.partial ? "; left out of the fork" : "; skipped, as Codex skips it on resume (copied as it is)"}`],
    ),
    ...contextWindowOf(src),
    resumeCommand: `codex resume ${newId}`,
  };
};

/**
 * The rules engine as a pruner: the history maps one item to one message (session-map.ts), so a
 * decision's messageIndex is the history index, and the applied result text is the new output.
 */
export const enginePruner =
  (options?: Partial<Options>, budget?: BudgetSpec): Pruner =>
  (history, rollout) => {
    const session: Session = { host: "codex", id: threadId(rollout), messages: historyToMessages(history) };
    const forkBudget = budget === undefined ? undefined : budgetFor(budget, rollout);
    const p = plan(session, forkBudget?.tokens === undefined ? options : { ...options, budgetTokens: forkBudget.tokens });
    const after = apply(session, p);
    const outputs = new Map<number, string>();
    const t = p.totals;
    const byRule: Partial<Record<RuleId, RuleTotals>> = { ...t.byRule };
    let kept = t.resultsKept;
    let truncated = t.resultsTruncated;
    let dropped = t.resultsDropped;
    let unfreed = 0;
    for (const d of p.decisions) {
      if (d.action === "keep") continue;
      const item = history[d.messageIndex]?.item;
      const before = session.messages[d.messageIndex]?.toolResults.find((r) => r.callId === d.callId)?.text;
      const text = after[d.messageIndex]?.toolResults.find((r) => r.callId === d.callId)?.text;
      if (item !== undefined && isOutputItem(item) && text !== undefined) {
        outputs.set(d.messageIndex, text);
        continue;
      }
      // a result whose text is not an output string (tool_search_output lists tools): kept as it is
      const freed = before === undefined || text === undefined ? 0 : estimateTextTokens(before) - estimateTextTokens(text);
      unfreed += freed;
      const r = byRule[d.rule];
      if (r) byRule[d.rule] = { results: r.results, removed: r.removed - 1, tokensFreed: r.tokensFreed - freed };
      kept++;
      if (d.action === "drop") dropped--;
      else truncated--;
    }
    return {
      outputs,
      results: t.results,
      resultsKept: kept,
      resultsTruncated: truncated,
      resultsDropped: dropped,
      tokensBefore: t.tokensBefore,
      tokensAfter: t.tokensAfter + unfreed,
      byRule,
      ...(forkBudget === undefined
        ? {}
        : { budget: { ...forkBudget, ...(forkBudget.tokens === undefined ? {} : { reached: t.tokensAfter + unfreed <= forkBudget.tokens }) } }),
    };
  };
