// bc eval's worker processes: the files of a run replayed by several processes of this same bc
// (`bc eval-worker`) at once, one file each at a time, the largest first. A worker is sent the
// run's ReplayConfig, then one file per line, and answers each with its FileOutcome on a line.
// The outcomes come back in file order whatever order they were made in, so the report is the
// one a single process makes. A worker that fails or ends early costs nothing: the files it did
// not answer are replayed in this process, and onWarn says so.
//
// Memory: replaying a session takes about a hundred times its file's size at its peak (a 4 MB
// Codex rollout ~0.5 GB), so the files replayed at once are held to a total size (inFlightBytes):
// a worker waits, or takes a smaller file, rather than start a large one beside others. One file
// is always let through, however large: one process alone would replay it too.
import { statSync } from "node:fs";
import { freemem } from "node:os";
import type { Subprocess } from "bun";
import { BcError } from "../util/errors.ts";
import { linesOf } from "../util/lines.ts";
import type { CorpusFile } from "./corpus.ts";
import { type FileOutcome, type ReplayConfig, replayFile } from "./file-replay.ts";
import { rulesCompactorWith } from "./methods/engine.ts";

export interface Workers {
  /** how many processes at once */
  readonly count: number;
  /** the command that runs this bc (util/self-command.ts); the pool adds `eval-worker` */
  readonly command: readonly string[];
  /** at most this many bytes of files replayed at once (default: defaultInFlightBytes()) */
  readonly inFlightBytes?: number;
}

/** How much a replay's peak memory is, at most, of its file's size (measured: ~45-100 times). */
const MEMORY_PER_FILE_BYTE = 200;

/** The files' bytes replayed at once that the free memory allows for: at least 64 MB. */
export const defaultInFlightBytes = (free = freemem()): number => Math.max(64 * 2 ** 20, Math.floor(free / MEMORY_PER_FILE_BYTE));

/**
 * The place in `queue` (file indexes, largest first) of the next file to start: the first not
 * taken whose size fits beside what is in flight; any first one when nothing is; -1: none fits now.
 */
export const nextJob = (queue: readonly number[], sizes: readonly number[], taken: readonly boolean[], inFlight: number, limit: number): number => {
  for (let q = 0; q < queue.length; q++) if (!taken[q] && (inFlight === 0 || inFlight + sizes[queue[q]!]! <= limit)) return q;
  return -1;
};

export const WORKER_COMMAND = "eval-worker";

/** The files a worker is sent: path and name only. */
export interface WorkerJob {
  readonly path: string;
  readonly name: string;
}

const sizeOf = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** What stops an eval that was asked to stop: no report is written. */
export const interruptedAfter = (done: number, total: number): BcError =>
  new BcError("interrupted", `interrupted after ${done} of ${total} files; no report written`);

/** The first line of what a process wrote to stderr, for a warning. */
const firstLine = (text: string): string => text.trim().split("\n")[0]?.slice(0, 200) ?? "";

export const replayInWorkers = async (
  files: readonly CorpusFile[],
  config: ReplayConfig,
  workers: Workers,
  hooks: {
    readonly onDone?: (done: number, total: number, name: string) => void;
    readonly onWarn?: (message: string) => void;
    readonly shouldStop?: () => boolean;
  } = {},
): Promise<FileOutcome[]> => {
  const outcomes: (FileOutcome | undefined)[] = new Array(files.length);
  const sizes = files.map((f) => sizeOf(f.path));
  // the largest first: the long replays start early, the short ones fill in at the end
  const queue = files.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
  const taken = queue.map(() => false);
  let left = queue.length;
  let inFlight = 0;
  const limit = workers.inFlightBytes ?? defaultInFlightBytes();
  /** resolved whenever a file is done: a worker waiting for room looks again */
  let roomMade: () => void = () => {};
  let room = new Promise<void>((r) => {
    roomMade = r;
  });
  const release = (bytes: number): void => {
    inFlight -= bytes;
    roomMade();
    room = new Promise<void>((r) => {
      roomMade = r;
    });
  };
  let done = 0;
  const stopped = (): boolean => hooks.shouldStop?.() === true;
  const finish = (i: number, o: FileOutcome): void => {
    outcomes[i] = o;
    done++;
    hooks.onDone?.(done, files.length, files[i]!.name);
  };
  const live = new Set<Subprocess>();

  const work = async (): Promise<void> => {
    const proc = Bun.spawn([...workers.command, WORKER_COMMAND], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    live.add(proc);
    const stderr = new Response(proc.stderr).text();
    const answers = linesOf(proc.stdout);
    let ended = false;
    try {
      proc.stdin.write(`${JSON.stringify(config)}\n`);
      while (!stopped() && left > 0) {
        const q = nextJob(queue, sizes, taken, inFlight, limit);
        if (q === -1) {
          await room;
          continue;
        }
        taken[q] = true;
        left--;
        const i = queue[q]!;
        inFlight += sizes[i]!;
        try {
          const job: WorkerJob = { path: files[i]!.path, name: files[i]!.name };
          proc.stdin.write(`${JSON.stringify(job)}\n`);
          await proc.stdin.flush();
          const answer = await answers.next();
          if (answer.done === true) {
            // this file is left to the process itself, below
            ended = true;
            break;
          }
          finish(i, JSON.parse(answer.value) as FileOutcome);
        } finally {
          release(sizes[i]!);
        }
      }
    } catch {
      // a garbled answer (or a pipe closed under the write): nothing more is read from this
      // worker, so it must not be left waiting to write into a full pipe
      ended = true;
      proc.kill();
    } finally {
      try {
        proc.stdin.end();
      } catch {
        // already closed: the process has ended
      }
    }
    const code = await proc.exited;
    live.delete(proc);
    if ((ended || code !== 0) && !stopped()) {
      const why = firstLine(await stderr);
      hooks.onWarn?.(`a worker process ended early (exit ${code}${why === "" ? "" : `: ${why}`}); the sessions it left are replayed in this process`);
    }
  };

  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(workers.count, files.length)) }, work));
  } finally {
    for (const p of live) p.kill();
  }
  if (stopped()) throw interruptedAfter(done, files.length);
  // what no worker answered
  const compact = rulesCompactorWith(config.needModels);
  for (let i = 0; i < files.length; i++) {
    if (outcomes[i] !== undefined) continue;
    if (stopped()) throw interruptedAfter(done, files.length);
    finish(i, replayFile(files[i]!, config, compact));
  }
  return outcomes as FileOutcome[];
};
