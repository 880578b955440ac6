// What the need score sees of a result: facts known at compaction time, from the history the
// engine was handed and nothing after it. Every feature is a plain number, named, so a weights
// file can be checked against the list and a plan can show why a result ranked where it did.
import type { RuleId } from "../types.ts";

/** What kind of output a result is, from what its call means. */
export type ToolClass = "read" | "search" | "listing" | "test" | "shell" | "web" | "subagent" | "edit" | "other";

/** The facts about one result that the features are computed from. */
export interface NeedFacts {
  readonly chars: number;
  readonly toolClass: ToolClass;
  /** tool results after it in the history */
  readonly resultsAfter: number;
  /** messages after it in the history */
  readonly messagesAfter: number;
  /** the most recent read of its file */
  readonly latestRead: boolean;
  /** its file was read again later */
  readonly readAgain: boolean;
  /** a later call had the same tool and the same input */
  readonly repeatedLater: boolean;
  /** already carries a note from an earlier pass */
  readonly cut: boolean;
  /** its distinctive tokens (new with it, not generic) that later replies or inputs use */
  readonly usedTokens: number;
  /** messages between the last such use and the end of the history (undefined: never used) */
  readonly sinceLastUse: number | undefined;
  /** the rule that decided it in the ladder */
  readonly rule: RuleId;
  /** a person's prompts after it: a new task since */
  readonly promptsAfter: number;
  /** a read whose file a later call changed */
  readonly writtenAfter: boolean;
}

export const FEATURE_NAMES = [
  "log_chars",
  "log_results_after",
  "log_messages_after",
  "class_read",
  "class_search",
  "class_listing",
  "class_test",
  "class_shell",
  "class_web",
  "class_subagent",
  "class_edit",
  "latest_read",
  "read_again",
  "repeated_later",
  "used_later",
  "log_used_tokens",
  "log_since_last_use",
  "rule_unreferenced",
  "rule_too_recent",
  "rule_discovery",
  "rule_referenced",
  "rule_never_drop",
  "log_prompts_after",
  "written_after",
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

const CLASS_FEATURE: Readonly<Record<ToolClass, FeatureName | undefined>> = {
  read: "class_read",
  search: "class_search",
  listing: "class_listing",
  test: "class_test",
  shell: "class_shell",
  web: "class_web",
  subagent: "class_subagent",
  edit: "class_edit",
  other: undefined,
};

const RULE_FEATURE: Partial<Record<RuleId, FeatureName>> = {
  unreferenced: "rule_unreferenced",
  // a small result no use was found of: what the lookup found is the same, the rules only keep it
  small: "rule_unreferenced",
  "too-recent": "rule_too_recent",
  discovery: "rule_discovery",
  referenced: "rule_referenced",
  "never-drop": "rule_never_drop",
};

const INDEX: ReadonlyMap<string, number> = new Map(FEATURE_NAMES.map((n, i) => [n, i]));
const slot = (name: FeatureName): number => INDEX.get(name)!;

/** The feature vector of one result, in FEATURE_NAMES order. */
export const featuresOf = (f: NeedFacts): Float64Array => {
  const x = new Float64Array(FEATURE_NAMES.length);
  x[slot("log_chars")] = Math.log1p(f.chars);
  x[slot("log_results_after")] = Math.log1p(f.resultsAfter);
  x[slot("log_messages_after")] = Math.log1p(f.messagesAfter);
  const cls = CLASS_FEATURE[f.toolClass];
  if (cls !== undefined) x[slot(cls)] = 1;
  if (f.latestRead) x[slot("latest_read")] = 1;
  if (f.readAgain) x[slot("read_again")] = 1;
  if (f.repeatedLater) x[slot("repeated_later")] = 1;
  if (f.usedTokens > 0) x[slot("used_later")] = 1;
  x[slot("log_used_tokens")] = Math.log1p(f.usedTokens);
  // never used reads as "used long ago": the distance to the start of the history
  x[slot("log_since_last_use")] = Math.log1p(f.sinceLastUse ?? f.messagesAfter);
  x[slot("log_prompts_after")] = Math.log1p(f.promptsAfter);
  if (f.writtenAfter) x[slot("written_after")] = 1;
  const rule = RULE_FEATURE[f.rule];
  if (rule !== undefined) x[slot(rule)] = 1;
  return x;
};

const CLASS_SLOTS: readonly number[] = Object.values(CLASS_FEATURE)
  .filter((f): f is FeatureName => f !== undefined)
  .map(slot);

/** Whether a feature vector has no tool class: bc knows no meaning for its tool. */
export const unknownToolClass = (x: ArrayLike<number>): boolean => CLASS_SLOTS.every((i) => x[i] === 0);
