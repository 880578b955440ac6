// Reading the plugin's decision log back (bc claude log): a file on the user's disk, so it is
// validated at this edge with zod. The hook side (decision-log.ts) only writes, and stays free
// of any package because it is bundled into the hooks module.
import { z } from "zod";
import type { DecisionRecord } from "./decision-log.ts";
import { parseRecordLines } from "../../util/record-lines.ts";

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
  thinkingTokens: count.optional(),
  keptThinkingTokens: count.optional(),
  thinkingProblem: z.string().optional(),
  escalated: z.boolean(),
  needWeights: z.enum(["shipped", "user"]).optional(),
  needWeightsProblem: z.string().optional(),
  blocksNoted: count.optional(),
  ms: count,
  results: z.array(ResultDecisionSchema),
});

/** Parse a log's text; lines that are not records are reported as `line N: why` and skipped. */
export const parseLog = (text: string): { records: DecisionRecord[]; problems: string[] } =>
  parseRecordLines(text, DecisionRecordSchema as z.ZodType<DecisionRecord>);
