// Reading the plugin's decision log back (bc claude log): a file on the user's disk, so it is
// validated at this edge with zod. The hook side (decision-log.ts) only writes, and stays free
// of any package because it is bundled into the hooks module.
import { z } from "zod";
import type { DecisionRecord } from "./decision-log.ts";

const count = z.number().finite().nonnegative();

const ResultDecisionSchema = z.looseObject({
  callId: z.string(),
  tool: z.string(),
  action: z.enum(["keep", "truncate", "drop"]),
  rule: z.string(),
  reason: z.string(),
});

const DecisionRecordSchema = z.looseObject({
  v: z.literal(1),
  at: z.string(),
  sessionId: z.string(),
  agentId: z.string().optional(),
  trigger: z.string(),
  outcome: z.enum(["compacted", "skipped", "handed-over"]),
  reason: z.string(),
  rowsIn: count,
  rowsOut: count,
  tokensBefore: count,
  tokensAfter: count,
  freedPercent: z.number().finite().optional(),
  window: count.optional(),
  budgetTokens: count.optional(),
  unseenTokens: count.optional(),
  escalated: z.boolean(),
  ms: count,
  results: z.array(ResultDecisionSchema),
});

const describeIssue = (issue: z.core.$ZodIssue): string => {
  const where = issue.path.length === 0 ? "" : `${issue.path.join(".")}: `;
  return `${where}${issue.message}`;
};

/** Parse a log's text; lines that are not records are reported as `line N: why` and skipped. */
export const parseLog = (text: string): { records: DecisionRecord[]; problems: string[] } => {
  const records: DecisionRecord[] = [];
  const problems: string[] = [];
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      problems.push(`line ${i + 1}: not valid JSON`);
      return;
    }
    const parsed = DecisionRecordSchema.safeParse(value);
    if (parsed.success) records.push(parsed.data as DecisionRecord);
    else problems.push(`line ${i + 1}: not a better-compaction decision record (${describeIssue(parsed.error.issues[0]!)})`);
  });
  return { records, problems };
};
