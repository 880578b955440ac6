// `bc claude install | uninstall | status | log`: set up, remove and inspect the Claude Code plugin.
import { defineCommand } from "citty";
import { formatRecord } from "../hosts/claude/decision-log.ts";
import { defaultMarketplaceDir, install, listLogs, logsDir, PLUGIN_ID, readLog, type StatusReport, status, uninstall } from "../hosts/claude/install.ts";
import { log, out } from "../util/log.ts";
import { z } from "zod";
import { JSON_ARG, parseFlags, pathFlag } from "./args.ts";
import { warnSkipped } from "./sessions.ts";
import { allowRecall, checkRecallSettings, disallowRecall, RECALL_RULE, RECALL_RULES, settingsPath } from "../hosts/recall/permission.ts";
import { claudeDir } from "../hosts/claude/install.ts";
import { counted } from "../util/format.ts";
import { BcError } from "../util/errors.ts";

const json = JSON_ARG;

/** install and uninstall take the same flags */
const SETUP_FLAGS = z.object({ dir: pathFlag().optional(), register: z.boolean().default(true), json: z.boolean().default(false) });
const INSTALL_FLAGS = SETUP_FLAGS.extend({ "allow-recall": z.boolean().default(false) });
const STATUS_FLAGS = z.object({ json: z.boolean().default(false) });
const LOG_FLAGS = z.object({ session: z.string().optional(), all: z.boolean().default(false), json: z.boolean().default(false) });

const installCmd = defineCommand({
  meta: {
    name: "install",
    description:
      "Write the better-compaction plugin into a local marketplace folder and install it into Claude Code (runs 'claude plugin marketplace add' and 'claude plugin install' when claude is on PATH; otherwise prints them). Run it again to update.",
  },
  args: {
    dir: {
      type: "string",
      valueHint: "dir",
      description: `Marketplace folder to write (default ${defaultMarketplaceDir().replace(process.env.HOME ?? "\u0000", "~")})`,
    },
    register: {
      type: "boolean",
      default: true,
      description: "Only write the plugin's folder and print the claude commands that register it (by default bc runs them)",
    },
    "allow-recall": {
      type: "boolean",
      description: `Also allow ${RECALL_RULE} in Claude Code's user settings, so the agent gets a removed output back without asking you each time`,
    },
    json,
  },
  async run({ args: raw }) {
    const args = parseFlags(INSTALL_FLAGS, raw, "bc claude install", 0);
    // settings bc cannot add the rules to stop the install before it writes anything
    if (args["allow-recall"]) checkRecallSettings(settingsPath(claudeDir()));
    const r = await install({ dir: args.dir, register: args.register });
    const rule = args["allow-recall"] ? allowRecall(settingsPath(claudeDir())) : undefined;
    if (args.json) return out(JSON.stringify(rule ? { ...r, recallRule: rule } : r, null, 2));
    if (rule) log.info(rule.added ? `allowed ${RECALL_RULE} (permissions.allow in ${rule.path})` : `${RECALL_RULE} were already allowed in ${rule.path}`);
    else
      log.info(
        `to let the agent get a removed output back (bc recall) without asking you each time: bc claude install --allow-recall (allows ${RECALL_RULE} in ${settingsPath(claudeDir())})`,
      );
    log.info(`wrote the better-compaction plugin ${r.version} to ${r.pluginDir}`);
    if (r.ran) {
      for (const c of r.commands) log.info(`ran: ${c}`);
      if (r.disabled)
        log.warn(
          `installed ${PLUGIN_ID} into Claude Code${r.claude?.version ? ` ${r.claude.version}` : ""}, but it is disabled there: 'claude plugin enable ${PLUGIN_ID}' turns it on`,
        );
      else log.success(`installed ${PLUGIN_ID} into Claude Code${r.claude?.version ? ` ${r.claude.version}` : ""}; it takes effect in new sessions`);
    } else {
      log.warn(
        r.notRun === "no-register"
          ? "not registered with Claude Code (--no-register); to install the plugin, run:"
          : "claude is not on PATH; to install the plugin, run:",
      );
      for (const c of r.commands) out(c);
    }
    log.info("check it: 'bc claude status' (or 'claude plugin list'); after a /compact in Claude Code, 'bc claude log' shows what was kept and dropped");
  },
});

const uninstallCmd = defineCommand({
  meta: {
    name: "uninstall",
    description:
      "Uninstall the plugin from Claude Code, remove its local marketplace, and delete the files 'bc claude install' wrote, in every folder it wrote them to (files of yours there and the decision logs are kept)",
  },
  args: {
    dir: { type: "string", valueHint: "dir", description: "The marketplace folder, if not the one 'bc claude install' recorded" },
    register: {
      type: "boolean",
      default: true,
      description: "Only delete the plugin's folder and print the claude commands that unregister it (by default bc runs them)",
    },
    json,
  },
  run({ args: raw }) {
    const args = parseFlags(SETUP_FLAGS, raw, "bc claude uninstall", 0);
    const r = uninstall({ dir: args.dir, register: args.register });
    // the plugin is gone whatever the settings file holds: one bc cannot read is said, not fatal
    let rule: { path: string; removed: boolean; problem?: string };
    try {
      rule = disallowRecall(settingsPath(claudeDir()));
    } catch (e) {
      if (!(e instanceof BcError)) throw e;
      rule = { path: settingsPath(claudeDir()), removed: false, problem: e.message };
    }
    if (args.json) return out(JSON.stringify({ ...r, recallRuleRemoved: rule.removed, ...(rule.problem ? { recallRuleProblem: rule.problem } : {}) }, null, 2));
    if (rule.removed) log.info(`removed ${RECALL_RULE} from permissions.allow in ${rule.path}`);
    if (rule.problem) log.warn(`${rule.problem}: if you allowed bc recall there, remove ${JSON.stringify(RECALL_RULES)} from permissions.allow by hand`);
    if (r.registeredElsewhere !== undefined)
      log.warn(
        `Claude Code runs the plugin from ${r.registeredElsewhere}, not ${r.dir}: left installed there ('bc claude uninstall' without --dir removes it)`,
      );
    if (r.ran) for (const c of r.commands) log.info(`ran: ${c}`);
    else {
      log.warn(
        r.notRun === "no-register"
          ? "not unregistered from Claude Code (--no-register); to remove the plugin there, run:"
          : "claude is not on PATH; to remove the plugin from Claude Code, run:",
      );
      for (const c of r.commands) out(c);
    }
    for (const f of r.folders) {
      if (f.removedDir) log.info(`deleted ${f.dir}`);
      else if (f.removed === 0) log.info(`no better-compaction marketplace folder at ${f.dir}`);
      else log.info(`removed the ${f.removed} files bc wrote in ${f.dir}; kept what bc did not write: ${f.kept.join(", ")}`);
    }
  },
});

const installedLine = (s: StatusReport): string => {
  if (s.installed) return `${s.installed.id} ${s.installed.version ?? ""}${s.installed.enabled === false ? " (disabled)" : ""}`.trim();
  if (s.installedUnknown) return `unknown (${s.installedUnknown})`;
  return s.claude ? "no" : "unknown (claude is not on PATH)";
};

const statusCmd = defineCommand({
  meta: { name: "status", description: "Whether the plugin is installed in Claude Code, which version, and which Claude Code is on PATH" },
  args: { json },
  run({ args: raw }) {
    const args = parseFlags(STATUS_FLAGS, raw, "bc claude status", 0);
    const s = status();
    if (args.json) return out(JSON.stringify(s, null, 2));
    const lines = [
      `claude on PATH:   ${s.claude ? `${s.claude.version ?? "unknown version"} (${s.claude.path}${s.claude.tested ? `; ${s.claude.tested}` : ""})` : "no"}`,
      `installed:        ${installedLine(s)}`,
      `marketplace:      ${s.written ? `${s.marketplaceDir} (plugin ${s.written})` : `none at ${s.marketplaceDir}`}`,
      `decision logs:    ${s.logsProblem === undefined ? s.logs : `unknown (${s.logsProblem})`}`,
      `need weights:     ${s.needWeights}`,
    ];
    out(lines.join("\n"));
    if (s.installed) return;
    if (s.installedUnknown) log.info("run 'claude plugin list' to see what Claude Code says");
    else if (s.claude) log.info("install it with 'bc claude install'");
    else if (s.written) log.info("claude is not on PATH: once it is, 'bc claude install' registers the plugin (or run the two claude commands it printed)");
    else log.info("claude is not on PATH: install Claude Code, then run 'bc claude install'");
  },
});

const logCmd = defineCommand({
  meta: {
    name: "log",
    description:
      "Print the plugin's decision log for a session (default: the newest): each compaction, what it freed, and every result it truncated or dropped, with the rule and reason",
  },
  args: {
    session: { type: "positional", required: false, description: "Session id (or a unique prefix), or its name; default: the newest log" },
    all: { type: "boolean", description: "Also list the results that were kept" },
    json,
  },
  run({ args: raw }) {
    const args = parseFlags(LOG_FLAGS, raw, "bc claude log", 1);
    // nothing logged yet is an empty answer for a script, not an error, in the shape of a log's
    if (args.json && !args.session && listLogs().length === 0) {
      log.info(`no decision log yet under ${logsDir()}`);
      return out(JSON.stringify({ sessionId: null, path: null, records: [] }, null, 2));
    }
    const { file, records, problems } = readLog(args.session || undefined);
    warnSkipped(problems);
    if (args.json) return out(JSON.stringify({ sessionId: file.sessionId, path: file.path, records }, null, 2));
    log.info(`${file.path}: ${counted(records.length, "compaction")}`);
    // a log of no readable record prints nothing (the line above said so), not an empty line
    if (records.length > 0) out(records.map((r) => formatRecord(r, { allResults: args.all })).join("\n\n"));
  },
});

export default defineCommand({
  meta: { name: "claude", description: "Install, remove and inspect the Claude Code plugin (session.compact hook)" },
  subCommands: { install: installCmd, uninstall: uninstallCmd, status: statusCmd, log: logCmd },
});
