// `bc inspect <files | session ids>`: what each session is made of, before any rule touches it.
import { defineCommand } from "citty";
import { z } from "zod";
import { JSON_ARG, parseFlags, SESSIONS_ARG } from "./args.ts";

const FLAGS = z.object({ json: z.boolean().default(false) });
import { forEachSession, sessionsGiven, warnSkipped } from "./sessions.ts";
import { statSync } from "node:fs";
import { isStream, readOnce } from "../util/jsonl.ts";
import { estimateMessageTokens, estimateTextTokens } from "../engine/estimate.ts";
import type { Host, Message, MessageKind, Role } from "../engine/types.ts";
import { loadClaudeTranscripts, type ClaudeSession } from "../hosts/claude/transcript.ts";
import { detectHost, loadSessionFile, resolveSession, sessionName } from "../hosts/load.ts";
import type { LoadedSession } from "../hosts/types.ts";

const ROLES: readonly Role[] = ["user", "assistant", "system"];
const KINDS: readonly MessageKind[] = ["prompt", "reply", "tool", "reasoning", "summary", "meta"];

export interface Shape {
  readonly messages: number;
  readonly byRole: Record<Role, number>;
  readonly byKind: Record<MessageKind, number>;
  readonly toolCalls: number;
  readonly toolResults: number;
  readonly toolErrors: number;
  readonly images: number;
  readonly toolOutputChars: number;
  readonly toolOutputTokens: number;
  /** prose + tool inputs + tool output */
  readonly tokens: number;
}

export interface ToolShape {
  readonly name: string;
  readonly calls: number;
  readonly results: number;
  readonly errors: number;
  readonly outputChars: number;
  readonly outputTokens: number;
}

export interface SidechainShape {
  readonly id: string;
  readonly path: string;
  readonly messages: number;
  readonly toolCalls: number;
  readonly toolOutputChars: number;
  readonly toolOutputTokens: number;
}

export interface InspectReport {
  readonly host: Host;
  readonly path: string;
  readonly id: string;
  /** the session's name (claude -n, /rename; a Codex thread's), when it has one */
  readonly name?: string;
  readonly versions: readonly string[];
  readonly bytes: number;
  /** everything that happened, across host compactions (host summaries left out) */
  readonly timeline: Shape;
  /** what the model sees now */
  readonly live: Shape;
  /** over the timeline, most output first */
  readonly tools: readonly ToolShape[];
  readonly compactions: readonly { readonly from: number; readonly at: number; readonly kept: number; readonly trigger?: string }[];
  readonly malformed: { readonly count: number; readonly lines: readonly string[] };
  /** tool calls without results and the reverse */
  readonly warnings: readonly string[];
  /** subagent files beside the session that could not be read: left out, with why */
  readonly skipped: readonly string[];
  readonly sidechains: readonly SidechainShape[];
}

const zeroes = <K extends string>(keys: readonly K[]): Record<K, number> => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

export const shapeOf = (messages: readonly Message[]): Shape => {
  const byRole = zeroes(ROLES);
  const byKind = zeroes(KINDS);
  let toolCalls = 0;
  let toolResults = 0;
  let toolErrors = 0;
  let images = 0;
  let outputChars = 0;
  // estimated as plans, logs and the eval estimate them (text by text), so the figures agree
  let tokens = 0;
  let outputTokens = 0;
  for (const m of messages) {
    byRole[m.role]++;
    byKind[m.kind]++;
    toolCalls += m.toolCalls.length;
    const t = estimateMessageTokens(m);
    tokens += t.all;
    outputTokens += t.tool;
    for (const r of m.toolResults) {
      toolResults++;
      if (r.isError) toolErrors++;
      images += r.images;
      outputChars += r.text.length;
    }
  }
  return {
    messages: messages.length,
    byRole,
    byKind,
    toolCalls,
    toolResults,
    toolErrors,
    images,
    toolOutputChars: outputChars,
    toolOutputTokens: outputTokens,
    tokens,
  };
};

export const toolsOf = (messages: readonly Message[]): ToolShape[] => {
  const nameOf = new Map<string, string>();
  const rows = new Map<string, { calls: number; results: number; errors: number; outputChars: number; outputTokens: number }>();
  const row = (name: string) => {
    let r = rows.get(name);
    if (!r) rows.set(name, (r = { calls: 0, results: 0, errors: 0, outputChars: 0, outputTokens: 0 }));
    return r;
  };
  for (const m of messages) {
    for (const c of m.toolCalls) {
      nameOf.set(c.id, c.name);
      row(c.name).calls++;
    }
    for (const res of m.toolResults) {
      const r = row(nameOf.get(res.callId) ?? "(unknown call)");
      r.results++;
      if (res.isError) r.errors++;
      r.outputChars += res.text.length;
      r.outputTokens += estimateTextTokens(res.text);
    }
  }
  return [...rows].map(([name, r]) => ({ name, ...r })).sort((a, b) => b.outputChars - a.outputChars || b.calls - a.calls || (a.name < b.name ? -1 : 1));
};

const sidechainOf = (s: LoadedSession): SidechainShape => {
  const shape = shapeOf(s.timeline.messages);
  return {
    id: s.id,
    path: s.path,
    messages: shape.messages,
    toolCalls: shape.toolCalls,
    toolOutputChars: shape.toolOutputChars,
    toolOutputTokens: shape.toolOutputTokens,
  };
};

/** Load a session (path or id) and describe it. */
export const inspectSession = (arg: string): InspectReport => {
  const path = resolveSession(arg);
  const host = detectHost(path);
  let main: LoadedSession;
  let rest: ClaudeSession[] = [];
  let warnings: readonly string[] = [];
  const skipped: string[] = [];
  if (host === "claude") {
    const all = loadClaudeTranscripts(path, (p) => skipped.push(p));
    main = all[0]!;
    rest = all.slice(1);
    warnings = all[0]!.warnings;
  } else {
    main = loadSessionFile(path);
    warnings = main.warnings ?? [];
  }
  const name = sessionName(main);
  // the lines skipped in the session's file and in its subagents' files, each once (the file's
  // own sidechains are read from it too, and say its lines again)
  const malformed = [...new Set([...main.malformed, ...rest.flatMap((s) => s.malformed)])];
  return {
    host,
    path,
    id: main.id,
    ...(name === undefined ? {} : { name }),
    versions: main.versions,
    // a pipe has no size on disk: what was read of it
    bytes: isStream(path) ? readOnce(path).length : statSync(path).size,
    timeline: shapeOf(main.timeline.messages),
    live: shapeOf(main.live.messages),
    tools: toolsOf(main.timeline.messages),
    compactions: main.compactions.map((c) => ({ from: c.from, at: c.at, kept: c.kept.length, ...(c.trigger === undefined ? {} : { trigger: c.trigger }) })),
    malformed: { count: malformed.length, lines: malformed },
    // subagent files that could not be read, and why
    skipped,
    warnings,
    sidechains: rest.map(sidechainOf),
  };
};

// ---------------------------------------------------------------------------------------------
// For people

const HOST_NAMES: Record<Host, string> = { claude: "Claude Code", codex: "Codex" };

const num = (n: number): string => n.toLocaleString("en-US");
const size = (bytes: number): string =>
  bytes < 1_000 ? `${bytes} B` : bytes < 1_000_000 ? `${(bytes / 1_000).toFixed(1)} kB` : `${(bytes / 1_000_000).toFixed(1)} MB`;

const table = (rows: readonly (readonly string[])[], rightFrom = 1): string[] => {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c >= rightFrom ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join("  ")
      .trimEnd(),
  );
};

export const renderInspect = (r: InspectReport): string => {
  const lines: string[] = [];
  const versions = r.versions.length === 0 ? "" : ` ${r.versions.join(", ")}`;
  lines.push(`${HOST_NAMES[r.host]}${versions} session ${r.id}${r.name === undefined ? "" : ` (${JSON.stringify(r.name)})`}`);
  lines.push(`${r.path} (${size(r.bytes)})`);
  lines.push("");
  const t = r.timeline;
  const l = r.live;
  const rows: string[][] = [["", "timeline", "live now"]];
  rows.push(["messages", num(t.messages), num(l.messages)]);
  for (const k of KINDS) if (t.byKind[k] > 0 || l.byKind[k] > 0) rows.push([`  ${k}`, num(t.byKind[k]), num(l.byKind[k])]);
  rows.push(["tool calls", num(t.toolCalls), num(l.toolCalls)]);
  rows.push(["tool results", num(t.toolResults), num(l.toolResults)]);
  rows.push(["  errors", num(t.toolErrors), num(l.toolErrors)]);
  if (t.images > 0 || l.images > 0) rows.push(["  images", num(t.images), num(l.images)]);
  rows.push(["tool output chars", num(t.toolOutputChars), num(l.toolOutputChars)]);
  rows.push(["tool output ~tokens", num(t.toolOutputTokens), num(l.toolOutputTokens)]);
  rows.push(["all ~tokens", num(t.tokens), num(l.tokens)]);
  lines.push(...table(rows));
  if (r.tools.length > 0) {
    lines.push("");
    const trows: string[][] = [["tool", "calls", "errors", "output chars", "~tokens", "share"]];
    for (const x of r.tools)
      trows.push([
        x.name,
        num(x.calls),
        num(x.errors),
        num(x.outputChars),
        num(x.outputTokens),
        // a share of the tokens, as the column before it: what compaction counts
        t.toolOutputTokens === 0 ? "-" : `${((100 * x.outputTokens) / t.toolOutputTokens).toFixed(1)}%`,
      ]);
    lines.push(...table(trows));
  }
  lines.push("");
  if (r.compactions.length === 0) lines.push("host compactions: none");
  else {
    lines.push(`host compactions: ${r.compactions.length}`);
    r.compactions.forEach((c, i) =>
      lines.push(
        `  ${i + 1}. ${c.trigger ?? "trigger not recorded"}: timeline messages ${c.from}..${c.at - 1} replaced by ${c.kept} message${c.kept === 1 ? "" : "s"}`,
      ),
    );
  }
  lines.push(`lines skipped: ${r.malformed.count}`);
  for (const m of r.malformed.lines.slice(0, 5)) lines.push(`  ${m}`);
  if (r.malformed.count > 5) lines.push(`  ... and ${r.malformed.count - 5} more (--json lists all)`);
  if (r.warnings.length > 0) {
    lines.push(`pairing warnings: ${r.warnings.length}`);
    for (const w of r.warnings.slice(0, 5)) lines.push(`  ${w}`);
    if (r.warnings.length > 5) lines.push(`  ... and ${r.warnings.length - 5} more (--json lists all)`);
  }
  if (r.sidechains.length > 0) {
    lines.push(`sidechains (subagents): ${r.sidechains.length}`);
    const srows: string[][] = [["  id", "messages", "tool calls", "output chars", "~tokens"]];
    for (const s of r.sidechains) srows.push([`  ${s.id}`, num(s.messages), num(s.toolCalls), num(s.toolOutputChars), num(s.toolOutputTokens)]);
    lines.push(...table(srows));
  }
  return lines.join("\n");
};

export default defineCommand({
  meta: {
    name: "inspect",
    description: "Print a session's shape: messages, tool calls by tool, output size, host compactions",
  },
  args: {
    session: SESSIONS_ARG,
    json: {
      ...JSON_ARG,
      description: "Print the report as JSON on stdout, for scripts (one session: an object; several: an array, { session, error } for one that failed)",
    },
  },
  run({ args }) {
    const flags = parseFlags(FLAGS, args, "bc inspect");
    const names = sessionsGiven(args);
    const { results, code, inOrder } = forEachSession(names, (name) => {
      const report = inspectSession(name);
      warnSkipped([...report.malformed.lines, ...report.skipped]);
      return report;
    });
    // straight to stdout: util/log.ts would load consola (~20 ms of start-up) for nothing here
    if (flags.json) process.stdout.write(`${JSON.stringify(names.length === 1 ? results[0] : inOrder, null, 2)}\n`);
    else if (results.length > 0) process.stdout.write(`${results.map(renderInspect).join("\n\n")}\n`);
    return code;
  },
});
