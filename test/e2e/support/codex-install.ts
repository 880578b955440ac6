// Installs a pinned @openai/codex release from the npm registry into test/e2e/.cache/codex-<version>/
// (gitignored) and reuses it when present. The package ships its native binary as an optional
// dependency, so the install is an ordinary `npm install`.
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type HostTarget, hostTargets, reportsExactly } from "./versions.ts";

export const E2E_DIR = join(import.meta.dir, "..");
export const CACHE_DIR = join(E2E_DIR, ".cache");

export interface InstalledCodex {
  readonly version: string;
  /** the native binary (not the node launcher), so a test need not depend on node being on PATH */
  readonly bin: string;
}

const findNativeBinary = (prefix: string): string | undefined => {
  // node_modules/@openai/codex-<platform>/vendor/<triple>/codex/codex (layout of 0.150–0.169), or anywhere below
  const root = join(prefix, "node_modules", "@openai");
  if (!existsSync(root)) return undefined;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) stack.push(p);
      else if ((name === "codex" || name === "codex.exe") && (st.mode & 0o111) !== 0 && st.size > 1_000_000) return p;
    }
  }
  return undefined;
};

const versionOf = (bin: string): string => {
  const r = Bun.spawnSync([bin, "--version"], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${bin} --version failed (exit ${r.exitCode}): ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
};

/** Install (or reuse) `@openai/codex@version` (or take the target's own binary); check that `codex --version` reports exactly it. */
export const installCodex = (target: HostTarget | string): InstalledCodex => {
  const version = typeof target === "string" ? target : target.version;
  if (typeof target !== "string" && target.bin !== undefined) {
    const reported = versionOf(target.bin);
    if (!reportsExactly(reported, version)) throw new Error(`${target.bin} reports '${reported}', expected exactly ${version}`);
    return { version, bin: target.bin };
  }
  const prefix = join(CACHE_DIR, `codex-${version}`);
  let bin = findNativeBinary(prefix);
  if (bin === undefined) {
    mkdirSync(prefix, { recursive: true });
    const r = Bun.spawnSync(["npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", "--loglevel=error", `@openai/codex@${version}`], {
      stdout: "pipe",
      stderr: "pipe",
    });
    if (r.exitCode !== 0) throw new Error(`npm install @openai/codex@${version} failed (exit ${r.exitCode}):\n${r.stderr.toString()}`);
    bin = findNativeBinary(prefix);
    if (bin === undefined) throw new Error(`@openai/codex@${version} installed into ${prefix} but no native binary was found`);
  }
  const reported = versionOf(bin);
  if (!reportsExactly(reported, version)) throw new Error(`${bin} reports '${reported}', expected exactly ${version}`);
  return { version, bin };
};

if (import.meta.main) {
  for (const v of process.argv.slice(2).length > 0 ? process.argv.slice(2) : hostTargets("codex")) {
    const c = installCodex(v);
    console.log(`${c.version}\t${c.bin}`);
  }
}
