// The permission rules that let Claude Code get a removed output back without asking each time,
// in the user's settings (permissions.allow): the plugin's MCP tool `recall`, and the shell
// command `bc recall` the note names. Offered by `bc claude install --allow-recall`, only with
// the user's consent; removed by `bc claude uninstall`. Nothing else in the file changes.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BcError } from "../../util/errors.ts";
import { isObject } from "../../util/json.ts";
import { replaceFile } from "../../util/jsonl.ts";

/** The plugin's MCP tool: mcp__plugin_<plugin>_<server>__<tool>. */
export const RECALL_MCP_RULE = "mcp__plugin_better-compaction_bc__recall";
export const RECALL_BASH_RULE = "Bash(bc recall:*)";
export const RECALL_RULES: readonly string[] = [RECALL_MCP_RULE, RECALL_BASH_RULE];
export const RECALL_RULE = RECALL_RULES.join(" and ");

export const settingsPath = (claudeDir: string): string => join(claudeDir, "settings.json");

/** A byte-order mark some editors put first (Claude Code reads past it, and so does bc; a write keeps it). */
const BOM = "\uFEFF";

const readSettings = (path: string): Record<string, unknown> => {
  if (!existsSync(path)) return {};
  let text = readFileSync(path, "utf8");
  if (text.startsWith(BOM)) text = text.slice(BOM.length);
  if (text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new BcError(
      "bad-input",
      `${path}: not valid JSON (${(e as Error).message}); left unchanged`,
      `fix the file, or add the rules by hand: permissions.allow: ${JSON.stringify(RECALL_RULES)}`,
    );
  }
  if (!isObject(v)) throw new BcError("bad-input", `${path}: not a JSON object; left unchanged`, "expected Claude Code's settings.json");
  if (v.permissions !== undefined && !isObject(v.permissions))
    throw new BcError("bad-input", `${path}: "permissions" is not an object; left unchanged`, "expected Claude Code's settings.json");
  const allow = isObject(v.permissions) ? v.permissions.allow : undefined;
  if (allow !== undefined && !Array.isArray(allow))
    throw new BcError("bad-input", `${path}: "permissions.allow" is not a list; left unchanged`, "expected Claude Code's settings.json");
  return v;
};

/**
 * Write the settings whole, where they are: through a symlink (a dotfiles setup keeps its link),
 * with the file's own permissions, its owner's alone when new (settings can hold an API key), and
 * its BOM if it had one.
 */
const writeSettings = (path: string, v: Record<string, unknown>): void => {
  const old = existsSync(path) ? readFileSync(path, "utf8") : "";
  replaceFile(path, `${old.startsWith(BOM) ? BOM : ""}${JSON.stringify(v, null, 2)}\n`, { newMode: 0o600 });
};

const allowList = (v: Record<string, unknown>): unknown[] => (isObject(v.permissions) && Array.isArray(v.permissions.allow) ? v.permissions.allow : []);

export const recallAllowed = (path: string): boolean => {
  try {
    const allow = allowList(readSettings(path));
    return RECALL_RULES.every((r) => allow.includes(r));
  } catch {
    return false;
  }
};

/** Throw allowRecall's error, if it would throw one, before anything is written (an install checks first). */
export const checkRecallSettings = (path: string): void => {
  readSettings(path);
};

/** Add the rules; `added` is false when they were all there already (the file is then not touched). */
export const allowRecall = (path: string): { path: string; added: boolean } => {
  const v = readSettings(path);
  const allow = allowList(v);
  const missing = RECALL_RULES.filter((r) => !allow.includes(r));
  if (missing.length === 0) return { path, added: false };
  const permissions = isObject(v.permissions) ? v.permissions : {};
  writeSettings(path, { ...v, permissions: { ...permissions, allow: [...allow, ...missing] } });
  return { path, added: true };
};

/** Remove the rules; `removed` is false when none was there (the file is then not touched). */
export const disallowRecall = (path: string): { path: string; removed: boolean } => {
  if (!existsSync(path)) return { path, removed: false };
  const v = readSettings(path);
  const allow = allowList(v);
  if (!RECALL_RULES.some((r) => allow.includes(r))) return { path, removed: false };
  const permissions = isObject(v.permissions) ? v.permissions : {};
  writeSettings(path, { ...v, permissions: { ...permissions, allow: allow.filter((r) => typeof r !== "string" || !RECALL_RULES.includes(r)) } });
  return { path, removed: true };
};
