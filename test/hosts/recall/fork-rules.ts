// What the recall tests compare: the rules `bc recall --list` names for a fork's removals, and
// the rules the fork's own plan counted, each as how many results it removed.
import type { ForkResult } from "../../../src/hosts/codex/fork.ts";
import type { RemovedOutput } from "../../../src/hosts/recall/removed.ts";

export const byRule = (xs: readonly RemovedOutput[]): Record<string, number> => {
  const n: Record<string, number> = {};
  for (const x of xs) n[x.rule ?? "-"] = (n[x.rule ?? "-"] ?? 0) + 1;
  return n;
};

export const planned = (r: ForkResult): Record<string, number> =>
  Object.fromEntries(Object.entries(r.pruning.byRule).flatMap(([rule, t]) => (t!.removed > 0 ? [[rule, t!.removed]] : [])));
