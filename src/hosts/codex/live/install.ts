// `bc codex install | uninstall | status`: bc's PreCompact hook in `$CODEX_HOME/hooks.json`, and (only
// with the user's consent, `--trust`) the trust entry in `$CODEX_HOME/config.toml`. bc adds one
// matcher group to hooks.json and one table to config.toml, remembers exactly what it added in
// `$CODEX_HOME/better-compaction/install.json`, and `uninstall` removes exactly that. The hook's trust
// key and hash are Codex's own: asked from `codex app-server` (`hooks/list`), never computed by bc.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BcError } from "../../../util/errors.ts";
import { replaceFiles } from "../../../util/jsonl.ts";
import { defaultCodexHome } from "../home.ts";
import { type AppServerClient, socketExists, spawnStdio } from "./app-server.ts";
import { bcCodexDir, listLogs } from "./state.ts";
import { shellQuote } from "../../../engine/shell.ts";
import { selfCommand } from "../../../util/self-command.ts";
import { CODEX_LIVE_VERSIONS, testedField } from "../../tested-versions.ts";

/** Every command bc installs ends with this: how bc recognises its own hook. */
export const HOOK_SUFFIX = "codex-hook precompact";
const HOOK_TIMEOUT_SEC = 30;
const STATUS_MESSAGE = "better-compaction: planning the pruned history";

export const hooksPath = (codexHome: string): string => join(codexHome, "hooks.json");
export const configPath = (codexHome: string): string => join(codexHome, "config.toml");
const statePath = (codexHome: string): string => join(bcCodexDir(codexHome), "install.json");

interface InstallState {
  readonly command: string;
  readonly createdHooksFile: boolean;
  /** the exact text appended to config.toml, when bc wrote the trust entry */
  readonly trustText?: string;
  /** there was no config.toml before bc wrote its trust entry: uninstall removes the file when nothing else is in it */
  readonly createdConfig?: boolean;
}

export const hookCommand = (self: readonly string[] = selfCommand()): string => [...self.map(shellQuote), HOOK_SUFFIX].join(" ");

type Json = Record<string, any>;

/** A file in $CODEX_HOME, undefined when it is not there; one that cannot be read (a folder in its place) is named, before bc changes anything. */
const readIfThere = (path: string): Buffer | undefined => {
  if (!existsSync(path)) return undefined;
  try {
    return readFileSync(path);
  } catch (e) {
    throw new BcError("bad-input", `${path}: cannot be read (${(e as Error).message})`, "fix it by hand; bc changes nothing in a file it cannot read");
  }
};

const readHooks = (path: string): Json | undefined => {
  const bytes = readIfThere(path);
  if (bytes === undefined) return undefined;
  const text = bytes.toString("utf8");
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new BcError("bad-input", `${path}: not valid JSON (${(e as Error).message})`, "fix the file by hand; bc changes nothing in a file it cannot read");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new BcError("bad-input", `${path}: not a JSON object`, "fix the file by hand; bc changes nothing in a file it cannot read");
  return v;
};

const isOurGroup = (g: unknown): boolean =>
  typeof g === "object" &&
  g !== null &&
  Array.isArray((g as Json).hooks) &&
  (g as Json).hooks.some((h: Json) => typeof h?.command === "string" && h.command.endsWith(HOOK_SUFFIX));

/**
 * hooks.json with bc's group in PreCompact: where bc's group already is (so that no other group
 * moves: Codex's trust key for a hook holds its group's place), else last; no other group of bc's.
 */
export const withOurHook = (hooks: Json | undefined, command: string, path = "hooks.json"): Json => {
  const v: Json = structuredClone(hooks ?? {});
  if (v.hooks !== undefined && (typeof v.hooks !== "object" || v.hooks === null || Array.isArray(v.hooks)))
    throw new BcError("bad-input", `${path}: "hooks" is not an object`, "fix the file by hand; bc changes nothing in a file it cannot read");
  // a PreCompact that is no list of groups would be lost under bc's list: refused, as Codex would not read it either
  if (v.hooks?.PreCompact !== undefined && !Array.isArray(v.hooks.PreCompact))
    throw new BcError(
      "bad-input",
      `${path}: "hooks.PreCompact" is not a list of hook groups`,
      "fix the file by hand; bc changes nothing in a file it cannot read",
    );
  v.hooks ??= {};
  const ours = { hooks: [{ type: "command", command, timeout: HOOK_TIMEOUT_SEC, statusMessage: STATUS_MESSAGE }] };
  const before: unknown[] = Array.isArray(v.hooks.PreCompact) ? v.hooks.PreCompact : [];
  const at = before.findIndex(isOurGroup);
  const groups = before.filter((g, i) => i === at || !isOurGroup(g)).map((g) => (isOurGroup(g) ? ours : g));
  if (at === -1) groups.push(ours);
  v.hooks.PreCompact = groups;
  return v;
};

/** How many PreCompact groups come after bc's first one (they move up a place when it goes). */
export const groupsAfterOurs = (hooks: Json | undefined): number => {
  const groups: unknown[] = Array.isArray(hooks?.hooks?.PreCompact) ? hooks!.hooks.PreCompact : [];
  const at = groups.findIndex(isOurGroup);
  return at === -1 ? 0 : groups.slice(at + 1).filter((g) => !isOurGroup(g)).length;
};

/** hooks.json without bc's groups; undefined when nothing else is left in a file bc created. */
export const withoutOurHook = (hooks: Json, created: boolean): Json | undefined => {
  const v: Json = structuredClone(hooks);
  if (Array.isArray(v.hooks?.PreCompact)) {
    v.hooks.PreCompact = v.hooks.PreCompact.filter((g: unknown) => !isOurGroup(g));
    if (v.hooks.PreCompact.length === 0) delete v.hooks.PreCompact;
  }
  const empty = Object.keys(v).every((k) => k === "hooks") && Object.keys(v.hooks ?? {}).length === 0;
  return created && empty ? undefined : v;
};

/** The command of bc's hook in hooks.json (its first group's), whatever else the file's groups hold. */
const ourCommand = (hooks: Json): string | undefined =>
  (hooks.hooks.PreCompact as unknown[])
    .filter(isOurGroup)
    .flatMap((g) => (g as Json).hooks as unknown[])
    .map((h) => (typeof h === "object" && h !== null ? (h as Json).command : undefined))
    .find((c): c is string => typeof c === "string" && c.endsWith(HOOK_SUFFIX));

export const hasOurHook = (hooks: Json | undefined): boolean => Array.isArray(hooks?.hooks?.PreCompact) && hooks!.hooks.PreCompact.some(isOurGroup);

/** What install.json records, or why it cannot be read (then what bc wrote to config.toml is not known). */
const readState = (codexHome: string): { state?: InstallState; problem?: string } => {
  const path = statePath(codexHome);
  const bytes = readIfThere(path);
  if (bytes === undefined) return {};
  try {
    const v = JSON.parse(bytes.toString("utf8"));
    if (typeof v === "object" && v !== null && typeof v.command === "string") return { state: v };
  } catch {}
  return { problem: `${path}: not bc's record of what it installed (damaged)` };
};

/** A file bc writes in $CODEX_HOME, as the JSON bc keeps there. */
const jsonFile = (path: string, v: unknown): { path: string; text: string } => ({ path, text: `${JSON.stringify(v, null, 2)}\n` });

/**
 * Files the user and Codex read, each put in place whole (a failed write leaves the old one as it
 * was), and made as a plain write would make them when new.
 */
const writeFiles = (files: readonly { path: string; text: string | Uint8Array }[], hint: string): void => replaceFiles(files, { newMode: 0o666, hint });

const tomlString = (s: string): string => JSON.stringify(s);

/** The table that marks a hook trusted, as bc appends it to config.toml. */
export const trustText = (key: string, hash: string): string => `\n[hooks.state.${tomlString(key)}]\ntrusted_hash = ${tomlString(hash)}\n`;

export interface HookEntry {
  readonly key: string;
  readonly currentHash: string;
  readonly trustStatus: string;
  readonly command?: string;
  readonly sourcePath: string;
}

/**
 * bc's hook as Codex sees it (`hooks/list`), from a `codex app-server` started for the question;
 * a codex that cannot be started or asked is a BcError naming it.
 */
export const askCodexForHook = async (codexBin: string, codexHome: string, command: string, cwd = process.cwd()): Promise<HookEntry | undefined> => {
  let client: AppServerClient | undefined;
  try {
    client = await spawnStdio(codexBin, { ...process.env, CODEX_HOME: codexHome });
    const r: { data: { hooks: HookEntry[] }[] } = await client.request("hooks/list", { cwds: [cwd] }, 30_000);
    for (const entry of r.data) for (const h of entry.hooks) if (h.command === command && h.sourcePath === hooksPath(codexHome)) return h;
    return undefined;
  } catch (e) {
    throw new BcError(
      "external",
      `cannot ask ${codexBin} for bc's hook (${(e as Error).message.split("\n")[0]})`,
      "check 'codex --version' (hooks need Codex 0.157 or later), or approve the hook in codex's /hooks",
    );
  } finally {
    client?.close();
  }
};

/** Whether config.toml text holds a trust table for this key (bc's own or one codex's /hooks wrote). */
const hasTrustTable = (config: string, key: string): boolean =>
  config.split("\n").some((line) => {
    const t = line.trim();
    return t.startsWith("[hooks.state.") && t.includes(key);
  });

export const codexOnPath = (): string | undefined => Bun.which("codex") ?? undefined;

/** What `codex --version` says, or undefined when it cannot be run or says nothing usable. */
export const codexVersion = (bin: string): string | undefined => {
  try {
    const r = Bun.spawnSync([bin, "--version"], { stdout: "pipe", stderr: "pipe", timeout: 30_000 });
    return r.exitCode === 0 ? r.stdout.toString().trim().split(/\s+/).at(-1) : undefined;
  } catch {
    return undefined;
  }
};

export interface InstallReport {
  readonly codexHome: string;
  readonly hooksPath: string;
  readonly command: string;
  readonly createdHooksFile: boolean;
  /** bc's hook was in hooks.json as it is now: the file is byte for byte as it was */
  readonly alreadyThere: boolean;
  readonly trusted: boolean;
  /** why the hook is not trusted yet, and what to do */
  readonly trustHint?: string;
}

export const install = async (opts: {
  readonly codexHome?: string;
  readonly trust: boolean;
  readonly codex?: string;
  readonly command?: string;
}): Promise<InstallReport> => {
  const codexHome = opts.codexHome ?? defaultCodexHome();
  const command = opts.command ?? hookCommand();
  const path = hooksPath(codexHome);
  const before = readHooks(path);
  const old = readState(codexHome).state;
  const cfg = configPath(codexHome);
  const original = readIfThere(cfg);
  // the trust table bc wrote before stays until a new one is taken (it is still bc's to remove)
  const oldTrust = old?.trustText !== undefined && original?.toString("utf8").includes(old.trustText) ? old.trustText : undefined;
  const createdHooksFile = old?.createdHooksFile ?? before === undefined;
  // a codex named that is not there cannot be asked for the trust key: refused before anything is written
  if (opts.trust && opts.codex !== undefined && Bun.which(opts.codex) === null)
    throw new BcError("usage", `--codex ${opts.codex}: no such program`, "give the path of the codex binary, or leave --codex out to ask the codex on PATH");
  const hooksFile = jsonFile(path, withOurHook(before, command, path));
  const alreadyThere = readIfThere(path)?.toString("utf8") === hooksFile.text;
  // together: a hook in hooks.json that install.json does not record would outlive 'bc codex uninstall'
  writeFiles(
    [
      hooksFile,
      jsonFile(statePath(codexHome), {
        command,
        createdHooksFile,
        ...(oldTrust === undefined ? {} : { trustText: oldTrust, ...(old?.createdConfig === true ? { createdConfig: true } : {}) }),
      }),
    ],
    "nothing was written; hooks.json is as it was",
  );
  const report = { codexHome, hooksPath: path, command, createdHooksFile, alreadyThere };
  const untrustedHint = "Codex runs the hook only once you trust it: start codex and approve it in /hooks, or run 'bc codex install --trust'";
  if (!opts.trust) return { ...report, trusted: false, trustHint: untrustedHint };
  const bin = opts.codex ?? codexOnPath();
  if (!bin)
    return {
      ...report,
      trusted: false,
      trustHint: "codex is not on PATH, so bc cannot ask it for the hook's trust key; approve the hook in codex's /hooks, or pass --codex <path>",
    };
  // the hook is in hooks.json from here on: an error says so, and how to go on
  const left = `bc's hook is in ${path}, untrusted: approve it in codex's /hooks, or 'bc codex uninstall' removes it`;
  const entry = await askCodexForHook(bin, codexHome, command).catch((e: unknown) => {
    throw e instanceof BcError ? new BcError(e.code, `${e.message}; ${left}`, e.hint) : e;
  });
  if (!entry)
    throw new BcError(
      "external",
      `codex does not list bc's hook from ${path}; ${left}`,
      `check 'codex --version' (hooks need Codex 0.157 or later) and that codex reads ${cfg} (run codex once to see its own error)`,
    );
  if (entry.trustStatus === "trusted") return { ...report, trusted: true };
  // bc's own earlier table goes (it marks an older command); a table bc did not write is left to
  // codex's /hooks, for a second table of the same name would make config.toml unreadable
  const kept = original === undefined ? "" : original.toString("utf8");
  const base = oldTrust === undefined ? kept : withoutLast(kept, oldTrust);
  if (hasTrustTable(base, entry.key))
    throw new BcError(
      "external",
      `${cfg} already holds a trust entry for bc's hook that bc did not write (status: ${entry.trustStatus})`,
      "approve the changed hook in codex's /hooks; bc changes no entry it did not write",
    );
  const text = trustText(entry.key, entry.currentHash);
  writeFiles([{ path: cfg, text: base + text }], "config.toml is as it was; bc's hook is in hooks.json, untrusted: approve it in codex's /hooks");
  const after = await askCodexForHook(bin, codexHome, command).catch(() => undefined);
  if (after?.trustStatus !== "trusted") {
    putBack(cfg, original, "config.toml holds the trust entry codex did not take: remove it by hand");
    throw new BcError(
      "external",
      `codex did not take the trust entry bc wrote to ${cfg} (status: ${after?.trustStatus ?? "unknown"}); config.toml was put back as it was`,
      "approve the hook in codex's /hooks instead",
    );
  }
  try {
    const createdConfig = original === undefined || old?.createdConfig === true;
    writeFiles(
      [jsonFile(statePath(codexHome), { command, createdHooksFile, trustText: text, ...(createdConfig ? { createdConfig } : {}) })],
      "bc's record of what it installed is as it was",
    );
  } catch (e) {
    // a trust table install.json does not record is one 'bc codex uninstall' would leave: it goes too
    let back = true;
    try {
      putBack(cfg, original, "config.toml holds bc's trust entry");
    } catch {
      back = false;
    }
    throw new BcError(
      "bad-input",
      `${(e as Error).message}; ${back ? `config.toml was put back as it was, ${oldTrust === undefined ? "without bc's trust entry" : "with the trust entry bc wrote before, which install.json records"}` : "config.toml still holds bc's trust entry, which install.json does not record"}`,
      back
        ? "bc's hook is in hooks.json, untrusted: run 'bc codex install --trust' again once install.json can be written, or approve the hook in codex's /hooks"
        : `remove the table [hooks.state.${tomlString(entry.key)}] from ${cfg} by hand: 'bc codex uninstall' does not know it`,
    );
  }
  return { ...report, trusted: true };
};

/** config.toml as it was before bc wrote its trust table: `original`'s bytes, or no file when there was none. */
const putBack = (cfg: string, original: Buffer | undefined, hint: string): void => {
  if (original === undefined) rmSync(cfg, { force: true });
  else writeFiles([{ path: cfg, text: original }], hint);
};

/** `text` without the last occurrence of `piece` (as it is, when it holds none). */
const withoutLast = (text: string, piece: string): string => {
  const at = text.lastIndexOf(piece);
  return at === -1 ? text : text.slice(0, at) + text.slice(at + piece.length);
};

/** Remove exactly the text bc appended to config.toml; true when it was there. A file bc created that holds nothing else goes. */
const removeTrust = (codexHome: string, text: string, createdConfig: boolean): boolean => {
  const cfg = configPath(codexHome);
  const now = readIfThere(cfg)?.toString("utf8");
  if (now === undefined || !now.includes(text)) return false;
  const rest = withoutLast(now, text);
  if (createdConfig && rest === "") rmSync(cfg, { force: true });
  else writeFiles([{ path: cfg, text: rest }], "config.toml is as it was, bc's trust entry still in it");
  return true;
};

export interface UninstallReport {
  readonly codexHome: string;
  readonly removedHook: boolean;
  readonly removedHooksFile: boolean;
  readonly removedTrust: boolean;
  /** PreCompact groups that came after bc's: each moved up a place, so Codex asks to trust it again */
  readonly movedGroups: number;
  /** install.json could not be read: a trust entry bc wrote to config.toml, if any, is not known and stays */
  readonly stateProblem?: string;
}

export const uninstall = (opts: { readonly codexHome?: string } = {}): UninstallReport => {
  const codexHome = opts.codexHome ?? defaultCodexHome();
  const path = hooksPath(codexHome);
  const { state, problem: stateProblem } = readState(codexHome);
  const hooks = readHooks(path);
  let removedHook = false;
  let removedHooksFile = false;
  const movedGroups = groupsAfterOurs(hooks);
  if (hooks && hasOurHook(hooks)) {
    const rest = withoutOurHook(hooks, state?.createdHooksFile ?? false);
    removedHook = true;
    if (rest === undefined) {
      rmSync(path, { force: true });
      removedHooksFile = true;
    } else writeFiles([jsonFile(path, rest)], "hooks.json is as it was, bc's hook still in it");
  }
  const removedTrust = state?.trustText ? removeTrust(codexHome, state.trustText, state.createdConfig === true) : false;
  rmSync(statePath(codexHome), { force: true });
  return { codexHome, removedHook, removedHooksFile, removedTrust, movedGroups, ...(stateProblem === undefined ? {} : { stateProblem }) };
};

export interface StatusReport {
  readonly codexHome: string;
  readonly installed: boolean;
  readonly command?: string;
  /** Codex's own word (`hooks/list`); "unknown" when no codex could be asked */
  readonly trusted: boolean | "unknown";
  readonly trustStatus?: string;
  /** why the trust is unknown */
  readonly trustUnknown?: string;
  /** tested: where its version stands against those the live integration is tested with (tested-versions.ts) */
  readonly codex?: { readonly path: string; readonly version?: string; readonly tested?: string };
  readonly socket: boolean;
  readonly logs: number;
}

export const status = async (opts: { readonly codexHome?: string; readonly codex?: string } = {}): Promise<StatusReport> => {
  const codexHome = opts.codexHome ?? defaultCodexHome();
  const hooks = readHooks(hooksPath(codexHome));
  const installed = hasOurHook(hooks);
  const command = installed ? ourCommand(hooks!) : undefined;
  const bin = opts.codex ?? codexOnPath();
  const version = bin ? codexVersion(bin) : undefined;
  const codex = bin ? { path: bin, version, ...testedField(version, CODEX_LIVE_VERSIONS) } : undefined;
  let trusted: boolean | "unknown" = installed ? "unknown" : false;
  let trustStatus: string | undefined;
  let trustUnknown: string | undefined = installed && !bin ? "codex is not on PATH" : undefined;
  if (installed && bin && command) {
    try {
      const entry = await askCodexForHook(bin, codexHome, command);
      if (entry) {
        trustStatus = entry.trustStatus;
        trusted = entry.trustStatus === "trusted";
      } else trustUnknown = `${bin} does not list bc's hook`;
    } catch (e) {
      trustUnknown = (e as Error).message;
    }
  }
  return {
    codexHome,
    installed,
    command,
    trusted,
    trustStatus,
    ...(trusted === "unknown" && trustUnknown !== undefined ? { trustUnknown } : {}),
    codex,
    socket: socketExists(codexHome),
    logs: listLogs(codexHome).length,
  };
};
