// Where a host's version stands against the versions bc is tested with.
import { describe, expect, test } from "bun:test";
import { CODEX_LIVE_VERSIONS, TESTED_VERSIONS, testedField, testedNote, testedOf } from "../../src/hosts/tested-versions.ts";

const LIST = ["2.1.332", "2.1.328", "2.1.337"];

describe("testedNote", () => {
  test.each([
    ["2.1.332", "tested"],
    ["2.1.332 (Claude Code)", "tested"],
    ["codex-cli 2.1.337", "tested"],
    ["2.1.340", "newer than bc is tested with (up to 2.1.337)"],
    ["2.2.0", "newer than bc is tested with (up to 2.1.337)"],
    ["10.0.0", "newer than bc is tested with (up to 2.1.337)"],
    ["2.1.99", "older than bc is tested with (from 2.1.328)"],
    ["1.9.400", "older than bc is tested with (from 2.1.328)"],
    ["2.1.330", "between the tested 2.1.328 and 2.1.337"],
  ])("%s: %s", (version, note) => {
    expect(testedNote(version, LIST)).toBe(note);
  });

  test("no version to read, or no list: nothing said", () => {
    expect(testedNote(undefined, LIST)).toBeUndefined();
    expect(testedNote("unknown", LIST)).toBeUndefined();
    expect(testedNote("2.1", LIST)).toBeUndefined();
    expect(testedNote("2.1.332", [])).toBeUndefined();
    expect(testedField("unknown", LIST)).toEqual({});
    expect(testedField("2.1.332", LIST)).toEqual({ tested: "tested" });
  });

  test("numbers compare as numbers, not as text: 2.1.1000 is newer than 2.1.999", () => {
    expect(testedNote("2.1.1000", ["2.1.999"])).toBe("newer than bc is tested with (up to 2.1.999)");
    expect(testedNote("2.1.999", ["2.1.1000"])).toBe("older than bc is tested with (from 2.1.1000)");
  });
});

test("the list: every version reads as x.y.z, each host has one pinned, and every listed version is 'tested'", () => {
  for (const v of TESTED_VERSIONS) expect(v.version).toMatch(/^\d+\.\d+\.\d+$/);
  for (const host of ["claude", "codex"] as const) {
    expect(TESTED_VERSIONS.filter((v) => v.host === host && v.pinned)).toHaveLength(1);
    for (const v of testedOf(host)) expect(testedNote(v, testedOf(host))).toBe("tested");
  }
  for (const v of CODEX_LIVE_VERSIONS) expect(v).toMatch(/^\d+\.\d+\.\d+$/);
});
