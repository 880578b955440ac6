// Living beside the POSIX calculator, which is also called `bc`. Before citty sees anything,
// `bc` started with calculator-style arguments (no arguments and piped input, the calculator's
// flags, or files that are not sessions) hands over to the next `bc` on PATH that is not this
// binary: same arguments, same standard input, its exit code. Anything naming a subcommand of
// ours, or a session file, stays ours, so nothing of ours ever runs the calculator's way.
import { accessSync, closeSync, constants, openSync, readSync, realpathSync, statSync } from "node:fs";
import { basename, delimiter, join } from "node:path";
import { isatty } from "node:tty";

/** Real paths of the `bc`s already passed over (copies of this binary), so two copies on PATH never loop. */
export const SKIP_ENV = "BC_CALCULATOR_SKIP";

/** The calculator's options (GNU bc and the BSD/macOS bc), short and long. */
const CALCULATOR_SHORT = new Set(["l", "i", "q", "s", "w", "v"]);
const CALCULATOR_WITH_VALUE = new Set(["-e", "-f", "--expression", "--file"]);
const CALCULATOR_LONG = new Set(["--mathlib", "--interactive", "--quiet", "--standard", "--warn"]);
/** What is ours at the top level besides the subcommands. */
const OURS = new Set(["--help", "-h", "help", "--version"]);

const isCalculatorFlag = (a: string): boolean =>
  CALCULATOR_LONG.has(a) ||
  CALCULATOR_WITH_VALUE.has(a) ||
  a.startsWith("--expression=") ||
  a.startsWith("--file=") ||
  (/^-[a-z]+$/.test(a) && [...a.slice(1)].every((c) => CALCULATOR_SHORT.has(c)));

export type FileKind = "session" | "other" | "missing";

/**
 * A session (Claude Code transcript or Codex rollout) by its name or its first bytes: JSON Lines
 * start with `{`, a compressed rollout with zstd's magic number. A folder counts as ours too.
 */
export const fileKind = (path: string): FileKind => {
  let st;
  try {
    st = statSync(path);
  } catch {
    return "missing";
  }
  if (st.isDirectory() || /\.jsonl(\.zst)?$/i.test(path)) return "session";
  if (!st.isFile()) return "other";
  const head = Buffer.alloc(512);
  let n = 0;
  try {
    const fd = openSync(path, "r");
    try {
      n = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return "other";
  }
  if (n >= 4 && head.readUInt32LE(0) === 0xfd2fb528) return "session";
  const text = head
    .subarray(0, n)
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart();
  return text.startsWith("{") ? "session" : "other";
};

export type Route =
  /** ours: citty takes it from here */
  | { readonly to: "ours" }
  /** ours, with no arguments at a terminal: our help, then how to reach the calculator */
  | { readonly to: "help" }
  /** a session given with no subcommand: a one-line usage error naming the command to use */
  | { readonly to: "session"; readonly path: string }
  | { readonly to: "calculator" };

export interface RouteContext {
  readonly subcommands: readonly string[];
  readonly stdinIsTerminal: boolean;
  /** false when started as `better-compaction`: that name never hands over */
  readonly asBc: boolean;
  readonly fileKind?: (path: string) => FileKind;
}

/** Where argv goes. Cheap for our own commands: one set lookup, no file read. */
export const routeOf = (argv: readonly string[], ctx: RouteContext): Route => {
  const first = argv[0];
  if (first === undefined) return ctx.stdinIsTerminal || !ctx.asBc ? { to: "help" } : { to: "calculator" };
  if (OURS.has(first) || ctx.subcommands.includes(first)) return { to: "ours" };
  const kind = ctx.fileKind ?? fileKind;
  let files = 0;
  let flags = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (CALCULATOR_WITH_VALUE.has(a)) {
      flags++;
      i++; // its value (an expression or a file) belongs to the calculator
      continue;
    }
    if (isCalculatorFlag(a)) {
      flags++;
      continue;
    }
    if (a.startsWith("-")) return { to: "ours" }; // a flag only we know (or nobody does): ours reports it
    const k = kind(a);
    if (k === "session") return { to: "session", path: a };
    if (k === "missing") return { to: "ours" }; // a typo of a subcommand reads better as ours
    files++;
  }
  return ctx.asBc && flags + files > 0 ? { to: "calculator" } : { to: "ours" };
};

const isExecutableFile = (path: string): boolean => {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const realpath = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** The first `bc` on PATH whose real path is not one of `skip` (this binary and copies already passed over). */
export const findCalculator = (path: string | undefined, skip: ReadonlySet<string>): string | undefined => {
  const names = process.platform === "win32" ? ["bc.exe", "bc.cmd", "bc.bat"] : ["bc"];
  for (const dir of (path ?? "").split(delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const candidate = join(dir, name);
      if (isExecutableFile(candidate) && !skip.has(realpath(candidate))) return candidate;
    }
  }
  return undefined;
};

const skipSet = (env: Record<string, string | undefined>): Set<string> => {
  const set = new Set((env[SKIP_ENV] ?? "").split(delimiter).filter(Boolean));
  set.add(realpath(process.execPath));
  return set;
};

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGTERM: 15 };

/** Run the calculator with our arguments and standard streams; resolves to its exit code. */
const runCalculator = async (calculator: string, argv: readonly string[], skip: ReadonlySet<string>): Promise<number> => {
  const env = { ...process.env, [SKIP_ENV]: [...skip].join(delimiter) };
  const child = Bun.spawn([calculator, ...argv], { argv0: "bc", env, stdin: "inherit", stdout: "inherit", stderr: "inherit" });
  // as a shell does while a command runs: a terminal's Ctrl-C or Ctrl-\ is the calculator's to handle
  // (an interactive calculator survives it); a hang-up or termination sent to us is passed on
  process.on("SIGINT", () => {});
  process.on("SIGQUIT", () => {});
  for (const sig of ["SIGHUP", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
  const code = await child.exited;
  return child.signalCode ? 128 + (SIGNALS[child.signalCode] ?? 1) : code;
};

const HELP_NOTE = (calculator: string | undefined): string =>
  calculator
    ? `The calculator: ${calculator}. 'bc' hands over to it with piped input ('echo "2/3" | bc -l'), its flags (-l -i -q -s -w -v) or files that are not sessions; 'bc -q' starts it here.\n`
    : "No calculator 'bc' is on PATH besides this one; better-compaction also answers as 'better-compaction'.\n";

/**
 * The hook at the top of main: resolves to an exit code when argv was not ours to run (handed
 * over, or answered here), or undefined when citty should take it.
 */
export const calculatorHandOver = (argv: readonly string[], subcommands: readonly string[], printHelp: () => Promise<number>): Promise<number> | undefined => {
  const asBc = !/^better-compaction(\.exe)?$/i.test(basename(process.argv0 || ""));
  // isatty, not process.stdin: creating that stream could change the terminal a child (codex --resume) inherits
  const route = routeOf(argv, { subcommands, stdinIsTerminal: argv.length === 0 && isatty(0), asBc });
  if (route.to === "ours") return undefined;
  if (route.to === "help")
    return printHelp().then((code) => {
      if (asBc) process.stderr.write(HELP_NOTE(findCalculator(process.env.PATH, skipSet(process.env))));
      return code;
    });
  if (route.to === "session") {
    process.stderr.write(`bc: ${route.path}: a session needs a command\nhint: 'bc inspect <session>' describes it; 'bc --help' lists the commands\n`);
    return Promise.resolve(2);
  }
  const skip = skipSet(process.env);
  const calculator = findCalculator(process.env.PATH, skip);
  if (!calculator) {
    process.stderr.write(
      `bc: no calculator 'bc' on PATH to hand '${argv.join(" ") || "standard input"}' to (this bc is better-compaction: 'bc --help' lists its commands)\n`,
    );
    return Promise.resolve(127);
  }
  // the one handed to is passed over by its own hand-over too, should it be a wrapper of this binary
  return runCalculator(calculator, argv, new Set([...skip, realpath(calculator)]));
};
