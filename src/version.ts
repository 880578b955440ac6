// Injected at build time by build/compile.ts (`define`); from source it reads package.json's.
declare const BC_VERSION: string | undefined;
declare const BC_COMMIT: string | undefined;
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = typeof BC_VERSION === "string" ? BC_VERSION : pkg.version;

/** The commit bc was built from (with "-dirty" when the tree had changes), or what git says from source. */
const commit = (): string => {
  if (typeof BC_COMMIT === "string") return BC_COMMIT;
  const r = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: import.meta.dir, stdout: "pipe", stderr: "ignore" });
  return r.exitCode === 0 ? `${r.stdout.toString().trim()} (source)` : "source";
};

/** What `bc --version` prints: the version, the commit and the Bun runtime this binary carries. */
export const versionLine = (): string => `better-compaction ${VERSION} (commit ${commit()}, bun ${Bun.version})`;
