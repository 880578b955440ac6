// A Codex rollout (`~/.codex/sessions/**/rollout-*.jsonl`), read losslessly: every line keeps its
// raw text, so `serializeRollout(parseRollout(text))` gives back the same bytes; each line is also
// typed as a RolloutItem variant (codex-rs `RolloutItem`), parsed
// loosely: the payload is the parsed JSON object itself, so fields bc does not model are kept.
//
// Speed: one JSON.parse per line and a few field checks, no per-line zod (the whole-process read
// must stay above 50 MB/s; see test/bench/codex-rollout.bench.ts).
import { basename } from "node:path";
import type { Message } from "../../engine/types.ts";
import { BcError } from "../../util/errors.ts";
import { decodeUtf8, joinJsonl, type JsonlFile, linesNotUtf8, parseJsonl, readFileBytes } from "../../util/jsonl.ts";
import type { HostCompaction, LoadedSession, RecordedWindow } from "../types.ts";
import { type HistoryItem, type RebuiltHistory, rebuildHistory } from "./history.ts";
import { developerAuthorOf, isOutputItem, isResponseItem, isSentToModel, itemProblem, type ResponseItem } from "./items.ts";
import { historyBaseOf, type Inherited, inheritedLines } from "./native-fork.ts";
import { threadIdInName } from "./rollout-files.ts";
import { historyToMessages, timelineMessages } from "./session-map.ts";
import { unpairedResults, unpairedText } from "../pairing.ts";
import { isObject } from "../../util/json.ts";
import { CODEX_CORE_TYPES, hasClaudeKeys } from "../record-kind.ts";

export type RolloutFormat = "legacy" | "paginated";

type Json = Record<string, unknown>;

interface LineBase {
  /** 0-based line index in the file (the `record` of a SourceRef) */
  readonly index: number;
  /** 1-based line number, for messages */
  readonly lineNo: number;
  /** the line as stored, without its "\n" ("" for the second and later records of a run-together line) */
  readonly raw: string;
  /** a line of records written with no newline between them, read as records: which one this is (0 = first) */
  readonly part?: number;
}

interface RecordBase extends LineBase {
  /** the whole parsed line */
  readonly value: Json;
  readonly timestamp?: string;
  /** paginated rollouts only */
  readonly ordinal?: number;
}

export interface SessionMeta extends Json {
  readonly id: string;
  readonly session_id?: string;
  readonly cli_version?: string;
  readonly history_mode?: string;
  readonly timestamp?: string;
  readonly forked_from_id?: string;
  readonly history_base?: unknown;
}

export interface EventMsg extends Json {
  readonly type: string;
}

export interface CompactedPayload extends Json {
  /** required by Codex, even if empty */
  readonly message: string;
  readonly replacement_history?: readonly ResponseItem[];
  readonly replacement_history_metadata?: readonly unknown[];
}

export interface SessionMetaLine extends RecordBase {
  readonly kind: "session_meta";
  readonly payload: SessionMeta;
}
export interface ResponseItemLine extends RecordBase {
  readonly kind: "response_item";
  readonly payload: ResponseItem;
  /** harness metadata (0.155+), never sent to the model */
  readonly metadata?: unknown;
}
export interface EventMsgLine extends RecordBase {
  readonly kind: "event_msg";
  readonly payload: EventMsg;
}
export interface TurnContextLine extends RecordBase {
  readonly kind: "turn_context";
  readonly payload: Json;
}
export interface CompactedLine extends RecordBase {
  readonly kind: "compacted";
  readonly payload: CompactedPayload;
}
export interface WorldStateLine extends RecordBase {
  readonly kind: "world_state";
  readonly payload: Json;
}
export interface TokenUsageRecordLine extends RecordBase {
  readonly kind: "token_usage_record";
  readonly payload: Json;
}
/** a record whose `type` bc does not model (inter_agent_communication_metadata, retained_context, ...): written back untouched */
export interface UnknownLine extends LineBase {
  readonly kind: "unknown";
  readonly type: string;
  readonly value: Json;
  /** its sequence number in a paginated rollout: Codex numbers every record, whatever its type */
  readonly ordinal?: number;
}
/** a line Codex cannot read either (it skips such lines silently) */
export interface MalformedLine extends LineBase {
  readonly kind: "malformed";
  readonly error: string;
  /** the last line, without a newline, that does not parse: a file still being written */
  readonly partial: boolean;
}
export interface BlankLine extends LineBase {
  readonly kind: "blank";
}

export type RolloutLine =
  | SessionMetaLine
  | ResponseItemLine
  | EventMsgLine
  | TurnContextLine
  | CompactedLine
  | WorldStateLine
  | TokenUsageRecordLine
  | UnknownLine
  | MalformedLine
  | BlankLine;

export type RolloutLineKind = RolloutLine["kind"];

export interface Rollout {
  readonly path: string;
  readonly lines: readonly RolloutLine[];
  readonly endsWithNewline: boolean;
  /** paginated when a session_meta says `history_mode: "paginated"` or any line has an `ordinal` */
  readonly format: RolloutFormat;
  /** `file:line: why` for each line skipped (a partial last line is not counted) */
  readonly malformed: readonly string[];
  /** things about the file as a whole that a reader should know */
  readonly warnings: readonly string[];
  /** the last line is incomplete (the file is still being written) */
  readonly partial: boolean;
  readonly bytes: number;
  /** the file's bytes as read (decompressed), when read from a file: what a fork copies its lines from */
  readonly source?: Uint8Array;
  /** a native fork's history before the fork, read from its parent's rollout (native-fork.ts) */
  readonly inherited?: Inherited;
}

/**
 * How to read a line of whole records written with no newline between them: `read` them all
 * (inspect, plan, eval: they are the session), or `skip` the line as Codex does when it resumes
 * (the fork, whose history must be what Codex will rebuild).
 */
export type RunTogether = "read" | "skip";

const MODELLED = new Set([...CODEX_CORE_TYPES, "world_state", "token_usage_record"]);

/** Why a record of a modelled type cannot be read as that type (Codex would skip it), or undefined. */
const recordProblem = (type: string, payload: unknown): string | undefined => {
  if (!isObject(payload)) return `${type} record without an object "payload"`;
  switch (type) {
    case "session_meta":
      return typeof payload.id === "string" ? undefined : 'session_meta without string "id"';
    case "response_item": {
      const p = itemProblem(payload);
      return p === undefined ? undefined : `response_item: ${p}`;
    }
    case "event_msg":
      return typeof payload.type === "string" ? undefined : 'event_msg without string "type"';
    case "compacted": {
      if (typeof payload.message !== "string") return 'compacted without string "message" (Codex ignores this line)';
      const rh = payload.replacement_history;
      if (rh === undefined || rh === null) return undefined;
      if (!Array.isArray(rh)) return 'compacted "replacement_history" is not an array (Codex ignores this line)';
      for (let i = 0; i < rh.length; i++) {
        const p = itemProblem(rh[i]);
        if (p !== undefined) return `compacted replacement_history[${i}]: ${p} (Codex ignores this line)`;
      }
      const meta = payload.replacement_history_metadata;
      if (meta !== undefined && meta !== null && (!Array.isArray(meta) || meta.length !== rh.length))
        return `compacted replacement_history_metadata does not have ${rh.length} entries (Codex ignores this line)`;
      return undefined;
    }
    default:
      return undefined;
  }
};

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * The first `\uD800`-`\uDFFF` escape of a JSON line that is not half of a pair (a high one
 * followed at once by a low one), as written; undefined when none. JSON.parse reads such an escape
 * into a string; serde_json, which Codex reads its rollouts with, refuses the whole line.
 */
export const loneSurrogateEscape = (raw: string): string | undefined => {
  if (!SURROGATE_ESCAPE.test(raw)) return undefined;
  /** the code unit of the escape at i (raw[i] is the backslash), or -1: not an escape of one */
  const unitAt = (i: number): number =>
    raw.charCodeAt(i) === 92 && raw[i + 1] === "u" && HEX4.test(raw.slice(i + 2, i + 6)) ? Number.parseInt(raw.slice(i + 2, i + 6), 16) : -1;
  for (let i = 0; i < raw.length; i++) {
    if (raw.charCodeAt(i) !== 92) continue;
    // an escape: \\ is one character (skip its second backslash); \uXXXX a code unit
    if (raw[i + 1] !== "u") {
      i++;
      continue;
    }
    const unit = unitAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = unitAt(i + 6);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i += 11;
        continue;
      }
      return raw.slice(i, i + 6);
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return raw.slice(i, i + 6);
    i += 5;
  }
  return undefined;
};

/** What a line's lone surrogate escape is, as an error names it; undefined when it holds none. */
const loneSurrogateWords = (raw: string): string | undefined => {
  const lone = loneSurrogateEscape(raw);
  return lone === undefined ? undefined : `a lone UTF-16 surrogate (${lone}) that`;
};

/**
 * Split rollout text (or its lines, parsed already) into typed lines. Throws BcError only when the
 * text is not a Codex rollout at all.
 */
export const parseRollout = (
  text: string | JsonlFile,
  path: string,
  options: {
    runTogether?: RunTogether;
    /** the lines (1-based) whose bytes are not valid UTF-8: Codex skips them, as lines it cannot read */
    notUtf8?: ReadonlySet<number>;
  } = {},
): Rollout => {
  const file = typeof text === "string" ? parseJsonl(text, path) : text;
  const lines: RolloutLine[] = [];
  const malformed: string[] = [];
  const warnings: string[] = [];
  /** lines whose `type` is a Codex record type */
  let records = 0;
  let claudeLike = 0;
  let paginated = false;
  let partial = false;
  let firstRecordType: string | undefined;

  const addRecord = (v: unknown, base: LineBase): void => {
    const bad = (error: string): void => {
      lines.push({ ...base, kind: "malformed", error, partial: false });
      malformed.push(`${path}:${base.lineNo}: ${error}`);
    };
    if (!isObject(v)) {
      bad("not a JSON object");
      return;
    }
    const type = v.type;
    if (typeof type !== "string") {
      if (hasClaudeKeys(v)) claudeLike++;
      bad('record without string "type"');
      return;
    }
    if (!MODELLED.has(type)) {
      if (hasClaudeKeys(v)) {
        claudeLike++;
        bad(`not a rollout record (type "${type}")`);
        return;
      }
      firstRecordType ??= type;
      if (typeof v.ordinal === "number") paginated = true;
      lines.push({ ...base, kind: "unknown", type, value: v, ...(typeof v.ordinal === "number" ? { ordinal: v.ordinal } : {}) });
      return;
    }
    // a record of a Codex type counts as Codex-like even when Codex could not read it: the file is a
    // damaged rollout, not a file of another format
    records++;
    const payload = v.payload;
    const problem = recordProblem(type, payload);
    if (problem !== undefined) {
      bad(problem);
      return;
    }
    firstRecordType ??= type;
    const timestamp = typeof v.timestamp === "string" ? v.timestamp : undefined;
    const ordinal = typeof v.ordinal === "number" ? v.ordinal : undefined;
    if (ordinal !== undefined) paginated = true;
    const rec = { ...base, value: v, timestamp, ordinal };
    switch (type) {
      case "session_meta": {
        const meta = payload as SessionMeta;
        if (meta.history_mode === "paginated") paginated = true;
        lines.push({ ...rec, kind: "session_meta", payload: meta });
        break;
      }
      case "response_item":
        lines.push({ ...rec, kind: "response_item", payload: payload as ResponseItem, metadata: v.metadata });
        break;
      case "event_msg":
        lines.push({ ...rec, kind: "event_msg", payload: payload as EventMsg });
        break;
      case "turn_context":
        lines.push({ ...rec, kind: "turn_context", payload: payload as Json });
        break;
      case "compacted":
        lines.push({ ...rec, kind: "compacted", payload: payload as CompactedPayload });
        break;
      case "world_state":
        lines.push({ ...rec, kind: "world_state", payload: payload as Json });
        break;
      case "token_usage_record":
        lines.push({ ...rec, kind: "token_usage_record", payload: payload as Json });
        break;
    }
  };

  for (const l of file.lines) {
    const base = { index: lines.length, lineNo: l.lineNo, raw: l.raw };
    if (l.records !== undefined) {
      if (options.runTogether === "skip") {
        const error = `${l.error} (Codex skips this line)`;
        lines.push({ ...base, kind: "malformed", error, partial: false });
        malformed.push(`${path}:${l.lineNo}: ${error}`);
      } else {
        malformed.push(`${path}:${l.lineNo}: ${l.error}; read as ${l.records.length} records`);
        const before = malformed.length;
        l.records.forEach((v, part) => addRecord(v, { index: lines.length, lineNo: l.lineNo, raw: part === 0 ? l.raw : "", part }));
        // one report per line: a record of it that cannot be read is said in the same breath
        if (malformed.length > before)
          malformed.splice(
            before - 1,
            malformed.length - before + 1,
            `${path}:${l.lineNo}: ${l.error}; ${malformed
              .slice(before)
              .map((m) => m.slice(`${path}:${l.lineNo}: `.length))
              .join("; ")}`,
          );
      }
      continue;
    }
    if (l.error !== undefined) {
      lines.push({ ...base, kind: "malformed", error: l.error, partial: l.partial === true });
      if (l.partial) partial = true;
      malformed.push(`${path}:${l.lineNo}: ${l.error}`);
      continue;
    }
    if (l.value === undefined) {
      lines.push({ ...base, kind: "blank" });
      continue;
    }
    // JSON.parse takes both; Codex's reader refuses the line, and resumes without it
    const unreadable = options.notUtf8?.has(l.lineNo) === true ? "bytes that are not valid UTF-8, which" : loneSurrogateWords(l.raw);
    if (unreadable !== undefined) {
      const error = `${unreadable} Codex cannot read (Codex skips this line)`;
      lines.push({ ...base, kind: "malformed", error, partial: false });
      malformed.push(`${path}:${l.lineNo}: ${error}`);
      if (isObject(l.value) && typeof l.value.type === "string" && MODELLED.has(l.value.type)) records++;
      continue;
    }
    addRecord(l.value, base);
  }

  if (records === 0) {
    const hint = claudeLike > 0 ? "this looks like a Claude Code transcript" : "expected a Codex rollout (rollout-*.jsonl)";
    const firstBad = lines.find((l) => l.kind === "malformed" || l.kind === "unknown");
    if (firstBad === undefined) throw new BcError("bad-input", `${path}: not a Codex rollout (no records)`, hint);
    const why = firstBad.kind === "malformed" ? firstBad.error : `unknown record type "${firstBad.type}"`;
    throw new BcError("bad-input", `${path}:${firstBad.lineNo}: not a Codex rollout: ${why}`, hint);
  }
  if (firstRecordType !== "session_meta") warnings.push(`${path}: does not start with session_meta (Codex refuses to resume such a rollout)`);

  const metas = lines.filter((l): l is SessionMetaLine => l.kind === "session_meta");
  const ids = new Set(metas.map((m) => m.payload.id));
  if (ids.size > 1) warnings.push(`${path}: session_meta lines name ${ids.size} thread ids; the first (${metas[0]!.payload.id}) is the thread's`);
  if (paginated) {
    const missing = lines.filter((l) => "value" in l && l.kind !== "unknown" && (l as RecordBase).ordinal === undefined);
    if (missing.length > 0) warnings.push(`${path}:${missing[0]!.lineNo}: paginated rollout line without "ordinal" (${missing.length} such lines)`);
  }

  return {
    path,
    lines,
    endsWithNewline: file.endsWithNewline,
    format: paginated ? "paginated" : "legacy",
    malformed,
    warnings,
    partial,
    bytes: file.bytes,
  };
};

/**
 * Read a rollout file (`.jsonl`, or zstd-compressed `.jsonl.zst`), with one-line errors for a
 * missing path, a directory or an empty file. A native fork's history before the fork is read
 * from its parent's rollout too (`inherited`), unless `inherit` is false. `read`: the file as a
 * caller read it already (its bytes and their lines), which is not read again.
 */
export const readRollout = (
  path: string,
  options: { runTogether?: RunTogether; inherit?: boolean; read?: { readonly source: Uint8Array; readonly file: JsonlFile } } = {},
): Rollout => {
  const { read, ...rest } = options;
  const source = read?.source ?? readFileBytes(path, "a Codex rollout (rollout-*.jsonl)");
  const notUtf8 = new Set(linesNotUtf8(source));
  const own: Rollout = { ...parseRollout(read?.file ?? decodeUtf8(source), path, { ...rest, notUtf8 }), source };
  if (rest.inherit === false || historyBaseOf(own.lines) === undefined) return own;
  const inherited = inheritedLines(own, (p) => readRollout(p, { ...rest, inherit: false }));
  return { ...own, inherited, warnings: [...own.warnings, ...missingHistory(own.path, inherited)] };
};

/** What to say of a native fork whose history before the fork could not be read ([]: nothing). */
const missingHistory = (path: string, inherited: Inherited | undefined): string[] =>
  inherited?.missing === undefined
    ? []
    : [`${path}: a thread Codex forked, whose history before the fork cannot be read (${inherited.missing}): only what came after the fork is read`];

/** The rollout's text, byte for byte as read (lines are written back from their raw text). */
export const serializeRollout = (rollout: Rollout): string =>
  joinJsonl(
    rollout.lines.filter((l) => !l.part).map((l) => l.raw),
    rollout.endsWithNewline,
  );

// ---- Access for the fork writer ----------------------------------------------------------------

type LineOf<K extends RolloutLineKind> = Extract<RolloutLine, { kind: K }>;

export const lastLineOf = <K extends RolloutLineKind>(rollout: Rollout, kind: K): LineOf<K> | undefined => {
  for (let i = rollout.lines.length - 1; i >= 0; i--) {
    const l = rollout.lines[i]!;
    if (l.kind === kind) return l as LineOf<K>;
  }
  return undefined;
};

/** The thread's session_meta: the first one (the desktop app appends a copy each time it re-opens a thread). */
export const sessionMeta = (rollout: Rollout): SessionMetaLine | undefined => rollout.lines.find((l): l is SessionMetaLine => l.kind === "session_meta");

/** The newest `event_msg` of a given payload type, e.g. "token_count". */
export const lastEvent = (rollout: Rollout, type: string): EventMsgLine | undefined => {
  for (let i = rollout.lines.length - 1; i >= 0; i--) {
    const l = rollout.lines[i]!;
    if (l.kind === "event_msg" && l.payload.type === type) return l;
  }
  return undefined;
};

export const lastTokenCount = (rollout: Rollout): EventMsgLine | undefined => lastEvent(rollout, "token_count");
export const lastWorldState = (rollout: Rollout): WorldStateLine | undefined => lastLineOf(rollout, "world_state");
export const lastTurnContext = (rollout: Rollout): TurnContextLine | undefined => lastLineOf(rollout, "turn_context");

/** The last `model_context_window` the rollout recorded (token_count or task_started), or undefined. */
export const modelWindowOf = (rollout: Rollout): number | undefined => {
  for (let i = rollout.lines.length - 1; i >= 0; i--) {
    const line = rollout.lines[i]!;
    if (line.kind !== "event_msg") continue;
    const p = line.payload as Record<string, unknown>;
    const info = p.type === "token_count" ? (p.info as Record<string, unknown> | null | undefined) : p.type === "task_started" ? p : undefined;
    const w = info?.model_context_window;
    if (typeof w === "number" && Number.isSafeInteger(w) && w > 0) return w;
  }
  return undefined;
};

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined);

/** The window and last request size Codex recorded in its newest token_count. */
export const recordedUsage = (rollout: Rollout): { window?: number; lastInput?: number } => {
  const info = lastTokenCount(rollout)?.payload.info as { model_context_window?: unknown; last_token_usage?: { input_tokens?: unknown } } | null | undefined;
  if (!info || typeof info !== "object") return {};
  return { window: num(info.model_context_window), lastInput: num(info.last_token_usage?.input_tokens) };
};

/** Whether the history was replaced (a compaction) after the newest token_count: that count is of a history no longer there. */
const compactedSinceCount = (rollout: Rollout): boolean => {
  for (let i = rollout.lines.length - 1; i >= 0; i--) {
    const l = rollout.lines[i]!;
    if (l.kind === "compacted") return true;
    if (l.kind === "event_msg" && l.payload.type === "token_count") return false;
  }
  return false;
};

/**
 * The line from which the history is not in Codex's newest count: where the response to the
 * request it counted begins. The count (`last_token_usage.input_tokens`) is that request's input
 * side, and Codex writes it once the response is in (after the response's items and, but in 0.118
 * and 0.119, the outputs of the calls it made), so neither that response nor anything after the count
 * (the outputs 0.118 and 0.119 write after it, a new prompt) is in it: the history the request held
 * is the items before this line. A count Codex repeats unchanged (at a turn's start) is of
 * the request the first one counted. Developer messages are passed over: none is the model's, and
 * those among the response's items (a PostToolUse hook's context) came after the request. The
 * count's own line when no response precedes it (the request held all before it), the file's end
 * when there is no count.
 */
export const uncountedFrom = (rollout: Rollout): number => {
  const { lines } = rollout;
  const usage = (l: RolloutLine): string | undefined =>
    l.kind === "event_msg" && l.payload.type === "token_count"
      ? JSON.stringify((l.payload.info as Json | null | undefined)?.last_token_usage ?? null)
      : undefined;
  let count = lastTokenCount(rollout)?.index;
  if (count === undefined) return lines.length;
  const counted = usage(lines[count]!);
  for (let i = count - 1; i >= 0; i--) {
    const u = usage(lines[i]!);
    if (u === undefined) continue;
    if (u !== counted) break;
    count = i;
  }
  let from = count;
  for (let i = count - 1; i >= 0; i--) {
    const l = lines[i]!;
    if (l.kind === "compacted" || usage(l) !== undefined) break;
    if (l.kind !== "response_item" || !isSentToModel(l.payload)) continue;
    // a developer message is never the model's: one among the response's items was written after it
    // (a PostToolUse hook's context, between a call and its output; Codex's "Approved command prefix
    // saved:" while the call waited for approval), and one before it leaves the request's start
    // where it is: passed like a line never sent
    if (developerAuthorOf(l.payload) !== undefined) continue;
    if (isResponseItem(l.payload)) from = i;
    // the outputs of the response's calls, written before the count: the response is before them
    else if (!(from === count && (isOutputItem(l.payload) || l.payload.type === "tool_search_output"))) break;
  }
  return from;
};

/**
 * The history Codex's newest count holds: the history rebuilt from the lines before uncountedFrom,
 * as it stood when the counted request was sent. A rollback since (`thread_rolled_back`: an edited
 * earlier prompt) took turns out of the history, not out of that count: they are in this history,
 * so the count less it is still what the request carries besides.
 */
export const countedHistory = (rollout: Rollout): readonly HistoryItem[] =>
  rebuildHistory({ ...rollout, lines: rollout.lines.slice(0, uncountedFrom(rollout)) }).items;

/** What the rollout records of the model's window and of Codex's last request (see RecordedWindow). */
export const recordedWindow = (rollout: Rollout): RecordedWindow => {
  const window = modelWindowOf(rollout);
  const lastInput = compactedSinceCount(rollout) ? undefined : recordedUsage(rollout).lastInput;
  return { ...(window === undefined ? {} : { window }), ...(lastInput === undefined ? {} : { lastInput }) };
};

/** The newest `ordinal` in the file (the next line continues at +1), or undefined for a legacy rollout. */
export const lastOrdinal = (rollout: Rollout): number | undefined => {
  for (let i = rollout.lines.length - 1; i >= 0; i--) {
    const l = rollout.lines[i]!;
    if ("ordinal" in l && typeof l.ordinal === "number") return l.ordinal;
  }
  return undefined;
};

/** Codex's versions that wrote this file, in order of first appearance. */
export const cliVersions = (rollout: Rollout): string[] => {
  const seen: string[] = [];
  for (const l of rollout.lines)
    if (l.kind === "session_meta" && typeof l.payload.cli_version === "string" && !seen.includes(l.payload.cli_version)) seen.push(l.payload.cli_version);
  return seen;
};

/** The thread id: the first session_meta's `id` (what Codex resumes under), else the thread's UUID in the filename. */
export const threadId = (rollout: Rollout): string => sessionMeta(rollout)?.payload.id ?? threadIdInName(basename(rollout.path)) ?? basename(rollout.path);

// ---- Into the session model ------------------------------------------------------------------------

/** Map a parsed rollout into the session model (see loadCodexRollout); `history`: its rebuilt history, when already made. */
export const toLoadedSession = (rollout: Rollout, history: RebuiltHistory = rebuildHistory(rollout)): LoadedSession => {
  const id = threadId(rollout);
  const timeline = timelineMessages(rollout);
  // an output with no call before it, named by its line (a native fork's inherited lines are its parent's)
  const warnings = unpairedResults(timeline.messages).map((u) => {
    const line = rollout.lines[timeline.messages[u.index]!.source!.record]?.lineNo;
    return `${rollout.path}${line === undefined ? "" : `:${line}`}: ${unpairedText(u, "output")}`;
  });
  const compactions: HostCompaction[] = [];
  let from = 0;
  for (const c of history.compactions) {
    const at = timeline.firstIndexAfter(c.line);
    const kept: Message[] = historyToMessages(c.base);
    compactions.push({ at, from, kept });
    from = at;
  }
  return {
    host: "codex",
    path: rollout.path,
    id,
    timeline: { host: "codex", id, messages: timeline.messages },
    live: { host: "codex", id, messages: historyToMessages(history.items) },
    compactions,
    // a native fork whose parent cannot be read is planned from what came after the fork: said
    malformed: [...rollout.malformed, ...missingHistory(rollout.path, rollout.inherited)],
    ...(warnings.length === 0 ? {} : { warnings }),
    versions: cliVersions(rollout),
    recordedWindow: recordedWindow(rollout),
  };
};

/**
 * Read a Codex rollout into the session model: `timeline` is every model-visible response item in
 * file order across compactions (summaries and replacement copies left out), `live` the history
 * Codex would send on resume, `compactions` each `compacted` record.
 */
export const loadCodexRollout = (path: string): LoadedSession => toLoadedSession(readRollout(path));
