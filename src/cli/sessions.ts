// What every command that reads sessions does alike: take every session given, say each line a
// reader skipped, and go on past a session that cannot be read (saying why) to the next.
import { BcError } from "../util/errors.ts";
import { warnList } from "../util/log.ts";
import { report } from "./run.ts";

/** Every session argument given (citty keeps the first in the named positional, all of them in `_`). */
export const sessionsGiven = (args: { readonly _?: readonly unknown[]; readonly session?: unknown }): string[] => {
  const all = (args._ ?? []).map(String);
  if (all.length > 0) return all;
  return args.session === undefined ? [] : [String(args.session)];
};

/**
 * One line on stderr for each line a reader skipped or found cut, `warning: file:line: what was
 * wrong`, capped as capWarnings caps them: the rest in one line naming their files (a file of ten
 * thousand broken lines says so in a dozen).
 */
export const warnSkipped = (lines: readonly string[]): void =>
  warnList(lines, (rest) => {
    const files = [...new Set(rest.map((l) => /^(.*?):\d+: /.exec(l)?.[1] ?? "?"))];
    const named = files.length <= 3 ? files.join(", ") : `${files.slice(0, 3).join(", ")} and ${files.length - 3} other files`;
    return `and ${rest.length} more lines skipped, in ${named}`;
  });

/**
 * Run `each` on every session given. A session that fails with a BcError is reported the one
 * readable way and the rest still run; the exit code is then the worst one seen.
 */
export const forEachSession = <T>(
  names: readonly string[],
  each: (name: string) => T,
): { readonly results: T[]; readonly code: number; readonly inOrder: (T | SessionFailure)[] } => {
  const results: T[] = [];
  const inOrder: (T | SessionFailure)[] = [];
  let code = 0;
  for (const name of names) {
    try {
      const r = each(name);
      results.push(r);
      inOrder.push(r);
    } catch (e) {
      if (!(e instanceof BcError) || names.length === 1) throw e;
      code = Math.max(code, report(e));
      inOrder.push({ session: name, error: e.message });
    }
  }
  return { results, code, inOrder };
};

/** A session given among several that could not be handled, in --json's array where its report would be. */
export interface SessionFailure {
  readonly session: string;
  readonly error: string;
}
