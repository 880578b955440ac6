// The host versions bc is tested with end to end: the one list. The end-to-end suites run against
// it (test/e2e/support/versions.ts), and `bc claude status` / `bc codex status` say where the host
// on PATH stands against it.

export type TestedHost = "claude" | "codex";

export interface TestedVersion {
  readonly host: TestedHost;
  readonly version: string;
  /** the version the README's figures and the demo recordings come from */
  readonly pinned: boolean;
  /** Codex: the suite also forks and resumes a real legacy rollout from the corpus */
  readonly legacyCorpus?: boolean;
}

/** Claude Code (the plugin) and Codex (`bc codex-fork` and `codex resume`). */
export const TESTED_VERSIONS: readonly TestedVersion[] = [
  { host: "claude", version: "2.1.328", pinned: true },
  { host: "claude", version: "2.1.332", pinned: false },
  { host: "claude", version: "2.1.337", pinned: false },
  { host: "codex", version: "0.169.0", pinned: true, legacyCorpus: true },
  { host: "codex", version: "0.150.1", pinned: false, legacyCorpus: false },
  { host: "codex", version: "0.171.0", pinned: false, legacyCorpus: true },
];

/** The Codex release the live integration (PreCompact hook + app-server) is tested with. */
export const CODEX_LIVE = "0.171.0";

/**
 * The oldest Codex release the whole live suite passes with, run beside CODEX_LIVE: 0.157.1 is
 * the oldest whose `/compact` bc answers (0.156.1 and older: the hook hands over and Codex
 * compacts); 0.157 to 0.162 take the suite's long typed task for a paste and do not submit it.
 */
export const CODEX_LIVE_OLDEST = "0.163.0";

/** Every Codex release the live suites run with, each in its own process. */
export const CODEX_LIVE_VERSIONS: readonly string[] = [CODEX_LIVE, CODEX_LIVE_OLDEST];

const VERSION_IN = /\b(\d+)\.(\d+)\.(\d+)\b/;

/** x.y.z read from a version line ("2.1.337 (Claude Code)", "codex-cli 0.171.0"), or undefined. */
const parts = (v: string): [number, number, number] | undefined => {
  const m = VERSION_IN.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
};

const compare = (a: readonly number[], b: readonly number[]): number => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;

/**
 * Where `version` stands against the tested ones, in a few words for a status line: "tested",
 * "between the tested 0.163.0 and 0.171.0", "newer than bc is tested with (up to 2.1.337)",
 * "older than bc is tested with (from 2.1.328)"; undefined when no version can be read from it.
 */
export const testedNote = (version: string | undefined, tested: readonly string[]): string | undefined => {
  const v = version === undefined ? undefined : parts(version);
  const known = tested.map((t) => ({ t, p: parts(t)! })).sort((a, b) => compare(a.p, b.p));
  if (v === undefined || known.length === 0) return undefined;
  const oldest = known[0]!;
  const newest = known.at(-1)!;
  if (known.some((k) => compare(k.p, v) === 0)) return "tested";
  if (compare(v, newest.p) > 0) return `newer than bc is tested with (up to ${newest.t})`;
  if (compare(v, oldest.p) < 0) return `older than bc is tested with (from ${oldest.t})`;
  return `between the tested ${oldest.t} and ${newest.t}`;
};

/** The versions of `host` in TESTED_VERSIONS. */
export const testedOf = (host: TestedHost): string[] => TESTED_VERSIONS.filter((v) => v.host === host).map((v) => v.version);

/** `{ tested }` for a status report, or nothing when no version can be read. */
export const testedField = (version: string | undefined, tested: readonly string[]): { tested?: string } => {
  const note = testedNote(version, tested);
  return note === undefined ? {} : { tested: note };
};
