// The pinned Claude Code the end-to-end tests drive, installed with npm into a cache folder
// beside the tests (gitignored) and reused while its binary answers `--version`.
import { existsSync, mkdirSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";

export const CLAUDE_VERSION = "2.1.328";
export const CACHE_DIR = join(import.meta.dir, "..", ".cache");
export const CLAUDE_PREFIX = join(CACHE_DIR, `claude-${CLAUDE_VERSION}`);

const INSTALL_TIMEOUT_MS = 10 * 60_000;

const versionOf = (bin: string): string | undefined => {
  try {
    const r = Bun.spawnSync([bin, "--version"], {
      env: { ...process.env, DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
      timeout: 30_000,
    });
    return r.exitCode === 0 ? r.stdout.toString().trim() : undefined;
  } catch {
    return undefined;
  }
};

/** The native binary the platform package ships (not the npm wrapper script). */
const findNativeBinary = (prefix: string): string | undefined => {
  const scope = join(prefix, "node_modules", "@anthropic-ai");
  if (!existsSync(scope)) return undefined;
  const candidates: string[] = [];
  for (const pkg of readdirSync(scope).filter((d) => d.startsWith("claude-code-")).sort()) {
    for (const name of ["claude", "bin/claude", "cli", "bin/cli"]) {
      const p = join(scope, pkg, name);
      if (existsSync(p) && statSync(p).isFile()) candidates.push(p);
    }
  }
  // the wrapper package's bin, as a fallback (it execs the native binary itself)
  const wrapper = join(prefix, "node_modules", ".bin", "claude");
  if (existsSync(wrapper)) candidates.push(realpathSync(wrapper));
  return candidates.find((c) => versionOf(c)?.startsWith(CLAUDE_VERSION));
};

let cached: string | undefined;

/** Path of the pinned Claude Code binary; installs it on first use. Throws with the npm output on failure. */
export const ensureClaude = (): string => {
  if (cached) return cached;
  const found = findNativeBinary(CLAUDE_PREFIX);
  if (found) return (cached = found);
  mkdirSync(CLAUDE_PREFIX, { recursive: true });
  const r = Bun.spawnSync(
    ["npm", "install", "--prefix", CLAUDE_PREFIX, "--no-audit", "--no-fund", "--no-save", "--include=optional", `@anthropic-ai/claude-code@${CLAUDE_VERSION}`],
    { stdout: "pipe", stderr: "pipe", timeout: INSTALL_TIMEOUT_MS },
  );
  if (r.exitCode !== 0) throw new Error(`npm install of Claude Code ${CLAUDE_VERSION} failed:\n${r.stderr.toString()}`);
  const bin = findNativeBinary(CLAUDE_PREFIX);
  if (!bin) throw new Error(`Claude Code ${CLAUDE_VERSION} installed into ${CLAUDE_PREFIX}, but no binary answered --version ${CLAUDE_VERSION}`);
  return (cached = bin);
};

if (import.meta.main) {
  const bin = ensureClaude();
  console.log(bin);
  console.log(versionOf(bin));
}
