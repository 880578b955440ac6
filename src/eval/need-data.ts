// Labelled need samples by replay: cut a session, let the engine describe every result of the
// part before the cut (its features see nothing after the cut), and label each result by the
// yardstick: 1 when the session used one of its tokens after the cut (a miss, had it been removed).
import { needTable } from "../engine/need/table.ts";
import type { Session } from "../engine/types.ts";
import { copiesByContent, copyKeys, copyReason } from "./copies.ts";
import { collectFiles, fingerprint as corpusFingerprint, notASession } from "./corpus.ts";
import { sessionCuts } from "./cut.ts";
import { neededTokens } from "./score.ts";
import { indexSession } from "./session-index.ts";
import { readSessionFile } from "./session-file.ts";

/** Cut points for fitting: more of them than the eval's, for more (correlated) samples per session. */
export const FIT_CUTS: readonly number[] = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

export interface NeedSample {
  /** the session (file name): grouped splits keep a session on one side */
  readonly group: string;
  readonly cut: number;
  readonly ordinal: number;
  readonly tool: string;
  readonly chars: number;
  readonly x: Float64Array;
  readonly y: 0 | 1;
}

/** The labelled samples of one session at each cut: eligible results only (what the escalation may cut). */
export const needSamples = (group: string, timeline: Session, cuts: readonly number[] = FIT_CUTS): NeedSample[] => {
  const index = indexSession(timeline);
  const out: NeedSample[] = [];
  for (const ctx of sessionCuts(index, cuts)) {
    const share = ctx.share;
    if (ctx.results.length === 0) continue;
    const rows = needTable(ctx.prefix);
    const window = { from: 0, at: ctx.at, until: timeline.messages.length };
    for (const row of rows) {
      if (!row.eligible || ctx.pinned.has(row.ordinal)) continue;
      const r = ctx.results[row.ordinal]!;
      const used = neededTokens(index, r, r.tokens, window, ctx.results.length).length > 0;
      out.push({ group, cut: share, ordinal: row.ordinal, tool: r.tool, chars: r.text.length, x: row.x, y: used ? 1 : 0 });
    }
  }
  return out;
};

export interface CollectedSamples {
  /** by session (its content hash), each session's in its own order: names and paths do not change the fit */
  readonly samples: NeedSample[];
  /** the corpus fingerprint (corpus.ts) over the files read, as bc eval's report gives it: the same sessions, the same fingerprint */
  readonly fingerprint: string;
  readonly files: number;
  /** files that could not be read as sessions, and copies of sessions read, with why (in file order) */
  readonly skipped: readonly string[];
  /** `file:line: why` for each line the readers skipped inside files that loaded */
  readonly malformed: readonly string[];
  /** the sessions read and replayed (copies left out), each with its group, by group */
  readonly sessions: readonly { readonly path: string; readonly group: string }[];
}

/** A session read, before the copies among them are known. */
interface Candidate {
  readonly slot: number;
  readonly name: string;
  readonly path: string;
  readonly hash: string;
  readonly keys: readonly string[];
  readonly messages: number;
  /** undefined: the replay failed (why in `failed`) */
  readonly samples?: NeedSample[];
  readonly failed?: string;
}

/**
 * Samples of every session under the given files or folders. A session's group is the hash of
 * its content, so folds do not depend on where the files were found.
 */
export const collectNeedSamples = (paths: readonly string[], progress: (msg: string) => void, cuts: readonly number[] = FIT_CUTS): CollectedSamples => {
  const { files, skipped: missing } = collectFiles(paths);
  const hashes: string[] = [];
  const notes: { slot: number; reason: string }[] = [];
  const malformed: string[] = [];
  const candidates: Candidate[] = [];
  files.forEach((f, slot) => {
    if (slot % 10 === 0) progress(`${slot} of ${files.length} files`);
    const file = readSessionFile(f);
    if (file.kind === "unreadable" || file.kind === "filtered") {
      if (file.kind === "unreadable") notes.push({ slot, reason: file.reason });
      return;
    }
    hashes.push(file.hash);
    if (file.kind === "not-a-session") {
      notes.push({ slot, reason: file.reason });
      return;
    }
    for (const m of file.session.malformed) malformed.push(m.split(f.path).join(f.name));
    const timeline = file.session.timeline;
    const seen = { slot, name: f.name, path: f.path, hash: file.hash, keys: copyKeys(timeline), messages: timeline.messages.length };
    try {
      candidates.push({ ...seen, samples: needSamples(file.hash, timeline, cuts) });
    } catch (e) {
      // a session that cannot be replayed is named and left out; the fit goes on
      candidates.push({ ...seen, failed: notASession(f, e) });
    }
  });
  if (files.length > 0) progress(`${files.length} of ${files.length} files`);
  // copies decided by content alone, whatever the names and the order read (as bc eval decides them)
  const copies = copiesByContent(candidates);
  const kept: Candidate[] = [];
  for (const c of candidates) {
    const of = copies.get(c);
    if (of !== undefined) notes.push({ slot: c.slot, reason: copyReason(c.name, of) });
    else if (c.failed !== undefined) notes.push({ slot: c.slot, reason: c.failed });
    else kept.push(c);
  }
  kept.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  return {
    samples: kept.flatMap((c) => c.samples ?? []),
    // as bc eval's report names the corpus: over every file read
    fingerprint: corpusFingerprint(hashes),
    files: hashes.length,
    skipped: [...missing.map((s) => s.reason), ...notes.sort((a, b) => a.slot - b.slot).map((n) => n.reason)],
    malformed,
    sessions: kept.map((c) => ({ path: c.path, group: c.hash })),
  };
};
