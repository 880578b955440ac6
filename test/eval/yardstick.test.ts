// The ruler never changes: yardstick v1 is pinned by content hash. A new yardstick is a new file.
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { extractTokens } from "../../src/eval/yardstick/v1.ts";

const V1 = join(import.meta.dir, "..", "..", "src", "eval", "yardstick", "v1.ts");

test("yardstick v1 is frozen (sha256 of the file)", () => {
  const sha = createHash("sha256").update(readFileSync(V1)).digest("hex");
  expect(sha).toBe("8900a5de3b0359f9a07fc310487b519b1d512839b4390201069cf3bf4a56b21c");
});

test("yardstick v1 extracts paths, identifiers, long numbers, quoted strings and error lines", () => {
  const text = 'Read src/app/main.ts; call parseRollout then load_config with port 8080 and "hello big world"\nTypeError: x is undefined';
  expect(extractTokens(text)).toEqual(["src/app/main.ts", "parseRollout", "load_config", "TypeError", "8080", "hello big world", "TypeError: x is undefined"]);
});

test("the scorer never imports the live token extractor", () => {
  const dir = join(import.meta.dir, "..", "..", "src", "eval");
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith(".ts") ? [join(d, e.name)] : []));
  const offenders = walk(dir).filter((f) => /engine\/tokens(\.ts)?["']/.test(readFileSync(f, "utf8")));
  expect(offenders).toEqual([]);
});
