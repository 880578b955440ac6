// People read stderr; scripts read stdout. All logging goes through consola to stderr.
import { createConsola } from "consola";

export const log = createConsola({
  stdout: process.stderr,
  stderr: process.stderr,
  level: process.env.BC_LOG_LEVEL ? Number(process.env.BC_LOG_LEVEL) : 3,
});

/** Write data (JSON, tables, ids, paths) to stdout. */
export const out = (text: string): void => {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
};

/** Warnings of one kind shown before the rest are summed up in one line. */
const SHOWN_WARNINGS = 10;

/**
 * The first SHOWN_WARNINGS of `lines`, then `rest(others)` for the others (nothing more when they
 * all fit): a folder of a thousand files that are no sessions says so in a dozen lines.
 */
export const capWarnings = (lines: readonly string[], rest: (others: readonly string[]) => string): string[] =>
  lines.length <= SHOWN_WARNINGS ? [...lines] : [...lines.slice(0, SHOWN_WARNINGS), rest(lines.slice(SHOWN_WARNINGS))];

/** Each of `lines` as a one-line warning (`warning: …`, as the readers' skipped lines are said), capped as capWarnings caps them. */
export const warnList = (lines: readonly string[], rest: (others: readonly string[]) => string): void => {
  const shown = capWarnings(lines, rest);
  if (shown.length > 0) process.stderr.write(shown.map((l) => `warning: ${l}\n`).join(""));
};
