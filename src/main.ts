#!/usr/bin/env bun
// bc: one executable, dispatched by subcommand; each subcommand is loaded only when used.
import { defineCommand } from "citty";
import { calculatorHandOver } from "./cli/calculator.ts";
import { dispatch, report } from "./cli/run.ts";
import { VERSION, versionLine } from "./version.ts";

export const main = defineCommand({
  meta: {
    name: "bc",
    version: VERSION,
    description: "better-compaction: keep, truncate or drop each tool result, by deterministic rules and a need score; never summarize.",
  },
  subCommands: {
    inspect: () => import("./cli/inspect.ts").then((m) => m.default),
    plan: () => import("./cli/plan.ts").then((m) => m.default),
    "codex-fork": () => import("./cli/codex-fork.ts").then((m) => m.default),
    eval: () => import("./cli/eval.ts").then((m) => m.default),
    "eval-worker": () => import("./cli/eval-worker.ts").then((m) => m.default),
    claude: () => import("./cli/claude.ts").then((m) => m.default),
    completion: () => import("./cli/completion.ts").then((m) => m.default),
    calibrate: () => import("./cli/calibrate.ts").then((m) => m.default),
    recall: () => import("./cli/recall.ts").then((m) => m.default),
    mcp: () => import("./cli/mcp.ts").then((m) => m.default),
    codex: () => import("./cli/codex.ts").then((m) => m.default),
    "codex-hook": () => import("./cli/codex.ts").then((m) => m.hookCommand),
  },
});

const run = async (argv: readonly string[]): Promise<number> => {
  if (argv[0] === "--version" || argv[0] === "-v") {
    process.stdout.write(`${versionLine()}\n`);
    return 0;
  }
  return dispatch(main, argv, "bc");
};

/**
 * Exit with `code` once everything written to stdout has reached it. Bun writes to a pipe in
 * pieces, and process.exit drops what is still queued: `bc recall <id> | cat` printed the first
 * 64 KiB of a larger output and exited 0. Ending stdout flushes it first (a reader gone, as with
 * `| head`, ends it too).
 */
const exitAfterOutput = (code: number): void => {
  process.exitCode = code;
  try {
    process.stdout.end(() => process.exit(code));
  } catch {
    process.exit(code);
  }
};

// decided before citty parses anything: calculator-style arguments go to the calculator `bc`
const handedOver = import.meta.main ? calculatorHandOver(process.argv.slice(2), Object.keys(main.subCommands ?? {}), () => run([])) : undefined;
if (handedOver)
  handedOver.then(
    (code) => exitAfterOutput(code),
    (e) => exitAfterOutput(report(e)),
  );
else if (import.meta.main) {
  process.on("SIGINT", () => {
    process.stderr.write("\nbc: interrupted\n");
    process.exit(130);
  });
  run(process.argv.slice(2)).then(
    (code) => exitAfterOutput(code),
    (e) => exitAfterOutput(report(e)),
  );
}
