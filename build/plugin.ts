#!/usr/bin/env bun
// The installable Claude Code plugin, built from the checkout (which is itself the plugin):
// .claude-plugin/plugin.json (version from package.json), hooks/hooks.json, hooks/register.ts
// as written by hand with its one import pointed at the bundle, and the bundle: what register.ts
// imports (the engine and the Claude adapter) as ONE self-contained ES module. Claude Code scans
// a hooks module before loading it and refuses a bundled register module, so only what it
// imports is bundled.
//
// `bc` embeds these files through the macro `embeddedPluginFiles()`: they are built when bc is
// bundled (or run from source), with no generated source file and no import of build/ at run time.
//
//   bun build/plugin.ts --out <dir>   write the plugin folder
//   bun build/plugin.ts --json        print the files as one JSON object (what the macro reads)
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { iconPng } from "./icon.ts";
import { bundleDeclarations } from "./plugin-types.ts";

const REPO = join(import.meta.dir, "..");
/** The module register.ts imports, and the bundle's file name in the installed plugin. */
export const ADAPTER_SPEC = "../src/hosts/claude/plugin.ts";
export const BUNDLE_NAME = "better-compaction.js";

/** Plugin files by path relative to the plugin folder; a binary file (the icon) as base64. */
export type PluginFiles = Record<string, string>;
export const isBinary = (rel: string): boolean => rel.endsWith(".png");

const read = (rel: string): string => readFileSync(join(REPO, rel), "utf8");

const PLUGIN_README = `# better-compaction (Claude Code plugin)

Replaces Claude Code's summary compaction with a deterministic, verbatim one. When Claude Code
compacts (\`/compact\`, automatic compaction, or this plugin's own loop at \`compactAtPercent\`), its
\`session.compact\` hook keeps, truncates to its head, or drops each tool result by five rules and
hands back the history itself: prose is never rewritten and no tool call loses its result. When
even that leaves the history over budget, the pruned history goes to Claude Code's own summary.

Installed by \`bc claude install\`; removed by \`bc claude uninstall\`. Each compaction is logged
under ~/.claude/better-compaction/logs/; read it with \`bc claude log\`. Options are this plugin's
userConfig (\`claude plugin configure better-compaction@<marketplace>\`).
`;

/**
 * The standard built-ins (and the timers) a bundle may name. In Claude Code's hooks worker, a global looked up by
 * its name is far slower than a module's own binding (about 20 times, measured in Claude Code
 * 2.1.332: `Math.imul` or `Array.isArray` in a loop), and the engine names them in its loops,
 * so the bundle binds each one it names once, at its top (builtInBindings).
 */
export const BUILT_INS: readonly string[] = [
  "AggregateError",
  "Array",
  "ArrayBuffer",
  "Atomics",
  "BigInt",
  "Boolean",
  "DataView",
  "Date",
  "Error",
  "EvalError",
  "FinalizationRegistry",
  "Float32Array",
  "Float64Array",
  "Int8Array",
  "Int16Array",
  "Int32Array",
  "Intl",
  "JSON",
  "Map",
  "Math",
  "Number",
  "Object",
  "Promise",
  "Proxy",
  "RangeError",
  "ReferenceError",
  "Reflect",
  "RegExp",
  "Set",
  "String",
  "Symbol",
  "SyntaxError",
  "TextDecoder",
  "TextEncoder",
  "TypeError",
  "URIError",
  "Uint8Array",
  "Uint8ClampedArray",
  "Uint16Array",
  "Uint32Array",
  "WeakMap",
  "WeakRef",
  "WeakSet",
  "clearInterval",
  "clearTimeout",
  "console",
  "decodeURI",
  "decodeURIComponent",
  "encodeURI",
  "encodeURIComponent",
  "isFinite",
  "isNaN",
  "parseFloat",
  "parseInt",
  "performance",
  "queueMicrotask",
  "setInterval",
  "setTimeout",
  "structuredClone",
];

/** The built-ins `code` names (not as a property: `x.Map` is not the global), in BUILT_INS order. */
export const builtInsNamed = (code: string): string[] => BUILT_INS.filter((n) => new RegExp(`(?<![.\\w$])${n}(?![\\w$])`).test(code));

/** `const Math=globalThis.Math,...;`: a module binding for each built-in `code` names ("" for none). */
export const builtInBindings = (code: string): string => {
  const names = builtInsNamed(code);
  return names.length === 0 ? "" : `const ${names.map((n) => `${n}=globalThis.${n}`).join(",")};\n`;
};

/** The bundle of everything register.ts imports: one ES module for Claude Code's hooks worker. */
export const bundleAdapter = async (): Promise<string> => {
  const result = await Bun.build({
    entrypoints: [join(REPO, "src", "hosts", "claude", "plugin.ts")],
    target: "browser",
    format: "esm",
    // names stay as written: no top-level name of the bundle can then be a built-in's, which its
    // own binding at the top would clash with
    minify: { whitespace: true, syntax: true, identifiers: false },
    splitting: false,
    sourcemap: "none",
    packages: "bundle",
  });
  if (!result.success) throw new Error(`bundling the plugin failed:\n${result.logs.map(String).join("\n")}`);
  const out = result.outputs.find((o) => o.kind === "entry-point");
  if (!out) throw new Error("bundling the plugin gave no entry point");
  const code = await out.text();
  return `// better-compaction: engine + Claude Code adapter, bundled by build/plugin.ts. Generated: do not edit.\n${builtInBindings(code)}${code}`;
};

/** register.ts with its imports of the adapter pointed at the bundle. */
export const installedRegister = (source: string): string => {
  const quoted = new RegExp(`(["'])${ADAPTER_SPEC.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\1`, "g");
  const count = source.match(quoted)?.length ?? 0;
  if (count === 0) throw new Error(`hooks/register.ts does not import ${ADAPTER_SPEC}; build/plugin.ts cannot point it at the bundle`);
  const rewritten = source.replace(quoted, `"./${BUNDLE_NAME}"`);
  if (/from\s+["']\.\.\//.test(rewritten))
    throw new Error("hooks/register.ts imports a file outside hooks/ other than the adapter; the installed plugin would not find it");
  return rewritten;
};

/** Every file of the installable plugin, in memory. */
export const pluginFiles = async (): Promise<PluginFiles> => {
  const version = (JSON.parse(read("package.json")) as { version: string }).version;
  const manifest = JSON.parse(read(".claude-plugin/plugin.json")) as Record<string, unknown>;
  return {
    ".claude-plugin/plugin.json": `${JSON.stringify({ ...manifest, version }, null, 2)}\n`,
    "hooks/hooks.json": read("hooks/hooks.json"),
    "hooks/register.ts": installedRegister(read("hooks/register.ts")),
    [`hooks/${BUNDLE_NAME}`]: await bundleAdapter(),
    [`hooks/${BUNDLE_NAME.replace(/\.js$/, ".d.ts")}`]: bundleDeclarations(join(REPO, "src", "hosts", "claude", "plugin.ts")),
    ".claude-plugin/icon.png": Buffer.from(iconPng()).toString("base64"),
    "README.md": PLUGIN_README,
  };
};

/** Write the plugin files under `dir`. */
export const writePluginFiles = (dir: string, files: PluginFiles): void => {
  for (const [rel, text] of Object.entries(files)) {
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, isBinary(rel) ? Buffer.from(text, "base64") : text);
  }
};

/**
 * The plugin's files for `bc` to embed: a Bun macro (src/hosts/claude/plugin-files.ts imports it
 * `with { type: "macro" }`), so its result is inlined when bc is bundled or run from source.
 * The bundler cannot be called from inside a macro, so the files are built by a child bun.
 */
export const embeddedPluginFiles = (): PluginFiles => {
  const r = Bun.spawnSync([process.execPath, join(import.meta.dir, "plugin.ts"), "--json"], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`build/plugin.ts --json failed: ${r.stderr.toString().trim()}`);
  return JSON.parse(r.stdout.toString()) as PluginFiles;
};

if (import.meta.main) {
  const i = process.argv.indexOf("--out");
  if (i !== -1) {
    const dir = process.argv[i + 1];
    if (!dir) throw new Error("--out needs a folder");
    writePluginFiles(dir, await pluginFiles());
    process.stdout.write(`${dir}\n`);
  } else if (process.argv.includes("--json")) {
    process.stdout.write(JSON.stringify(await pluginFiles()));
  } else {
    process.stderr.write("usage: bun build/plugin.ts --out <dir> | --json\n");
    process.exit(2);
  }
}
