// The notes bc leaves where it removed output. They are the only text the engine writes,
// and a later pass recognises them so that it never cuts or rewrites the same result twice.

export const dropNote = (chars: number): string => `[output removed by better-compaction: ${chars} chars; re-run the call to see it]`;

const truncateNote = (removedChars: number): string =>
  `\n[output truncated by better-compaction: ${removedChars} chars removed; re-run the call to see it]`;

const NOTE_TAIL_RE = /\[output (?:removed|truncated) by better-compaction: \d+ chars(?: removed)?; re-run the call to see it\]$/;

/** Whether a result already carries a note from an earlier pass (dropped or truncated). */
export const isAlreadyCut = (text: string): boolean => {
  if (!text.endsWith("; re-run the call to see it]")) return false;
  return NOTE_TAIL_RE.test(text.length > 200 ? text.slice(-200) : text);
};

/** The head a truncation keeps: `headChars` characters, never splitting a surrogate pair. */
const headOf = (text: string, headChars: number): string => {
  let n = Math.min(headChars, text.length);
  const last = text.charCodeAt(n - 1);
  if (n > 0 && n < text.length && last >= 0xd800 && last <= 0xdbff) n--;
  return text.slice(0, n);
};

/** The text a truncation leaves. */
export const truncatedText = (text: string, headChars: number): string => {
  const head = headOf(text, headChars);
  return head + truncateNote(text.length - head.length);
};
