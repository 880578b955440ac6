// The one list of host versions (support/versions.ts): exact version matching, the environment's
// overrides, and the README saying which versions are tested. Fast: no host is installed or run.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOST_VERSIONS, hostTargets, reportedVersion, reportsExactly, testedVersions } from "./support/versions.ts";

const TMP = mkdtempSync(join(tmpdir(), "bc-versions-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** A stand-in host binary (a shell script, not our code) that prints `line` for --version. */
const fakeHost = (name: string, line: string): string => {
  const p = join(TMP, name);
  writeFileSync(p, `#!/bin/sh\necho '${line}'\n`);
  chmodSync(p, 0o755);
  return p;
};

describe("the list", () => {
  test("Claude Code 2.1.328, 2.1.332 and 2.1.337, Codex 0.169.0, 0.150.1 and 0.171.0; one pinned version per host", () => {
    expect(HOST_VERSIONS.filter((v) => v.host === "claude").map((v) => v.version)).toEqual(["2.1.328", "2.1.332", "2.1.337"]);
    expect(HOST_VERSIONS.filter((v) => v.host === "codex").map((v) => v.version)).toEqual(["0.169.0", "0.150.1", "0.171.0"]);
    for (const host of ["claude", "codex"] as const) expect(HOST_VERSIONS.filter((v) => v.host === host && v.pinned)).toHaveLength(1);
  });

  test("the README names every tested version", () => {
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
    expect(readme).toContain(testedVersions("claude"));
    expect(readme).toContain(testedVersions("codex"));
  });
});

describe("exact version matching", () => {
  test.each([
    ["2.1.328 (Claude Code)", "2.1.328", true],
    ["2.1.3280 (Claude Code)", "2.1.328", false],
    ["12.1.328 (Claude Code)", "2.1.328", false],
    ["codex-cli 0.169.0", "0.169.0", true],
    ["codex-cli 10.169.0", "0.169.0", false],
    ["codex-cli 0.169.0-alpha.1", "0.169.0", false],
  ])("'%s' is exactly %s: %p", (line, version, exact) => {
    expect(reportsExactly(line, version)).toBe(exact);
  });

  test("the version is read as a whole token", () => {
    expect(reportedVersion("codex-cli 0.171.0")).toBe("0.171.0");
    expect(reportedVersion("no version here")).toBeUndefined();
  });
});

describe("overrides from the environment", () => {
  test("BC_E2E_<HOST>_VERSIONS narrows the list to the versions named", () => {
    expect(hostTargets("codex", { BC_E2E_CODEX_VERSIONS: "0.171.0" }).map((t) => t.version)).toEqual(["0.171.0"]);
    expect(hostTargets("claude", {}).map((t) => t.version)).toEqual(["2.1.328", "2.1.332", "2.1.337"]);
  });

  test("BC_E2E_<HOST>_BIN runs the binary as the version it reports, exactly as named when named", () => {
    const bin = fakeHost("codex", "codex-cli 0.171.0");
    expect(hostTargets("codex", { BC_E2E_CODEX_BIN: bin })).toEqual([{ host: "codex", version: "0.171.0", pinned: false, legacyCorpus: true, bin }]);
    expect(() => hostTargets("codex", { BC_E2E_CODEX_BIN: bin, BC_E2E_CODEX_VERSIONS: "0.171" })).toThrow("reports 0.171.0, not exactly 0.171");
  });

  test("BC_E2E_<HOST>_BIN=PATH takes the host on PATH", () => {
    const dir = join(TMP, "bin");
    mkdirSync(dir);
    const bin = fakeHost(join("bin", "claude"), "2.1.332 (Claude Code)");
    expect(hostTargets("claude", { BC_E2E_CLAUDE_BIN: "PATH", PATH: dir })).toEqual([{ host: "claude", version: "2.1.332", pinned: false, bin }]);
    expect(() => hostTargets("claude", { BC_E2E_CLAUDE_BIN: "PATH", PATH: join(TMP, "nothing") })).toThrow("no claude is on PATH");
  });
});
