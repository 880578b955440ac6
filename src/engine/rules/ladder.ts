// The ladder: the rules in the order plan() asks them. The first rule that decides a result
// wins; a locking rule's verdict is final, and after a keep a later rule may only move it to a
// truncate (see merge.ts). Adding or moving a rule touches this list and the rule's own file.
import { latestRead } from "./latest-read.ts";
import { neverDrop } from "./never-drop.ts";
import { pin } from "./pin.ts";
import { referenced } from "./referenced.ts";
import { reRunnable } from "./re-runnable.ts";
import type { Rule } from "./rule.ts";
import { supersededRead } from "./superseded-read.ts";
import { supersededRun } from "./superseded-run.ts";

const RULES: readonly Rule[] = [pin, neverDrop, supersededRead, supersededRun, latestRead, referenced, reRunnable];

// Every rule as an object of one shape (all four fields, in one order): plan() calls them in a
// loop for every result, and a call site that sees one shape stays fast.
export const LADDER: readonly Rule[] = RULES.map((r) => ({ id: r.id, locks: r.locks === true, decide: r.decide, guard: r.guard }));
