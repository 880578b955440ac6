// The shared folder beside the checkout (seeds, research, a corpus of real public sessions).
// Users clone the repo without it: every test that reads it must skip cleanly when it is absent.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export const REPO_DIR = join(import.meta.dir, "..", "..");
export const SHARED_DIR = process.env.BC_SHARED_DIR ?? join(REPO_DIR, "..", "shared");
export const CORPUS_DIR = join(SHARED_DIR, "corpus");

export const hasCorpus = (): boolean => existsSync(CORPUS_DIR);

/** The corpus folders the corpus tests read: ../shared/corpus, plus any listed in BC_EXTRA_CORPUS (separated by ":"). */
export const CORPUS_FOLDERS: readonly string[] = [CORPUS_DIR, ...(process.env.BC_EXTRA_CORPUS ?? "").split(":").filter((d) => d !== "")];

/** Corpus files of one host, sorted by name within each of `folders` (default: every corpus folder); [] when there are none. */
export const corpusFiles = (host: "claude" | "codex", folders: readonly string[] = CORPUS_FOLDERS): string[] =>
  folders.flatMap((folder) => {
    const dir = join(folder, host);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((f) => f.endsWith(".jsonl"))
      .sort()
      .map((f) => join(dir, f));
  });

/** The largest file of one host in ../shared/corpus (never the extra folders: benchmarks quote it), or undefined. */
export const largestCorpusFile = (host: "claude" | "codex"): string | undefined =>
  corpusFiles(host, [CORPUS_DIR]).sort((a, b) => statSync(b).size - statSync(a).size)[0];

/** A test over every corpus session reads tens of megabytes: more than bun's default 5 s on a busy machine. */
export const CORPUS_TIMEOUT_MS = 120_000;

export const SKIP_NOTE = `shared corpus not found at ${"../shared/corpus"}; corpus tests skipped`;

import type { SessionRow } from "../../src/hosts/claude/plugin.ts";
import { loadSessionFile } from "../../src/hosts/load.ts";
import type { LoadedSession } from "../../src/hosts/types.ts";

const loaded = new Map<string, LoadedSession>();

/**
 * A corpus file read into the session model once per test run (bun runs every test file in
 * one process): tests must not mutate what it returns.
 */
export const loadCorpusSession = (path: string): LoadedSession => {
  let s = loaded.get(path);
  if (s === undefined) {
    s = loadSessionFile(path);
    loaded.set(path, s);
  }
  return s;
};

/** The rows Claude Code would hand the compaction hook for a corpus transcript: one per non-meta user or assistant record, each with a handle. */
export const corpusRows = (path: string): SessionRow[] =>
  loadCorpusSession(path)
    .live.messages.filter((m) => m.kind !== "meta" && (m.role === "user" || m.role === "assistant"))
    .map((m, i) => ({
      role: m.role as "user" | "assistant",
      text: m.text,
      toolUses: m.toolCalls.map((c) => ({ tool_use_id: c.id, tool: c.name, input: c.input })),
      ...(m.toolResults.length > 0 ? { toolResults: m.toolResults.map((r) => ({ tool_use_id: r.callId, text: r.text, isError: r.isError })) } : {}),
      handle: `h${i}`,
    }));
