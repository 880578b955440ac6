// Whether bc can write in a folder, asked by writing there; and taking back the folders bc made.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeMadeDirs, unwritableDir } from "../../src/util/dirs.ts";

const dir = mkdtempSync(join(tmpdir(), "bc-dirs-"));
afterAll(() => {
  chmodSync(join(dir, "read-only"), 0o755);
  rmSync(dir, { recursive: true, force: true });
});

describe("unwritableDir", () => {
  test("a folder there, or folders that can be made: writable, and nothing is left, the folders made for the test included", () => {
    mkdirSync(join(dir, "there"));
    expect(unwritableDir(join(dir, "there"))).toBeUndefined();
    expect(unwritableDir(join(dir, "there", "a", "b"))).toBeUndefined();
    expect(readdirSync(join(dir, "there"))).toEqual([]);
  });

  test("a file where the folder or one of its parents goes: that file, ENOTDIR", () => {
    writeFileSync(join(dir, "file"), "");
    expect(unwritableDir(join(dir, "file"))).toEqual({ at: join(dir, "file"), code: "ENOTDIR" });
    expect(unwritableDir(join(dir, "file", "a", "b"))).toEqual({ at: join(dir, "file"), code: "ENOTDIR" });
  });

  // root writes where the mode says no (as access() says too); anyone else is refused at the folder
  test("a folder its mode keeps bc out of: refused there, unless bc runs as root", () => {
    const ro = join(dir, "read-only");
    mkdirSync(ro, { mode: 0o555 });
    chmodSync(ro, 0o555);
    const refused = process.getuid?.() === 0 ? undefined : { at: ro, code: "EACCES" };
    expect([unwritableDir(ro), unwritableDir(join(ro, "new"))]).toEqual([refused, refused]);
    expect(readdirSync(ro)).toEqual([]);
  });
});

describe("removeMadeDirs", () => {
  test("takes back the empty folders made, never one that holds anything or was there before", () => {
    const before = join(dir, "before");
    mkdirSync(before);
    const created = mkdirSync(join(before, "a", "b", "c"), { recursive: true });
    removeMadeDirs(join(before, "a", "b", "c"), created);
    expect(readdirSync(before)).toEqual([]);
    const again = mkdirSync(join(before, "a", "b"), { recursive: true });
    writeFileSync(join(before, "a", "kept"), "");
    removeMadeDirs(join(before, "a", "b"), again);
    expect([existsSync(join(before, "a", "b")), readdirSync(join(before, "a"))]).toEqual([false, ["kept"]]);
    removeMadeDirs(before, undefined);
    expect(existsSync(before)).toBe(true);
  });
});
