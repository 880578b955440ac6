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
 * Each of `lines` as a warning, at most SHOWN_WARNINGS of them, then one line for the rest
 * (`rest(n)`): a folder of a thousand files that are no sessions says so in a dozen lines.
 */
export const warnList = (lines: readonly string[], rest: (more: number) => string): void => {
  for (const l of lines.slice(0, SHOWN_WARNINGS)) log.warn(l);
  if (lines.length > SHOWN_WARNINGS) log.warn(rest(lines.length - SHOWN_WARNINGS));
};
