// The engine is a pure function of its input: it imports nothing outside src/engine
// (no fs, clock, env, zod, Bun, Node), so the Claude Code hook can run it in its worker.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ENGINE = join(import.meta.dir, "..", "src", "engine");

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : []));

test("src/engine imports only its own relative files", () => {
  const offenders: string[] = [];
  for (const f of files(ENGINE)) {
    const src = readFileSync(f, "utf8");
    for (const m of src.matchAll(/(?:import|export)[^;]*?from\s+["']([^"']+)["']/g)) {
      const spec = m[1]!;
      if (!spec.startsWith("./") && !spec.startsWith("../")) offenders.push(`${f}: ${spec}`);
      else if (!join(f, "..", spec).startsWith(ENGINE)) offenders.push(`${f}: ${spec}`);
    }
    if (/\bimport\s*\(/.test(src)) offenders.push(`${f}: dynamic import()`);
    for (const g of ["Bun.", "process.", "Date.now", "new Date", "Math.random", "require("]) {
      if (src.includes(g)) offenders.push(`${f}: uses ${g}`);
    }
  }
  expect(offenders).toEqual([]);
});
