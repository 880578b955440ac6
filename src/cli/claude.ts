// `bc claude install | uninstall | status | log`: set up, remove and inspect the Claude Code plugin.
import { defineCommand } from "citty";
import { formatRecord } from "../hosts/claude/decision-log.ts";
import { defaultMarketplaceDir, install, PLUGIN_ID, readLog, status, uninstall } from "../hosts/claude/install.ts";
import { log, out } from "../util/log.ts";
import { allowRecall, disallowRecall, RECALL_RULE, settingsPath } from "../hosts/recall/permission.ts";
import { claudeDir } from "../hosts/claude/install.ts";

const json = { type: "boolean", description: "Print the result as JSON on stdout, for scripts" } as const;

const installCmd = defineCommand({
  meta: {
    name: "install",
    description:
      "Write the better-compaction plugin into a local marketplace folder and install it into Claude Code (runs 'claude plugin marketplace add' and 'claude plugin install' when claude is on PATH; otherwise prints them). Run it again to update.",
  },
  args: {
    dir: { type: "string", description: `Marketplace folder to write (default ${defaultMarketplaceDir().replace(process.env.HOME ?? "\u0000", "~")})` },
    register: { type: "boolean", default: true, description: "Register with Claude Code through its CLI (--no-register: only write the folder and print the commands)" },
    allowRecall: { type: "boolean", description: `Also allow ${RECALL_RULE} in Claude Code's user settings, so the agent gets a removed output back without asking you each time` },
    json,
  },
  async run({ args }) {
    const r = await install({ dir: args.dir, register: args.register });
    const rule = args.allowRecall ? allowRecall(settingsPath(claudeDir())) : undefined;
    if (args.json) return out(JSON.stringify(rule ? { ...r, recallRule: rule } : r, null, 2));
    if (rule) log.info(rule.added ? `allowed ${RECALL_RULE} (permissions.allow in ${rule.path})` : `${RECALL_RULE} were already allowed in ${rule.path}`);
    else log.info(`to let the agent get a removed output back (bc recall) without asking you each time: bc claude install --allow-recall (allows ${RECALL_RULE} in ${settingsPath(claudeDir())})`);
    log.info(`wrote the better-compaction plugin ${r.version} to ${r.pluginDir}`);
    if (r.ran) {
      for (const c of r.commands) log.info(`ran: ${c}`);
      log.success(`installed ${PLUGIN_ID} into Claude Code${r.claude?.version ? ` ${r.claude.version}` : ""}; it takes effect in new sessions`);
    } else {
      log.warn("claude is not on PATH; to install the plugin, run:");
      for (const c of r.commands) out(c);
    }
    log.info("check it: 'bc claude status' (or 'claude plugin list'); after a /compact in Claude Code, 'bc claude log' shows what was kept and dropped");
  },
});

const uninstallCmd = defineCommand({
  meta: { name: "uninstall", description: "Uninstall the plugin from Claude Code, remove its local marketplace, and delete the folder 'bc claude install' wrote (decision logs are kept)" },
  args: {
    dir: { type: "string", description: "The marketplace folder, if not the one 'bc claude install' recorded" },
    register: { type: "boolean", default: true, description: "Unregister through Claude Code's CLI (--no-register: only delete the folder and print the commands)" },
    json,
  },
  run({ args }) {
    const r = uninstall({ dir: args.dir, register: args.register });
    const rule = disallowRecall(settingsPath(claudeDir()));
    if (args.json) return out(JSON.stringify({ ...r, recallRuleRemoved: rule.removed }, null, 2));
    if (rule.removed) log.info(`removed ${RECALL_RULE} from permissions.allow in ${rule.path}`);
    if (r.ran) for (const c of r.commands) log.info(`ran: ${c}`);
    else {
      log.warn("claude is not on PATH; to remove the plugin from Claude Code, run:");
      for (const c of r.commands) out(c);
    }
    log.info(r.removedDir ? `deleted ${r.dir}` : `no better-compaction marketplace folder at ${r.dir}`);
  },
});

const statusCmd = defineCommand({
  meta: { name: "status", description: "Whether the plugin is installed in Claude Code, which version, and which Claude Code is on PATH" },
  args: { json },
  run({ args }) {
    const s = status();
    if (args.json) return out(JSON.stringify(s, null, 2));
    const lines = [
      `claude on PATH:   ${s.claude ? `${s.claude.version ?? "unknown version"} (${s.claude.path})` : "no"}`,
      `installed:        ${s.installed ? `${s.installed.id} ${s.installed.version ?? ""}${s.installed.enabled === false ? " (disabled)" : ""}`.trim() : s.claude ? "no" : "unknown (claude is not on PATH)"}`,
      `marketplace:      ${s.written ? `${s.marketplaceDir} (plugin ${s.written})` : `none at ${s.marketplaceDir}`}`,
      `decision logs:    ${s.logs}`,
    ];
    out(lines.join("\n"));
    if (!s.installed) log.info("install it with 'bc claude install'");
  },
});

const logCmd = defineCommand({
  meta: { name: "log", description: "Print the plugin's decision log for a session (default: the newest): each compaction, what it freed, and every result it truncated or dropped, with the rule and reason" },
  args: {
    session: { type: "positional", required: false, description: "Session id (or a unique prefix); default: the newest log" },
    all: { type: "boolean", description: "Also list the results that were kept" },
    json,
  },
  run({ args }) {
    const { file, records, problems } = readLog(args.session || undefined);
    for (const p of problems) log.warn(`skipped ${p}`);
    if (args.json) return out(JSON.stringify({ sessionId: file.sessionId, path: file.path, records }, null, 2));
    log.info(`${file.path}: ${records.length} compaction(s)`);
    out(records.map((r) => formatRecord(r, { allResults: args.all })).join("\n\n"));
  },
});

export default defineCommand({
  meta: { name: "claude", description: "Install, remove and inspect the Claude Code plugin (session.compact hook)" },
  subCommands: { install: installCmd, uninstall: uninstallCmd, status: statusCmd, log: logCmd },
});
