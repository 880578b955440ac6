// A log bc wrote, read back from the user's disk: one JSON record per line, each checked against
// its schema at this edge. A line that is not JSON, or not such a record, is skipped and named.
import type { z } from "zod";

/** The records of `text` that `schema` accepts; the others as `line N: why`. */
export const parseRecordLines = <T>(text: string, schema: z.ZodType<T>): { records: T[]; problems: string[] } => {
  const records: T[] = [];
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
    const parsed = schema.safeParse(value);
    if (parsed.success) records.push(parsed.data);
    else {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length === 0 ? "" : `${issue.path.join(".")}: `;
      problems.push(`line ${i + 1}: not a better-compaction decision record (${where}${issue.message})`);
    }
  });
  return { records, problems };
};
