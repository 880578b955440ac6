// The notes bc leaves where it removed output. They are the only text the engine writes,
// and a later pass recognises them so that no rule cuts or rewrites the same result twice.
// A note names the call, so that `bc recall <id>` can print the original output, which the
// host still keeps on disk. Every note bc ever wrote stays recognised. A note is never rewritten,
// but for one case: a head kept longer than the usual one (in the room a budget left) may be cut
// to a shorter head later, its note then counting every char cut since the original. The forms:
//   [output removed by better-compaction: N chars; re-run the call to see it]              (first notes)
//   [output removed by better-compaction: N chars; run bc recall <id> to see it exactly, or re-run the call]
//   [output removed by better-compaction: N chars; bc recall <id> prints it]
// and the same with "truncated ... N chars removed" after a kept head; today's, shorter:
//   [bc removed N chars; bc recall <id> prints it]
//   <head>\n[bc cut N more chars; bc recall <id> prints it whole]
// (and "re-run the call to see it" where no id can be written). A short note costs less than
// the output it stands for: the shorter it is, the smaller the results worth removing, and the
// more room a budget leaves the rest.
import { headerChars } from "./result-text.ts";
import { shellQuote } from "./shell.ts";

/** Call ids longer than this are not written into a note (the note would outgrow its purpose). */
const MAX_ID_IN_NOTE = 256;

const howToSee = (callId: string, what: string): string => {
  if (callId === "" || callId.length > MAX_ID_IN_NOTE || /[\n\r\]]/.test(callId)) return "re-run the call to see it";
  // quoting can make an id up to four times longer ('it'\''s'): the note must stay where a later pass looks
  const word = shellQuote(callId);
  return word.length > 2 * MAX_ID_IN_NOTE ? "re-run the call to see it" : `bc recall ${word} prints ${what}`;
};

export const dropNote = (chars: number, callId: string): string => `[bc removed ${chars} chars; ${howToSee(callId, "it")}]`;

/**
 * Whether the rules may drop an output of `chars` characters: only when its note costs at most half
 * of it. A smaller output frees next to nothing and its note would only stand in the agent's way.
 * (Under a budget every token counts: the escalation drops whatever its note is shorter than.)
 */
export const worthANote = (chars: number, callId: string): boolean => 2 * dropNote(chars, callId).length <= chars;

export const truncateNote = (removedChars: number, callId: string): string => `\n[bc cut ${removedChars} more chars; ${howToSee(callId, "it whole")}]`;

// every form above: (1) kind, (2) chars in the first forms; (3) removed|cut, (4) chars in today's;
// (5) or (6) the call's shell word
const NOTE_TAIL_RE =
  /\[(?:output (removed|truncated) by better-compaction: (\d+) chars(?: removed)?|bc (removed|cut) (\d+)(?: more)? chars); (?:re-run the call to see it|run bc recall ([^\n\]]+) to see it exactly, or re-run the call|bc recall ([^\n\]]+) prints it(?: whole)?)\]$/;

/** How far from the end a note can start: its fixed text plus the longest id written into one. */
const NOTE_WINDOW = 200 + MAX_ID_IN_NOTE * 2;

const endsLikeNote = (text: string): boolean =>
  text.endsWith("; re-run the call to see it]") || text.endsWith(", or re-run the call]") || text.endsWith(" prints it]") || text.endsWith(" prints it whole]");

/** Whether a result already carries a note from an earlier pass (dropped or truncated). */
export const isAlreadyCut = (text: string, callId?: string): boolean => {
  // a note as readNote reads one (a removal's note is the whole text, a cut's follows its head),
  // naming this call where both are known. Output that only ends in a line like a note (bc's own
  // logs or tests, read) is output, which the rules may cut.
  const note = readNote(text);
  return note !== undefined && (callId === undefined || note.callWord === undefined || note.callWord === shellQuote(callId));
};

/** A note read back: what was removed, the call it names (when it names one), and for a truncation the head kept. */
export interface ReadNote {
  readonly kind: "removed" | "truncated";
  /** chars removed (the whole output for "removed") */
  readonly chars: number;
  /** the shell word the note names, as written (undefined in the first notes) */
  readonly callWord?: string;
  /** for "truncated": the head kept before the note */
  readonly head?: string;
}

/** Read a result's note, or undefined when the text is not one of bc's notes. */
export const readNote = (text: string): ReadNote | undefined => {
  if (!endsLikeNote(text)) return undefined;
  const offset = text.length > NOTE_WINDOW ? text.length - NOTE_WINDOW : 0;
  const m = NOTE_TAIL_RE.exec(offset > 0 ? text.slice(offset) : text);
  if (!m) return undefined;
  const start = offset + m.index;
  const kind = (m[1] ?? (m[3] === "cut" ? "truncated" : "removed")) as "removed" | "truncated";
  const chars = Number(m[2] ?? m[4]);
  const callWord = m[5] ?? m[6];
  if (kind === "removed") return start === 0 ? { kind, chars, ...(callWord ? { callWord } : {}) } : undefined;
  if (start === 0 || text[start - 1] !== "\n") return undefined;
  return { kind, chars, head: text.slice(0, start - 1), ...(callWord ? { callWord } : {}) };
};

/**
 * The head a truncation keeps: the host's header (Codex's `Chunk ID`, `Wall time`, exit status
 * and `Output:` lines), then `headChars` characters of the output, never splitting a surrogate pair.
 */
const headOf = (text: string, headChars: number): string => {
  let n = Math.min(headerChars(text) + headChars, text.length);
  const last = text.charCodeAt(n - 1);
  if (n > 0 && n < text.length && last >= 0xd800 && last <= 0xdbff) n--;
  return text.slice(0, n);
};

/**
 * A head an earlier pass kept of this call's output, with the chars its note says were cut, when
 * `text` is such a head and its note (today's or an earlier form) names the call: what a later
 * pass may cut to a shorter head.
 */
export const earlierHead = (text: string, callId: string): { head: string; cut: number } | undefined => {
  const note = readNote(text);
  if (note?.kind !== "truncated" || note.head === undefined || note.callWord !== shellQuote(callId)) return undefined;
  return { head: note.head, cut: note.chars };
};

/**
 * The text a truncation leaves. Of a head an earlier pass kept (earlierHead), a shorter head of
 * it, its note counting every char cut since the original: the only note a later pass rewrites.
 */
export const truncatedText = (text: string, headChars: number, callId: string): string => {
  const earlier = earlierHead(text, callId);
  if (earlier !== undefined) {
    const head = headOf(earlier.head, headChars);
    return head.length >= earlier.head.length ? text : head + truncateNote(earlier.cut + earlier.head.length - head.length, callId);
  }
  const head = headOf(text, headChars);
  return head + truncateNote(text.length - head.length, callId);
};
