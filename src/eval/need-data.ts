// Labelled need samples by replay: cut a session, let the engine describe every result of the
// part before the cut (its features see nothing after the cut), and label each result by the
// yardstick: 1 when the session used one of its tokens after the cut (a miss, had it been removed).
import { needTable } from "../engine/need/table.ts";
import type { Session } from "../engine/types.ts";
import { CopyFinder, copyReason } from "./copies.ts";
import { collectFiles, fingerprint as corpusFingerprint, notASession } from "./corpus.ts";
import { cutContext } from "./cut.ts";
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
  for (const share of cuts) {
    const ctx = cutContext(index, share);
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
  readonly samples: NeedSample[];
  /** the corpus fingerprint (corpus.ts) over the files read, as bc eval's report gives it: the same sessions, the same fingerprint */
  readonly fingerprint: string;
  readonly files: number;
  /** files that could not be read as sessions, with why */
  readonly skipped: readonly string[];
  /** the sessions the samples come from, each with its group */
  readonly sessions: readonly { readonly path: string; readonly group: string }[];
}

/**
 * Samples of every session under the given files or folders. A session's group is the hash of
 * its content, so folds do not depend on where the files were found.
 */
export const collectNeedSamples = (paths: readonly string[], progress: (msg: string) => void, cuts: readonly number[] = FIT_CUTS): CollectedSamples => {
  const { files, skipped: missing } = collectFiles(paths);
  const samples: NeedSample[] = [];
  const hashes: string[] = [];
  const skipped = missing.map((s) => s.reason);
  const sessions: { path: string; group: string }[] = [];
  const copies = new CopyFinder();
  files.forEach((f, k) => {
    if (k % 10 === 0) progress(`${k} of ${files.length} files`);
    const file = readSessionFile(f);
    if (file.kind === "unreadable" || file.kind === "filtered") {
      if (file.kind === "unreadable") skipped.push(file.reason);
      return;
    }
    hashes.push(file.hash);
    if (file.kind === "not-a-session") {
      skipped.push(file.reason);
      return;
    }
    const copy = copies.copyOf(f.name, file.session.timeline);
    if (copy !== undefined) {
      skipped.push(copyReason(f.name, copy));
      return;
    }
    try {
      samples.push(...needSamples(file.hash, file.session.timeline, cuts));
      sessions.push({ path: f.path, group: file.hash });
    } catch (e) {
      // a session that cannot be replayed is named and left out; the fit goes on
      skipped.push(notASession(f, e));
    }
  });
  // as bc eval's report names the corpus: over every file read
  const fingerprint = corpusFingerprint(hashes);
  return { samples, fingerprint, files: hashes.length, skipped, sessions };
};
