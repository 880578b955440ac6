// Which host wrote a record: the checks that tell a Claude Code transcript record from a Codex
// rollout record, for a parsed line and for the opening of a line too long to parse. Both readers
// and host detection ask here, so neither reader imports the other.
import type { Host } from "../engine/types.ts";
import { isObject } from "../util/json.ts";

// ---------------------------------------------------------------------------------------------
// Codex

/** The record types every Codex rollout is made of (a `type` beside a `payload`): what tells one apart from other JSONL. */
export const CODEX_CORE_TYPES: ReadonlySet<string> = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted"]);

/** A `{ type, payload }` line of one of the core Codex record types. */
export const isCodexRecord = (v: unknown): boolean => isObject(v) && typeof v.type === "string" && "payload" in v && CODEX_CORE_TYPES.has(v.type);

/** The oldest rollouts' header line: `{ id, timestamp, instructions, ... }`, with no `type`. */
export const isLegacyCodexHeader = (v: Record<string, unknown>): boolean => typeof v.id === "string" && "instructions" in v && !("uuid" in v);

// ---------------------------------------------------------------------------------------------
// Claude Code

/** The fields bc reads of a Claude Code transcript record; everything else is kept in the raw line untouched. */
export interface ClaudeRecord {
  readonly type?: unknown;
  readonly subtype?: unknown;
  readonly uuid?: unknown;
  readonly parentUuid?: unknown;
  readonly logicalParentUuid?: unknown;
  readonly isSidechain?: unknown;
  readonly isMeta?: unknown;
  readonly isVirtual?: unknown;
  readonly isCompactSummary?: unknown;
  readonly sessionId?: unknown;
  readonly agentId?: unknown;
  readonly version?: unknown;
  readonly timestamp?: unknown;
  readonly leafUuid?: unknown;
  readonly compactMetadata?: unknown;
  readonly message?: unknown;
}

/** Record types Claude Code writes (2.0.x–2.1.x); used only to recognise the format. */
export const CLAUDE_TYPES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "system",
  "attachment",
  "progress",
  "summary",
  "file-history-snapshot",
  "queue-operation",
  "last-prompt",
  "ai-title",
  "custom-title",
  "agent-name",
  "mode",
  "permission-mode",
  "pr-link",
  "tools-used",
  "cost-state",
  "atis-latch",
  "api-request",
  "api-request-shape",
  "api-request-blob",
  "api-request-route",
]);

/** Whether a parsed line looks like a Claude Code transcript record. */
export const isClaudeRecord = (v: unknown): v is ClaudeRecord => {
  if (!isObject(v) || typeof v.type !== "string") return false;
  if (isCodexRecord(v)) return false;
  return CLAUDE_TYPES.has(v.type) || typeof v.uuid === "string" || typeof v.sessionId === "string";
};

/** Whether an object carries Claude Code's keys (`sessionId`, `parentUuid`), whatever its `type`. */
export const hasClaudeKeys = (v: Record<string, unknown>): boolean => "sessionId" in v || "parentUuid" in v;

// ---------------------------------------------------------------------------------------------
// Telling the host from one line

/** The host that wrote a parsed line, or undefined when it is a record of neither. */
export const hostOfRecord = (v: unknown): Host | undefined => {
  if (!isObject(v)) return undefined;
  if (isCodexRecord(v) || isLegacyCodexHeader(v)) return "codex";
  return isClaudeRecord(v) ? "claude" : undefined;
};

const CODEX_TYPE_KEY = new RegExp(`"type"\\s*:\\s*"(${[...CODEX_CORE_TYPES].join("|")})"`);
const CODEX_LEGACY_OPENING = /^\{"id"\s*:\s*"[^"]+"\s*,\s*"timestamp"\s*:.*"instructions"/;
const CLAUDE_KEYS =
  /"(parentUuid|leafUuid|isSidechain)"\s*:|"type"\s*:\s*"(user|assistant|summary|file-history-snapshot|queue-operation|progress|last-prompt)"/;

/** The host that wrote a line known only by its opening (it runs past what was read), judged by its keys. */
export const hostOfOpening = (text: string): Host | undefined => {
  if (CODEX_TYPE_KEY.test(text) && text.includes('"payload"')) return "codex";
  if (CODEX_LEGACY_OPENING.test(text)) return "codex";
  if (CLAUDE_KEYS.test(text)) return "claude";
  return undefined;
};
