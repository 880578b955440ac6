// Codex `ResponseItem`s as stored in `response_item.payload` and in `compacted.replacement_history`
// (codex-rs `ResponseItem`). Items are the parsed JSON objects themselves: every
// field Codex wrote stays on the object, so writing one back with JSON.stringify keeps it whole.
import { isObject } from "../../util/json.ts";

/** A content part of a message or of an array tool output. */
export interface ContentItem {
  readonly type: string;
  readonly text?: string;
  readonly image_url?: string;
  readonly [key: string]: unknown;
}

/** Fields any stored item may carry; `internal_chat_message_metadata_passthrough` is never sent to the model. */
interface ItemBase {
  readonly id?: string | null;
  readonly internal_chat_message_metadata_passthrough?: unknown;
  readonly [key: string]: unknown;
}

export interface MessageItem extends ItemBase {
  readonly type: "message";
  /** user | assistant | developer | system */
  readonly role: string;
  readonly content: readonly ContentItem[];
}
export interface ReasoningItem extends ItemBase {
  readonly type: "reasoning";
  readonly summary: readonly ContentItem[];
  readonly content?: readonly ContentItem[] | null;
  readonly encrypted_content?: string | null;
}
export interface FunctionCallItem extends ItemBase {
  readonly type: "function_call";
  readonly name: string;
  readonly namespace?: string;
  /** a JSON *string* */
  readonly arguments: string;
  readonly call_id: string;
}
/** a string or an array of content items: what Codex writes and reads (any other form, it cannot read) */
export type ToolOutput = string | readonly ContentItem[];
export interface FunctionCallOutputItem extends ItemBase {
  readonly type: "function_call_output";
  readonly call_id: string;
  readonly output: ToolOutput;
}
export interface CustomToolCallItem extends ItemBase {
  readonly type: "custom_tool_call";
  readonly call_id: string;
  readonly name: string;
  /** freeform text, e.g. an apply_patch body */
  readonly input: string;
}
export interface CustomToolCallOutputItem extends ItemBase {
  readonly type: "custom_tool_call_output";
  readonly call_id: string;
  readonly output: ToolOutput;
}
export interface LocalShellCallItem extends ItemBase {
  readonly type: "local_shell_call";
  readonly call_id?: string | null;
  readonly action: unknown;
}
export interface WebSearchCallItem extends ItemBase {
  readonly type: "web_search_call";
  readonly action?: unknown;
}
export interface ToolSearchCallItem extends ItemBase {
  readonly type: "tool_search_call";
  readonly call_id?: string | null;
  readonly arguments?: unknown;
}
export interface ToolSearchOutputItem extends ItemBase {
  readonly type: "tool_search_output";
  readonly call_id?: string | null;
  readonly tools?: unknown;
}
/** a message from another agent of a multi-agent thread, delivered as input */
export interface AgentMessageItem extends ItemBase {
  readonly type: "agent_message";
  readonly author?: string;
  readonly recipient?: string;
  readonly content: readonly ContentItem[];
}
/** server-side compaction result: opaque `encrypted_content` (alias `compaction_summary`) */
export interface CompactionItem extends ItemBase {
  readonly type: "compaction" | "compaction_summary";
  readonly encrypted_content?: string;
}

export type KnownResponseItem =
  | MessageItem
  | ReasoningItem
  | FunctionCallItem
  | FunctionCallOutputItem
  | CustomToolCallItem
  | CustomToolCallOutputItem
  | LocalShellCallItem
  | WebSearchCallItem
  | ToolSearchCallItem
  | ToolSearchOutputItem
  | AgentMessageItem
  | CompactionItem;

/** Any other item type (image_generation_call, ghost_snapshot, additional_tools, other, ...): kept as stored. */
export interface OtherResponseItem extends ItemBase {
  readonly type: string;
}

export type ResponseItem = KnownResponseItem | OtherResponseItem;

const KNOWN_TYPES: ReadonlySet<string> = new Set<KnownResponseItem["type"]>([
  "message",
  "reasoning",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "local_shell_call",
  "web_search_call",
  "tool_search_call",
  "tool_search_output",
  "agent_message",
  "compaction",
  "compaction_summary",
]);

export const asKnownItem = (item: ResponseItem): KnownResponseItem | undefined => (KNOWN_TYPES.has(item.type) ? (item as KnownResponseItem) : undefined);

export type OutputItem = FunctionCallOutputItem | CustomToolCallOutputItem;

export const isOutputItem = (item: ResponseItem): item is OutputItem => item.type === "function_call_output" || item.type === "custom_tool_call_output";

/**
 * Why Codex could not deserialize this item, or undefined when it can. Only the fields bc relies
 * on are checked; an item Codex cannot read makes it skip the whole line (section 2), so these are
 * reported, never silently trusted.
 */
export const itemProblem = (v: unknown): string | undefined => {
  if (!isObject(v)) return "item is not an object";
  const t = v.type;
  if (typeof t !== "string") return 'item has no string "type"';
  switch (t) {
    case "message":
      if (typeof v.role !== "string") return 'message without string "role"';
      if (!Array.isArray(v.content)) return 'message without "content" array';
      return undefined;
    case "function_call":
      if (typeof v.name !== "string") return 'function_call without string "name"';
      if (typeof v.arguments !== "string") return 'function_call without string "arguments"';
      if (typeof v.call_id !== "string") return 'function_call without string "call_id"';
      return undefined;
    case "custom_tool_call":
      if (typeof v.name !== "string") return 'custom_tool_call without string "name"';
      if (typeof v.input !== "string") return 'custom_tool_call without string "input"';
      if (typeof v.call_id !== "string") return 'custom_tool_call without string "call_id"';
      return undefined;
    case "function_call_output":
    case "custom_tool_call_output":
      if (typeof v.call_id !== "string") return `${t} without string "call_id"`;
      // Codex reads an output only as a string or an array of content items; it skips a line holding another form
      if (!(typeof v.output === "string" || Array.isArray(v.output))) return `${t} whose "output" is neither a string nor an array`;
      return undefined;
    case "reasoning":
      if (!Array.isArray(v.summary)) return 'reasoning without "summary" array';
      return undefined;
    case "agent_message":
      if (!Array.isArray(v.content)) return 'agent_message without "content" array';
      return undefined;
    default:
      return undefined;
  }
};

// ---- What the model is sent ------------------------------------------------------------------

/**
 * Whether Codex carries this item in the model-visible history (codex-rs `is_api_message`):
 * everything except system-role messages, `compaction_trigger`, `ghost_snapshot` and `other`.
 */
export const isSentToModel = (item: ResponseItem): boolean => {
  if (item.type === "message") return (item as MessageItem).role !== "system";
  return item.type !== "compaction_trigger" && item.type !== "ghost_snapshot" && item.type !== "other";
};

/**
 * Item types the model writes in a response (codex-rs `ResponseItem`s a request's output holds):
 * its reasoning, messages (the assistant's) and calls. Everything else (the person's and Codex's
 * messages, the calls' outputs) is a request's input.
 */
const RESPONSE_TYPES: ReadonlySet<string> = new Set([
  "reasoning",
  "function_call",
  "custom_tool_call",
  "local_shell_call",
  "web_search_call",
  "tool_search_call",
  "image_generation_call",
]);

/** Whether the model wrote this item in a response (RESPONSE_TYPES, or an assistant message). */
export const isResponseItem = (item: ResponseItem): boolean =>
  item.type === "message" ? (item as MessageItem).role === "assistant" : RESPONSE_TYPES.has(item.type);

/** The item as it is sent: stored items keep `internal_chat_message_metadata_passthrough`, requests never do. */
export const sentForm = (item: ResponseItem): ResponseItem => {
  if (!("internal_chat_message_metadata_passthrough" in item)) return item;
  const { internal_chat_message_metadata_passthrough: _dropped, ...rest } = item;
  return rest as ResponseItem;
};

// ---- Text --------------------------------------------------------------------------------------

const isTextPart = (c: { readonly type?: unknown; readonly text?: unknown }): boolean =>
  (c.type === "input_text" || c.type === "output_text" || c.type === "text" || c.type === "summary_text" || c.type === "reasoning_text") &&
  typeof c.text === "string";

/** Text parts joined with "\n" (images and other parts left out). */
export const contentText = (content: readonly ContentItem[] | null | undefined): string => {
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const c of content) if (isObject(c) && isTextPart(c)) parts.push(c.text as string);
  return parts.join("\n");
};

/** Parts that are not text (images, files): counted, never inlined. */
export const contentNonTextCount = (content: readonly ContentItem[] | null | undefined): number => {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const c of content) if (!(isObject(c) && isTextPart(c))) n++;
  return n;
};

/** The text a tool output shows the model, and how many non-text parts it holds. */
export const outputText = (output: ToolOutput): { text: string; images: number } => {
  if (typeof output === "string") return { text: output, images: 0 };
  return { text: contentText(output), images: contentNonTextCount(output) };
};

/**
 * A new output item with only the output text replaced; every other field (and key order) kept.
 * - string output: the string is replaced;
 * - array output: the first text part takes `text`, later text parts are removed, non-text parts
 *   (images) stay where they were; with no text part, one `input_text` part is put first.
 */
export const replaceOutputText = <T extends OutputItem>(item: T, text: string): T => {
  const output = item.output;
  let next: ToolOutput;
  if (typeof output === "string") next = text;
  else {
    const parts: ContentItem[] = [];
    let placed = false;
    for (const c of output) {
      if (isObject(c) && isTextPart(c)) {
        if (!placed) parts.push({ ...c, text });
        placed = true;
      } else parts.push(c);
    }
    if (!placed) parts.unshift({ type: "input_text", text });
    next = parts;
  }
  return { ...item, output: next };
};

// ---- Kinds of user message ----------------------------------------------------------------------

/** Codex's prefix on the user message that carries a compaction summary. */
export const SUMMARY_PREFIX = "Another language model started to solve this problem and produced a summary of its thinking process.";

/**
 * Openings of user messages Codex injects itself (codex-rs `is_contextual_user_message_content`
 * and the fragments it recognises): they are context, not the person's words. `reinjected`:
 * context Codex injects anew at the start of a session and after a compaction; the others are
 * conversation events (a skill, a shell command the person ran, an aborted turn, a subagent's
 * note), history like any other.
 */
const CONTEXTUAL_OPENINGS: readonly { readonly opening: string; readonly reinjected: boolean }[] = [
  { opening: "<environment_context>", reinjected: true },
  { opening: "<user_instructions>", reinjected: true },
  { opening: "# AGENTS.md instructions for ", reinjected: true },
  { opening: "<skills_instructions>", reinjected: true },
  { opening: "<skill>", reinjected: false },
  { opening: "<user_shell_command>", reinjected: false },
  { opening: "<turn_aborted>", reinjected: false },
  { opening: "<subagent_notification>", reinjected: false },
  { opening: "<apps_instructions>", reinjected: true },
  { opening: "<plugins_instructions>", reinjected: true },
  { opening: "<recommended_plugins>", reinjected: true },
];

export const isContextualUserText = (text: string): boolean => {
  const t = text.trimStart();
  return CONTEXTUAL_OPENINGS.some((c) => t.startsWith(c.opening));
};

/** Whether user text is context Codex injects anew at the start of a session and after a compaction. */
export const isReinjectedContextText = (text: string): boolean => {
  const t = text.trimStart();
  return CONTEXTUAL_OPENINGS.some((c) => c.reinjected && t.startsWith(c.opening));
};

/** A user message Codex built from a compaction summary. */
export const isSummaryText = (text: string): boolean => text.trimStart().startsWith(SUMMARY_PREFIX);

/** Whether a user message is the person's own words (a turn boundary), as opposed to injected context or a summary. */
export const isPersonMessage = (item: ResponseItem): item is MessageItem => {
  if (item.type !== "message" || (item as MessageItem).role !== "user") return false;
  const content = (item as MessageItem).content;
  if (!Array.isArray(content) || content.length === 0) return false;
  // Codex treats a message as contextual when any of its text parts is a contextual fragment
  for (const c of content) if (isObject(c) && typeof c.text === "string" && isContextualUserText(c.text)) return false;
  return !isSummaryText(contentText(content));
};

// ---- Kinds of developer message -------------------------------------------------------------------

/**
 * Openings of the developer-message sections Codex writes itself: its initial context (permissions,
 * collaboration mode, model switch, personality, apps, skills, plugins, the desktop app's context,
 * multi-agent mode and its usage hints) and the updates it writes when one of them changes (a
 * command prefix the person approved joins the permissions list). Codex builds them from its
 * settings, and injects the current ones anew on resume. It bundles several sections in one
 * message, the config's own developer instructions (any text) among them: one section is enough.
 */
const CODEX_DEVELOPER_OPENINGS: readonly string[] = [
  "<permissions instructions>",
  "<collaboration_mode>",
  "<model_switch>",
  "<personality_spec>",
  "<app-context>",
  "<apps_instructions>",
  "<skills_instructions>",
  "<plugins_instructions>",
  "<multi_agent_mode>",
  "You are `/root`, the primary agent in a team of agents",
  "You are an agent in a team of agents",
  "Approved command prefix saved:",
];

/** How the content kinds Codex (0.150.1 and later) records in a message's metadata for what a hook added begin (`hooks.additional_context`). */
const HOOK_CONTENT_KIND_PREFIX = "hooks.";

/**
 * Who wrote a developer message: Codex (its own context, which it injects anew on resume), a hook
 * (a SessionStart, UserPromptSubmit or PostToolUse hook's additional context, which Codex records
 * once and never injects again: its metadata says so), or neither as far as bc can tell (text
 * without Codex's openings and without metadata: a hook's in an older rollout, or a kind of
 * Codex's own that bc does not know).
 */
export type DeveloperAuthor = "codex" | "hook" | "unknown";

export const developerAuthor = (m: MessageItem): DeveloperAuthor => {
  const meta = m.internal_chat_message_metadata_passthrough;
  const kinds = isObject(meta) && Array.isArray(meta.content_item_kinds) ? meta.content_item_kinds : [];
  if (kinds.some((k) => typeof k === "string" && k.startsWith(HOOK_CONTENT_KIND_PREFIX))) return "hook";
  for (const c of Array.isArray(m.content) ? m.content : []) {
    if (!isObject(c) || typeof c.text !== "string") continue;
    const t = c.text.trimStart();
    if (CODEX_DEVELOPER_OPENINGS.some((o) => t.startsWith(o))) return "codex";
  }
  return "unknown";
};

/** Who wrote an item that is a developer message (developerAuthor); undefined for any other item. */
export const developerAuthorOf = (item: ResponseItem): DeveloperAuthor | undefined =>
  item.type === "message" && (item as MessageItem).role === "developer" ? developerAuthor(item as MessageItem) : undefined;

/**
 * The context Codex injects itself and injects anew on resume: `fresh` leaves it for Codex to
 * inject. System messages (never sent), Codex's own developer messages, and the user-role context it
 * injects again. Every other developer message (a hook's, or one bc does not know as Codex's) stays
 * in the history: Codex keeps it on resume and never injects it again, so leaving it out loses it.
 */
export const isInjectedContext = (item: ResponseItem): boolean => {
  if (item.type !== "message") return false;
  const m = item as MessageItem;
  if (m.role === "system") return true;
  if (m.role === "developer") return developerAuthor(m) === "codex";
  if (m.role !== "user") return false;
  return isReinjectedContextText(contentText(m.content));
};
