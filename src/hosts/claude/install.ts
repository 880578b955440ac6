// `bc claude install | uninstall | status | log`: the plugin written into a local marketplace
// folder, registered with Claude Code through its own CLI (`claude plugin marketplace add`,
// `claude plugin install`), and the decision logs the hook writes.
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { shellQuote } from "../../engine/shell.ts";
import { BcError } from "../../util/errors.ts";
import { isObject } from "../../util/json.ts";
import { replaceFile, replaceFiles } from "../../util/jsonl.ts";
import { VERSION } from "../../version.ts";
import { testedField, testedOf } from "../tested-versions.ts";
import { LOG_DIR_NAME, type DecisionRecord } from "./decision-log.ts";
import { parseLog } from "./decision-log-read.ts";
import { describeWeights, NEED_WEIGHTS_FILE, sourcesOf, weightsInUse } from "../need-weights.ts";
import { pinRecallServer } from "../recall/plugin-server.ts";
import { defaultClaudeDir } from "./home.ts";
import { transcriptsTitled } from "./titles.ts";
import { discoverSessions } from "../load.ts";

export const PLUGIN_NAME = "better-compaction";
export const MARKETPLACE_NAME = "better-compaction-local";
export const PLUGIN_ID = `${PLUGIN_NAME}@${MARKETPLACE_NAME}`;
const CLAUDE_TIMEOUT_MS = 120_000;

/** Claude Code's config folder: $CLAUDE_CONFIG_DIR, else ~/.claude. */
export const claudeDir = (env: Record<string, string | undefined> = process.env): string => defaultClaudeDir(env.HOME || undefined, env);
export const bcDir = (env?: Record<string, string | undefined>): string => join(claudeDir(env), LOG_DIR_NAME);
export const defaultMarketplaceDir = (env?: Record<string, string | undefined>): string => join(bcDir(env), "marketplace");
const statePath = (env?: Record<string, string | undefined>): string => join(bcDir(env), "install.json");

export type PluginFiles = Record<string, string>;

/** The plugin's files, embedded when bc is bundled (or run from source) by a build-time macro. */
export const loadPluginFiles = async (): Promise<PluginFiles> => (await import("./plugin-files.ts")).PLUGIN_FILES;

const marketplaceManifest = (version: string) => ({
  name: MARKETPLACE_NAME,
  owner: { name: "better-compaction (local)" },
  description: "The better-compaction plugin, written here by 'bc claude install'.",
  plugins: [
    {
      name: PLUGIN_NAME,
      source: `./plugins/${PLUGIN_NAME}`,
      description: "Deterministic, verbatim compaction: keep, truncate or drop each tool result by deterministic rules and a need score; never summarize.",
      version,
    },
  ],
});

const isOurMarketplace = (dir: string): boolean => {
  try {
    return JSON.parse(readFileSync(join(dir, ".claude-plugin", "marketplace.json"), "utf8"))?.name === MARKETPLACE_NAME;
  } catch {
    return false;
  }
};

/** Every file `bc claude install` writes into a marketplace folder, relative to it. */
const marketplaceFiles = (files: PluginFiles): PluginFiles => {
  const version = (JSON.parse(files[".claude-plugin/plugin.json"] ?? "{}") as { version?: string }).version ?? VERSION;
  const all: PluginFiles = { ...Object.fromEntries(Object.entries(files).map(([k, v]) => [`plugins/${PLUGIN_NAME}/${k}`, v])) };
  all[".claude-plugin/marketplace.json"] = `${JSON.stringify(marketplaceManifest(version), null, 2)}\n`;
  return all;
};

/**
 * Delete `files` (relative to `dir`) and then every folder they leave empty, `dir` included;
 * anything else in `dir` stays. Returns what was kept (relative paths), so it can be said.
 */
const removeWritten = (dir: string, files: readonly string[]): string[] => {
  const folders = new Set<string>();
  for (const rel of files) {
    const path = resolve(dir, rel);
    if (!path.startsWith(resolve(dir) + sep)) continue; // a manifest never names anything outside its folder
    rmSync(path, { force: true });
    for (let d = dirname(path); d.startsWith(resolve(dir) + sep); d = dirname(d)) folders.add(d);
  }
  folders.add(resolve(dir));
  // deepest first, so a folder is empty by the time its parent is looked at
  for (const d of [...folders].sort((a, b) => b.length - a.length)) {
    try {
      if (readdirSync(d).length === 0) rmdirSync(d);
    } catch {
      // already gone, or not a folder: nothing of ours to remove
    }
  }
  if (!existsSync(dir)) return [];
  const kept: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else kept.push(relative(dir, p));
    }
  };
  walk(dir);
  return kept.sort();
};

/**
 * Write the marketplace with the plugin into `dir`; refuses a non-empty folder that is not ours.
 * Every file is written before any replaces its old one, so a write that fails leaves the plugin
 * Claude Code reads as it was. Files an earlier install wrote and this one does not are then
 * removed; files someone else put there stay. Returns the plugin's folder and every file written
 * (relative to `dir`).
 */
export const writeMarketplace = (dir: string, files: PluginFiles, previous: readonly string[] = []): { pluginDir: string; written: string[] } => {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new BcError("exists", `${dir}: is a file`, "pass --dir a folder for the plugin's marketplace");
    if (readdirSync(dir).length > 0 && !isOurMarketplace(dir))
      throw new BcError("exists", `${dir}: not empty and not a better-compaction marketplace; refusing to write there`, "pass --dir an empty or new folder");
  }
  const all = marketplaceFiles(files);
  replaceFiles(
    // the icon comes as base64
    Object.entries(all).map(([rel, text]) => ({ path: join(dir, rel), text: rel.endsWith(".png") ? Buffer.from(text, "base64") : text })),
    { newMode: 0o666, hint: "nothing was written; the plugin's files are as they were" },
  );
  const stale = previous.filter((rel) => !(rel in all));
  if (stale.length > 0) removeWritten(dir, stale);
  return { pluginDir: join(dir, "plugins", PLUGIN_NAME), written: Object.keys(all).sort() };
};

export interface ClaudeRun {
  readonly argv: readonly string[];
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** it gave no answer in the time it had, and was stopped */
  readonly timedOut?: boolean;
}

/** The `claude` on PATH, or undefined. */
export const claudeOnPath = (): string | undefined => Bun.which("claude") ?? undefined;

/** A question to Claude Code that changes nothing (its version, what it has installed): it answers at once or not at all. */
const QUERY_TIMEOUT_MS = 20_000;

const runClaude = (bin: string, args: readonly string[], timeout = CLAUDE_TIMEOUT_MS): ClaudeRun => {
  const r = Bun.spawnSync([bin, ...args], { stdout: "pipe", stderr: "pipe", timeout, env: { ...process.env, DISABLE_AUTOUPDATER: "1" } });
  const argv = ["claude", ...args];
  if (r.exitedDueToTimeout) return { argv, code: r.exitCode ?? 1, stdout: "", stderr: `no answer in ${timeout / 1000} s`, timedOut: true };
  return { argv, code: r.exitCode ?? 1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

/** Why a run failed, in a few words: its last line of output, or its exit code. */
const failure = (r: ClaudeRun): string => (r.stderr.trim() || r.stdout.trim()).split("\n").filter(Boolean).at(-1) ?? `exit ${r.code}`;

const mustRun = (bin: string, args: readonly string[]): ClaudeRun => {
  const r = runClaude(bin, args);
  if (r.code !== 0) throw new BcError("external", `'${r.argv.join(" ")}' failed: ${failure(r)}`, "run it yourself to see the whole message");
  return r;
};

export const claudeVersion = (bin: string): string | undefined => {
  const r = runClaude(bin, ["--version"], QUERY_TIMEOUT_MS);
  return r.code === 0 ? r.stdout.trim().split(/\s/)[0] || undefined : undefined;
};

interface InstalledPlugin {
  readonly id: string;
  readonly version?: string;
  readonly enabled?: boolean;
  readonly installPath?: string;
  readonly readFromFolder?: string;
}

/** The plugins Claude Code lists, or why it could not be asked (it failed, or answered no list). */
const askPlugins = (bin: string): { plugins: InstalledPlugin[] } | { problem: string; timedOut?: boolean } => {
  const r = runClaude(bin, ["plugin", "list", "--json"], QUERY_TIMEOUT_MS);
  const asked = `'${r.argv.join(" ")}'`;
  if (r.timedOut) return { problem: `${asked} gave ${r.stderr}`, timedOut: true };
  if (r.code !== 0) return { problem: `${asked} failed: ${failure(r)}` };
  try {
    const v = JSON.parse(r.stdout);
    if (Array.isArray(v)) return { plugins: v.filter((p): p is InstalledPlugin => isObject(p) && typeof p.id === "string") };
  } catch {}
  return { problem: `${asked} answered no list of plugins` };
};

const listPlugins = (bin: string): InstalledPlugin[] => {
  const r = askPlugins(bin);
  return "plugins" in r ? r.plugins : [];
};

const listMarketplaces = (bin: string): { name: string; path?: string }[] => {
  const r = runClaude(bin, ["plugin", "marketplace", "list", "--json"]);
  if (r.code !== 0) return [];
  try {
    const v = JSON.parse(r.stdout);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
};

/** Why the claude commands were printed rather than run. */
export type NotRun = "no-register" | "no-claude";

export interface InstallReport {
  readonly dir: string;
  readonly pluginDir: string;
  readonly version: string;
  /** the commands run (claude on PATH), or to run (not on PATH, or --no-register) */
  readonly commands: readonly string[];
  readonly ran: boolean;
  /** when not run: --no-register asked for it, or claude is not on PATH */
  readonly notRun?: NotRun;
  readonly claude?: { readonly path: string; readonly version?: string };
  /** Claude Code lists the plugin as disabled (the user's choice: bc does not enable it) */
  readonly disabled?: boolean;
}

/** What install.json records: every marketplace folder bc wrote, with the files it wrote there. */
interface InstallState {
  /** the newest install's folder */
  readonly dir?: string;
  readonly version?: string;
  readonly marketplace?: string;
  readonly plugin?: string;
  readonly installs?: readonly { readonly dir: string; readonly files: readonly string[] }[];
}

const writeState = (state: InstallState): void => {
  if ((state.installs ?? []).length === 0) {
    rmSync(statePath(), { force: true });
    return;
  }
  replaceFile(statePath(), `${JSON.stringify(state, null, 2)}\n`, { newMode: 0o666, hint: "bc's record of the folders it installed into is as it was" });
};

export const install = async (opts: { readonly dir?: string; readonly register: boolean }): Promise<InstallReport> => {
  const dir = resolve(opts.dir ?? defaultMarketplaceDir());
  const files = pinRecallServer(await loadPluginFiles());
  const state = readState();
  const before = installsOf(state);
  const { pluginDir, written } = writeMarketplace(dir, files, before.find((i) => i.dir === dir)?.files ?? []);
  const version = (JSON.parse(files[".claude-plugin/plugin.json"]!) as { version: string }).version;
  writeState({ dir, version, marketplace: MARKETPLACE_NAME, plugin: PLUGIN_ID, installs: [...before.filter((i) => i.dir !== dir), { dir, files: written }] });
  const bin = opts.register ? claudeOnPath() : undefined;
  const add = ["plugin", "marketplace", "add", dir];
  const inst = ["plugin", "install", PLUGIN_ID];
  if (!bin)
    return {
      dir,
      pluginDir,
      version,
      commands: [add, inst].map((a) => ["claude", ...a].map(shellQuote).join(" ")),
      ran: false,
      notRun: opts.register ? "no-claude" : "no-register",
    };
  const commands: string[] = [];
  const known = listMarketplaces(bin).find((m) => m.name === MARKETPLACE_NAME);
  if (known && known.path !== undefined && resolve(known.path) !== dir) {
    mustRun(bin, ["plugin", "marketplace", "remove", MARKETPLACE_NAME]);
    commands.push(`claude plugin marketplace remove ${MARKETPLACE_NAME}`);
  }
  if (!known || (known.path !== undefined && resolve(known.path) !== dir)) {
    mustRun(bin, add);
    commands.push(["claude", ...add].map(shellQuote).join(" "));
  }
  const installed = listPlugins(bin).find((p) => p.id === PLUGIN_ID);
  const step = installed ? ["plugin", "update", PLUGIN_ID] : inst;
  mustRun(bin, step);
  commands.push(["claude", ...step].join(" "));
  const disabled = listPlugins(bin).find((p) => p.id === PLUGIN_ID)?.enabled === false;
  return { dir, pluginDir, version, commands, ran: true, claude: { path: bin, version: claudeVersion(bin) }, ...(disabled ? { disabled } : {}) };
};

export interface UninstallReport {
  /** the first folder looked at (the newest install's, or --dir) */
  readonly dir?: string;
  readonly removedDir: boolean;
  /** every marketplace folder looked at, what was removed and what was kept there (files bc did not write) */
  readonly folders: readonly { readonly dir: string; readonly removed: number; readonly kept: readonly string[]; readonly removedDir: boolean }[];
  readonly commands: readonly string[];
  readonly ran: boolean;
  readonly notRun?: NotRun;
  /** --dir named another folder than the one Claude Code's marketplace is at: the plugin was left registered there */
  readonly registeredElsewhere?: string;
}

const readState = (): InstallState => {
  try {
    return JSON.parse(readFileSync(statePath(), "utf8")) as InstallState;
  } catch {
    return {};
  }
};

/** Every folder install.json records (an older install.json names only `dir`, without its files). */
const installsOf = (state: InstallState): { dir: string; files: readonly string[] }[] =>
  state.installs?.map((i) => ({ dir: i.dir, files: i.files })) ?? (state.dir === undefined ? [] : [{ dir: state.dir, files: [] }]);

/**
 * The files bc wrote into `dir`, when no record of them is left: the marketplace manifest and
 * the plugin's folder, as every version of `bc claude install` has laid them out.
 */
const filesByLayout = (dir: string): string[] => {
  const out = [".claude-plugin/marketplace.json"];
  const walk = (rel: string): void => {
    let entries;
    try {
      entries = readdirSync(join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) (e.isDirectory() ? walk : (r: string) => out.push(r))(join(rel, e.name));
  };
  walk(join("plugins", PLUGIN_NAME));
  return out;
};

export const uninstall = (opts: { readonly dir?: string; readonly register: boolean }): UninstallReport => {
  const state = readState();
  const recorded = installsOf(state);
  const wanted = opts.dir ? [resolve(opts.dir)] : recorded.length > 0 ? [...recorded].reverse().map((i) => i.dir) : [defaultMarketplaceDir()];
  const bin = opts.register ? claudeOnPath() : undefined;
  const steps = [
    ["plugin", "uninstall", PLUGIN_ID],
    ["plugin", "marketplace", "remove", MARKETPLACE_NAME],
  ];
  const commands: string[] = [];
  // --dir names a folder to clean up: the plugin Claude Code runs from another folder stays
  const registered = bin && opts.dir ? listMarketplaces(bin).find((m) => m.name === MARKETPLACE_NAME)?.path : undefined;
  const elsewhere = registered !== undefined && resolve(registered) !== resolve(opts.dir!) ? resolve(registered) : undefined;
  if (bin && elsewhere === undefined) {
    if (listPlugins(bin).some((p) => p.id === PLUGIN_ID)) {
      mustRun(bin, steps[0]!);
      commands.push(["claude", ...steps[0]!].join(" "));
    }
    if (listMarketplaces(bin).some((m) => m.name === MARKETPLACE_NAME)) {
      mustRun(bin, steps[1]!);
      commands.push(["claude", ...steps[1]!].join(" "));
    }
  }
  const folders = wanted.map((dir) => {
    if (!existsSync(dir) || !isOurMarketplace(dir)) return { dir, removed: 0, kept: [], removedDir: false };
    const files = recorded.find((i) => i.dir === dir)?.files;
    const written = files !== undefined && files.length > 0 ? files : filesByLayout(dir);
    const present = written.filter((rel) => existsSync(join(dir, rel)));
    const kept = removeWritten(dir, present);
    return { dir, removed: present.length, kept, removedDir: !existsSync(dir) };
  });
  writeState({ ...state, installs: recorded.filter((i) => !wanted.includes(i.dir)) });
  return {
    dir: wanted[0],
    removedDir: folders[0]?.removedDir ?? false,
    folders,
    commands: bin ? commands : steps.map((s) => ["claude", ...s].join(" ")),
    ran: bin !== undefined,
    ...(elsewhere === undefined ? {} : { registeredElsewhere: elsewhere }),
    ...(bin ? {} : { notRun: opts.register ? ("no-claude" as const) : ("no-register" as const) }),
  };
};

export interface StatusReport {
  readonly marketplaceDir: string;
  /** version of the plugin written in the marketplace folder, if there is one */
  readonly written?: string;
  /** tested: where its version stands against those bc is tested with (tested-versions.ts) */
  readonly claude?: { readonly path: string; readonly version?: string; readonly tested?: string };
  /** what Claude Code reports (only when claude is on PATH) */
  readonly installed?: { readonly id: string; readonly version?: string; readonly enabled?: boolean; readonly installPath?: string };
  /** why whether it is installed is not known: claude is on PATH but could not be asked */
  readonly installedUnknown?: string;
  readonly logs: number;
  /** why the decision logs cannot be counted (their folder is not one bc can read) */
  readonly logsProblem?: string;
  /** which need weights rank the escalation: "shipped", or the user's file, said for a person */
  readonly needWeights: string;
  /** the same for a script: which, the file bc looks for, why a file there is not used */
  readonly needWeightsInUse: { readonly kind: "shipped" | "user"; readonly path: string; readonly source: string; readonly problem?: string };
}

/** How many decision logs there are, or why they cannot be counted. */
const logCount = (): { logs: number; logsProblem?: string } => {
  try {
    return { logs: listLogs().length };
  } catch (e) {
    return { logs: 0, logsProblem: (e as Error).message };
  }
};

export const status = (): StatusReport => {
  const marketplaceDir = readState().dir ?? defaultMarketplaceDir();
  let written: string | undefined;
  try {
    written = JSON.parse(readFileSync(join(marketplaceDir, "plugins", PLUGIN_NAME, ".claude-plugin", "plugin.json"), "utf8")).version;
  } catch {}
  const bin = claudeOnPath();
  const asked = bin ? askPlugins(bin) : undefined;
  const installed = asked && "plugins" in asked ? asked.plugins.find((p) => p.id === PLUGIN_ID || p.id.startsWith(`${PLUGIN_NAME}@`)) : undefined;
  // a claude that did not answer the list is not asked its version too
  const hung = asked !== undefined && "timedOut" in asked && asked.timedOut === true;
  const version = bin && !hung ? claudeVersion(bin) : undefined;
  const weights = weightsInUse(needWeightsPath());
  return {
    marketplaceDir,
    ...(written ? { written } : {}),
    ...(bin ? { claude: version === undefined ? { path: bin } : { path: bin, version, ...testedField(version, testedOf("claude")) } } : {}),
    ...(installed ? { installed: { id: installed.id, version: installed.version, enabled: installed.enabled, installPath: installed.installPath } } : {}),
    ...(asked && "problem" in asked ? { installedUnknown: asked.problem } : {}),
    ...logCount(),
    needWeights: describeWeights(weights),
    needWeightsInUse: {
      kind: weights.kind,
      path: weights.path,
      source: sourcesOf(weights.models),
      ...(weights.problem === undefined ? {} : { problem: weights.problem }),
    },
  };
};

export interface LogFile {
  readonly sessionId: string;
  readonly path: string;
  readonly mtimeMs: number;
}

/** Where `bc calibrate --write` puts the user's need weights, and where bc and the plugin look for them. */
export const needWeightsPath = (env?: Record<string, string | undefined>): string => join(bcDir(env), NEED_WEIGHTS_FILE);

export const logsDir = (env?: Record<string, string | undefined>): string => join(bcDir(env), "logs");

/** Decision logs, oldest first. */
/** The decision logs, oldest first: the files named <session id>.jsonl in the logs folder (anything else there is passed over). */
export const listLogs = (): LogFile[] => {
  const dir = logsDir();
  if (!existsSync(dir)) return [];
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error("not a folder"), { code: "ENOTDIR" });
    names = readdirSync(dir);
  } catch (e) {
    throw new BcError(
      "bad-input",
      `${dir}: cannot be read as the decision logs' folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      "move it out of the way: the plugin writes its logs there",
    );
  }
  return names
    .filter((f) => f.endsWith(".jsonl"))
    .flatMap((f) => {
      const st = statSync(join(dir, f), { throwIfNoEntry: false });
      return st?.isFile() ? [{ sessionId: f.slice(0, -".jsonl".length), path: join(dir, f), mtimeMs: st.mtimeMs }] : [];
    })
    .sort((a, b) => a.mtimeMs - b.mtimeMs || a.sessionId.localeCompare(b.sessionId));
};

/** The log of one session (an id or a unique prefix), or the newest one. */
export const readLog = (sessionId?: string): { file: LogFile; records: DecisionRecord[]; problems: string[] } => {
  const logs = listLogs();
  if (logs.length === 0)
    throw new BcError(
      "not-found",
      `no decision log under ${logsDir()}`,
      "the plugin writes one when Claude Code compacts with it installed ('bc claude status')",
    );
  let file: LogFile | undefined;
  if (sessionId === undefined) file = logs.at(-1);
  else {
    let matches = logs.filter((l) => l.sessionId === sessionId || l.sessionId.startsWith(sessionId));
    // no id: a session's name (claude -n, /rename), among the sessions that have a log
    if (matches.length === 0) {
      const logged = new Set(logs.map((l) => l.sessionId));
      const titled = new Set(
        transcriptsTitled(
          discoverSessions({ host: "claude" })
            .filter((f) => logged.has(f.id))
            .map((f) => f.path),
          sessionId,
        ).map((p) => basename(p, ".jsonl")),
      );
      matches = logs.filter((l) => titled.has(l.sessionId));
      if (matches.length > 1)
        throw new BcError(
          "usage",
          `the name "${sessionId}" is ${matches.length} logged sessions': ${matches.map((m) => m.sessionId).join(", ")}`,
          "pass the session id instead",
        );
    }
    if (matches.length > 1 && !matches.some((m) => m.sessionId === sessionId))
      throw new BcError("usage", `session id '${sessionId}' matches ${matches.length} logs`, "give more of the id");
    file = matches.find((m) => m.sessionId === sessionId) ?? matches[0];
    if (!file)
      throw new BcError(
        "not-found",
        `no decision log for a session with the id or name '${sessionId}' under ${logsDir()}`,
        "run 'bc claude log' without an id to see the newest",
      );
  }
  const { records, problems } = parseLog(readFileSync(file!.path, "utf8"));
  return { file: file!, records, problems: problems.map((p) => `${file!.path}:${p.replace(/^line /, "")}`) };
};
