// The ad-hoc signer on the real darwin binaries, when a release build (bun build/compile.ts --all)
// left them in dist/; a plain checkout has none, and this skips. Bun's darwin-arm64 output signed
// again is byte for byte what Bun wrote, so the signer writes what Bun's own signer writes; the
// darwin-x64 binary, which the build signs ad hoc, holds.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { adhocSign, checkSignature } from "../../build/macho-sign.ts";

const DIST = join(import.meta.dir, "..", "..", "dist");
const arm64 = join(DIST, "bc-darwin-arm64");
const x64 = join(DIST, "bc-darwin-x64");
describe.skipIf(!existsSync(arm64) || !existsSync(x64))("the release binaries in dist/", () => {
  test("Bun's darwin-arm64 output signed again is byte for byte what Bun wrote; the darwin-x64 one holds", () => {
    const bytes = readFileSync(arm64);
    expect(Buffer.compare(Buffer.from(adhocSign(bytes)), bytes)).toBe(0);
    expect(checkSignature(readFileSync(x64))).toMatchObject({ valid: true, badPages: 0, uncovered: 0 });
  }, 60_000);
});
