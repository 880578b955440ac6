// What a tool result's text says about the run: its exit status and its output without the
// host's header, in every shape the hosts write. The engine reads these from the text itself,
// the text the model saw, so a session from any source (a transcript, a rollout, a hook's rows,
// an earlier pass) is judged the same way.
//
// Shapes:
// - Codex exec (unified exec): a header of `Command: <cmd>` (0.118 and later), `Chunk ID: <id>`,
//   `Wall time: <t>`, `Process exited with code <n>` (or `Process running with session ID <n>`),
//   `Original token count: <n>`, then `Output:` and the output;
// - Codex shell (older builds) and apply_patch: `Exit code: <n>`, `Wall time: <t>`, `Output:`;
// - Codex legacy JSON: `{"output":"…","metadata":{"exit_code":<n>,…}}`, the status at the tail of
//   what may be a long output;
// - Codex code mode: `Script completed` / `Script failed` / `Script running with cell ID <n>`,
//   `Wall time <t>`, `Output:`, then what the script printed: often the JSON of the exec calls
//   it made, each with its `"exit_code"`;
// - Claude Code Bash, on a failure: `Exit code <n>` on the first line.

import { isRecord } from "./values.ts";

/** The first lines of a Codex exec or shell header. */
const EXEC_HEADER_OPENINGS = ["Command: ", "Chunk ID: ", "Wall time: ", "Process exited with code ", "Process running with session ID ", "Exit code: "];
const CODE_MODE_OPENINGS = ["Script completed", "Script failed", "Script running with cell ID "];
const OUTPUT_MARKER = "Output:\n";
/** The exit line of an exec or shell header: the last one before the output (a command line could hold the words). */
const HEADER_EXIT_RE = /^(?:Process exited with code|Exit code:) (-?\d+)$/gm;
const CLAUDE_EXIT_OPENING = "Exit code ";
const CLAUDE_EXIT_RE = /^Exit code (-?\d+)/;
/** Enough of a text's start to hold any opening line's status (a regex over the whole of a long output would cost a pass over it). */
const OPENING_CHARS = 40;
const LEGACY_JSON_OPENING = '{"output"';
/** The legacy JSON's tail: its metadata object, last. */
const LEGACY_EXIT_RE = /"metadata"\s*:\s*\{[^{}]*"exit_code"\s*:\s*(-?\d+)[^{}]*\}\s*\}\s*$/;
const LEGACY_TAIL_CHARS = 300;
/** An exit status inside what a code-mode script printed (the JSON of an exec call's result). */
const PRINTED_EXIT_RE = /"exit_code"\s*:\s*(-?\d+)/g;

type Shape = "exec" | "code-mode" | "legacy-json" | "claude-exit" | "plain";

const shapeOf = (text: string): Shape => {
  if (EXEC_HEADER_OPENINGS.some((o) => text.startsWith(o))) return "exec";
  if (CODE_MODE_OPENINGS.some((o) => text.startsWith(o))) return "code-mode";
  if (text.startsWith(LEGACY_JSON_OPENING)) return "legacy-json";
  if (text.startsWith(CLAUDE_EXIT_OPENING) && CLAUDE_EXIT_RE.test(text.slice(0, OPENING_CHARS))) return "claude-exit";
  return "plain";
};

/** Where the output starts after a header that ends in an `Output:` line (-1: no such line). */
const outputStart = (text: string): number => {
  if (text.startsWith(OUTPUT_MARKER)) return OUTPUT_MARKER.length;
  const at = text.indexOf(`\n${OUTPUT_MARKER}`);
  return at === -1 ? -1 : at + 1 + OUTPUT_MARKER.length;
};

/** A header longer than this is not all kept with a head (a `Command:` line can carry a whole script). */
const MAX_HEADER_CHARS = 500;

/**
 * How many of a result's first characters are its host's header (an exec, shell or code-mode
 * header up to its `Output:` line; at most MAX_HEADER_CHARS), so that a head counts from the
 * output: 0 for a text without one.
 */
export const headerChars = (text: string): number => {
  const shape = shapeOf(text);
  if (shape !== "exec" && shape !== "code-mode") return 0;
  const start = outputStart(text);
  // no `Output:` line: all of it is header (as headerOf reads it), or the head an earlier pass
  // kept of a header longer than MAX_HEADER_CHARS, which must read as long as it did then
  return Math.min(start === -1 ? text.length : start, MAX_HEADER_CHARS);
};

/** The header's text (the whole text when it has no `Output:` line). */
const headerOf = (text: string): string => {
  const start = outputStart(text);
  return start === -1 ? text : text.slice(0, start);
};

/**
 * The exit status a result reports, in any of the shapes above; undefined when it reports none.
 * A code-mode script that failed counts as status 1; one whose printed exec results hold a
 * non-zero `"exit_code"` has that status (the first such).
 */
export const exitCode = (text: string): number | undefined => {
  switch (shapeOf(text)) {
    case "exec": {
      let code: number | undefined;
      for (const m of headerOf(text).matchAll(HEADER_EXIT_RE)) code = Number(m[1]);
      return code;
    }
    case "code-mode": {
      if (text.startsWith("Script failed")) return 1;
      const start = outputStart(text);
      if (start === -1) return undefined;
      let code: number | undefined;
      for (const m of text.slice(start).matchAll(PRINTED_EXIT_RE)) {
        code = Number(m[1]);
        if (code !== 0) return code;
      }
      return code;
    }
    case "legacy-json": {
      const m = LEGACY_EXIT_RE.exec(text.length > LEGACY_TAIL_CHARS ? text.slice(-LEGACY_TAIL_CHARS) : text);
      return m ? Number(m[1]) : undefined;
    }
    case "claude-exit":
      return Number(CLAUDE_EXIT_RE.exec(text.slice(0, OPENING_CHARS))![1]);
    case "plain":
      return undefined;
  }
};

/** The output a result carries, without a host's header (exec, shell and code-mode headers, the legacy JSON wrapper). */
export const resultBody = (text: string): string => {
  switch (shapeOf(text)) {
    case "exec":
    case "code-mode": {
      const start = outputStart(text);
      return start === -1 ? text : text.slice(start);
    }
    case "legacy-json":
      try {
        const v: unknown = JSON.parse(text);
        if (isRecord(v) && typeof v.output === "string") return v.output;
      } catch {
        // not the legacy wrapper after all
      }
      return text;
    case "claude-exit":
    case "plain":
      return text;
  }
};

const FAILURE_RE = /\b(?:FAIL|FAILED|failed|failing|failures?|errors?|panicked|ERROR)\b|\(fail\)|\b[1-9]\d* fail\b|✗|✘/;
const ZERO_FAILURES_RE = /\b0 (?:failed|failures|errors?)\b|\bfailed: 0\b|\bfailures: 0\b/g;

/** Whether a run passed: exit code 0 when reported, and no failure in its output. */
export const passed = (text: string, isError: boolean): boolean => {
  if (isError) return false;
  const code = exitCode(text);
  if (code !== undefined && code !== 0) return false;
  const body = resultBody(text).replace(ZERO_FAILURES_RE, "");
  return !FAILURE_RE.test(body);
};
