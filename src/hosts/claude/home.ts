// Where Claude Code keeps its state: $CLAUDE_CONFIG_DIR, by default ~/.claude.
import { homedir } from "node:os";
import { join } from "node:path";
import { listDir } from "../../util/dirs.ts";

/** $CLAUDE_CONFIG_DIR, else `<home>/.claude` (home: the user's home folder unless given; env: this process's unless given). */
export const defaultClaudeDir = (home?: string, env: Readonly<Record<string, string | undefined>> = process.env): string =>
  env.CLAUDE_CONFIG_DIR || join(home ?? homedir(), ".claude");

/** The folder given (tests, the eval's sandboxes), else the default one of the home given. */
export const claudeDirFor = (p: { readonly home?: string; readonly claudeDir?: string }): string => p.claudeDir ?? defaultClaudeDir(p.home);

/** The longest project folder name Claude Code writes before it cuts the name and adds a hash. */
const MAX_PROJECT_NAME = 200;

/** Claude Code's hash of a long project path: 31 × h + each UTF-16 unit, in 32 bits. */
const pathHash = (path: string): number => {
  let h = 0;
  for (let i = 0; i < path.length; i++) h = (Math.imul(h, 31) + path.charCodeAt(i)) | 0;
  return h;
};

/**
 * Claude Code's folder name for a project: every character but letters and digits becomes "-";
 * a name longer than MAX_PROJECT_NAME is cut there and ends in "-" and the path's hash (base 36).
 */
export const claudeProjectName = (cwd: string): string => {
  const name = cwd.replace(/[^A-Za-z0-9]/g, "-");
  return name.length <= MAX_PROJECT_NAME ? name : `${name.slice(0, MAX_PROJECT_NAME)}-${Math.abs(pathHash(cwd)).toString(36)}`;
};

/**
 * The project folder's name the environment gives Claude Code, which then uses it whatever the
 * working directory: $CLAUDE_CODE_PROJECT_DIR_NAME, taken (as Claude Code 2.1 takes it) only
 * with $CLAUDE_CONFIG_DIR set and when it is a plain name of up to 64 letters, digits, "_" or "-".
 */
const namedProjectFolder = (): string | undefined => {
  const name = process.env.CLAUDE_CODE_PROJECT_DIR_NAME;
  if (!process.env.CLAUDE_CONFIG_DIR || name === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(name)) return undefined;
  return /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/i.test(name) ? undefined : name;
};

/**
 * The project's folders under `<claudeDir>/projects`: the one the environment names (above), then the one
 * Claude Code names for the working directory; for a long path whose folder is not there, every
 * folder with the same cut name and another hash (what another version of Claude Code may have
 * written; Claude Code looks its own up the same way).
 */
export const projectFolders = (claudeDir: string, cwd: string): string[] => {
  const root = join(claudeDir, "projects");
  const named = namedProjectFolder();
  const first = named === undefined ? [] : [join(root, named)];
  const name = claudeProjectName(cwd);
  const own = join(root, name);
  if (name.length <= MAX_PROJECT_NAME || listDir(own).length > 0) return [...first, own];
  const cut = `${name.slice(0, MAX_PROJECT_NAME)}-`;
  const others = listDir(root)
    .filter((d) => d.dir && d.name.startsWith(cut))
    .map((d) => join(root, d.name))
    .sort();
  return [...first, ...(others.length === 0 ? [own] : others)];
};
