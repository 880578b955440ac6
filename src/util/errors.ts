// One error type for everything a user can cause: the CLI prints `message` and `hint`
// and exits with `exitCode`; nothing else reaches the user as a stack trace.

export type ErrorCode =
  | "usage" // bad flag, unknown subcommand, bad value: exit 2
  | "not-found" // missing path or session id
  | "bad-input" // a file of the wrong kind, empty, unreadable
  | "exists" // refusing to overwrite
  | "validation" // something bc wrote failed its own check
  | "external" // a program bc ran failed
  | "interrupted";

export class BcError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  constructor(code: ErrorCode, message: string, hint?: string) {
    super(message);
    this.name = "BcError";
    this.code = code;
    this.hint = hint;
  }
  get exitCode(): number {
    if (this.code === "usage") return 2;
    if (this.code === "interrupted") return 130;
    return 1;
  }
}

export const isBcError = (e: unknown): e is BcError => e instanceof BcError;
