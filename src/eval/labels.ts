// What the session used after each cut, result by result: the yardstick's verdict that every
// method and ceiling is scored against, also callable from a script to label results.
import { loadSessionFile } from "../hosts/load.ts";
import type { Host, Session } from "../engine/types.ts";
import { DEFAULT_CUTS, type CutContext, sessionCuts } from "./cut.ts";
import { neededTokens } from "./score.ts";
import { indexSession } from "./session-index.ts";

/**
 * The counted tokens of each result before the cut that the session uses after it, by ordinal
 * ([] for a result nothing after the cut uses). Counted: yardstick v1 tokens of the result, not
 * known before it (earlier prose or call inputs), held by at most GENERIC_TOKEN_RESULTS results
 * before the cut, and written in an assistant reply or a tool input at or after the cut.
 */
export const usedAfterCut = (ctx: CutContext): (readonly string[])[] => {
  const window = { from: 0, at: ctx.at, until: ctx.index.session.messages.length };
  return ctx.results.map((r) => neededTokens(ctx.index, r, r.tokens, window, ctx.results.length));
};

/** One tool result before a cut, labelled by what the session did after the cut. */
export interface ResultLabel {
  /** position among all tool results of the session, in message order */
  readonly ordinal: number;
  readonly callId: string;
  /** index of the message holding the result (in the session's timeline) */
  readonly message: number;
  readonly tool: string;
  readonly chars: number;
  /** first message, last messages before the cut, or an error: no method may remove it */
  readonly pinned: boolean;
  /** used after the cut: removing it is a miss */
  readonly used: boolean;
  /** the counted tokens the session used after the cut (empty when not used) */
  readonly tokens: readonly string[];
}

export interface CutLabels {
  /** share of the timeline's messages before the cut */
  readonly share: number;
  /** the cut is before message `at` */
  readonly at: number;
  readonly results: readonly ResultLabel[];
}

/**
 * For each cut (shares of the messages, as `bc eval --cuts`), every tool result before the cut
 * with `used`: true when the session uses one of its counted tokens after the cut (a miss if
 * removed), and which tokens. Cuts at the first or past the last message are left out.
 */
export const labelCuts = (timeline: Session, cuts: readonly number[] = DEFAULT_CUTS): CutLabels[] => {
  const index = indexSession(timeline);
  const out: CutLabels[] = [];
  for (const ctx of sessionCuts(index, cuts)) {
    const share = ctx.share;
    const used = usedAfterCut(ctx);
    out.push({
      share,
      at: ctx.at,
      results: ctx.results.map((r) => ({
        ordinal: r.ordinal,
        callId: r.callId,
        message: r.message,
        tool: r.tool,
        chars: r.text.length,
        pinned: ctx.pinned.has(r.ordinal),
        used: used[r.ordinal]!.length > 0,
        tokens: used[r.ordinal]!,
      })),
    });
  }
  return out;
};

/**
 * `labelCuts` over a Claude Code transcript or Codex rollout on disk. From a script:
 * `bun -e 'import { labelFile } from "./src/eval/labels.ts"; console.log(JSON.stringify(labelFile(process.argv[1])))' <file>`
 */
export const labelFile = (path: string, cuts: readonly number[] = DEFAULT_CUTS): { host: Host; id: string; cuts: CutLabels[] } => {
  const loaded = loadSessionFile(path);
  return { host: loaded.host, id: loaded.id, cuts: labelCuts(loaded.timeline, cuts) };
};
