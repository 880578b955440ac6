// Tiny hand-made sessions for the eval tests: a few lines per message, answers computable by hand.
import type { Host, Message, Session } from "../../src/engine/types.ts";
import { rulesCompactor } from "../../src/eval/methods/engine.ts";
import { type Removals, RULES_ID, replaySession, type SessionReplay } from "../../src/eval/replay.ts";
import { renderMarkdown } from "../../src/eval/report/markdown.ts";
import type { EvalReport } from "../../src/eval/run.ts";
import { addTally, type Tally, ZERO_TALLY } from "../../src/eval/score.ts";
import type { HostSummary } from "../../src/eval/summary.ts";

export const prompt = (text: string): Message => ({ role: "user", kind: "prompt", text, toolCalls: [], toolResults: [] });

export const reply = (text: string): Message => ({ role: "assistant", kind: "reply", text, toolCalls: [], toolResults: [] });

export const call = (id: string, name: string, input: Record<string, unknown>, text = ""): Message => ({
  role: "assistant",
  kind: "reply",
  text,
  toolCalls: [{ id, name, input, inputText: JSON.stringify(input) }],
  toolResults: [],
});

export const result = (id: string, text: string, opts: { isError?: boolean; images?: number } = {}): Message => ({
  role: "user",
  kind: "tool",
  text: "",
  toolCalls: [],
  toolResults: [{ callId: id, text, isError: opts.isError ?? false, images: opts.images ?? 0 }],
});

/** a call and its result */
export const pair = (id: string, name: string, input: Record<string, unknown>, text: string, opts: { isError?: boolean } = {}): Message[] => [
  call(id, name, input),
  result(id, text, opts),
];

export const session = (messages: readonly Message[], id = "s1", host: "claude" | "codex" = "claude"): Session => ({
  host,
  id,
  messages,
});

/** n filler replies (no tokens) to move results out of the pinned tail */
export const filler = (n: number): Message[] => Array.from({ length: n }, () => reply("ok"));

/** a text of exactly `tokens` estimated tokens whose first line names `name` */
export const sized = (name: string, tokens: number): string => `${name}\n`.padEnd(tokens * 4, "x");

/** A session replayed with bc's rules at two cuts, light and at 95% of the window. */
export const replayedAtTwoCuts = (messages: readonly Message[], host: Host): SessionReplay =>
  replaySession(
    { host, id: "s1", file: "s1.jsonl", timeline: session(messages, "s1", host), compactions: [] },
    { cuts: [0.5, 0.9], methods: ["rules"], passes: [], compact: rulesCompactor, pressure: 0.95 },
  );

/** A method's tally over a replay's cuts in one mode (bc's by default). */
export const totalOf = (r: SessionReplay, mode: "light" | "pressure", method = RULES_ID): Tally =>
  r.cuts.reduce((t, c) => {
    const here = mode === "light" ? c.methods[method] : c.pressure?.methods[method];
    return here === undefined ? t : addTally(t, here);
  }, ZERO_TALLY);

/**
 * `n` tool outputs (`output(i)`: the i-th call and its result, and the name its output holds),
 * every fifth named by a reply right after it, a new task every ten; then the pinned tail, and
 * `later`'s replies, past both cuts of replayedAtTwoCuts.
 */
export const outputsUsedLater = (n: number, output: (i: number) => { messages: Message[]; name: string }, later: readonly string[]): Message[] => [
  prompt("start"),
  ...Array.from({ length: n }, (_, i) => {
    const { messages, name } = output(i);
    return [...messages, ...(i % 5 === 0 ? [reply(`looked at ${name}`)] : []), ...(i % 10 === 9 ? [prompt(`next task ${i}`)] : [])];
  }).flat(),
  ...filler(6),
  ...later.map(reply),
  reply("done"),
];

/** A report of one host's summary (the parts given; no host compactions) over the sessions given, for the renderers. */
export const reportOf = (host: Partial<HostSummary> & Pick<HostSummary, "host">, sessions: readonly SessionReplay[]): EvalReport =>
  ({
    version: "0",
    yardstick: "v1",
    corpus: { kind: "files", fingerprint: "f", files: 1, sessions: 1, skipped: [], malformedLines: [], filteredOut: 0 },
    parameters: { cuts: [0.5, 0.9], passes: [], methods: [], ceilings: [], leftOut: [], pressure: null },
    hosts: [
      {
        sessions: sessions.length,
        methods: [],
        compactions: {
          compactions: 0,
          needed: 0,
          keptByHost: 0,
          keptByRules: 0,
          tokensBefore: 0,
          hostTokensAfter: 0,
          rulesTokensFreed: 0,
          hostFreedShareMean: 0,
          rulesFreedShareMean: 0,
        },
        passes: [],
        recall: { removed: 0, recalled: 0 },
        byRule: [],
        ...host,
      },
    ],
    sessions,
  }) as unknown as EvalReport;

/** What some tallies removed, summed; of a Tally, the same four counts: the two compare with toEqual. */
export const removalsOf = (rows: readonly Removals[] | Tally): Removals =>
  "cuts" in rows
    ? { removed: rows.removed, scorable: rows.scorable, lost: rows.lost, tokensFreed: rows.tokensFreed }
    : rows.reduce(
        (a, x) => ({ removed: a.removed + x.removed, scorable: a.scorable + x.scorable, lost: a.lost + x.lost, tokensFreed: a.tokensFreed + x.tokensFreed }),
        {
          removed: 0,
          scorable: 0,
          lost: 0,
          tokensFreed: 0,
        },
      );

/**
 * A Codex session replayed at two cuts, in a report whose host summary `summarize` gives, and its
 * report.md: the whole text, the section under `heading`, and that section's pressure part.
 */
export const codexSection = (messages: readonly Message[], summarize: (r: SessionReplay) => Partial<HostSummary>, heading: string) => {
  const r = replayedAtTwoCuts(messages, "codex");
  const report = reportOf({ host: "codex", ...summarize(r) }, [r]);
  const md = renderMarkdown(report);
  const section = md.slice(md.indexOf(heading));
  return { report, md, section, pressure: section.slice(section.indexOf("### Codex, under pressure")) };
};
