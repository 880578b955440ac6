// At the compactions a host really ran: of the results the session needed afterwards (up to
// the next compaction), how many are still visible after the host's summary, and how many
// after the rules applied to the same history (timeline[from, at)).
import { estimateMessageTokens, estimateTextTokens } from "../engine/estimate.ts";
import type { HostCompaction } from "../hosts/types.ts";
import { compactAligned, rewritesFrom, type Compactor } from "./methods/rules.ts";
import { neededTokens } from "./score.ts";
import { resultsHolding, type IndexedSession } from "./session-index.ts";
import { extractTokens } from "./yardstick/v1.ts";

export interface CompactionScore {
  readonly from: number;
  readonly at: number;
  /** the continuation scored runs to this message (the next compaction, or the end) */
  readonly until: number;
  readonly trigger?: string;
  /** tool results in the compacted history */
  readonly results: number;
  /** of those, results one of whose tokens the continuation used */
  readonly needed: number;
  /** needed results whose used tokens are all still visible after the host's summary */
  readonly keptByHost: number;
  /** ... and after the rules */
  readonly keptByRules: number;
  /** estimated tokens of the compacted history, of what the host sent forward, and what the rules freed */
  readonly tokensBefore: number;
  readonly hostTokensAfter: number;
  readonly rulesTokensFreed: number;
}

export const scoreHostCompactions = (index: IndexedSession, compactions: readonly HostCompaction[], compact: Compactor): CompactionScore[] => {
  const msgs = index.session.messages;
  const sorted = [...compactions].sort((a, b) => a.at - b.at || a.from - b.from);
  return sorted.map((hc, i) => {
    const at = Math.min(Math.max(hc.at, 0), msgs.length);
    const from = Math.min(Math.max(hc.from, 0), at);
    const until = Math.max(at, Math.min(sorted[i + 1]?.at ?? msgs.length, msgs.length));
    const used = new Set<string>();
    for (let m = at; m < until; m++) for (const t of index.usedByMessage[m]!) used.add(t);
    const lo = index.resultCountBefore[from]!;
    const hi = index.resultCountBefore[at]!;
    const results = index.results.slice(lo, hi);
    const generic = (t: string): number => resultsHolding(index, t, hi) - resultsHolding(index, t, lo);

    const hostVisible = new Set<string>();
    let hostTokensAfter = 0;
    for (const m of hc.kept) {
      hostTokensAfter += estimateMessageTokens(m).all;
      for (const t of extractTokens(m.text)) hostVisible.add(t);
      for (const c of m.toolCalls) for (const t of extractTokens(c.inputText)) hostVisible.add(t);
      for (const r of m.toolResults) for (const t of extractTokens(r.text)) hostVisible.add(t);
    }

    const after = compactAligned(compact, { ...index.session, messages: msgs.slice(from, at) }).messages;
    const rewrites = rewritesFrom(results, after, from);
    const rulesVisible = new Set<string>();
    for (let m = from; m < at; m++) for (const t of index.knownByMessage[m]!) rulesVisible.add(t);
    let rulesTokensFreed = 0;
    for (const r of results) {
      const now = rewrites.get(r.ordinal);
      if (now === undefined) for (const t of r.tokens) rulesVisible.add(t);
      else {
        for (const t of extractTokens(now)) rulesVisible.add(t);
        rulesTokensFreed += r.estTokens - estimateTextTokens(now);
      }
    }

    let needed = 0;
    let keptByHost = 0;
    let keptByRules = 0;
    for (const r of results) {
      const tokens = neededTokens(index, r, r.tokens, { from, at, until, used }, hi, generic);
      if (tokens.length === 0) continue;
      needed++;
      if (tokens.every((t) => hostVisible.has(t))) keptByHost++;
      if (tokens.every((t) => rulesVisible.has(t))) keptByRules++;
    }
    return {
      from,
      at,
      until,
      ...(hc.trigger === undefined ? {} : { trigger: hc.trigger }),
      results: results.length,
      needed,
      keptByHost,
      keptByRules,
      tokensBefore: index.cumTokens[at]! - index.cumTokens[from]!,
      hostTokensAfter,
      rulesTokensFreed,
    };
  });
};
