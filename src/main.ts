#!/usr/bin/env bun
// bc: one executable, dispatched by subcommand; each subcommand is loaded only when used.
import { defineCommand } from "citty";
import { dispatch, report } from "./cli/run.ts";
import { VERSION } from "./version.ts";

export const main = defineCommand({
  meta: {
    name: "bc",
    version: VERSION,
    description: "better-compaction: keep, truncate or drop each tool result by five deterministic rules; never summarize.",
  },
  subCommands: {
    inspect: () => import("./cli/inspect.ts").then((m) => m.default),
    plan: () => import("./cli/plan.ts").then((m) => m.default),
    "codex-fork": () => import("./cli/codex-fork.ts").then((m) => m.default),
    eval: () => import("./cli/eval.ts").then((m) => m.default),
    claude: () => import("./cli/claude.ts").then((m) => m.default),
    codex: () => import("./cli/codex.ts").then((m) => m.default),
    "codex-hook": () => import("./cli/codex.ts").then((m) => m.hookCommand),
  },
});

const run = async (argv: readonly string[]): Promise<number> => {
  if (argv[0] === "--version" || argv[0] === "-v") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  return dispatch(main, argv, "bc");
};

if (import.meta.main) {
  process.on("SIGINT", () => {
    process.stderr.write("\nbc: interrupted\n");
    process.exit(130);
  });
  run(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => process.exit(report(e)),
  );
}
