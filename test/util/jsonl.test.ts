// Writing a file the atomic way: nothing half-written, nothing overwritten, one-line errors.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BcError } from "../../src/util/errors.ts";
import { writeAtomically } from "../../src/util/jsonl.ts";

const dir = mkdtempSync(join(tmpdir(), "bc-atomic-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("writeAtomically", () => {
  test("writes the text, checked before it appears, and leaves no temporary file", () => {
    const path = join(dir, "a.jsonl");
    let seen = "";
    writeAtomically(path, "{}\n", (tmp) => (seen = readFileSync(tmp, "utf8")));
    expect(seen).toBe("{}\n");
    expect(readFileSync(path, "utf8")).toBe("{}\n");
    expect(readdirSync(dir)).toEqual(["a.jsonl"]);
  });

  test("an existing file is never overwritten", () => {
    const path = join(dir, "b.jsonl");
    writeFileSync(path, "mine\n");
    expect(() => writeAtomically(path, "theirs\n")).toThrow("already exists; refusing to overwrite");
    expect(readFileSync(path, "utf8")).toBe("mine\n");
  });

  test("a failed check leaves nothing behind", () => {
    const path = join(dir, "c.jsonl");
    expect(() =>
      writeAtomically(path, "x\n", () => {
        throw new BcError("validation", "bad");
      }),
    ).toThrow("bad");
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes("c.jsonl"))).toEqual([]);
  });

  const noLinks = (code: string) => (): void => {
    throw Object.assign(new Error(`${code}: operation not permitted, link`), { code });
  };

  test("a filesystem without hard links: the checked text still arrives whole, by rename, and no temporary file is left", () => {
    for (const code of ["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]) {
      const path = join(dir, `nolinks-${code}.jsonl`);
      let seen = "";
      writeAtomically(path, "{}\n", (tmp) => (seen = readFileSync(tmp, "utf8")), noLinks(code));
      expect(seen).toBe("{}\n");
      expect(readFileSync(path, "utf8")).toBe("{}\n");
      expect(readdirSync(dir).filter((f) => f.includes(`nolinks-${code}`))).toEqual([`nolinks-${code}.jsonl`]);
    }
  });

  test("without hard links, a file that appeared meanwhile is still not overwritten", () => {
    const path = join(dir, "raced.jsonl");
    // the link fails as on such a filesystem, and by then someone else has written `path`
    const raced = (): void => {
      writeFileSync(path, "theirs\n");
      noLinks("EPERM")();
    };
    expect(() => writeAtomically(path, "mine\n", undefined, raced)).toThrow("already exists; refusing to overwrite");
    expect(readFileSync(path, "utf8")).toBe("theirs\n");
    expect(readdirSync(dir).filter((f) => f.includes("raced"))).toEqual(["raced.jsonl"]);
  });

  test("a link failing for another reason is an error, and nothing is renamed into place", () => {
    const path = join(dir, "other.jsonl");
    expect(() => writeAtomically(path, "x\n", undefined, noLinks("EIO"))).toThrow("EIO");
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes("other.jsonl"))).toEqual([]);
  });

  test("a folder that does not exist: a one-line bad-input error, not an internal error", () => {
    const path = join(dir, "missing", "d.jsonl");
    let err: unknown;
    try {
      writeAtomically(path, "x\n");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BcError);
    expect((err as BcError).code).toBe("bad-input");
    expect((err as BcError).message).toStartWith(`${path}: cannot be written (ENOENT`);
    expect((err as BcError).message).not.toContain("\n");
  });
});
