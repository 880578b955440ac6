// The one permission rule that lets Claude Code run `bc recall` without asking each time:
// `Bash(bc recall:*)` in the user's settings (permissions.allow). Offered by `bc claude install
// --allow-recall`, only with the user's consent; removed by `bc claude uninstall`. The settings
// file is edited in place of nothing else: other keys and rules stay as they are.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { mkdirSync } from "node:fs";
import { BcError } from "../../util/errors.ts";

export const RECALL_RULE = "Bash(bc recall:*)";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export const settingsPath = (claudeDir: string): string => join(claudeDir, "settings.json");

const readSettings = (path: string): Record<string, unknown> => {
  if (!existsSync(path)) return {};
  const text = readFileSync(path, "utf8");
  if (text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new BcError("bad-input", `${path}: not valid JSON (${(e as Error).message}); left unchanged`, "fix the file, or add the rule by hand: permissions.allow: [\"Bash(bc recall:*)\"]");
  }
  if (!isObject(v)) throw new BcError("bad-input", `${path}: not a JSON object; left unchanged`, "expected Claude Code's settings.json");
  if (v.permissions !== undefined && !isObject(v.permissions)) throw new BcError("bad-input", `${path}: "permissions" is not an object; left unchanged`, "expected Claude Code's settings.json");
  const allow = isObject(v.permissions) ? v.permissions.allow : undefined;
  if (allow !== undefined && !Array.isArray(allow)) throw new BcError("bad-input", `${path}: "permissions.allow" is not a list; left unchanged`, "expected Claude Code's settings.json");
  return v;
};

const writeSettings = (path: string, v: Record<string, unknown>): void => {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.bc-${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(v, null, 2) + "\n");
  renameSync(tmp, path);
};

const allowList = (v: Record<string, unknown>): unknown[] => (isObject(v.permissions) && Array.isArray(v.permissions.allow) ? v.permissions.allow : []);

export const recallAllowed = (path: string): boolean => {
  try {
    return allowList(readSettings(path)).includes(RECALL_RULE);
  } catch {
    return false;
  }
};

/** Add the rule; `added` is false when it was already there (the file is then not touched). */
export const allowRecall = (path: string): { path: string; added: boolean } => {
  const v = readSettings(path);
  const allow = allowList(v);
  if (allow.includes(RECALL_RULE)) return { path, added: false };
  const permissions = isObject(v.permissions) ? v.permissions : {};
  writeSettings(path, { ...v, permissions: { ...permissions, allow: [...allow, RECALL_RULE] } });
  return { path, added: true };
};

/** Remove the rule; `removed` is false when it was not there (the file is then not touched). */
export const disallowRecall = (path: string): { path: string; removed: boolean } => {
  if (!existsSync(path)) return { path, removed: false };
  const v = readSettings(path);
  const allow = allowList(v);
  if (!allow.includes(RECALL_RULE)) return { path, removed: false };
  const permissions = isObject(v.permissions) ? v.permissions : {};
  writeSettings(path, { ...v, permissions: { ...permissions, allow: allow.filter((r) => r !== RECALL_RULE) } });
  return { path, removed: true };
};
