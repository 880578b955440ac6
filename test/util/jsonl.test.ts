// Writing a file the atomic way: nothing half-written, nothing overwritten unless asked, one-line errors.
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BcError } from "../../src/util/errors.ts";
import { linesNotUtf8, replaceFile, replaceFiles, writeAtomically } from "../../src/util/jsonl.ts";
import { evalUnderFileSizeLimit } from "../support/file-size-limit.ts";

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

describe("replaceFile", () => {
  /** A folder of its own holding `files` (name -> text). */
  const folder = (name: string, files: Record<string, string> = {}): string => {
    const d = join(dir, name);
    mkdirSync(d);
    for (const [f, text] of Object.entries(files)) writeFileSync(join(d, f), text);
    return d;
  };
  /** The one-line error replaceFiles throws, as `message | hint`. */
  const failure = (run: () => void): string => {
    try {
      run();
    } catch (e) {
      expect(e).toBeInstanceOf(BcError);
      return `${(e as BcError).message} | ${(e as BcError).hint}`;
    }
    throw new Error("expected a failure");
  };

  test("the new text replaces the old, the file keeps its mode, and no temporary file is left", () => {
    const d = folder("replace", { "settings.json": "old\n" });
    chmodSync(join(d, "settings.json"), 0o640);
    replaceFile(join(d, "settings.json"), "new\n");
    expect(readFileSync(join(d, "settings.json"), "utf8")).toBe("new\n");
    expect(statSync(join(d, "settings.json")).mode & 0o777).toBe(0o640);
    expect(readdirSync(d)).toEqual(["settings.json"]);
  });

  test("a file made new, in folders made new, is its owner's alone unless the caller asks another mode", () => {
    const d = folder("new-file");
    replaceFile(join(d, "a", "b", "private.json"), "{}\n");
    expect(statSync(join(d, "a", "b", "private.json")).mode & 0o777).toBe(0o600);
    replaceFile(join(d, "shared.md"), "# report\n", { newMode: 0o644 });
    expect(statSync(join(d, "shared.md")).mode & 0o777).toBe(0o644 & ~process.umask());
  });

  test("a symlink stays a link: the file it names gets the text and keeps its mode, and neither folder keeps a temporary file", () => {
    const real = folder("dotfiles", { "settings.json": "old\n" });
    chmodSync(join(real, "settings.json"), 0o600);
    const home = folder("home");
    symlinkSync(join(real, "settings.json"), join(home, "settings.json"));
    replaceFile(join(home, "settings.json"), "new\n");
    expect(lstatSync(join(home, "settings.json")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(real, "settings.json"), "utf8")).toBe("new\n");
    expect(statSync(join(real, "settings.json")).mode & 0o777).toBe(0o600);
    expect([readdirSync(home), readdirSync(real)]).toEqual([["settings.json"], ["settings.json"]]);
  });

  test.skipIf(process.getuid?.() !== 0)("root replacing a user's file leaves it the user's", () => {
    const d = folder("owned", { "settings.json": "old\n" });
    chownSync(join(d, "settings.json"), 4321, 4321);
    replaceFile(join(d, "settings.json"), "new\n");
    const st = statSync(join(d, "settings.json"));
    expect([st.uid, st.gid]).toEqual([4321, 4321]);
  });

  // a real failure in the middle of the write: the system refuses to let a file grow past 512 bytes
  test.skipIf(process.platform === "win32")("a write that fails midway leaves the old file as it was, and no temporary file or folder made for it", () => {
    const d = folder("midway", { "weights.json": "old\n" });
    const script = `const { replaceFile } = await import(${JSON.stringify(join(import.meta.dir, "../../src/util/jsonl.ts"))});
for (const path of ["weights.json", "new/deeper/weights.json"]) {
  try { replaceFile(path, "x".repeat(100_000)); } catch (e) { console.log(e.message); }
}`;
    expect(evalUnderFileSizeLimit(script, d)).toEqual([
      "weights.json: cannot be written (larger than the system lets a file grow)",
      "new/deeper/weights.json: cannot be written (larger than the system lets a file grow)",
    ]);
    expect(readFileSync(join(d, "weights.json"), "utf8")).toBe("old\n");
    expect(readdirSync(d)).toEqual(["weights.json"]);
  });

  test("a folder where the file goes, or a file where its folder goes: one line naming the file, nothing changed", () => {
    const d = folder("in-the-way", { file: "mine\n" });
    mkdirSync(join(d, "settings.json"));
    expect(failure(() => replaceFile(join(d, "settings.json"), "{}\n", { hint: "left as it was" }))).toBe(
      `${join(d, "settings.json")}: cannot be written (a folder is in the way) | left as it was`,
    );
    expect(failure(() => replaceFile(join(d, "file", "settings.json"), "{}\n"))).toBe(
      `${join(d, "file", "settings.json")}: cannot be written (a file is in the way of its folder) | nothing was written; the file is as it was`,
    );
    expect(readdirSync(d).sort()).toEqual(["file", "settings.json"]);
    expect(readdirSync(join(d, "settings.json"))).toEqual([]);
    expect(readFileSync(join(d, "file"), "utf8")).toBe("mine\n");
  });

  test("files that go together: one that cannot be written leaves every other as it was", () => {
    const d = folder("together", { "report.md": "old md\n", blocked: "" });
    expect(
      failure(() =>
        replaceFiles([
          { path: join(d, "report.md"), text: "new md\n" },
          { path: join(d, "blocked", "report.json"), text: "{}\n" },
        ]),
      ),
    ).toStartWith(`${join(d, "blocked", "report.json")}: cannot be written (a file is in the way of its folder)`);
    expect(readFileSync(join(d, "report.md"), "utf8")).toBe("old md\n");
    expect(readdirSync(d).sort()).toEqual(["blocked", "report.md"]);
    replaceFiles([
      { path: join(d, "report.md"), text: "new md\n" },
      { path: join(d, "report.json"), text: "{}\n" },
    ]);
    expect([readFileSync(join(d, "report.md"), "utf8"), readFileSync(join(d, "report.json"), "utf8")]).toEqual(["new md\n", "{}\n"]);
  });

  test("files that go together: a folder in the place of a later one leaves the earlier ones as they were, not renamed before it fails", () => {
    const d = folder("folder-later", { "hooks.json": "old\n" });
    mkdirSync(join(d, "install.json"));
    expect(
      failure(() =>
        replaceFiles([
          { path: join(d, "hooks.json"), text: "new\n" },
          { path: join(d, "install.json"), text: "{}\n" },
        ]),
      ),
    ).toBe(`${join(d, "install.json")}: cannot be written (a folder is in the way) | nothing was written; the file is as it was`);
    expect(readFileSync(join(d, "hooks.json"), "utf8")).toBe("old\n");
    expect(readdirSync(d).sort()).toEqual(["hooks.json", "install.json"]);
  });

  test("files that go together: a rename that fails after another was made names the files replaced and those as they were, not 'nothing was written'", () => {
    const d = folder("rename-later", { "hooks.json": "old hooks\n", "config.toml": "old config\n" });
    const [hooks, state, config] = [join(d, "hooks.json"), join(d, "state"), join(d, "config.toml")];
    // each passes its check; then the folder made for the last one's file stands where the second
    // goes, and the system refuses that rename, after the first was made
    const files = [
      { path: hooks, text: "new hooks\n" },
      { path: state, text: "{}\n" },
      { path: config, text: "new config\n" },
      { path: join(state, "install.json"), text: "{}\n" },
    ];
    expect(failure(() => replaceFiles(files, { hint: "nothing was written; hooks.json is as it was" }))).toBe(
      `${state}: cannot be written (a folder is in the way) | ${hooks} was written; ${state}, ${config}, ${join(state, "install.json")} are as they were: run the same command again once ${state} can be written`,
    );
    expect(readFileSync(hooks, "utf8")).toBe("new hooks\n");
    expect(readFileSync(config, "utf8")).toBe("old config\n");
    // no temporary file is left, nor the folder made for the last file
    expect(readdirSync(d).sort()).toEqual(["config.toml", "hooks.json"]);
  });
});

test("linesNotUtf8: the lines whose bytes are not UTF-8; a U+FFFD written as such is no such line", () => {
  const bytes = (...parts: (string | number[])[]): Uint8Array =>
    Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));
  const b = bytes('{"a":"ok"}\n{"a":"', [0xff, 0xfe], '"}\r\n{"a":"\uFFFD real"}\n{"a":"', [0xc3, 0x28], '"}');
  expect(linesNotUtf8(b)).toEqual([2, 4]);
  const clean = bytes('{"a":"\uFFFD"}\n{"b":"é"}\n');
  expect(linesNotUtf8(clean)).toEqual([]);
});
