// Codex response items -> the session model: one Message per item, each with a SourceRef back to
// its line (and its index inside a compacted record's replacement_history).
import type { Message, MessageKind, Role, SourceRef, ToolCall, ToolResult } from "../../engine/types.ts";
import type { HistoryItem } from "./history.ts";
import {
  asKnownItem,
  contentText,
  isContextualUserText,
  isSentToModel,
  isSummaryText,
  outputText,
  type ContentItem,
  type OutputItem,
  type ResponseItem,
} from "./items.ts";
import type { Rollout } from "./rollout.ts";

/**
 * Whether a tool output says the call failed. Conservative on purpose: a non-zero exit code is NOT
 * an error for Codex (grep finding nothing, a failing test run the model asked for: the output is
 * the answer), so only explicit failures count: outputs whose first line is Codex's own failure text (argument parsing, an aborted or rejected
 * call, a sandbox denial, `<tool> failed: ...`, an unsupported tool).
 */
const FAILURE_FIRST_LINE = [
  /^failed to parse function arguments/i,
  /^aborted\b/i,
  /\brejected by (the )?user\b/i,
  /\bsandbox (denied|denial)\b/i,
  /^unsupported (custom tool )?call\b/i,
  /^[\w./-]+( verification)? failed: /,
];

export const outputIsError = (text: string): boolean => {
  const nl = text.indexOf("\n");
  const first = (nl === -1 ? text : text.slice(0, nl)).trimStart();
  return FAILURE_FIRST_LINE.some((re) => re.test(first));
};

const parseJsonOr = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

const jsonText = (v: unknown): string => (v === undefined ? "" : JSON.stringify(v));

const message = (
  role: Role,
  kind: MessageKind,
  source: SourceRef,
  text = "",
  toolCalls: readonly ToolCall[] = [],
  toolResults: readonly ToolResult[] = [],
): Message => ({ role, kind, text, toolCalls, toolResults, source });

const callId = (item: ResponseItem, source: SourceRef, prefix: string): string => {
  const c = item.call_id;
  if (typeof c === "string" && c !== "") return c;
  if (typeof item.id === "string" && item.id !== "") return item.id;
  return `${prefix}@${source.record}${source.block === undefined ? "" : `.${source.block}`}`;
};

const resultOf = (item: OutputItem): ToolResult => {
  const { text, images } = outputText(item.output);
  return { callId: item.call_id, text, isError: outputIsError(text), images };
};

/** One response item as a Message. */
export const itemToMessage = (item: ResponseItem, source: SourceRef): Message => {
  const known = asKnownItem(item);
  if (known === undefined) return message("system", "meta", source);
  switch (known.type) {
    case "message": {
      const text = contentText(known.content);
      if (known.role === "assistant") return message("assistant", "reply", source, text);
      if (known.role === "user") {
        if (isSummaryText(text)) return message("user", "summary", source, text);
        const contextual = (known.content as readonly ContentItem[]).some((c) => typeof c?.text === "string" && isContextualUserText(c.text));
        return message("user", contextual ? "meta" : "prompt", source, text);
      }
      // developer and system text is host context, not a person's prompt
      return message("system", "meta", source, text);
    }
    case "reasoning":
      return message("assistant", "reasoning", source, contentText(known.summary));
    case "function_call":
      return message("assistant", "reply", source, "", [
        { id: known.call_id, name: known.name, input: parseJsonOr(known.arguments), inputText: known.arguments },
      ]);
    case "custom_tool_call":
      return message("assistant", "reply", source, "", [{ id: known.call_id, name: known.name, input: { input: known.input }, inputText: known.input }]);
    case "local_shell_call":
      return message("assistant", "reply", source, "", [
        { id: callId(known, source, "local_shell"), name: "local_shell", input: known.action, inputText: jsonText(known.action) },
      ]);
    case "web_search_call":
      return message("assistant", "reply", source, "", [
        { id: callId(known, source, "web_search"), name: "web_search", input: known.action ?? {}, inputText: jsonText(known.action) },
      ]);
    case "tool_search_call":
      return message("assistant", "reply", source, "", [
        {
          id: callId(known, source, "tool_search"),
          name: "tool_search",
          input: known.arguments ?? {},
          inputText: jsonText(known.arguments),
        },
      ]);
    case "function_call_output":
    case "custom_tool_call_output":
      return message("user", "tool", source, "", [], [resultOf(known)]);
    case "tool_search_output":
      return message(
        "user",
        "tool",
        source,
        "",
        [],
        [{ callId: callId(known, source, "tool_search"), text: jsonText(known.tools), isError: false, images: 0 }],
      );
    case "agent_message":
      // another agent's report delivered to this one: input the model reads, not a person's prompt
      return message("user", "meta", source, contentText(known.content));
    case "compaction":
    case "compaction_summary":
      // server-side compaction: an opaque encrypted summary
      return message("assistant", "summary", source);
    default:
      return known satisfies never;
  }
};

const sourceOf = (h: HistoryItem): SourceRef =>
  h.origin.block === undefined ? { host: "codex", record: h.origin.line } : { host: "codex", record: h.origin.line, block: h.origin.block };

export const historyToMessages = (items: readonly HistoryItem[]): Message[] => items.map((h) => itemToMessage(h.item, sourceOf(h)));

export interface Timeline {
  readonly messages: readonly Message[];
  /** timeline index of the first message from a line after `line` */
  readonly firstIndexAfter: (line: number) => number;
}

/** Every model-visible response item in file order, host summaries left out (replacement copies are not response items). */
export const timelineMessages = (rollout: Rollout): Timeline => {
  const messages: Message[] = [];
  for (const l of rollout.lines) {
    if (l.kind !== "response_item" || !isSentToModel(l.payload)) continue;
    const m = itemToMessage(l.payload, { host: "codex", record: l.index });
    if (m.kind !== "summary") messages.push(m);
  }
  const firstIndexAfter = (line: number): number => {
    let lo = 0;
    let hi = messages.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (messages[mid]!.source!.record <= line) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return { messages, firstIndexAfter };
};

// ---- Pairing calls and outputs ----------------------------------------------------------------

export interface ToolPairing {
  /** call id -> [index of the call, index of its output] in the list given */
  readonly pairs: ReadonlyMap<string, readonly [number, number]>;
  /** calls that expect an output and have none (e.g. a turn aborted mid-call) */
  readonly callsWithoutOutput: readonly { readonly callId: string; readonly index: number }[];
  /** outputs whose call is not in the list */
  readonly outputsWithoutCall: readonly { readonly callId: string; readonly index: number }[];
}

const CALL_TYPES = new Set(["function_call", "custom_tool_call", "local_shell_call", "tool_search_call"]);
const OUTPUT_TYPES = new Set(["function_call_output", "custom_tool_call_output", "tool_search_output"]);

/**
 * Pair calls with outputs by `call_id`. `web_search_call` never gets an output in Codex and is not
 * counted; a call without `call_id` (some local_shell_call) cannot be paired and is not counted either.
 */
export const pairToolItems = (items: readonly ResponseItem[]): ToolPairing => {
  const calls = new Map<string, number>();
  const pairs = new Map<string, readonly [number, number]>();
  const outputsWithoutCall: { callId: string; index: number }[] = [];
  items.forEach((item, index) => {
    const id = item.call_id;
    if (typeof id !== "string" || id === "") return;
    if (CALL_TYPES.has(item.type)) calls.set(id, index);
    else if (OUTPUT_TYPES.has(item.type)) {
      const at = calls.get(id);
      if (at === undefined || pairs.has(id)) outputsWithoutCall.push({ callId: id, index });
      else pairs.set(id, [at, index]);
    }
  });
  const callsWithoutOutput = [...calls].filter(([id]) => !pairs.has(id)).map(([callId, index]) => ({ callId, index }));
  return { pairs, callsWithoutOutput, outputsWithoutCall };
};
