// The one session model both hosts map into. The engine never sees a host format:
// host adapters turn transcript records / rollout lines / hook rows into a Session,
// and use each message's `source` to write a rewrite back without touching anything else.
import type { NeedModels } from "./need/model.ts";

export type Host = "claude" | "codex";

/** user prompts, assistant replies, host/system context; tool results live on any role's message */
export type Role = "user" | "assistant" | "system";

/**
 * What a message is, beyond its role.
 * - prompt: a person's prompt (user text)
 * - reply: assistant text (and/or tool calls)
 * - tool: a message that only carries tool results
 * - reasoning: model reasoning/thinking summaries (prose, never rewritten)
 * - summary: a host's own compaction summary (Claude `isCompactSummary`, Codex compacted message)
 * - meta: host bookkeeping shown to the model (Claude `isMeta`, Codex environment/AGENTS context, developer text)
 */
export type MessageKind = "prompt" | "reply" | "tool" | "reasoning" | "summary" | "meta";

export interface ToolCall {
  /** Claude `tool_use.id`, Codex `call_id` */
  readonly id: string;
  /** host tool name as the model sees it: Read, Bash, Edit, exec_command, shell, apply_patch, ... */
  readonly name: string;
  /** parsed input (Claude: the input object; Codex: parsed `arguments` JSON, or `{ input }` for freeform tools) */
  readonly input: unknown;
  /** the input as the model wrote it (JSON text or freeform text): what later-use lookups search */
  readonly inputText: string;
}

export interface ToolResult {
  /** the call this result answers */
  readonly callId: string;
  /** text blocks joined; images are counted in `images`, never inlined */
  readonly text: string;
  readonly isError: boolean;
  /** images (or other non-text blocks) the host stored beside the text */
  readonly images: number;
}

/** Where a message came from in its host file; opaque to the engine. */
export interface SourceRef {
  readonly host: Host;
  /** 0-based line (record) index in the file, or row index in a hook's message list */
  readonly record: number;
  /** block index inside the record, where one record holds several */
  readonly block?: number;
  /** the API response an assistant record is part of (Claude Code's message.id): its records share it */
  readonly response?: string;
}

export interface Message {
  readonly role: Role;
  readonly kind: MessageKind;
  /** prose: text blocks joined with "\n" ('' if none). Never rewritten by the engine. */
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly toolResults: readonly ToolResult[];
  readonly source?: SourceRef;
}

export interface Session {
  readonly host: Host;
  readonly id: string;
  readonly messages: readonly Message[];
}

export type Action = "keep" | "truncate" | "drop";

/** Stable kebab-case rule ids: they appear in logs, reports and snapshots. */
export type RuleId =
  | "pinned"
  | "never-drop"
  | "superseded-read"
  | "superseded-run"
  | "latest-read"
  | "referenced"
  | "unreferenced"
  | "small"
  | "too-recent"
  | "discovery"
  | "re-runnable"
  | "already-cut"
  | "likely-needed"
  | "unneeded"
  | "shown-elsewhere"
  | "escalation"
  | "default-keep";

export interface Decision {
  readonly callId: string;
  /** index of the message holding the result */
  readonly messageIndex: number;
  readonly tool: string;
  /** characters of the result text as it stands */
  readonly chars: number;
  readonly action: Action;
  readonly rule: RuleId;
  /** one line, e.g. "re-read at #412, unchanged" */
  readonly reason: string;
  /** for truncate: characters of the head kept */
  readonly headChars?: number;
  /** with a budget: the need score (0-1) of a result the escalation may cut */
  readonly need?: number;
  /** with a budget: its place in the escalation order (1: cut first) */
  readonly escalationOrder?: number;
}

export interface RuleTotals {
  /** results this rule decided (kept ones included) */
  readonly results: number;
  /** of those, the results it truncated or dropped */
  readonly removed: number;
  readonly tokensFreed: number;
}

export interface PlanTotals {
  readonly results: number;
  readonly resultsKept: number;
  readonly resultsTruncated: number;
  readonly resultsDropped: number;
  /** estimated tokens of the whole history (prose + calls + results), before and after */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** estimated tokens of tool output, before and after */
  readonly toolTokensBefore: number;
  readonly toolTokensAfter: number;
  readonly byRule: Readonly<Partial<Record<RuleId, RuleTotals>>>;
}

export interface Plan {
  /** one per tool result, in message order */
  readonly decisions: readonly Decision[];
  readonly totals: PlanTotals;
  /** true when minRemovalFraction said the pass was not worth taking: apply() returns the input */
  readonly skipped: boolean;
  /**
   * set when an escalation budget was given; `lentBack`: tokens freed by cutting back the longer
   * heads an earlier pass kept in the room its budget left (room this pass lends again)
   */
  readonly budget?: { readonly tokens: number; readonly reached: boolean; readonly lentBack?: number };
}

export interface Options {
  /** messages at the end never touched */
  readonly pinLastMessages: number;
  /** head kept by a truncation, in characters */
  readonly truncateHeadChars: number;
  /** a result with fewer than this many tool results after it is too recent to judge */
  readonly recentResults: number;
  /** the same for a result of the current task (no prompt of the person's after it): its window */
  readonly taskRecentResults: number;
  /** a token seen in more than this many results is too generic to count */
  readonly genericTokenResults: number;
  /** a search or listing output up to this many characters is kept: later steps reach for its names */
  readonly discoveryKeepChars: number;
  /** a pass removing less than this share of tool-output tokens is not taken (0: always) */
  readonly minRemovalFraction: number;
  /** escalation: cut further until the history is at most this many tokens (undefined: no escalation) */
  readonly budgetTokens?: number;
  /** the need models: every result's need, and the escalation's ranking (undefined: the ones shipped in the binary) */
  readonly needModels?: NeedModels;
  /** a need per call id, in place of the model's where given (bc eval's hindsight ceiling need-oracle) */
  readonly needOverride?: ReadonlyMap<string, number>;
}

export const DEFAULT_OPTIONS: Options = {
  pinLastMessages: 6,
  truncateHeadChars: 200,
  recentResults: 20,
  taskRecentResults: 40,
  genericTokenResults: 10,
  discoveryKeepChars: 4_000,
  minRemovalFraction: 0,
};
