// One corpus file as bc eval takes it: read, hashed, loaded, replayed at each cut, and what bc
// recall gives back of what the rules removed. Its outcome is plain data, so it can be made in
// this process or in a worker process (pool.ts); runEval folds the outcomes in file order, so a
// run gives the same report however many processes made them.
import type { NeedModels } from "../engine/need/model.ts";
import type { Host, Message } from "../engine/types.ts";
import { copyKeys } from "./copies.ts";
import { type CorpusFile, notASession } from "./corpus.ts";
import { type Compactor, withRewrites } from "./methods/rules.ts";
import { checkRecall } from "./recall-check.ts";
import { type Recalled, replaySession, RULES_ID, type SessionReplay } from "./replay.ts";
import { readSessionFile } from "./session-file.ts";

/** What every file of a run is replayed with: plain data, as a worker process is sent it. */
export interface ReplayConfig {
  readonly cuts: readonly number[];
  readonly methods: readonly string[];
  readonly passes: readonly number[];
  readonly host?: Host;
  /** the pressure mode's share of the window (undefined: light mode only) */
  readonly pressure?: number;
  /** the need weights bc ranks by (undefined: the shipped ones) */
  readonly needModels?: NeedModels;
}

/** A session's replay with what recall gave back at its cuts. */
export type ReplayWithRecall = SessionReplay & { readonly recall: Recalled; readonly recallPressure?: Recalled };

/** What became of a file that was read and hashed. */
export type LoadedOutcome =
  /** not read as a session (the loader's one-line reason) */
  | { readonly kind: "not-a-session"; readonly reason: string }
  | { readonly kind: "empty" }
  | {
      readonly kind: "session";
      /** what tells a copy of another session (copies.ts), and its messages (which of two is kept) */
      readonly copyKeys: readonly string[];
      readonly messages: number;
      /** the replay, or why it failed */
      readonly replay?: ReplayWithRecall;
      readonly failed?: string;
    };

export type FileOutcome =
  | { readonly kind: "unreadable"; readonly reason: string }
  /** left out by --host */
  | { readonly kind: "filtered" }
  | { readonly kind: "read"; readonly hash: string; readonly malformed: readonly string[]; readonly loaded: LoadedOutcome };

/**
 * One file, replayed. Which sessions are copies of others is known only once every file is read
 * (copies.ts keptFirst): the run decides it then, and a copy's replay is thrown away there.
 */
export const replayFile = (f: CorpusFile, config: ReplayConfig, compact: Compactor): FileOutcome => {
  const file = readSessionFile(f, config.host);
  if (file.kind === "unreadable" || file.kind === "filtered") return file;
  const { hash } = file;
  const malformed: string[] = [];
  const read = (loaded: LoadedOutcome): FileOutcome => ({ kind: "read", hash, malformed, loaded });
  if (file.kind === "not-a-session") return read({ kind: "not-a-session", reason: file.reason });
  const { session } = file;
  for (const m of session.malformed) malformed.push(m.split(f.path).join(f.name));
  if (session.timeline.messages.length === 0) return read({ kind: "empty" });
  const keys = copyKeys(session.timeline);
  const messages = session.timeline.messages.length;
  try {
    // bc's answer at each cut, light and under pressure, for recall to give back what it removed
    const answers = { light: [] as Message[][], pressure: [] as Message[][] };
    const replay = replaySession(
      { host: session.host, id: session.id, file: f.name, timeline: session.timeline, compactions: session.compactions },
      {
        cuts: config.cuts,
        methods: config.methods,
        passes: config.passes,
        compact,
        ...(config.pressure === undefined ? {} : { pressure: config.pressure }),
        ...(config.needModels === undefined ? {} : { needModels: config.needModels }),
        onCompacted: (mode, prefix, results, rewrites) => answers[mode].push(withRewrites(prefix, results, rewrites)),
      },
    );
    // what the host keeps after bc's compaction at each cut: does recall give every removed result back?
    const recalledAt = (outs: readonly Message[][]): Recalled =>
      outs.reduce<Recalled>(
        (a, out) => {
          const r = checkRecall(session, [out]);
          return { removed: a.removed + r.removed, recalled: a.recalled + r.recalled };
        },
        { removed: 0, recalled: 0 },
      );
    const recall = config.methods.includes(RULES_ID) ? recalledAt(answers.light) : { removed: 0, recalled: 0 };
    const recallPressure = answers.pressure.length === 0 ? undefined : recalledAt(answers.pressure);
    return read({ kind: "session", copyKeys: keys, messages, replay: { ...replay, recall, ...(recallPressure === undefined ? {} : { recallPressure }) } });
  } catch (e) {
    // a file that cannot be replayed as a session is reported and skipped; the run goes on
    return read({ kind: "session", copyKeys: keys, messages, failed: notASession(f, e) });
  }
};
