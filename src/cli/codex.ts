// `bc codex install | uninstall | status | log`: bc answering Codex's compaction inside a running
// session; and the hidden `bc codex-hook precompact | apply` that Codex (and the hook) run.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { defineCommand } from "citty";
import { warnSkipped } from "./sessions.ts";
import { defaultCodexHome } from "../hosts/codex/home.ts";
import { idleWaitMs, runApplier } from "../hosts/codex/live/applier.ts";
import { runPreCompact } from "../hosts/codex/live/hook.ts";
import { install, status, uninstall } from "../hosts/codex/live/install.ts";
import { selfCommand } from "../util/self-command.ts";
import { codexHomeOf, formatLiveRecord, listLogs, parseLiveLog } from "../hosts/codex/live/state.ts";
import { BcError } from "../util/errors.ts";
import { log, out } from "../util/log.ts";
import { counted } from "../util/format.ts";
import { byThreadName } from "../hosts/codex/thread-names.ts";

const json = { type: "boolean", description: "Print the result as JSON on stdout, for scripts" } as const;

const installCmd = defineCommand({
  meta: {
    name: "install",
    description:
      "Add bc's PreCompact hook to $CODEX_HOME/hooks.json, so bc answers Codex's compaction (/compact or automatic) in interactive sessions with the pruned verbatim history. Codex runs it only once trusted: approve it in codex's /hooks, or pass --trust to let bc write the trust entry into config.toml.",
  },
  args: {
    trust: {
      type: "boolean",
      default: false,
      description: "Also mark the hook trusted in $CODEX_HOME/config.toml (asks codex for the hook's trust key and hash)",
    },
    codex: { type: "string", description: "The codex binary to ask (default: codex on PATH)" },
    json,
  },
  async run({ args }) {
    const r = await install({ trust: args.trust, codex: args.codex });
    // --trust that could not trust fails (exit 1), the hook written all the same: a script can tell
    const failed = args.trust && !r.trusted ? 1 : 0;
    if (args.json) {
      out(JSON.stringify(r, null, 2));
      return failed;
    }
    log.success(r.alreadyThere ? `bc's hook was already in ${r.hooksPath}` : `${r.createdHooksFile ? "wrote" : "added bc's hook to"} ${r.hooksPath}`);
    if (r.trusted) log.success("the hook is trusted; it takes effect in new codex sessions");
    else log.warn(r.trustHint ?? "the hook is not trusted yet");
    log.info("check it: 'bc codex status'; after a compaction, 'bc codex log' says what bc did; turn it off: 'bc codex uninstall'");
    return failed;
  },
});

const uninstallCmd = defineCommand({
  meta: {
    name: "uninstall",
    description: "Remove exactly what 'bc codex install' added: bc's hook in hooks.json and its trust entry in config.toml (decision logs are kept)",
  },
  args: { json },
  run({ args }) {
    const r = uninstall();
    if (args.json) return out(JSON.stringify(r, null, 2));
    log.info(r.removedHook ? `removed bc's hook${r.removedHooksFile ? " (and hooks.json, which bc had created)" : ""}` : "bc's hook was not installed");
    if (r.removedTrust) log.info("removed bc's trust entry from config.toml");
    if (r.stateProblem)
      log.warn(
        `${r.stateProblem}: if 'bc codex install --trust' wrote a trust entry ([hooks.state."…"] for bc's hook) to config.toml, it is still there; remove it by hand`,
      );
    if (r.removedHook && r.movedGroups > 0)
      log.warn(
        `${r.movedGroups === 1 ? "the PreCompact hook" : `the ${r.movedGroups} PreCompact hooks`} after bc's in hooks.json moved up a place, so codex asks you to trust ${r.movedGroups === 1 ? "it" : "them"} again in /hooks`,
      );
  },
});

const statusCmd = defineCommand({
  meta: { name: "status", description: "Whether bc's hook is installed and trusted, the Codex version, and whether the app-server socket exists" },
  args: { codex: { type: "string", description: "The codex binary to ask (default: codex on PATH)" }, json },
  async run({ args }) {
    const s = await status({ codex: args.codex });
    if (args.json) return out(JSON.stringify(s, null, 2));
    out(
      [
        `codex:             ${s.codex ? `${s.codex.version ?? "unknown version"} (${s.codex.path}${s.codex.tested ? `; ${s.codex.tested}` : ""})` : "not on PATH"}`,
        `hook installed:    ${s.installed ? `yes (${s.command})` : "no"}`,
        `hook trusted:      ${s.trusted === "unknown" ? `unknown (${s.trustUnknown ?? "codex could not be asked"})` : s.trusted ? "yes" : s.installed ? `no (${s.trustStatus ?? "untrusted"}): approve it in codex's /hooks, or 'bc codex install --trust'` : "no"}`,
        `app-server socket: ${s.socket ? "yes (an interactive codex runs on the shared app-server)" : "no (none running now; codex starts it with the interactive CLI)"}`,
        `decision logs:     ${s.logs} in ${s.codexHome}/better-compaction/logs`,
      ].join("\n"),
    );
    if (!s.installed) log.info("install it with 'bc codex install'");
  },
});

const logCmd = defineCommand({
  meta: { name: "log", description: "Print bc's decision log for a Codex thread (default: the newest): each compaction, what bc did and why" },
  args: { thread: { type: "positional", required: false, description: "Thread id (or a unique prefix), or its name; default: the newest log" }, json },
  run({ args }) {
    const codexHome = defaultCodexHome();
    const logs = listLogs(codexHome);
    const want = args.thread as string | undefined;
    // nothing logged yet is an empty answer for a script, not an error, in the shape of a log's
    if (args.json && !want && logs.length === 0) {
      log.info(`no decision log yet under ${codexHome}/better-compaction/logs`);
      return out(JSON.stringify({ threadId: null, path: null, records: [] }, null, 2));
    }
    if (logs.length === 0)
      throw new BcError(
        "not-found",
        `no decision log under ${codexHome}/better-compaction/logs`,
        "bc writes one when Codex compacts with the hook installed ('bc codex status')",
      );
    let matches = want ? logs.filter((l) => l.threadId === want || l.threadId.startsWith(want)) : [logs.at(-1)!];
    // no id: a thread's name (session_index.jsonl), the newest so named that has a log
    if (matches.length === 0 && want) {
      const named = byThreadName(codexHome, want, (id) => logs.find((l) => l.threadId === id));
      if (named) matches = [named];
    }
    if (matches.length === 0)
      throw new BcError("not-found", `no decision log for a thread with the id or name '${want}'`, "run 'bc codex log' without an id to see the newest");
    if (matches.length > 1 && !matches.some((m) => m.threadId === want))
      throw new BcError("usage", `thread id '${want}' matches ${matches.length} logs`, "give more of the id");
    const file = matches.find((m) => m.threadId === want) ?? matches[0]!;
    const { records, problems } = parseLiveLog(readFileSync(file.path, "utf8"));
    warnSkipped(problems.map((p) => `${file.path}:${p.replace(/^line /, "")}`));
    if (args.json) return out(JSON.stringify({ threadId: file.threadId, path: file.path, records }, null, 2));
    log.info(`${file.path}: ${counted(records.length, "record")}`);
    out(records.map(formatLiveRecord).join("\n\n"));
  },
});

export default defineCommand({
  meta: { name: "codex", description: "Let bc answer Codex's compaction inside running interactive sessions (install, remove, inspect)" },
  subCommands: { install: installCmd, uninstall: uninstallCmd, status: statusCmd, log: logCmd },
});

// ---------------------------------------------------------------- run by Codex, not by people

/** Start `bc codex-hook apply …` detached: it outlives the hook, which must answer at once. */
const startApplier = (args: readonly string[]): number | undefined => {
  const [cmd, ...pre] = selfCommand();
  try {
    const child = spawn(cmd!, [...pre, "codex-hook", "apply", ...args], { detached: true, stdio: "ignore" });
    child.unref();
    return child.pid;
  } catch {
    return undefined;
  }
};

const readStdin = async (): Promise<string> => await new Response(Bun.stdin.stream()).text();

const precompactCmd = defineCommand({
  meta: { name: "precompact", description: "Codex's PreCompact hook: reads the hook input on stdin" },
  async run() {
    const stdin = await readStdin().catch(() => "");
    try {
      let transcript: unknown;
      try {
        transcript = JSON.parse(stdin)?.transcript_path;
      } catch {}
      const codexHome = codexHomeOf(process.env, typeof transcript === "string" ? transcript : undefined, defaultCodexHome());
      const r = await runPreCompact(stdin, { codexHome, now: () => new Date(), startApplier });
      if (r.stdout) out(r.stdout);
    } catch {
      // a hook never breaks the session: no answer, Codex compacts
    }
    return 0;
  },
});

const applyCmd = defineCommand({
  meta: { name: "apply", description: "Replace a thread's history through the app-server (started by the hook)" },
  args: {
    thread: { type: "string", required: true, description: "Thread id" },
    codexHome: { type: "string", required: true, description: "$CODEX_HOME" },
    trigger: { type: "string", default: "manual", description: "manual | auto" },
    turn: { type: "string", description: "The vetoed turn's id" },
  },
  async run({ args }) {
    const r = await runApplier(
      { codexHome: args.codexHome, threadId: args.thread, trigger: args.trigger, turnId: args.turn },
      { idleTimeoutMs: idleWaitMs(process.env) },
    );
    return r.outcome === "applied" ? 0 : 1;
  },
});

export const hookCommand = defineCommand({
  meta: {
    name: "codex-hook",
    description: "Run by Codex, not by people: bc's PreCompact hook (precompact) and the applier it starts (apply)",
    hidden: true,
  },
  subCommands: { precompact: precompactCmd, apply: applyCmd },
});
