// The build script's promises that can be checked without writing a 100 MB binary:
// the target table, the version define, and what the unit run may pick up.
// (Compiling and running the binary is the e2e suite's job: test/e2e/binary.e2e.ts.)
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { TARGETS, bundleOptions, hostTargetName } from "../../build/compile.ts";

const REPO = join(import.meta.dir, "..", "..");
const read = (p: string): string => readFileSync(join(REPO, p), "utf8");

describe("target table", () => {
  test("the five release targets, each once", () => {
    expect(TARGETS.map((t) => t.name).sort()).toEqual(["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "windows-x64"]);
  });

  const rows = TARGETS.map((t) => ({ name: t.name, bunTarget: t.bunTarget as string, runtimePackage: t.runtimePackage, exe: t.exe as string }));
  test.each(rows)("$name: bun target, runtime package and suffix agree", (t) => {
    const [os, arch] = t.name.split("-") as [string, string];
    expect(t.bunTarget).toBe(`bun-${os}-${arch}`);
    expect(t.runtimePackage).toBe(`@oven/bun-${os}-${arch === "arm64" ? "aarch64" : arch}`);
    expect(t.exe).toBe(os === "windows" ? ".exe" : "");
  });

  test("every runtime package is one the pinned bun release publishes, at the same version", () => {
    const bun = JSON.parse(read("node_modules/bun/package.json")) as { version: string; optionalDependencies: Record<string, string> };
    const pinned = (JSON.parse(read("package.json")) as { devDependencies: Record<string, string> }).devDependencies.bun;
    expect(bun.version).toBe(pinned!);
    for (const t of TARGETS) expect(bun.optionalDependencies[t.runtimePackage]).toBe(bun.version);
  });

  test("the file-type checks tell the targets apart", () => {
    const samples: Record<string, string> = {
      "linux-x64": "ELF 64-bit LSB executable, x86-64, version 1 (SYSV), dynamically linked",
      "linux-arm64": "ELF 64-bit LSB executable, ARM aarch64, version 1 (SYSV), dynamically linked",
      "darwin-x64": "Mach-O 64-bit x86_64 executable, flags:<NOUNDEFS|DYLDLINK|TWOLEVEL|PIE>",
      "darwin-arm64": "Mach-O 64-bit arm64 executable, flags:<NOUNDEFS|DYLDLINK|TWOLEVEL|PIE>",
      "windows-x64": "PE32+ executable (console) x86-64, for MS Windows",
    };
    for (const t of TARGETS)
      for (const [name, sample] of Object.entries(samples)) expect([t.name, name, t.fileType.test(sample)]).toEqual([t.name, name, name === t.name]);
  });

  test("this machine's name has the table's shape", () => {
    expect(hostTargetName()).toMatch(/^(linux|darwin|windows|freebsd)-(x64|arm64)$/);
  });
});

describe("version define", () => {
  test("the bundle carries the defined version as a literal and leaves package.json out", async () => {
    const result = await Bun.build(bundleOptions("9.8.7-test"));
    expect(result.success).toBe(true);
    const code = await result.outputs[0]!.text();
    expect(code).toContain('"9.8.7-test"');
    expect(code).not.toContain("devDependencies");
  });
});

describe("the unit run", () => {
  // bun test collects *.test.*, *_test.*, *.spec.*, *_spec.* under bunfig's root
  const COLLECTED = /(\.|_)(test|spec)\.[cm]?[jt]sx?$/;
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
      d.name === ".cache" || d.name === "node_modules" ? [] : d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)],
    );

  test("is rooted at ./test", () => {
    expect(read("bunfig.toml")).toMatch(/^\[test\]\s*\nroot\s*=\s*"\.\/test"/m);
  });

  test("never collects an e2e or bench file", () => {
    const picked = [...walk(join(REPO, "test", "e2e")), ...walk(join(REPO, "test", "bench"))].map((f) => relative(REPO, f)).filter((f) => COLLECTED.test(f));
    expect(picked).toEqual([]);
  });

  test("build/.cache and dist are ignored by git", () => {
    const ignored = read(".gitignore")
      .split("\n")
      .map((l) => l.trim());
    expect(ignored).toContain("build/.cache/");
    expect(ignored).toContain("dist/");
    expect(ignored).toContain("test/e2e/.cache/");
  });
});

describe("the plugin's files", () => {
  test("are embedded in the bundle by the macro, with no code of build/ left to run", async () => {
    const result = await Bun.build(bundleOptions("9.8.7-test"));
    expect(result.success).toBe(true);
    const code = await result.outputs[0]!.text();
    expect(code).toContain("hooks/register.ts");
    expect(code).toContain("hooks/better-compaction.js");
    expect(code).toContain("export function register(");
    expect(code).not.toContain("bundling the plugin failed"); // build/plugin.ts's own code
    expect(code).not.toContain("plugin-assets");
  });
});
