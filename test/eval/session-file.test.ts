// A corpus file is read once: its bytes are hashed, and the same bytes are loaded as the session.
import { afterAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentHash } from "../../src/eval/corpus.ts";
import { readSessionFile } from "../../src/eval/session-file.ts";
import { detectHost, loadSessionFile } from "../../src/hosts/load.ts";
import { withBytes } from "../../src/util/jsonl.ts";

const DEMO = join(import.meta.dir, "..", "..", "src", "eval", "demo");
const CLAUDE = join(DEMO, "claude", "recorded-sum-fix.jsonl");
const CODEX = join(DEMO, "codex", "rollout-2025-06-02T14-00-00-0d3e0000-0000-7000-8000-00000000d0e3.jsonl");
const dir = mkdtempSync(join(tmpdir(), "bc-session-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("withBytes: the host is told and the session loaded from the bytes given, not from the file; after it, from the file again", () => {
  const path = join(dir, "a.jsonl");
  copyFileSync(CLAUDE, path);
  const codexBytes = readFileSync(CODEX);
  expect(withBytes(path, codexBytes, () => detectHost(path))).toBe("codex");
  expect(withBytes(path, codexBytes, () => loadSessionFile(path))).toEqual({ ...loadSessionFile(CODEX), path });
  expect(detectHost(path)).toBe("claude");
  expect(loadSessionFile(path)).toEqual({ ...loadSessionFile(CLAUDE), path });
});

test("readSessionFile: the hash is of the bytes loaded, and a host filter asks the same bytes", () => {
  const read = readSessionFile({ path: CODEX, name: "x.jsonl" });
  if (read.kind !== "session") throw new Error(read.kind);
  expect(read.hash).toBe(contentHash(readFileSync(CODEX)));
  expect(read.session).toEqual(loadSessionFile(CODEX));
  expect(readSessionFile({ path: CODEX, name: "x.jsonl" }, "claude").kind).toBe("filtered");
  expect(readSessionFile({ path: CODEX, name: "x.jsonl" }, "codex").kind).toBe("session");
});
