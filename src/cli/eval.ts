// `bc eval [files or folders…]`: replay sessions, cut them, and score what each method loses.
import { defineCommand } from "citty";
import { z } from "zod";
import { existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Host } from "../engine/types.ts";
import { replayableSessions } from "../hosts/load.ts";
import { collectFiles, homeName, sortFiles, type CorpusFile, type Skipped } from "../eval/corpus.ts";
import { DEFAULT_CUTS } from "../eval/cut.ts";
import { DEMO_FILES } from "../eval/demo/index.ts";
import type { NeedModels } from "../engine/need/model.ts";
import { SHIPPED_NEED_MODELS } from "../engine/need/weights.ts";
import { needWeightsPath } from "../hosts/claude/install.ts";
import { weightsInUse } from "../hosts/need-weights.ts";
import { DEFAULT_PASSES } from "../eval/passes.ts";
import { BUDGET_PERCENT, DEFAULT_PRESSURE } from "../eval/pressure.ts";
import { terminalSummary } from "../eval/report/terminal.ts";
import { defaultOutDir, writeReport } from "../eval/report/write.ts";
import { warnSkipped } from "./sessions.ts";
import { METHOD_IDS } from "../eval/replay.ts";
import { needWeightsRecord, runEval, unscoredCuts, type EvalReport, type NeedWeightsRecord } from "../eval/run.ts";
import { unwritableDir } from "../util/dirs.ts";
import { BcError } from "../util/errors.ts";
import { selfCommand } from "../util/self-command.ts";
import { isStream } from "../util/jsonl.ts";
import { log, out, warnList } from "../util/log.ts";
import { JSON_ARG, parseFlags, pathFlag } from "./args.ts";

const HOSTS: readonly Host[] = ["claude", "codex"];

export const parseCuts = (value: string, flag = "--cuts"): number[] => {
  const parts = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const cuts = parts.map(Number);
  if (parts.length === 0 || cuts.some((c) => !Number.isFinite(c) || c <= 0 || c >= 1))
    throw new BcError("usage", `${flag} ${value}: expected shares between 0 and 1, separated by commas`, `for example ${flag} ${DEFAULT_CUTS.join(",")}`);
  return [...new Set(cuts)].sort((a, b) => a - b);
};

export const parseMethods = (value: string): string[] => {
  if (value.trim() === "all") return [...METHOD_IDS];
  const ids = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const unknown = ids.filter((id) => !METHOD_IDS.includes(id));
  if (ids.length === 0 || unknown.length > 0)
    throw new BcError("usage", `--methods: unknown method ${unknown.join(", ") || "(none given)"}`, `choose from: ${METHOD_IDS.join(", ")} (or all)`);
  return METHOD_IDS.filter((id) => ids.includes(id));
};

/**
 * `--pressure P`: the history's share of the window, or `off` for the light mode alone. P must be
 * above the budget's share (at or below it, the history already fits and there is nothing to
 * free) and at most 1. Given empty (`--pressure=`), it is an error, not the default.
 */
export const parsePressure = (value: unknown): number | undefined => {
  if (value === undefined) return DEFAULT_PRESSURE;
  const v = String(value).trim();
  if (v === "off" || v === "none") return undefined;
  const budget = BUDGET_PERCENT / 100;
  const n = Number(v);
  if (v === "" || !Number.isFinite(n) || n <= budget || n > 1)
    throw new BcError(
      "usage",
      `--pressure ${v === "" ? "(empty)" : v}: expected the history's share of the window, above the budget's ${budget} (${BUDGET_PERCENT}% of the window) and at most 1, or off`,
      `for example --pressure ${DEFAULT_PRESSURE}`,
    );
  return n;
};

/** At most this many worker processes however many cores: past that, reading the files is what waits. */
export const MAX_JOBS = 8;

/** How many processes replay at once: --jobs N (1: this one alone), by default one per core, at most MAX_JOBS. */
export const parseJobs = (v: string | undefined, cores = availableParallelism()): number => {
  if (v === undefined) return Math.max(1, Math.min(MAX_JOBS, cores));
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isInteger(n) || n < 1 || n > 64)
    throw new BcError(
      "usage",
      `--jobs ${v}: expected how many processes replay at once, a whole number from 1 to 64`,
      "for example --jobs 4, or --jobs 1 for this process alone",
    );
  return n;
};

/**
 * The report folder, checked before any replay (a file tried there), so a bad --out fails at once.
 * It leaves nothing behind: the folder is made when the report is written, so a run that fails
 * leaves no folder of its own.
 */
export const checkOutDir = (dir: string): void => {
  const problem = unwritableDir(dir);
  if (problem === undefined) return;
  if (problem.at === dir && problem.code === "ENOTDIR") throw new BcError("bad-input", `${dir}: exists and is not a folder`, "pass --out with a folder path");
  throw new BcError("bad-input", `${dir}: cannot write the report there (${problem.code})`, "pass --out with a folder you can write to");
};

/** The flags, read through one schema; the shares and method lists are then read by the parsers above, which say what a good value looks like. */
const FLAGS = z.object({
  demo: z.boolean().default(false),
  host: z.enum(HOSTS as [Host, ...Host[]], { error: "must be claude or codex" }).optional(),
  cuts: z.string().optional(),
  methods: z.string().optional(),
  pressure: z.string().optional(),
  split: z.boolean().default(false),
  "need-weights": z.string().min(1, "needs shipped or a file").optional(),
  out: pathFlag().optional(),
  json: z.boolean().default(false),
  jobs: z.string().optional(),
});

/**
 * The need weights bc's rows rank by, as the product would: `shipped`, a weights file, or (no
 * flag) the weights bc plan and the plugin use (yours when `bc calibrate --write` made them).
 */
export const evalNeedWeights = (flag: string | undefined): { models?: NeedModels; record: NeedWeightsRecord } => {
  const shipped = { record: needWeightsRecord("shipped", SHIPPED_NEED_MODELS) };
  if (flag === "shipped") return shipped;
  if (flag === undefined) {
    const w = weightsInUse(needWeightsPath());
    if (w.problem !== undefined) log.warn(`need weights ${w.problem}; using the shipped ones`);
    return w.kind === "user" ? { models: w.models, record: needWeightsRecord("yours", w.models) } : shipped;
  }
  const hint = "give shipped, or a weights file bc calibrate --write made";
  if (!existsSync(flag)) throw new BcError("not-found", `--need-weights: no file ${flag}`, hint);
  // read and checked as the plugin and bc plan read the user's file; a named file that cannot be used is an error here
  const w = weightsInUse(flag);
  if (w.kind !== "user") throw new BcError("bad-input", `--need-weights ${w.problem ?? flag}`, hint);
  return { models: w.models, record: needWeightsRecord("file", w.models) };
};

/** The embedded examples, written to a temporary folder the caller removes. */
const demoCorpus = (): { files: CorpusFile[]; dir: string } => {
  const dir = mkdtempSync(join(tmpdir(), "bc-eval-demo-"));
  const files = Object.entries(DEMO_FILES).map(([name, text]) => {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return { path, name };
  });
  return { files: sortFiles(files), dir };
};

const BAR_WIDTH = 28;
const LABEL_WIDTH = 50;

/** The end of `s` that fits in `cells` terminal columns, whole characters only, "…" before it when cut. */
const tailIn = (s: string, cells: number): string => {
  if (Bun.stringWidth(s) <= cells) return s;
  if (cells < 2) return "";
  const chars = [...s];
  let out = "";
  let used = 1; // the "…"
  for (let i = chars.length - 1; i >= 0; i--) {
    const w = Bun.stringWidth(chars[i]!);
    if (used + w > cells) break;
    out = chars[i]! + out;
    used += w;
  }
  return `…${out}`;
};

/**
 * The progress bar's line, at most `columns - 1` terminal cells wide (a wide character, as in a
 * CJK file name, takes two): a line that wraps is redrawn below itself, not in place. The file's
 * name gives way first (down to 20 cells), then the bar, which goes when too short to read; with
 * no width known, the full bar and up to 50 cells of the name.
 */
export const progressLine = (done: number, total: number, name: string, columns?: number): string => {
  const room = columns !== undefined && columns > 1 ? columns - 1 : Number.POSITIVE_INFINITY;
  const count = `${done}/${total}`;
  const fit = Math.min(BAR_WIDTH, room - count.length - 4 - Math.min(Bun.stringWidth(name), LABEL_WIDTH, 20));
  const width = fit >= 8 ? fit : 0;
  const filled = Math.round((done / total) * width);
  const head = width > 0 ? `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${count}` : count;
  if (head.length >= room) return head.slice(0, room);
  return `${head} ${tailIn(name, Math.min(LABEL_WIDTH, room - head.length - 1))}`.trimEnd();
};

/** Progress on stderr once a run has taken a second: a bar redrawn in place on a terminal, a line every few seconds otherwise. */
const progress = (): { update: (done: number, total: number, name: string) => void; end: () => void } => {
  const tty = process.stderr.isTTY === true;
  const start = Date.now();
  let lastLine = 0;
  let drawn = false;
  return {
    update: (done, total, name) => {
      const now = Date.now();
      if (total < 2 || now - start < 1_000) return;
      if (tty) {
        // read at each redraw: the terminal may have been resized since
        process.stderr.write(`\r\x1b[2K${progressLine(done, total, name, process.stderr.columns)}`);
        drawn = true;
      } else if (done < total && now - lastLine >= 5_000) {
        process.stderr.write(`bc eval: ${done}/${total} files replayed, ${Math.round((now - start) / 1000)} s\n`);
        lastLine = now;
      }
    },
    end: () => {
      if (tty && drawn) process.stderr.write("\r\x1b[2K");
    },
  };
};

const summaryJson = (r: EvalReport, paths: readonly string[]): string =>
  JSON.stringify(
    {
      report: r.report,
      version: r.version,
      yardstick: r.yardstick,
      corpus: r.corpus,
      parameters: {
        cuts: (r.parameters as { cuts: number[] }).cuts,
        methods: (r.parameters as { methods: { id: string }[] }).methods.map((m) => m.id),
        pressure:
          (r.parameters as { pressure: { share: number; budgetShare: number } | null }).pressure === null
            ? null
            : {
                share: (r.parameters as { pressure: { share: number } }).pressure.share,
                budgetShare: (r.parameters as { pressure: { budgetShare: number } }).pressure.budgetShare,
              },
        split: (r.parameters as { split: boolean }).split,
        needWeights: (r.parameters as { needWeights: NeedWeightsRecord }).needWeights,
      },
      ...(r.split === undefined ? {} : { split: r.split }),
      hosts: r.hosts,
      out: paths,
    },
    null,
    2,
  );

export default defineCommand({
  meta: {
    name: "eval",
    description:
      "Replay sessions, cut each one, and score what every method (bc's rules, the published baselines) lost of what the assistant went on to use, alone and under pressure, beside hindsight ceilings. Writes report.md, report.json and report.html.",
  },
  args: {
    paths: {
      type: "positional",
      required: false,
      description: "Session files or folders of them (default: your sessions under ~/.claude/projects and $CODEX_HOME/sessions)",
    },
    demo: {
      type: "boolean",
      description: "Run on the built-in example corpus (small example sessions made by the bc project; used when none of yours are found)",
    },
    host: { type: "enum", options: [...HOSTS], description: "Only sessions of this host" },
    cuts: { type: "string", description: `Where to cut each session, as shares of its messages (default ${DEFAULT_CUTS.join(",")})` },
    methods: { type: "string", description: `Methods to compare, comma-separated (default all: ${METHOD_IDS.join(", ")})` },
    pressure: {
      type: "string",
      description: `Also score every method at this share of the window, compacted to the plugin's budget (default ${DEFAULT_PRESSURE}; off: light mode only)`,
    },
    split: { type: "boolean", description: "Report each path given as its own column block beside the total" },
    "need-weights": {
      type: "string",
      description: "The need weights bc ranks by: shipped, or a weights file (default: yours when bc calibrate --write made them, else shipped)",
    },
    out: { type: "string", description: "Folder for report.md, report.json and report.html (default ./bc-eval-<corpus>-<fingerprint>)" },
    jobs: {
      type: "string",
      description: `How many processes replay sessions at once (default: one per core, at most ${MAX_JOBS}; 1: this one alone). The report is the same either way.`,
    },
    json: { ...JSON_ARG, description: "Print the summary as JSON on stdout, for scripts" },
  },
  async run({ args: raw }) {
    const args = parseFlags(FLAGS, raw, "bc eval");
    const host = args.host;
    const cuts = args.cuts === undefined ? [...DEFAULT_CUTS] : parseCuts(args.cuts);
    const methods = args.methods === undefined ? [...METHOD_IDS] : parseMethods(args.methods);
    const pressure = parsePressure(args.pressure);
    const weights = evalNeedWeights(args["need-weights"]);
    const jobs = parseJobs(args.jobs);
    checkOutDir(args.out ?? ".");
    const positional = (raw._ as string[] | undefined) ?? [];

    let files: CorpusFile[];
    let skipped: Skipped[] = [];
    let groups: string[] | undefined;
    let kind: EvalReport["corpus"]["kind"];
    let tempDir: string | undefined;
    if (args.demo === true) {
      if (positional.length > 0) throw new BcError("usage", "--demo runs on the built-in examples: give either --demo or files, not both");
      kind = "demo";
    } else if (positional.length > 0) {
      ({ files, skipped, groups } = collectFiles(positional));
      if (files.length === 0)
        throw new BcError(
          "not-found",
          [...skipped.map((s) => s.reason), ...(skipped.length === positional.length ? [] : [`no session files (*.jsonl) in ${positional.join(", ")}`])].join(
            "; ",
          ),
          "pass Claude Code transcripts or Codex rollouts, or folders holding them",
        );
      kind = "files";
    } else {
      const found = replayableSessions(host === undefined ? {} : { host });
      if (found.length === 0) {
        log.info(
          "No sessions found under ~/.claude/projects or $CODEX_HOME/sessions: running on the built-in example corpus (small example sessions made by the bc project; see --demo).",
        );
        kind = "demo";
      } else {
        files = sortFiles(found.map((f) => ({ path: f.path, name: homeName(f.path) })));
        kind = "user";
      }
    }
    if (kind === "demo") {
      const demo = demoCorpus();
      files = demo.files;
      tempDir = demo.dir;
    }

    // Ctrl-C: finish the current session, write nothing, exit 130; a second Ctrl-C exits at once.
    const previous = process.listeners("SIGINT");
    let stop = false;
    const onInterrupt = (): void => {
      if (stop) process.exit(130);
      stop = true;
      process.stderr.write("\nbc eval: stopping (no report will be written); press Ctrl-C again to quit at once\n");
    };
    process.removeAllListeners("SIGINT");
    process.on("SIGINT", onInterrupt);
    const bar = progress();
    let report: EvalReport;
    try {
      report = await runEval({
        files: files!,
        skipped,
        kind,
        cuts,
        methods,
        passes: DEFAULT_PASSES,
        ...(host === undefined ? {} : { host }),
        ...(pressure === undefined ? {} : { pressure }),
        ...(args.split === true ? { split: true, ...(groups === undefined ? {} : { groups }) } : {}),
        ...(weights.models === undefined ? {} : { needModels: weights.models }),
        needWeights: weights.record,
        // a pipe (<(zstd -dc …)) is this process's alone: no other process can read it
        ...(jobs > 1 && !files!.some((f) => isStream(f.path)) ? { workers: { count: jobs, command: selfCommand() } } : {}),
        onProgress: bar.update,
        onWarn: (m) => {
          bar.end();
          log.warn(m);
        },
        shouldStop: () => stop,
      });
    } finally {
      bar.end();
      process.off("SIGINT", onInterrupt);
      for (const l of previous) process.on("SIGINT", l as () => void);
      if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
    }
    warnList(
      report.corpus.skipped.map((s) => `skipped ${s.reason}`),
      (rest) => `and ${rest.length} more files skipped: report.json lists every one (corpus.skipped)`,
    );
    // lines the readers skipped or found cut inside files that loaded: said as every command says them
    warnSkipped(report.corpus.malformedLines);
    const unscored = unscoredCuts(report.sessions, cuts);
    if (unscored.length > 0)
      warnList(
        [
          `no cut at ${unscored.join(" or ")} was scored: no session had a result a method may remove before it and messages after it (a cut near 0 or 1 leaves none)`,
        ],
        () => "",
      );
    if (report.corpus.sessions === 0) {
      const why =
        report.corpus.filteredOut > 0 && report.corpus.filteredOut === files!.length
          ? `--host ${host} left out all ${report.corpus.filteredOut} files (none is a ${host === "claude" ? "Claude Code transcript" : "Codex rollout"})`
          : report.corpus.skipped.length > 0
            ? `every file was skipped (${report.corpus.skipped.length}, reasons above)`
            : "no file held a session to replay";
      throw new BcError("bad-input", `nothing to replay: ${why}; no report written`, "pass Claude Code transcripts or Codex rollouts, or folders holding them");
    }
    const paths = writeReport(String(args.out ?? defaultOutDir(report)), report);
    out(args.json === true ? summaryJson(report, paths) : terminalSummary(report, paths));
    return 0;
  },
});
