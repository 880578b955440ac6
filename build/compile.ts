#!/usr/bin/env bun
// One build script: compile src/main.ts into a single native `bc`, with the version injected
// by `define`, bunfig/.env autoloading off (a user's bunfig.toml or .env must never change
// what bc does), then a smoke test of the binary's `--version`.
//
//   bun build/compile.ts          dist/bc for this machine
//   bun build/compile.ts --all    also dist/bc-<os>-<arch>[.exe] for every release target + dist/SHA256SUMS
//
// A darwin binary must carry a code signature that holds: Bun signs darwin-arm64 ad hoc, but
// leaves the runtime's own, broken by the compile, on darwin-x64; build/macho-sign.ts signs it.
//
// Cross targets need each platform's Bun runtime. With no internet beyond the npm registry,
// it comes from the `@oven/bun-<os>-<arch>` package at the same version as the `bun`
// devDependency, fetched with `npm pack` into build/.cache and handed to the compiler as
// `executablePath` (the `--compile-executable-path` of the CLI).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { adhocSign, checkSignature } from "./macho-sign.ts";

const REPO = join(import.meta.dir, "..");
const DIST = join(REPO, "dist");
const CACHE = join(import.meta.dir, ".cache");
const ENTRY = join(REPO, "src", "main.ts");

export interface Target {
  /** release name: dist/bc-<name>[.exe] */
  readonly name: string;
  readonly bunTarget: Bun.Build.CompileTarget;
  /** npm package holding that platform's bun runtime */
  readonly runtimePackage: string;
  readonly exe: "" | ".exe";
  /** what `file` must say about the binary */
  readonly fileType: RegExp;
}

export const TARGETS: readonly Target[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64", runtimePackage: "@oven/bun-linux-x64", exe: "", fileType: /ELF 64-bit.*x86-64/ },
  { name: "linux-arm64", bunTarget: "bun-linux-arm64", runtimePackage: "@oven/bun-linux-aarch64", exe: "", fileType: /ELF 64-bit.*(aarch64|ARM aarch64)/ },
  { name: "darwin-x64", bunTarget: "bun-darwin-x64", runtimePackage: "@oven/bun-darwin-x64", exe: "", fileType: /Mach-O 64-bit.*x86_64/ },
  { name: "darwin-arm64", bunTarget: "bun-darwin-arm64", runtimePackage: "@oven/bun-darwin-aarch64", exe: "", fileType: /Mach-O 64-bit.*arm64/ },
  { name: "windows-x64", bunTarget: "bun-windows-x64", runtimePackage: "@oven/bun-windows-x64", exe: ".exe", fileType: /PE32\+ executable.*x86-64/ },
];

/** The release name of the machine running the build, e.g. "linux-x64". */
export const hostTargetName = (): string => `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

const progress = (msg: string): void => {
  process.stderr.write(`build: ${msg}\n`);
};

class BuildError extends Error {
  override name = "BuildError";
}

/** A bad flag: exit 2, as bc itself does. */
class UsageError extends BuildError {}

const packageVersion = (): string => (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;

/** The bun version the runtimes must match: the installed devDependency, not whatever bun is on PATH. */
const bunVersion = (): string => {
  const p = join(REPO, "node_modules", "bun", "package.json");
  if (!existsSync(p)) throw new BuildError("node_modules/bun is missing; run 'npm ci' first");
  return (JSON.parse(readFileSync(p, "utf8")) as { version: string }).version;
};

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** The commit being built, "-dirty" when tracked files have changes; "unknown" outside a git checkout. */
export const buildCommit = (): string => {
  const head = spawnSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: REPO, encoding: "utf8" });
  if (head.status !== 0) return "unknown";
  const dirty = spawnSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: REPO, encoding: "utf8" });
  return head.stdout.trim() + (dirty.status === 0 && dirty.stdout.trim() !== "" ? "-dirty" : "");
};

/** What every build shares, compiled or not: one entry, minified, the version and commit defined as literals. */
export const bundleOptions = (version: string = packageVersion(), commit: string = buildCommit()) =>
  ({
    entrypoints: [ENTRY],
    target: "bun",
    minify: true,
    sourcemap: "linked", // embedded (zstd) in a compiled binary: BC_DEBUG stack traces point at src/, read only on error
    define: { BC_VERSION: JSON.stringify(version), BC_COMMIT: JSON.stringify(commit) },
  }) satisfies Bun.BuildConfig;

/** Compile src/main.ts into `outfile`; `executablePath` is the runtime of a cross target. */
const compile = async (opts: { outfile: string; target?: Target; executablePath?: string }): Promise<void> => {
  const started = performance.now();
  const result = await Bun.build({
    ...bundleOptions(),
    // release binaries carry no source map: 0.4 MiB of the 108, read only for BC_DEBUG stack traces
    ...(opts.target ? { sourcemap: "none" as const } : {}),
    // precompiled bytecode halves start-up (bc --version: ~25 ms -> ~11 ms on the 2-core CI box),
    // which is most of the time of a whole `bc inspect` on a few-MB session
    bytecode: true,
    format: "esm", // bytecode would default to cjs, where src's import.meta is a syntax error
    throw: false,
    compile: {
      outfile: opts.outfile,
      autoloadBunfig: false,
      autoloadDotenv: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
      ...(opts.target ? { target: opts.target.bunTarget } : {}),
      ...(opts.executablePath ? { executablePath: opts.executablePath } : {}),
    },
  });
  if (!result.success) {
    const where = (l: (typeof result.logs)[number]): string =>
      "position" in l && l.position ? `${relative(REPO, l.position.file)}:${l.position.line}:${l.position.column}: ` : "";
    const errors = result.logs.filter((l) => l.level === "error").map((l) => `  ${where(l)}${l.message}`);
    throw new BuildError(`compile failed:\n${errors.join("\n") || "  (bun gave no message)"}`);
  }
  if (!existsSync(opts.outfile)) throw new BuildError(`compile reported success but ${opts.outfile} is missing`);
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  progress(`wrote ${basename(opts.outfile)} (${mib(statSync(opts.outfile).size)}, ${secs} s)`);
};

/** Run `bin --version` from an empty folder (no bunfig, no node_modules) and check the version it names. */
export const smokeTest = (bin: string): void => {
  const want = packageVersion();
  const cwd = mkdtempSync(join(tmpdir(), "bc-smoke-"));
  try {
    const r = spawnSync(bin, ["--version"], { cwd, encoding: "utf8", timeout: 30_000 });
    if (r.error) throw new BuildError(`smoke test: could not run ${basename(bin)}: ${r.error.message}`);
    const got = r.stdout.trim();
    if (r.status !== 0 || !got.startsWith(`better-compaction ${want} (commit `))
      throw new BuildError(`smoke test: '${basename(bin)} --version' exited ${r.status} printing '${got}', expected 'better-compaction ${want} (commit ...)'`);
    progress(`smoke test: ${basename(bin)} --version = ${got}`);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
};

/** The bun runtime of one target, from the npm registry via `npm pack`, cached by version. */
const runtimeFor = (target: Target, version: string): string => {
  const dir = join(CACHE, `${target.runtimePackage.replace("@", "").replace("/", "+")}@${version}`);
  const bin = join(dir, "package", "bin", `bun${target.exe}`);
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  progress(`fetching ${target.runtimePackage}@${version} from the npm registry`);
  const pack = spawnSync("npm", ["pack", `${target.runtimePackage}@${version}`, "--json", "--pack-destination", dir], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    shell: process.platform === "win32",
  });
  if (pack.status !== 0) {
    const why = (pack.stderr || pack.error?.message || "").trim().split("\n").at(-1);
    throw new BuildError(`npm pack ${target.runtimePackage}@${version} failed: ${why}`);
  }
  const info = JSON.parse(pack.stdout) as { filename: string }[];
  const tarball = join(dir, info[0]?.filename ?? "");
  const tar = spawnSync("tar", ["-xzf", tarball, "-C", dir], { encoding: "utf8" });
  if (tar.status !== 0) throw new BuildError(`could not extract ${basename(tarball)}: ${tar.stderr.trim()}`);
  rmSync(tarball, { force: true });
  if (!existsSync(bin)) throw new BuildError(`${target.runtimePackage}@${version} has no bin/bun${target.exe}`);
  if (!target.exe) chmodSync(bin, 0o755);
  return bin;
};

/** What `file` says about a path, or undefined when `file` is not installed. */
const fileType = (path: string): string | undefined => {
  const r = spawnSync("file", ["-b", path], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
};

const sha256 = async (path: string): Promise<string> => {
  const hash = createHash("sha256");
  for await (const chunk of Bun.file(path).stream()) hash.update(chunk);
  return hash.digest("hex");
};

/**
 * A darwin binary whose code signature does not hold (Bun leaves the runtime's own on a darwin-x64
 * cross-compile) is signed ad hoc, as Bun signs darwin-arm64; either way the build ends with a
 * signature that covers every page and matches it.
 */
const signAdHocIfBroken = (outfile: string, target: Target): void => {
  const bytes = readFileSync(outfile);
  const before = checkSignature(bytes);
  if (before.valid) {
    progress(`${target.name}: code signature valid (${before.pages.toLocaleString("en-US")} pages)`);
    return;
  }
  const signed = adhocSign(bytes);
  const after = checkSignature(signed);
  if (!after.valid) throw new BuildError(`${basename(outfile)}: the ad-hoc signature does not hold (${after.badPages} of ${after.pages} pages)`);
  writeFileSync(outfile, signed);
  progress(
    `${target.name}: Bun's code signature did not hold (${before.badPages} of ${before.pages} page hashes wrong, ${mib(before.uncovered)} not covered): signed ad hoc, ${after.pages.toLocaleString("en-US")} pages`,
  );
};

const buildAll = async (): Promise<void> => {
  const version = bunVersion();
  const sums: string[] = [];
  for (const target of TARGETS) {
    const outfile = join(DIST, `bc-${target.name}${target.exe}`);
    progress(`${target.name}: compiling with bun ${version}`);
    rmSync(`${outfile}.map`, { force: true }); // left by an earlier build that wrote one
    await compile({ outfile, target, executablePath: runtimeFor(target, version) });
    if (target.name.startsWith("darwin-")) signAdHocIfBroken(outfile, target);
    if (target.name === hostTargetName()) smokeTest(outfile);
    const type = fileType(outfile);
    if (type === undefined) progress(`${target.name}: 'file' not installed; file type not checked`);
    else if (!target.fileType.test(type)) throw new BuildError(`${basename(outfile)} is '${type}', expected ${target.fileType}`);
    else progress(`${target.name}: ${type.split(",").slice(0, 2).join(",")}`);
    sums.push(`${await sha256(outfile)}  ${basename(outfile)}`);
  }
  writeFileSync(join(DIST, "SHA256SUMS"), `${sums.join("\n")}\n`);
  progress(`wrote SHA256SUMS (${sums.length} binaries)`);
};

const HELP = `Usage: bun build/compile.ts [--all]

Compile bc into a single executable with the version injected and bunfig/.env autoloading off,
then run its --version as a smoke test.

  (no flag)  dist/bc for this machine
  --all      also dist/bc-<os>-<arch>[.exe] for ${TARGETS.map((t) => t.name).join(", ")},
             and dist/SHA256SUMS; each target's bun runtime comes from the npm registry
             (@oven/bun-<os>-<arch>, same version as the bun devDependency), cached in build/.cache
  --help     this text
`;

const main = async (argv: readonly string[]): Promise<void> => {
  for (const a of argv) {
    if (a === "--help" || a === "-h") {
      process.stdout.write(HELP);
      return;
    }
    if (a !== "--all") throw new UsageError(`unknown option '${a}' (try --help)`);
  }
  const started = performance.now();
  mkdirSync(DIST, { recursive: true });
  const local = join(DIST, process.platform === "win32" ? "bc.exe" : "bc");
  await compile({ outfile: local });
  smokeTest(local);
  if (argv.includes("--all")) await buildAll();
  progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
};

/** A build failure in a few readable lines: bun's own errors (an AggregateError from Bun.build) by file:line. */
const explain = (e: unknown): string => {
  if (e instanceof BuildError) return e.message;
  if (e instanceof AggregateError && e.errors.length > 0)
    return `${e.message}:\n${e.errors.map((x: unknown) => `  ${x instanceof Error && "position" in x && x.position ? `${relative(REPO, String((x.position as { file: string }).file))}:${(x.position as { line: number }).line}: ` : ""}${x instanceof Error ? x.message : String(x)}`).join("\n")}`;
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
};

if (import.meta.main) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`build: ${explain(e)}\n`);
    process.exit(e instanceof UsageError ? 2 : 1);
  });
}
