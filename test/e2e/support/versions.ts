// The host versions the end-to-end suites run against: the one list (src/hosts/tested-versions.ts).
// Each is installed from npm into test/e2e/.cache and must report exactly its version.
//
// Overrides (environment):
//   BC_E2E_CLAUDE_VERSIONS=2.1.332        only these Claude Code versions (comma-separated), from npm
//   BC_E2E_CODEX_VERSIONS=0.171.0,0.169.0 only these Codex versions
//   BC_E2E_CLAUDE_BIN=/path/to/claude     drive this binary instead of installing one ("PATH": the claude on PATH)
//   BC_E2E_CODEX_BIN=/path/to/codex       the same for Codex ("PATH": the codex on PATH)
// A binary given this way runs as the version it reports; when versions are named too, it must
// report exactly one of them.

import {
  CODEX_LIVE,
  CODEX_LIVE_OLDEST,
  CODEX_LIVE_VERSIONS,
  TESTED_VERSIONS,
  type TestedHost,
  type TestedVersion,
  testedOf,
} from "../../../src/hosts/tested-versions.ts";

export type HostName = TestedHost;

export type HostVersion = TestedVersion;

/** The list itself lives with the product (src/hosts/tested-versions.ts): `bc claude status` and `bc codex status` compare the host on PATH with it. */
export const HOST_VERSIONS: readonly HostVersion[] = TESTED_VERSIONS;

export { CODEX_LIVE, CODEX_LIVE_OLDEST, CODEX_LIVE_VERSIONS };

/** A Codex release that still writes the older (legacy, unpaginated) history format: the live suite resumes one of its sessions. */
export const CODEX_LEGACY_FORMAT = "0.142.5";

/** A version to test, and the binary to test it with when one was given rather than installed. */
export interface HostTarget extends HostVersion {
  readonly bin?: string;
}

type Env = Record<string, string | undefined>;

const VERSION_IN = /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b/;

/**
 * The version a host's `--version` line reports ("2.1.328 (Claude Code)", "codex-cli 0.169.0"),
 * read as a whole token, so 2.1.3280 is not 2.1.328.
 */
export const reportedVersion = (line: string): string | undefined => VERSION_IN.exec(line.trim())?.[1];

/** Whether a `--version` line reports exactly `version`. */
export const reportsExactly = (line: string, version: string): boolean => reportedVersion(line) === version;

const listed = (host: HostName): HostVersion[] => HOST_VERSIONS.filter((v) => v.host === host);

/** The binary's `--version` line, or a thrown error naming it. */
const versionLine = (bin: string): string => {
  const r = Bun.spawnSync([bin, "--version"], { stdout: "pipe", stderr: "pipe", env: { ...process.env, DISABLE_AUTOUPDATER: "1" }, timeout: 30_000 });
  if (r.exitCode !== 0) throw new Error(`${bin} --version failed (exit ${r.exitCode}): ${r.stderr.toString().trim()}`);
  return r.stdout.toString().trim();
};

/** The host versions to run, the list narrowed or replaced by the environment. */
export const hostTargets = (host: HostName, env: Env = process.env): HostTarget[] => {
  const prefix = `BC_E2E_${host.toUpperCase()}`;
  const named = (env[`${prefix}_VERSIONS`] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const binVar = env[`${prefix}_BIN`];
  const pick = (version: string): HostVersion =>
    listed(host).find((v) => v.version === version) ?? { host, version, pinned: false, legacyCorpus: host === "codex" };
  if (binVar !== undefined && binVar !== "") {
    const bin = binVar === "PATH" ? Bun.which(host, { PATH: env.PATH ?? process.env.PATH ?? "" }) : binVar;
    if (!bin) throw new Error(`${prefix}_BIN=PATH, but no ${host} is on PATH`);
    const line = versionLine(bin);
    const version = reportedVersion(line);
    if (version === undefined) throw new Error(`${bin} --version printed '${line}': no version in it`);
    if (named.length > 0 && !named.includes(version)) throw new Error(`${bin} reports ${version}, not exactly ${named.join(" or ")} (${prefix}_VERSIONS)`);
    return [{ ...pick(version), bin }];
  }
  return named.length > 0 ? named.map(pick) : listed(host);
};

/** The first target: what a script that drives one host (a demo recording) uses. */
export const firstTarget = (host: HostName, env: Env = process.env): HostTarget => hostTargets(host, env)[0]!;

/** `README.md`'s words for the tested versions: "Claude Code 2.1.328, 2.1.332 and 2.1.337". */
export const testedVersions = (host: HostName): string => {
  const vs = testedOf(host);
  return `${host === "claude" ? "Claude Code" : "Codex"} ${vs.slice(0, -1).join(", ")}${vs.length > 1 ? " and " : ""}${vs.at(-1)}`;
};
