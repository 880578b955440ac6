// Which files a run reads and what the report calls them: each file once, each name its own.
import { afterAll, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectFiles } from "../../src/eval/corpus.ts";

const tmp = mkdtempSync(join(tmpdir(), "bc-corpus-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const write = (...parts: string[]): string => {
  const path = join(tmp, ...parts);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `${parts.join("/")}\n`);
  return path;
};

test("files that share a name in different folders are named apart by the fewest parent folders", () => {
  const c = write("c", "proj", "s.jsonl");
  const d = write("d", "proj", "s.jsonl");
  const other = write("d", "proj", "t.jsonl");
  // given as files, and as their folders
  expect(collectFiles([c, d, other]).files.map((f) => f.name)).toEqual(["c/proj/s.jsonl", "d/proj/s.jsonl", "t.jsonl"]);
  expect(collectFiles([join(tmp, "c", "proj"), join(tmp, "d", "proj")]).files.map((f) => f.name)).toEqual(["c/proj/s.jsonl", "d/proj/s.jsonl", "proj/t.jsonl"]);
  // names that are apart already stay as they were
  expect(collectFiles([c, other]).files.map((f) => f.name)).toEqual(["s.jsonl", "t.jsonl"]);
});

test("one file given twice (two spellings, a link, a folder and a file in it) is read once", () => {
  const f = write("twice", "a.jsonl");
  symlinkSync(f, join(tmp, "twice-link.jsonl"));
  const { files } = collectFiles([f, `${tmp}/./twice/a.jsonl`, `${tmp}/twice/../twice/a.jsonl`, join(tmp, "twice-link.jsonl"), join(tmp, "twice")]);
  expect(files.map((x) => [x.path, x.name])).toEqual([[f, "a.jsonl"]]);
});

test("a folder that cannot be listed is skipped and said, with why; the readable ones are read", () => {
  const ok = write("listed", "ok", "a.jsonl");
  const locked = join(tmp, "listed", "locked");
  write("listed", "locked", "b.jsonl");
  const real = fs.readdirSync;
  // a folder the user may not list (as root, a mode would not stop it): the system's answer, stood in for
  const spy = spyOn(fs, "readdirSync").mockImplementation(((dir: fs.PathLike, options?: unknown) => {
    if (String(dir) === locked) throw Object.assign(new Error(`EACCES: permission denied, scandir '${locked}'`), { code: "EACCES" });
    return real(dir, options as never);
  }) as typeof fs.readdirSync);
  try {
    const r = collectFiles([join(tmp, "listed")]);
    expect(r.files.map((f) => f.path)).toEqual([ok]);
    expect(r.skipped).toEqual([{ file: locked, reason: `${locked}: cannot be read (EACCES); the sessions in it are left out` }]);
  } finally {
    spy.mockRestore();
  }
});

test("in a folder, the file a Codex thread went on in after bc compacted it live is left out when the thread's first file is there, and said", () => {
  const thread = "019e0000-0000-7000-8000-00000000000a";
  const day = ["codex-home", "sessions", "2026", "11", "30"];
  const first = write(...day, `rollout-2026-11-30T01-00-00-${thread}.jsonl`);
  const later = write(...day, `rollout-2026-11-30T02-00-00-${thread}_019e0000-0000-7000-8000-0000000000f1.jsonl`);
  // another thread's later file, whose first file is not there: the only copy of that thread
  const alone = write(...day, "rollout-2026-11-30T03-00-00-019e0000-0000-7000-8000-00000000000b_019e0000-0000-7000-8000-0000000000f2.jsonl");
  const { files, skipped } = collectFiles([join(tmp, "codex-home")]);
  expect(files.map((f) => f.path)).toEqual([first, alone]);
  expect(skipped).toEqual([
    {
      file: later,
      reason: `${later}: Codex went on in this file after bc compacted the thread live (it holds bc's own cuts); the thread is replayed from its first file, codex-home/sessions/2026/11/30/rollout-2026-11-30T01-00-00-${thread}.jsonl`,
    },
  ]);
  // given by name, a file is read whatever else is given
  expect(collectFiles([join(tmp, "codex-home"), later]).files.map((f) => f.path)).toEqual([first, later, alone].sort());
});

test("in a folder, of a thread whose first file is gone, the earliest file it went on in is replayed and the later ones are left out, and said", () => {
  const thread = "019e0000-0000-7000-8000-00000000000c";
  const day = ["codex-gone", "sessions", "2026", "11", "30"];
  // the file ids are UUIDv7s: the smaller is the earlier, whatever the time in the name says
  const earliest = write(...day, `rollout-2026-11-30T05-00-00-${thread}_019e0000-0000-7000-8000-0000000000a1.jsonl`);
  const later = write(...day, `rollout-2026-11-30T04-00-00-${thread}_019e0000-0000-7000-8000-0000000000a2.jsonl`);
  const { files, skipped } = collectFiles([join(tmp, "codex-gone")]);
  expect(files.map((f) => f.path)).toEqual([earliest]);
  expect(skipped).toEqual([
    {
      file: later,
      reason: `${later}: Codex went on in this file after bc compacted the thread live (it holds bc's own cuts); the thread is replayed from its earliest file here, codex-gone/sessions/2026/11/30/rollout-2026-11-30T05-00-00-${thread}_019e0000-0000-7000-8000-0000000000a1.jsonl`,
    },
  ]);
});
