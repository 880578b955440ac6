// The eval over a corpus: load each file (a broken one is skipped with its reason), replay it
// (file-replay.ts; in worker processes, pool.ts), and assemble the report object. Everything in
// the report is sorted and free of clocks and machine paths, so the same corpus gives the same
// report byte for byte, however many processes replayed it.
import { CHARS_PER_TOKEN } from "../engine/estimate.ts";
import type { NeedModels } from "../engine/need/model.ts";
import { SHIPPED_NEED_MODELS } from "../engine/need/weights.ts";
import { DEFAULT_OPTIONS, type Host } from "../engine/types.ts";
import { copiesByContent, copyReason } from "./copies.ts";
import { VERSION } from "../version.ts";
import { contentHash, fingerprint, type CorpusFile, type Skipped } from "./corpus.ts";
import { type FileOutcome, type ReplayConfig, replayFile } from "./file-replay.ts";
import { rulesCompactorWith } from "./methods/engine.ts";
import { interruptedAfter, replayInWorkers, type Workers } from "./pool.ts";
import { PIN_LAST_MESSAGES } from "./cut.ts";
import { CLEAR_TOOL_USES, MICROCOMPACT, OBSERVATION_MASK, OPENCODE_PRUNE, SIZE_CAP } from "./methods/baselines.ts";
import type { Compactor } from "./methods/rules.ts";
import {
  CEILING_IDS,
  LIGHT_CEILING_IDS,
  METHOD_IDS,
  PRESSURE_IDS,
  ceilingSummaries,
  methodSummaries,
  pressureSummaries,
  type SessionReplay,
} from "./replay.ts";
import { BUDGET_PERCENT } from "./pressure.ts";
import { GENERIC_TOKEN_RESULTS } from "./score.ts";
import { summarizeHost, type HostSummary } from "./summary.ts";

export const REPORT_FORMAT = 2;
export const HOSTS: readonly Host[] = ["claude", "codex"];

export const LEFT_OUT = [
  {
    method: "a paid-model compaction plugin",
    why: "it scores each result with its vendor's paid model; replaying it needs that model and network calls, which a local, deterministic eval cannot make",
  },
] as const;

/** What a run is asked for: how each file is replayed (but the weights, which it names), and how it is reported. */
export interface EvalParameters extends Omit<ReplayConfig, "needModels"> {
  /** report each given path as its own block beside the total */
  readonly split?: boolean;
  /** --split: the blocks' names in the order the paths were given (default: as the files come) */
  readonly groups?: readonly string[];
  /** the need weights bc ranks by (undefined: the shipped ones) */
  readonly needWeights?: NeedWeightsRecord;
}

/** The need weights a run ranked by, as the report names them: by their contents, never a path. */
export interface NeedWeightsRecord {
  /** shipped: the binary's; yours: the file bc calibrate --write made; file: one --need-weights named */
  readonly kind: "shipped" | "yours" | "file";
  /** the need model's */
  readonly source: string;
  /** the escalation's, where it has a model of its own */
  readonly escalationSource?: string;
  /** the first 12 hex digits of sha256 over the weights as JSON ({ need, escalation }) */
  readonly fingerprint: string;
}

export const needWeightsRecord = (kind: NeedWeightsRecord["kind"], models: NeedModels): NeedWeightsRecord => ({
  kind,
  source: models.need.source,
  ...(models.escalation === models.need ? {} : { escalationSource: models.escalation.source }),
  fingerprint: contentHash(new TextEncoder().encode(JSON.stringify(models))).slice(0, 12),
});

/** One given path's share of the corpus, summarized alone (--split). */
export interface SplitBlock {
  readonly name: string;
  readonly fingerprint: string;
  readonly files: number;
  readonly sessions: number;
  readonly hosts: readonly HostSummary[];
}

export interface EvalReport {
  readonly report: "bc eval";
  readonly format: number;
  readonly version: string;
  readonly yardstick: "v1";
  readonly corpus: {
    readonly kind: "files" | "user" | "demo";
    readonly fingerprint: string;
    readonly files: number;
    readonly sessions: number;
    readonly skipped: readonly Skipped[];
    /** `file:line: why` for malformed lines the readers skipped inside files that loaded */
    readonly malformedLines: readonly string[];
    /** files left out by --host */
    readonly filteredOut: number;
  };
  readonly parameters: Record<string, unknown>;
  readonly hosts: readonly HostSummary[];
  /** --split: one block per given path, each summarized alone */
  readonly split?: readonly SplitBlock[];
  readonly sessions: readonly (SessionReplay & { readonly group?: string })[];
}

export interface RunEvalOptions extends EvalParameters {
  readonly files: readonly CorpusFile[];
  /** problems found before loading (missing paths) */
  readonly skipped?: readonly Skipped[];
  readonly kind: EvalReport["corpus"]["kind"];
  /** how the rules compact in light mode (default: bc's, ranking by needModels); not with workers */
  readonly compact?: Compactor;
  /** the need weights bc's rows rank by (undefined: the shipped ones); `compact` should rank by the same */
  readonly needModels?: NeedModels;
  /** replay the files in this many processes of this bc at once (pool.ts; default: in this process alone) */
  readonly workers?: Workers;
  readonly onProgress?: (done: number, total: number, name: string) => void;
  /** a worker process that failed (its files are replayed here instead) */
  readonly onWarn?: (message: string) => void;
  /** polled between sessions; true stops the run (BcError "interrupted") */
  readonly shouldStop?: () => boolean;
}

const yieldToEvents = (): Promise<void> => new Promise((r) => setImmediate(r));

/** The flags that repeat this run on the same files (the paths are the reader's own). */
export const repeatFlags = (p: EvalParameters): string =>
  [
    `--cuts ${p.cuts.join(",")}`,
    `--pressure ${p.pressure === undefined ? "off" : p.pressure}`,
    `--methods ${p.methods.length === METHOD_IDS.length ? "all" : p.methods.join(",")}`,
    ...(p.host === undefined ? [] : [`--host ${p.host}`]),
    ...(p.split === true ? ["--split"] : []),
    `--need-weights ${p.needWeights === undefined || p.needWeights.kind === "shipped" ? "shipped" : `<the weights file ${p.needWeights.fingerprint}>`}`,
  ].join(" ");

export const parameters = (p: EvalParameters): Record<string, unknown> => ({
  repeat: `bc eval <the same files> ${repeatFlags(p)}`,
  cuts: [...p.cuts],
  passes: [...p.passes],
  host: p.host ?? "all",
  needWeights: p.needWeights ?? needWeightsRecord("shipped", SHIPPED_NEED_MODELS),
  split: p.split === true,
  methods: methodSummaries().filter((m) => p.methods.includes(m.id)),
  ceilings: ceilingSummaries(),
  pressure:
    p.pressure === undefined
      ? null
      : {
          share: p.pressure,
          budgetShare: BUDGET_PERCENT / 100,
          window: "history tokens before the cut / share, rounded",
          budget: "budgetShare of the window, rounded down (the Claude Code plugin's default compactAtPercent)",
          trigger: "auto",
          methods: pressureSummaries(),
        },
  leftOut: LEFT_OUT,
  pins: { firstMessage: true, lastMessages: PIN_LAST_MESSAGES, errorResults: true, appliedToEveryMethod: true },
  genericTokenResults: GENERIC_TOKEN_RESULTS,
  charsPerToken: CHARS_PER_TOKEN,
  rules: DEFAULT_OPTIONS,
  baselines: {
    "clear-tool-uses": CLEAR_TOOL_USES,
    microcompact: MICROCOMPACT,
    "opencode-prune": OPENCODE_PRUNE,
    "observation-mask": OBSERVATION_MASK,
    "size-cap": SIZE_CAP,
    "largest-first": { budget: "the rules' tokens freed at the same cut" },
  },
  scoring: {
    used: "assistant reply text and tool-call inputs after the cut",
    known: "prose of any message and tool-call inputs at or before the result's message",
    lost: "a miss with at least one used token that appears nowhere in the compacted prefix (prose, call inputs, kept results, kept heads)",
    numberLike: "tokens made only of digits and . , : _ / - (years, versions, decimals, long numbers)",
  },
});

/**
 * The cuts at which nothing was scored in any session: before the cut no result a method may
 * remove (none yet, or every one pinned), or after it no message to judge a removal by. A cut
 * near 0 or 1 (`--cuts 0.001`) is such a cut in every session of ordinary length, and its rows
 * are all zeros; whether a cut is depends on the sessions, so it is said after the run.
 */
export const unscoredCuts = (sessions: readonly SessionReplay[], cuts: readonly number[]): number[] =>
  sessions.length === 0
    ? []
    : cuts.filter(
        (share) => !sessions.some((s) => s.cuts.some((c) => c.share === share && c.at < s.messages && Object.values(c.methods).some((t) => t.unpinned > 0))),
      );

export const runEval = async (opts: RunEvalOptions): Promise<EvalReport> => {
  const methods = METHOD_IDS.filter((m) => opts.methods.includes(m));
  const cuts = [...opts.cuts].sort((a, b) => a - b);
  const passes = [...opts.passes].sort((a, b) => a - b);
  const skipped: Skipped[] = [...(opts.skipped ?? [])];
  const malformedLines: string[] = [];
  const sessions: (SessionReplay & { group?: string })[] = [];
  const hashed: { name: string; group?: string; hash: string }[] = [];
  let filteredOut = 0;
  const config: ReplayConfig = {
    cuts,
    methods,
    passes,
    ...(opts.host === undefined ? {} : { host: opts.host }),
    ...(opts.pressure === undefined ? {} : { pressure: opts.pressure }),
    ...(opts.needModels === undefined ? {} : { needModels: opts.needModels }),
  };
  let outcomes: FileOutcome[];
  if (opts.workers !== undefined && opts.workers.count > 1 && opts.files.length > 1) {
    if (opts.compact !== undefined) throw new Error("runEval: worker processes rank with the need weights given, not with another compactor");
    outcomes = await replayInWorkers(opts.files, config, opts.workers, {
      ...(opts.onProgress === undefined ? {} : { onDone: opts.onProgress }),
      ...(opts.onWarn === undefined ? {} : { onWarn: opts.onWarn }),
      ...(opts.shouldStop === undefined ? {} : { shouldStop: opts.shouldStop }),
    });
  } else {
    const compact = opts.compact ?? rulesCompactorWith(opts.needModels);
    outcomes = [];
    for (const f of opts.files) {
      if (opts.shouldStop?.()) throw interruptedAfter(outcomes.length, opts.files.length);
      opts.onProgress?.(outcomes.length, opts.files.length, f.name);
      await yieldToEvents();
      outcomes.push(replayFile(f, config, compact));
    }
  }
  // which sessions are copies of others, by content alone (copies.ts keptFirst): renaming or
  // moving files changes no figure
  const read = opts.files.flatMap((f, k) => {
    const o = outcomes[k]!;
    return o.kind === "read" && o.loaded.kind === "session" ? [{ k, name: f.name, hash: o.hash, keys: o.loaded.copyKeys, messages: o.loaded.messages }] : [];
  });
  const copyOf = new Map([...copiesByContent(read)].map(([c, of]) => [c.k, of]));
  opts.files.forEach((f, k) => {
    const o = outcomes[k]!;
    if (o.kind === "unreadable") skipped.push({ file: f.name, reason: o.reason });
    if (o.kind === "filtered") filteredOut++;
    if (o.kind !== "read") return;
    hashed.push({ name: f.name, ...(f.group === undefined ? {} : { group: f.group }), hash: o.hash });
    malformedLines.push(...o.malformed);
    const l = o.loaded;
    if (l.kind === "not-a-session") skipped.push({ file: f.name, reason: l.reason });
    if (l.kind === "empty") skipped.push({ file: f.name, reason: `${f.name}: no messages to replay` });
    if (l.kind !== "session") return;
    const copy = copyOf.get(k);
    if (copy !== undefined) skipped.push({ file: f.name, reason: copyReason(f.name, copy) });
    else if (l.replay === undefined) skipped.push({ file: f.name, reason: l.failed ?? `${f.name}: not replayed` });
    else sessions.push(opts.split === true && f.group !== undefined ? { ...l.replay, group: f.group } : l.replay);
  });
  const done = opts.files.length;
  opts.onProgress?.(done, opts.files.length, "");
  sessions.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  hashed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  skipped.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const modes = {
    ceilings: LIGHT_CEILING_IDS,
    ...(opts.pressure === undefined ? {} : { pressure: PRESSURE_IDS }),
    isCeiling: (id: string) => CEILING_IDS.has(id),
  };
  const summarize = (ss: readonly SessionReplay[]): HostSummary[] =>
    HOSTS.filter((h) => ss.some((s) => s.host === h)).map((h) => summarizeHost(h, ss, methods, passes, modes));
  const hosts = summarize(sessions);
  const found = opts.files.map((f) => f.group).filter((g): g is string => g !== undefined);
  const groupNames = opts.split === true ? [...new Set([...(opts.groups ?? []).filter((g) => found.includes(g)), ...found])] : [];
  const split: SplitBlock[] = groupNames.map((name) => {
    const mine = sessions.filter((s) => s.group === name);
    const files = hashed.filter((h) => h.group === name);
    return { name, fingerprint: fingerprint(files.map((f) => f.hash)), files: files.length, sessions: mine.length, hosts: summarize(mine) };
  });
  return {
    report: "bc eval",
    format: REPORT_FORMAT,
    version: VERSION,
    yardstick: "v1",
    corpus: {
      kind: opts.kind,
      fingerprint: fingerprint(hashed.map((h) => h.hash)),
      files: hashed.length + skipped.filter((s) => !hashed.some((p) => p.name === s.file)).length,
      sessions: sessions.length,
      skipped,
      malformedLines: malformedLines.sort(),
      filteredOut,
    },
    parameters: parameters({
      cuts,
      passes,
      methods,
      ...(opts.host === undefined ? {} : { host: opts.host }),
      ...(opts.pressure === undefined ? {} : { pressure: opts.pressure }),
      ...(opts.split === true ? { split: true } : {}),
      ...(opts.needWeights === undefined ? {} : { needWeights: opts.needWeights }),
    }),
    hosts,
    ...(opts.split === true ? { split } : {}),
    sessions,
  };
};
