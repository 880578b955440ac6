// The fixed ladder: the first rule that decides a result wins; later rules may only move
// a keep to a truncate (see merge.ts).
import { latestRead } from "./latest-read.ts";
import { neverDrop } from "./never-drop.ts";
import { pin } from "./pin.ts";
import { referenced } from "./referenced.ts";
import { reRunnable } from "./re-runnable.ts";
import type { Rule } from "./rule.ts";
import { supersededRead } from "./superseded-read.ts";

export const LADDER: readonly Rule[] = [pin, neverDrop, supersededRead, latestRead, referenced, reRunnable];
