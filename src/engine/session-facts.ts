// The facts of one session that the rules read: every tool result with its call, what the call
// means and whether it failed; which files are read and written where; and the token and quote
// lookup, plain or fast, chosen once. Built once per plan; rules only look things up.
import { type CallMeaning, describeCall, isPersonTool } from "./call-meaning.ts";
import { FastLookup } from "./lookup/fast.ts";
import type { Lookup, LookupMode } from "./lookup/lookup.ts";
import { ReferenceLookup } from "./lookup/reference.ts";
import { isAlreadyCut } from "./notes.ts";
import { exitCode } from "./result-text.ts";
import { ANY_FILE } from "./shell.ts";
import type { Options, Session, ToolCall, ToolResult } from "./types.ts";

export interface ResultItem {
  /** position among all tool results, in message order */
  readonly ordinal: number;
  readonly messageIndex: number;
  readonly result: ToolResult;
  readonly call: ToolCall | undefined;
  /** message holding the call; -1 when the result has no call */
  readonly callMessageIndex: number;
  readonly meaning: CallMeaning;
  /** an error result: flagged by the host (pinned), or a non-zero exit status read from the whole text (never dropped) */
  readonly error: boolean;
  /** already carries a note from an earlier pass */
  readonly cut: boolean;
}

const NO_MEANING: CallMeaning = { writes: [], mutating: false, asksPerson: false };

// Repeated passes hand back the same call objects: their meaning is worked out once. Pure: the
// value depends only on the call's contents.
const meaningCache = new WeakMap<ToolCall, CallMeaning>();

/** What a call means (describeCall), worked out once per call object. */
export const callMeaning = (call: ToolCall): CallMeaning => {
  let m = meaningCache.get(call);
  if (m === undefined) {
    m = describeCall(call);
    meaningCache.set(call, m);
  }
  return m;
};

/** Longer inputs (a file's new text) seldom repeat: not worth hashing as a key. */
const MAX_SHARED_INPUT = 1000;

/**
 * callMeaning for the calls of one session: a call repeating an earlier one (the same tool, the
 * same input text: `git status`, a test run, a file read again) shares its meaning.
 */
const sessionMeanings = (): ((call: ToolCall) => CallMeaning) => {
  const byInput = new Map<string, CallMeaning>();
  return (call) => {
    const cached = meaningCache.get(call);
    if (cached !== undefined) return cached;
    if (call.inputText.length > MAX_SHARED_INPUT) return callMeaning(call);
    const key = `${call.name}\u0000${typeof call.input}\u0000${call.inputText}`;
    let m = byInput.get(key);
    if (m === undefined) {
      m = describeCall(call);
      byInput.set(key, m);
    }
    meaningCache.set(call, m);
    return m;
  };
};

/** The first of a sorted list of message indices after `from` (Infinity: none). */
const firstAfter = (sorted: readonly number[] | undefined, from: number): number => {
  if (sorted === undefined) return Infinity;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= from) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length ? sorted[lo]! : Infinity;
};

const push = <K, V>(map: Map<K, V[]>, key: K, value: V): void => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

const NO_READS: readonly ResultItem[] = [];

export class SessionFacts {
  readonly session: Session;
  readonly options: Options;
  readonly items: readonly ResultItem[];
  readonly lookup: Lookup;
  /** reads of each file that did not fail, in order */
  private readonly readsByPath = new Map<string, ResultItem[]>();
  /** message indices of calls that may write each file (ANY_FILE: any file) */
  private readonly writesByPath = new Map<string, number[]>();

  constructor(session: Session, options: Options, mode: LookupMode = "fast") {
    this.session = session;
    this.options = options;
    const calls = new Map<string, { call: ToolCall; at: number }>();
    const items: ResultItem[] = [];
    const meaningFor = sessionMeanings();
    // an id a person's question carries, whatever other call shares it
    const asksPerson = new Set<string>();
    // a result whose call comes later (only in a damaged history) still means what that call
    // means, so that a person's answer stays one: looked up, the first time it is needed
    let callsAnywhere: Map<string, ToolCall> | undefined;
    const callAnywhere = (id: string): ToolCall | undefined => {
      if (callsAnywhere === undefined) {
        callsAnywhere = new Map();
        for (const m of session.messages) for (const c of m.toolCalls) if (!callsAnywhere.has(c.id)) callsAnywhere.set(c.id, c);
      }
      return callsAnywhere.get(id);
    };
    let lastPrompt = -1;
    session.messages.forEach((m, i) => {
      if (m.kind === "prompt") lastPrompt = i;
      for (const c of m.toolCalls) {
        calls.set(c.id, { call: c, at: i });
        if (isPersonTool(c.name)) asksPerson.add(c.id);
        for (const w of meaningFor(c).writes) push(this.writesByPath, w, i);
      }
      for (const r of m.toolResults) {
        const found = calls.get(r.callId);
        const later = found ? undefined : callAnywhere(r.callId);
        const paired = found ? meaningFor(found.call) : later ? meaningFor(later) : NO_MEANING;
        const meaning = !paired.asksPerson && asksPerson.has(r.callId) ? { ...paired, asksPerson: true } : paired;
        const code = exitCode(r.text);
        const item: ResultItem = {
          ordinal: items.length,
          messageIndex: i,
          result: r,
          call: found?.call,
          callMessageIndex: found ? found.at : -1,
          meaning,
          error: r.isError || (code !== undefined && code !== 0),
          cut: isAlreadyCut(r.text, r.callId),
        };
        items.push(item);
        if (meaning.read && !item.error) push(this.readsByPath, meaning.read.path, item);
      }
    });
    this.items = items;
    this.lookup = mode === "reference" ? new ReferenceLookup(this) : new FastLookup(this);
    this.lastPrompt = lastPrompt;
  }

  /** index of the person's last prompt (-1: none) */
  private readonly lastPrompt: number;

  resultsAfter(item: ResultItem): number {
    return this.items.length - 1 - item.ordinal;
  }

  /** Whether the result came after the person's last prompt: part of the task the agent is still on. */
  inCurrentTask(item: ResultItem): boolean {
    return item.messageIndex > this.lastPrompt;
  }

  /** The reads of a file that did not fail, in order. */
  readsOf(path: string): readonly ResultItem[] {
    return this.readsByPath.get(path) ?? NO_READS;
  }

  /** Every file read, with its reads. */
  readFiles(): IterableIterator<readonly ResultItem[]> {
    return this.readsByPath.values();
  }

  /** Whether the file is read again (without failing) after this one. */
  readAgain(item: ResultItem): boolean {
    const read = item.meaning.read;
    if (!read) return false;
    const list = this.readsOf(read.path);
    return list.length > 0 && list[list.length - 1]!.ordinal > item.ordinal;
  }

  isLatestRead(item: ResultItem): boolean {
    const read = item.meaning.read;
    if (!read || item.error) return false;
    const list = this.readsOf(read.path);
    return list[list.length - 1] === item;
  }

  /** The message of the first call after message `from` that may write the file (Infinity: none). */
  nextWriteAfter(path: string, from: number): number {
    return Math.min(firstAfter(this.writesByPath.get(path), from), firstAfter(this.writesByPath.get(ANY_FILE), from));
  }
}
