// The recall tool's MCP server as the installed plugin declares it.
import { join } from "node:path";

/**
 * The plugin files with the recall server pointed at this very bc (an absolute path): `bc` on a
 * user's PATH may be another program (the POSIX calculator is also called bc), or missing.
 * From a checkout, the server runs as `bun <checkout>/src/main.ts mcp`.
 */
export const pinRecallServer = (files: Record<string, string>, execPath: string = process.execPath): Record<string, string> => {
  const rel = ".claude-plugin/plugin.json";
  const text = files[rel];
  if (text === undefined) return files;
  const manifest = JSON.parse(text) as { mcpServers?: Record<string, { command?: string; args?: string[] }> };
  const server = manifest.mcpServers?.bc;
  if (!server) return files;
  const compiled = !/^bun(-debug)?(\.exe)?$/.test(execPath.split(/[\\/]/).pop() ?? "");
  const next = compiled
    ? { ...server, command: execPath, args: ["mcp"] }
    : { ...server, command: execPath, args: [join(import.meta.dir, "..", "..", "main.ts"), "mcp"] };
  return { ...files, [rel]: `${JSON.stringify({ ...manifest, mcpServers: { ...manifest.mcpServers, bc: next } }, null, 2)}\n` };
};
