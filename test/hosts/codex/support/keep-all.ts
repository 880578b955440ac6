// A pruner that keeps everything (the fork then only drops injected context, for `fresh`):
// the fork tests' way to see the fork's own work apart from the engine's.
import { estimateTokens } from "../../../../src/engine/estimate.ts";
import type { Pruner } from "../../../../src/hosts/codex/fork.ts";
import { isOutputItem } from "../../../../src/hosts/codex/items.ts";

export const keepAllPruner: Pruner = (history) => {
  let results = 0;
  let chars = 0;
  for (const h of history) {
    if (isOutputItem(h.item)) results++;
    chars += JSON.stringify(h.item).length;
  }
  const tokens = estimateTokens(chars);
  return { outputs: new Map(), results, resultsKept: results, resultsTruncated: 0, resultsDropped: 0, tokensBefore: tokens, tokensAfter: tokens, byRule: {} };
};
