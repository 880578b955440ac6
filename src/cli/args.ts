// Argument definitions more than one subcommand shares, so they read and behave the same, and the
// one way a command's flags become typed values: a zod schema whose first complaint is the usage error.
import { z } from "zod";
import { BcError } from "../util/errors.ts";

const SESSION_DESCRIPTION =
  "A Claude Code transcript (~/.claude/projects/<project>/<id>.jsonl), a Codex rollout ($CODEX_HOME/sessions/**/rollout-*.jsonl, or .jsonl.zst), or a session id (or its start) or name (claude -n, a Codex thread's) to look up in those places";

/** One session file of either host, or a session id looked up where the hosts keep them. */
export const SESSION_ARG = {
  type: "positional",
  required: true,
  description: SESSION_DESCRIPTION,
} as const;

/** One or more sessions: every one given is handled (`bc plan ~/.claude/projects/x/*.jsonl`). */
export const SESSIONS_ARG = {
  type: "positional",
  required: true,
  valueHint: "...",
  description: `${SESSION_DESCRIPTION}; give several to handle each`,
} as const;

/** `--json`: data as JSON on stdout, for scripts. */
export const JSON_ARG = { type: "boolean", description: "Print the result as JSON on stdout, for scripts" } as const;

/** A flag's value as typed, or undefined when not given; "" (a string flag given without a value) counts as given. */
const flagValue = (args: Record<string, unknown>, name: string): unknown => args[name];

/**
 * Read a command's flags through one schema. Keys are the flags as users type them (kebab-case);
 * the first problem becomes a one-line usage error naming the flag.
 */
export const parseFlags = <S extends z.ZodObject>(
  schema: S,
  args: Record<string, unknown>,
  command: string,
  positionals = Number.POSITIVE_INFINITY,
): z.infer<S> => {
  checkPositionals(args, command, positionals);
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) {
    const v = flagValue(args, key);
    if (v !== undefined) input[key] = v;
  }
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const flag = String(issue.path[0] ?? "");
  throw new BcError("usage", `--${flag} ${issue.message}, got '${String(input[flag])}'`, `run '${command} --help' to see its options`);
};

/** A command that takes at most `most` arguments besides its flags: one more is a usage error, not passed over. */
export const checkPositionals = (args: Record<string, unknown>, command: string, most: number): void => {
  const given = Array.isArray(args._) ? args._ : [];
  if (given.length <= most) return;
  const takes = most === 0 ? "takes no arguments" : most === 1 ? "takes one argument" : `takes at most ${most} arguments`;
  throw new BcError("usage", `unexpected argument '${String(given[most])}': ${command} ${takes}`, `run '${command} --help' to see its options`);
};

/** A whole-number flag from `min` to `max`. */
export const wholeNumber = (min: number, max: number) =>
  z.string().transform((s, ctx) => {
    const n = Number(s);
    if (s.trim() !== "" && Number.isInteger(n) && n >= min && n <= max) return n;
    ctx.addIssue({ code: "custom", message: `must be a whole number from ${min} to ${max}` });
    return z.NEVER;
  });

/** A share from 0 to 1. */
export const fraction = () =>
  z.string().transform((s, ctx) => {
    const n = Number(s);
    if (s.trim() !== "" && Number.isFinite(n) && n >= 0 && n <= 1) return n;
    ctx.addIssue({ code: "custom", message: "must be a number from 0 to 1" });
    return z.NEVER;
  });

/**
 * A flag that names a file or folder. A value that is another flag (`--out-dir --json`: the
 * parser took the next flag for the path) is refused; a folder so named is `./--json`.
 */
export const pathFlag = () =>
  z
    .string()
    .min(1, "needs a path")
    .refine((s) => !s.startsWith("--"), "needs a path, not another flag (write ./--x for a folder so named)");
