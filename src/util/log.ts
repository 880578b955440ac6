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
