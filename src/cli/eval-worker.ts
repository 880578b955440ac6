// `bc eval-worker`: one of bc eval's worker processes (eval/pool.ts). Reads the run's
// ReplayConfig as its first line on stdin, then one file per line; answers each file with its
// FileOutcome, one JSON line on stdout, in the order sent. Ends when stdin closes.
import { defineCommand } from "citty";
import type { CorpusFile } from "../eval/corpus.ts";
import { type ReplayConfig, replayFile } from "../eval/file-replay.ts";
import { rulesCompactorWith } from "../eval/methods/engine.ts";
import type { WorkerJob } from "../eval/pool.ts";
import { BcError } from "../util/errors.ts";
import { linesOf } from "../util/lines.ts";

export const serveReplays = async (input: ReadableStream<Uint8Array>, write: (line: string) => Promise<unknown>): Promise<void> => {
  let config: ReplayConfig | undefined;
  let compact: ReturnType<typeof rulesCompactorWith> | undefined;
  let n = 0;
  /** a line of stdin as JSON, or a one-line error naming it */
  const read = (line: string): unknown => {
    try {
      return JSON.parse(line);
    } catch (e) {
      throw new BcError("usage", `eval-worker: stdin line ${n} is not JSON (${(e as Error).message}); bc eval starts it and sends it what to do`);
    }
  };
  for await (const line of linesOf(input)) {
    n++;
    if (line === "") continue;
    if (config === undefined) {
      config = read(line) as ReplayConfig;
      compact = rulesCompactorWith(config.needModels);
      continue;
    }
    const job = read(line) as WorkerJob;
    const f: CorpusFile = { path: job.path, name: job.name };
    await write(`${JSON.stringify(replayFile(f, config, compact!))}\n`);
  }
  if (config === undefined) throw new BcError("usage", "eval-worker: nothing on stdin (bc eval starts it and sends it the files to replay)");
};

export default defineCommand({
  meta: {
    name: "eval-worker",
    description: "Run by bc eval, not by people: replays the session files it is sent on stdin",
    hidden: true,
  },
  args: {},
  async run() {
    await serveReplays(Bun.stdin.stream(), (line) => Bun.write(Bun.stdout, line));
    return 0;
  },
});
