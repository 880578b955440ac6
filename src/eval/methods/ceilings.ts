// Hindsight ceilings for the light mode: what a perfect lookup of the session's future could
// free at zero misses. They read the yardstick's labels (labels.ts), which no method may see,
// and are reported as ceilings, never as methods.
import { estimateTextTokens } from "../../engine/estimate.ts";
import type { ResultInfo } from "../session-index.ts";
import { extractTokens } from "../yardstick/v1.ts";
import { REMOVAL_NOTE } from "./baselines.ts";
import type { BudgetInput } from "./budget.ts";
import type { Rewrites } from "./method.ts";

export interface Ceiling {
  readonly id: string;
  readonly summary: string;
  readonly run: (input: Pick<BudgetInput, "results" | "pinned" | "used">) => Rewrites;
}

/**
 * The head of `r` that ends with the line holding its last used token (the latest first
 * occurrence of any of `tokens`), or undefined when that is the whole text or the head would
 * not show every one of `tokens` to the yardstick.
 */
export const headThroughLastUsed = (r: Pick<ResultInfo, "text">, tokens: readonly string[]): string | undefined => {
  let end = 0;
  for (const t of tokens) {
    const at = r.text.indexOf(t);
    if (at < 0) return undefined;
    end = Math.max(end, at + t.length);
  }
  const lineEnd = r.text.indexOf("\n", Math.max(0, end - 1));
  if (lineEnd < 0) return undefined;
  const head = r.text.slice(0, lineEnd);
  const shown = new Set(extractTokens(head));
  return tokens.every((t) => shown.has(t)) ? head : undefined;
};

/** Every unpinned result never used after the cut whose removal note is shorter than it (a shorter one would free nothing). */
const dropNeverUsed = (input: Pick<BudgetInput, "results" | "pinned" | "used">): Map<number, string> => {
  const out = new Map<number, string>();
  for (const r of input.results) {
    if (input.pinned.has(r.ordinal) || (input.used[r.ordinal]?.length ?? 0) > 0) continue;
    const note = REMOVAL_NOTE(r.text.length);
    if (estimateTextTokens(note) < r.estTokens) out.set(r.ordinal, note);
  }
  return out;
};

export const ORACLE: Ceiling = {
  id: "oracle",
  summary:
    "hindsight ceiling: drop every unpinned result none of whose counted tokens the session uses after the cut, where the removal note is shorter than it (the most a perfect lookup frees at zero misses)",
  run: dropNeverUsed,
};

export const ORACLE_HEAD: Ceiling = {
  id: "oracle-head",
  summary: "hindsight ceiling: as oracle, and cut each used result after the line holding its last used token",
  run: (input) => {
    const out = dropNeverUsed(input);
    for (const r of input.results) {
      const used = input.used[r.ordinal] ?? [];
      if (input.pinned.has(r.ordinal) || used.length === 0) continue;
      const head = headThroughLastUsed(r, used);
      if (head !== undefined && estimateTextTokens(head) < r.estTokens) out.set(r.ordinal, head);
    }
    return out;
  },
};

export const LIGHT_CEILINGS: readonly Ceiling[] = [ORACLE, ORACLE_HEAD];
