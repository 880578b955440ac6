// What `claude plugin validate` asks of the installed plugin beyond its manifest: types for the
// bundled module register.ts imports (checked here the way a strict TypeScript check reads the
// installed folder), and a square PNG icon of 512 to 2048 px under 2 MB.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { BUNDLE_NAME, pluginFiles } from "../../build/plugin.ts";

const files = await pluginFiles();
const DTS = `hooks/${BUNDLE_NAME.replace(/\.js$/, ".d.ts")}`;

/** Type-check the installed hooks/register.ts, strict, in a folder holding the given plugin files; the messages. */
const check = (plugin: Record<string, string>): string[] => {
  const dir = mkdtempSync(join(tmpdir(), "bc-plugin-types-"));
  try {
    for (const [rel, text] of Object.entries(plugin)) {
      if (!rel.startsWith("hooks/")) continue;
      mkdirSync(join(dir, "hooks"), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2022.d.ts"],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      types: [],
    };
    const program = ts.createProgram([join(dir, "hooks", "register.ts")], options);
    return ts.getPreEmitDiagnostics(program).map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

describe("the bundle's declaration file", () => {
  test("register.ts checks clean against it, strict (without it: TS7016, an implicit any)", () => {
    expect(check(files)).toEqual([]);
  });

  test("it declares every name register.ts imports, with a type", () => {
    const dts = files[DTS]!;
    for (const name of ["compactRows", "pluginOptions", "shouldCompactAfterTurn", "failureSkip", "appendRecord", "SessionRow"])
      expect(dts).toMatch(new RegExp(`export (declare const|import|type|interface) ${name}\\b`));
    expect(dts).not.toMatch(/:\s*any\b/);
  });
});

test("the icon: a square PNG of 512 to 2048 px, under 2 MB", () => {
  const png = Buffer.from(files[".claude-plugin/icon.png"]!, "base64");
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.subarray(12, 16).toString("latin1")).toBe("IHDR");
  const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  expect(width).toBe(height);
  expect(width).toBeGreaterThanOrEqual(512);
  expect(width).toBeLessThanOrEqual(2048);
  expect(png.length).toBeLessThan(2 * 1024 * 1024);
});
