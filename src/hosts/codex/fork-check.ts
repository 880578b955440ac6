// The fork's check: its bytes read back the way Codex will read them, strictly. Codex silently
// skips a record it cannot parse and then resumes the FULL history, so a fork that is not exactly
// what was built never becomes visible.
import { BcError } from "../../util/errors.ts";
import { isObject } from "../../util/json.ts";
import { decodeUtf8, lineSpans } from "../../util/jsonl.ts";
import type { Built, ContextMode } from "./fork.ts";
import { CANONICAL_NAME_RE, TIMESTAMP_RE, UUID_RE } from "./fork-names.ts";
import { rebuildHistory } from "./history.ts";
import { isInjectedContext, isOutputItem, sentForm } from "./items.ts";
import { lastOrdinal, parseRollout, type Rollout, sessionMeta, threadId } from "./rollout.ts";

type Json = Record<string, any>;
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
  // session_id is the thread's own id, which the fork's replaces; in a subagent's thread it is
  // the session of the thread that spawned it, which the fork keeps
  const meta = sessionMeta(fork);
  const srcMeta = sessionMeta(src);
  if (meta !== undefined && srcMeta !== undefined && "session_id" in meta.payload) {
    const own = srcMeta.payload.session_id === threadId(src);
    if (meta.payload.session_id !== (own ? newId : srcMeta.payload.session_id))
      throw bad(own ? "session_meta.session_id is not the new id" : "session_meta.session_id (the spawning session's) was changed", meta.lineNo);
  }
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
      if (l.payload.type !== "token_count" || !isObject(l.payload.info)) throw bad("expected a token_count with info", l.lineNo);
      const info: Json = l.payload.info;
      for (const key of ["last_token_usage", "total_token_usage"]) {
        const u = info[key];
        if (!isObject(u)) throw bad(`token_count.info.${key} is missing`, l.lineNo);
        for (const f of USAGE_FIELDS)
          if (!Number.isSafeInteger(u[f]) || (u[f] as number) < 0) throw bad(`token_count.info.${key}.${f} is not a count`, l.lineNo);
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
