// A Claude Code the end-to-end tests drive: one of the versions in versions.ts, installed with npm
// into a cache folder beside the tests (gitignored) and reused while its binary answers `--version`
// with exactly that version; or a binary given through BC_E2E_CLAUDE_BIN.
import { existsSync, mkdirSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { firstTarget, type HostTarget, reportsExactly } from "./versions.ts";

export const CACHE_DIR = join(import.meta.dir, "..", ".cache");
export const claudePrefix = (version: string): string => join(CACHE_DIR, `claude-${version}`);

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

/** The native binary the platform package ships (not the npm wrapper script), reporting exactly `version`. */
const findNativeBinary = (prefix: string, version: string): string | undefined => {
  const scope = join(prefix, "node_modules", "@anthropic-ai");
  if (!existsSync(scope)) return undefined;
  const candidates: string[] = [];
  for (const pkg of readdirSync(scope)
    .filter((d) => d.startsWith("claude-code-"))
    .sort()) {
    for (const name of ["claude", "bin/claude", "cli", "bin/cli"]) {
      const p = join(scope, pkg, name);
      if (existsSync(p) && statSync(p).isFile()) candidates.push(p);
    }
  }
  // the wrapper package's bin, as a fallback (it execs the native binary itself)
  const wrapper = join(prefix, "node_modules", ".bin", "claude");
  if (existsSync(wrapper)) candidates.push(realpathSync(wrapper));
  return candidates.find((c) => reportsExactly(versionOf(c) ?? "", version));
};

const cached = new Map<string, string>();

/** Path of a Claude Code binary of the target's version; installs it on first use. Throws with the npm output on failure. */
export const ensureClaude = (target: HostTarget = firstTarget("claude")): string => {
  const version = target.version;
  if (target.bin !== undefined) {
    if (!reportsExactly(versionOf(target.bin) ?? "", version)) throw new Error(`${target.bin} does not report exactly Claude Code ${version}`);
    return target.bin;
  }
  const hit = cached.get(version);
  if (hit) return hit;
  const prefix = claudePrefix(version);
  const found = findNativeBinary(prefix, version);
  if (found) {
    cached.set(version, found);
    return found;
  }
  mkdirSync(prefix, { recursive: true });
  const r = Bun.spawnSync(
    ["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", "--include=optional", `@anthropic-ai/claude-code@${version}`],
    { stdout: "pipe", stderr: "pipe", timeout: INSTALL_TIMEOUT_MS },
  );
  if (r.exitCode !== 0) throw new Error(`npm install of Claude Code ${version} failed:\n${r.stderr.toString()}`);
  const bin = findNativeBinary(prefix, version);
  if (!bin) throw new Error(`Claude Code ${version} installed into ${prefix}, but no binary answered --version with exactly ${version}`);
  cached.set(version, bin);
  return bin;
};

if (import.meta.main) {
  const bin = ensureClaude();
  console.log(bin);
  console.log(versionOf(bin));
}
