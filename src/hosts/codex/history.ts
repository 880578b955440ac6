// The model-visible history of a rollout, rebuilt as Codex rebuilds it on resume (codex-rs
// `reconstruct_history_from_rollout`): the newest `compacted`
// record with a `replacement_history` is the base, every later `response_item` is appended in file
// order, a legacy `compacted` without `replacement_history` becomes "user messages + message", and a
// `thread_rolled_back` event drops the newest N user turns.
//
// Items are the stored objects, verbatim (with `internal_chat_message_metadata_passthrough`, which
// is never sent: use `sentForm` to compare with a request). Not reproduced, by design:
// - Codex's own truncation of long tool outputs when it records them (it depends on the model's
//   truncation policy, not on the file);
// - the current initial context (permissions, environment) Codex injects after a compaction: it is
//   built from the resuming session's config, not read from the file;
// - for a legacy `compacted` record, Codex truncates the user message that crosses its 20k-token
//   budget; here that message and older ones are left out.
import { contentText, isContextualUserText, isPersonMessage, isSentToModel, type MessageItem, type ResponseItem } from "./items.ts";
import type { CompactedLine, Rollout } from "./rollout.ts";

/** Where a history item came from in the file. */
export interface HistoryOrigin {
  /** 0-based line index: of the response_item, or of the compacted record that holds it */
  readonly line: number;
  /** index inside that compacted record's `replacement_history` */
  readonly block?: number;
  /** built by Codex's rules (legacy compaction) rather than stored as such */
  readonly synthesized?: boolean;
}

export interface HistoryItem {
  readonly item: ResponseItem;
  readonly origin: HistoryOrigin;
}

export interface CompactionPoint {
  /** line index of the `compacted` record */
  readonly line: number;
  /** the history right before it, which it replaced */
  readonly replaced: readonly HistoryItem[];
  /** the history right after it: its replacement_history, or the legacy "user messages + message" */
  readonly base: readonly HistoryItem[];
  readonly hasReplacementHistory: boolean;
}

export interface RebuiltHistory {
  readonly items: readonly HistoryItem[];
  /** every compacted record, in file order */
  readonly compactions: readonly CompactionPoint[];
  /** line index of the compacted record the history starts from (the newest with replacement_history or legacy), if any */
  readonly baseLine?: number;
  /**
   * line indices of records since the base that Codex puts in the model's history but bc cannot
   * rebuild (NOT_REBUILT): a history built from `items` alone would lose them
   */
  readonly notRebuilt: readonly number[];
}

/**
 * Record types Codex turns into history items of its own when it resumes (an agent's message to
 * another, as codex-rs's rollout reconstruction does with `to_model_input_item`), whose item form
 * bc does not know: seen in Codex's source only, in no rollout bc has read.
 */
export const NOT_REBUILT: ReadonlySet<string> = new Set(["inter_agent_communication"]);

/** Codex's budget for the user messages a legacy (summary-only) compaction keeps. */
export const COMPACT_USER_MESSAGE_MAX_TOKENS = 20_000;

const approxTokens = (text: string): number => Math.ceil(Buffer.byteLength(text) / 4);

const userTextMessage = (text: string): MessageItem => ({
  type: "message",
  role: "user",
  content: [{ type: "input_text", text }],
});

/** Codex's `build_compacted_history` without the initial context: newest user messages within budget, then the summary. */
const legacyCompactedHistory = (history: readonly HistoryItem[], line: CompactedLine): HistoryItem[] => {
  const users = history.filter((h) => isPersonMessage(h.item));
  const selected: HistoryItem[] = [];
  let remaining = COMPACT_USER_MESSAGE_MAX_TOKENS;
  for (let i = users.length - 1; i >= 0 && remaining > 0; i--) {
    const h = users[i]!;
    const text = contentText((h.item as MessageItem).content);
    const tokens = approxTokens(text);
    if (tokens > remaining) break;
    remaining -= tokens;
    selected.push({ item: userTextMessage(text), origin: { line: h.origin.line, block: h.origin.block, synthesized: true } });
  }
  selected.reverse();
  selected.push({ item: userTextMessage(line.payload.message), origin: { line: line.index, synthesized: true } });
  return selected;
};

const isPreTurnContext = (item: ResponseItem): boolean =>
  item.type === "message" &&
  ((item as MessageItem).role === "developer" || ((item as MessageItem).role === "user" && isContextualUserText(contentText((item as MessageItem).content))));

/** codex-rs `drop_last_n_user_turns`: cut before the Nth-newest user turn, with the context injected just before it. */
export const dropLastUserTurns = (history: readonly HistoryItem[], turns: number): HistoryItem[] => {
  if (turns <= 0) return [...history];
  const positions: number[] = [];
  history.forEach((h, i) => {
    if (isPersonMessage(h.item)) positions.push(i);
  });
  const first = positions[0];
  if (first === undefined) return [...history];
  let cut = turns >= positions.length ? first : positions[positions.length - turns]!;
  while (cut > first && isPreTurnContext(history[cut - 1]!.item)) cut--;
  return history.slice(0, cut);
};

/** Replay the rollout forward: the newest compaction wins because it replaces everything before it. */
export const rebuildHistory = (rollout: Rollout): RebuiltHistory => {
  let items: HistoryItem[] = [];
  const compactions: CompactionPoint[] = [];
  let baseLine: number | undefined;
  let notRebuilt: number[] = [];
  // a native fork's inherited lines (indexed below 0) first, as Codex reads them
  for (const l of rollout.inherited === undefined ? rollout.lines : [...rollout.inherited.lines, ...rollout.lines]) {
    switch (l.kind) {
      case "response_item":
        if (isSentToModel(l.payload)) items.push({ item: l.payload, origin: { line: l.index } });
        break;
      case "compacted": {
        const rh = l.payload.replacement_history;
        const base: HistoryItem[] = [];
        if (Array.isArray(rh)) {
          rh.forEach((item, block) => {
            if (isSentToModel(item)) base.push({ item, origin: { line: l.index, block } });
          });
        } else base.push(...legacyCompactedHistory(items, l));
        // an inherited compaction is the parent's, not this file's
        // (`items` is a new array from here on: the one it replaced stays as it is)
        if (l.index >= 0) compactions.push({ line: l.index, replaced: items, base, hasReplacementHistory: Array.isArray(rh) });
        items = [...base];
        baseLine = l.index;
        notRebuilt = [];
        break;
      }
      case "event_msg":
        if (l.payload.type === "thread_rolled_back") {
          const n = Number(l.payload.num_turns);
          if (Number.isFinite(n) && n > 0) items = dropLastUserTurns(items, n);
        }
        break;
      case "unknown":
        if (NOT_REBUILT.has(l.type)) notRebuilt.push(l.index);
        break;
      case "session_meta":
      case "turn_context":
      case "world_state":
      case "token_usage_record":
      case "malformed":
      case "blank":
        break;
      default:
        l satisfies never;
    }
  }
  return { items, compactions, baseLine, notRebuilt };
};
