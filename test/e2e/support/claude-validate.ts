// An independent mirror of Claude Code 2.1.328's checks on a session.compact hook's result
// written from Claude Code's behaviour, not from src/: the unit tests hold the plugin's
// answers to it, and to the pairing Claude Code only repairs later (so a problem there is ours).

/** The problems Claude Code would log as `returned <problem>`; [] when it accepts the result. */
export const claudeResultProblems = (result: unknown, opts: { readonly nextCompacted?: boolean; readonly trigger?: string } = {}): string[] => {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return ["something that is not a result object"];
  const r = result as Record<string, unknown>;
  const hasMessages = r.messages !== undefined;
  const hasSkip = r.skip !== undefined;
  if (!hasMessages && !hasSkip) return ["neither { messages } nor { skip }"];
  const problems: string[] = [];
  if (hasSkip) {
    if (typeof r.skip !== "string" || r.skip === "") problems.push("a skip that is not a reason (a non-empty string)");
    if (hasMessages) problems.push("a skip beside messages");
    if (opts.nextCompacted && opts.trigger !== "precompute") problems.push("a skip after next() compacted");
    return problems;
  }
  for (const key of ["tokensBefore", "tokensAfter"]) {
    const v = r[key];
    if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v) || v < 0)) problems.push("token counts that are not numbers");
  }
  if (r.usage !== undefined) {
    const u = r.usage as Record<string, unknown> | null;
    const keys = ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"];
    if (typeof u !== "object" || u === null || keys.some((k) => typeof u[k] !== "number")) problems.push("a usage that is not the four token counts");
  }
  return [...problems, ...claudeMessagesProblems(r.messages)];
};

export const claudeMessagesProblems = (messages: unknown): string[] => {
  if (!Array.isArray(messages)) return ["messages that are not a list"];
  if (messages.length === 0) return ["an empty messages (a compaction leaves at least one)"];
  const problems: string[] = [];
  messages.forEach((m, i) => {
    const p = (what: string) => problems.push(`messages[${i}] that ${what}`);
    if (typeof m !== "object" || m === null || Array.isArray(m)) return p("is not an object");
    const row = m as Record<string, unknown>;
    if (row.role !== "user" && row.role !== "assistant") p("has a role that is neither user nor assistant");
    if (typeof row.text !== "string") p("has no text (a string)");
    if ("handle" in row && row.handle !== undefined && typeof row.handle !== "string") p("has a handle that is not a string");
    if (row.toolUses !== undefined) {
      const ok =
        Array.isArray(row.toolUses) &&
        row.toolUses.every(
          (u) =>
            typeof u === "object" &&
            u !== null &&
            typeof (u as any).tool_use_id === "string" &&
            typeof (u as any).tool === "string" &&
            "input" in (u as object),
        );
      if (!ok) p("has toolUses that are not a list of { tool_use_id, tool, input }");
    }
    if (row.toolResults !== undefined) {
      const ok =
        Array.isArray(row.toolResults) &&
        row.toolResults.every((t) => typeof t === "object" && t !== null && typeof (t as any).tool_use_id === "string" && typeof (t as any).text === "string");
      if (!ok) p("has toolResults that are not a list of { tool_use_id, text, isError }");
    }
  });
  return problems;
};

/** What Claude Code's request-time repair (ensureToolResultPairing) would have to fix: unpaired or duplicated ids. */
export const pairingProblems = (messages: readonly any[]): string[] => {
  const uses: string[] = [];
  const results: string[] = [];
  for (const m of messages) {
    for (const u of m.toolUses ?? []) uses.push(u.tool_use_id);
    for (const t of m.toolResults ?? []) results.push(t.tool_use_id);
  }
  const problems: string[] = [];
  const dup = (list: string[], what: string) => list.filter((id, i) => list.indexOf(id) !== i).forEach((id) => problems.push(`${what} ${id} appears twice`));
  dup(uses, "tool_use");
  dup(results, "tool_result");
  for (const id of uses) if (!results.includes(id)) problems.push(`tool_use ${id} has no tool_result`);
  for (const id of results) if (!uses.includes(id)) problems.push(`tool_result ${id} has no tool_use`);
  // a result must come after its use
  const seen = new Set<string>();
  for (const m of messages) {
    for (const t of m.toolResults ?? [])
      if (!seen.has(t.tool_use_id) && uses.includes(t.tool_use_id)) problems.push(`tool_result ${t.tool_use_id} comes before its tool_use`);
    for (const u of m.toolUses ?? []) seen.add(u.tool_use_id);
  }
  return problems;
};
