// The installable plugin build: the bundle runs in Claude Code's hooks worker (no Bun, no Node,
// no require, no dynamic import), and register.ts stays hand-written with one import re-pointed.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILT_INS, BUNDLE_NAME, builtInBindings, builtInsNamed, installedRegister, pluginFiles } from "../../../build/plugin.ts";
import { VERSION } from "../../../src/version.ts";

const REPO = join(import.meta.dir, "..", "..", "..");
const files = await pluginFiles();
const bundle = files[`hooks/${BUNDLE_NAME}`]!;

test("the plugin's files", () => {
  expect(Object.keys(files).sort()).toEqual([
    ".claude-plugin/icon.png",
    ".claude-plugin/plugin.json",
    "README.md",
    "hooks/better-compaction.d.ts",
    `hooks/${BUNDLE_NAME}`,
    "hooks/hooks.json",
    "hooks/register.ts",
  ]);
  const manifest = JSON.parse(files[".claude-plugin/plugin.json"]!);
  expect(manifest.name).toBe("better-compaction");
  expect(manifest.version).toBe(VERSION);
  expect(JSON.parse(files["hooks/hooks.json"]!)).toEqual({ modules: ["./register.ts"] });
});

test("the bundle refers to no Bun, process, require or import(", () => {
  const found = [/\bBun\b/, /\bprocess\b/, /\brequire\b/, /import\s*\(/].filter((re) => re.test(bundle)).map(String);
  expect(found).toEqual([]);
  expect(bundle).not.toMatch(/^\s*import\s/m); // self-contained: no static imports either
  expect(bundle).toMatch(/export\s*\{/);
  expect(bundle.length).toBeLessThan(1024 * 1024); // Claude Code's per-file limit
});

test("the bundle exports what register.ts imports, and works", async () => {
  const mod = await import(`data:text/javascript;base64,${Buffer.from(bundle).toString("base64")}`);
  const register = files["hooks/register.ts"]!;
  const names = /import\s*\{([^}]*)\}\s*from\s*"\.\/better-compaction\.js"/
    .exec(register)![1]!
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const n of names) expect(mod[n]).toBeDefined(); // TURN_COOLDOWN is a number, the rest functions
  const { answer } = mod.compactRows({ trigger: "precompute", sessionId: "s", rows: [], options: mod.pluginOptions({}), now: () => 0 });
  expect(answer.skip).toContain("precompute");
});

test("register.ts is the checkout's, with only the adapter import pointed at the bundle", () => {
  const source = readFileSync(join(REPO, "hooks", "register.ts"), "utf8");
  const installed = files["hooks/register.ts"]!;
  expect(installed).toBe(source.replaceAll('"../src/hosts/claude/plugin.ts"', `"./${BUNDLE_NAME}"`));
  expect(installed).not.toContain("../");
  expect(installed).toMatch(/^export function register\(/m);
  expect(() => installedRegister("export function register() {}")).toThrow(/does not import/);
});

test("the bundle binds once, at its top, every built-in it names (the hooks worker looks a global up by name slowly); a property of the same name is not one", () => {
  const [comment, bindings, ...rest] = bundle.split("\n");
  expect(comment).toStartWith("// better-compaction:");
  const bound = /^const (.*);$/
    .exec(bindings!)![1]!
    .split(",")
    .map((b) => b.split("=")[0]);
  const code = rest.join("\n");
  expect(bound).toEqual(builtInsNamed(code));
  for (const name of ["Math", "Array", "Number", "Map", "Set", "Int32Array"]) expect(bound).toContain(name);
  for (const b of bindings!.slice("const ".length, -1).split(",")) expect(b).toMatch(/^(\w+)=globalThis\.\1$/);
  expect(builtInsNamed("x = Math.imul(a, b) + o.Map + Array.isArray(y) + q?.Set")).toEqual(["Array", "Math"]);
  expect(builtInBindings("Math.floor(1)")).toBe("const Math=globalThis.Math;\n");
  expect(builtInBindings("x.Math + 1")).toBe("");
  // every name listed is a global here too
  for (const name of BUILT_INS) expect(name in globalThis).toBe(true);
});
