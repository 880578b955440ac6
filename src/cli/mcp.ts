// `bc mcp`: a minimal MCP server on stdio (JSON-RPC 2.0, one message per line) with one tool,
// `recall`, so that an agent gets a removed output back in one call, byte for byte (a shell
// tool may trim or merge what a command prints). The Claude Code plugin declares it
// (.claude-plugin/plugin.json, `mcpServers`). Written by hand: no MCP package is a dependency.
import { defineCommand } from "citty";
import { recall } from "../hosts/recall/lookup.ts";
import { handsBack } from "../hosts/recall/records.ts";
import { VERSION } from "../version.ts";
import { isObject } from "../util/json.ts";
import { linesOf } from "../util/lines.ts";

const PROTOCOL_VERSION = "2025-06-18";
/** The MCP versions this server speaks (the tool and its result need nothing newer than the first). */
const PROTOCOL_VERSIONS: ReadonlySet<string> = new Set(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);

export const RECALL_TOOL = {
  name: "recall",
  title: "Recall a removed tool output",
  description:
    "Get back, exactly as it was, the output of an earlier tool call that better-compaction removed or truncated from this conversation " +
    "(bc is better-compaction; its note reads '[bc removed N chars; bc recall <id> prints it]', or after a kept head " +
    "'[bc cut N more chars; bc recall <id> prints it whole]'; where only a result's images or documents did not carry over, " +
    "'[bc: an image of this result did not carry over the compaction; bc recall <id> gives it back]'). Pass the call id the note names. " +
    "Returns the original output byte for byte from the session files on disk, its images included (a PDF as a file saved for you); nothing is re-run.",
  inputSchema: {
    type: "object",
    properties: {
      id: { type: "string", description: "The tool call id the note names (toolu_... or call_...)" },
      session: { type: "string", description: "Optional: a session id, name or transcript path to look in first" },
    },
    required: ["id"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // offered with its schema from the start, not deferred behind a tool search: the note names it
  _meta: { "anthropic/alwaysLoad": true },
} as const;

type Id = string | number | null;
interface Request {
  readonly id?: Id;
  readonly method?: unknown;
  readonly params?: unknown;
}

/** The answer to a tools/call of `recall`: the original text as the first block, exactly. */
export const callRecall = (args: unknown, cwd: string): { content: unknown[]; isError: boolean } => {
  const a = isObject(args) ? args : {};
  // an id given as a number is the same id
  const id = typeof a.id === "string" ? a.id : typeof a.id === "number" ? String(a.id) : "";
  const session = typeof a.session === "string" && a.session !== "" ? a.session : undefined;
  try {
    const r = recall(id, { cwd, ...(session === undefined ? {} : { session }) });
    const content: unknown[] = [{ type: "text", text: r.text }];
    r.images.forEach((img, i) => {
      if (!handsBack(img)) return;
      // a picture as an image block; a PDF as an embedded resource, which Claude Code saves to a file it names
      if (img.mediaType === "application/pdf")
        content.push({ type: "resource", resource: { uri: `bc-recall:${encodeURIComponent(r.id)}/${i + 1}.pdf`, mimeType: img.mediaType, blob: img.data } });
      else content.push({ type: "image", data: img.data, mimeType: img.mediaType });
    });
    if (r.isError) content.push({ type: "text", text: "[better-compaction: the tool reported this output as an error]" });
    return { content, isError: false };
  } catch (e) {
    const hint = (e as { hint?: string }).hint;
    return { content: [{ type: "text", text: `bc recall: ${(e as Error).message}${hint ? `\n${mcpHint(hint)}` : ""}` }], isError: true };
  }
};

/** A hint written for the command line, said as the tool's caller can follow it: the tool's `session` argument for --session. */
export const mcpHint = (hint: string): string => hint.replace(/--session(?: <[^>]*>)?/g, "the tool's session argument (a session id, name or transcript path)");

/** One JSON-RPC message in, the reply out (undefined for a notification). */
export const handleMessage = (msg: unknown, cwd: string): unknown => {
  if (!isObject(msg)) return { jsonrpc: "2.0", id: null, error: { code: -32600, message: "not a JSON-RPC request object" } };
  const req = msg as Request;
  const id = req.id;
  if (id !== undefined && id !== null && typeof id !== "string" && typeof id !== "number")
    return { jsonrpc: "2.0", id: null, error: { code: -32600, message: "a request id is a string or a number" } };
  if (typeof req.method !== "string")
    return id === undefined ? undefined : { jsonrpc: "2.0", id, error: { code: -32600, message: "a request without a method" } };
  const method = req.method;
  if (id === undefined) return undefined; // notifications (initialized, cancelled, ...) need no answer
  const ok = (result: unknown) => ({ jsonrpc: "2.0", id, result });
  switch (method) {
    case "initialize": {
      // the client's version when this server speaks it, else this server's own (the client then decides)
      const asked = isObject(req.params) && typeof req.params.protocolVersion === "string" ? req.params.protocolVersion : PROTOCOL_VERSION;
      return ok({
        protocolVersion: PROTOCOL_VERSIONS.has(asked) ? asked : PROTOCOL_VERSION,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "better-compaction", title: "better-compaction", version: VERSION },
        instructions:
          "When a tool result reads '[bc removed N chars; bc recall <id> prints it]' or ends '[bc cut N more chars; bc recall <id> prints it whole]' " +
          "(bc is better-compaction), call the recall tool with that id to see the original output.",
      });
    }
    case "ping":
      return ok({});
    case "tools/list":
      return ok({ tools: [RECALL_TOOL] });
    case "tools/call": {
      const p = isObject(req.params) ? req.params : {};
      if (p.name !== RECALL_TOOL.name) return { jsonrpc: "2.0", id, error: { code: -32602, message: `unknown tool ${JSON.stringify(p.name)}` } };
      return ok(callRecall(p.arguments, cwd));
    }
    case "resources/list":
      return ok({ resources: [] });
    case "prompts/list":
      return ok({ prompts: [] });
    default:
      return { jsonrpc: "2.0", id, error: { code: -32601, message: `method not found: ${method}` } };
  }
};

/** Serve MCP on stdin/stdout until stdin closes. */
export const serve = async (cwd: string): Promise<void> => {
  const reply = (v: unknown): void => {
    if (v !== undefined) process.stdout.write(`${JSON.stringify(v)}\n`);
  };
  const take = (line: string): void => {
    if (line.trim() === "") return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      reply({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
      return;
    }
    if (Array.isArray(msg)) {
      if (msg.length === 0) {
        reply({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "an empty batch" } });
        return;
      }
      const out = msg.map((m) => handleMessage(m, cwd)).filter((r) => r !== undefined);
      if (out.length > 0) reply(out);
    } else reply(handleMessage(msg, cwd));
  };
  for await (const line of linesOf(Bun.stdin.stream())) take(line);
};

export default defineCommand({
  meta: {
    name: "mcp",
    description: "Serve the recall tool over MCP on stdin/stdout (what the Claude Code plugin runs; not for people)",
    hidden: true,
  },
  args: {},
  async run() {
    await serve(process.cwd());
    return 0;
  },
});
