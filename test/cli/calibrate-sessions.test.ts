// What `bc calibrate` fits on, in process: the same sessions give the same samples and weights
// whatever the files are called, lines the readers skipped are reported, and a failed write of the
// weights leaves nothing behind.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeWeights } from "../../src/cli/calibrate.ts";
import { DEFAULT_FIT, fitNeedModel } from "../../src/engine/need/fit.ts";
import { DEMO_FILES } from "../../src/eval/demo/index.ts";
import { collectNeedSamples } from "../../src/eval/need-data.ts";

const TMP = mkdtempSync(join(tmpdir(), "bc-calibrate-sessions-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const DEMO = Object.entries(DEMO_FILES);
const [, SUM_FIX] = DEMO.find(([k]) => k.endsWith("recorded-sum-fix.jsonl"))!;
/** the session as it was copied while it was shorter: its first 40 lines, a dozen tool results among them */
const EARLIER = `${SUM_FIX.split("\n").slice(0, 40).join("\n")}\n`;

/** A folder of the other demo sessions (named `other-<i>`, or in the reverse order) plus `files` (name -> text). */
const folder = (name: string, files: Record<string, string>, reversed = false): string => {
  const dir = join(TMP, name);
  mkdirSync(dir);
  const others = DEMO.filter(([k]) => !k.endsWith("recorded-sum-fix.jsonl"));
  others.forEach(([, text], i) => writeFileSync(join(dir, `other-${reversed ? others.length - i : i}.jsonl`), text));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
};

test("a copy taken while its session was shorter is left out whatever the files are called: the same samples, the same weights, byte for byte", () => {
  // the shorter copy sorts after its session in one folder, before it in the other
  const after = collectNeedSamples([folder("copy-after", { "a.jsonl": SUM_FIX, "b.jsonl": EARLIER })], () => {});
  const before = collectNeedSamples([folder("copy-before", { "a.jsonl": EARLIER, "b.jsonl": SUM_FIX }, true)], () => {});
  expect(before.samples).toEqual(after.samples);
  expect(before.sessions.map((s) => s.group)).toEqual(after.sessions.map((s) => s.group));
  expect(before.fingerprint).toBe(after.fingerprint);
  const fit = (data: typeof after) => JSON.stringify(fitNeedModel(data.samples, { ...DEFAULT_FIT, source: `corpus ${data.fingerprint}` }));
  expect(fit(before)).toBe(fit(after));
  // the shorter one is the copy, in both
  expect(after.skipped).toEqual([
    "copy-after/b.jsonl: a copy of copy-after/a.jsonl (every tool result of it is there, with the same id and text): replayed once",
  ]);
  expect(before.skipped).toEqual([
    "copy-before/a.jsonl: a copy of copy-before/b.jsonl (every tool result of it is there, with the same id and text): replayed once",
  ]);
});

test("lines the readers skipped inside sessions that loaded are listed as file:line: why, under the file's name", () => {
  const lines = SUM_FIX.split("\n");
  const broken = [...lines.slice(0, 10), "{not json", ...lines.slice(10)].join("\n");
  const data = collectNeedSamples([folder("malformed", { "s.jsonl": broken })], () => {});
  expect(data.malformed).toHaveLength(1);
  expect(data.malformed[0]).toStartWith("malformed/s.jsonl:11: not valid JSON");
  expect(data.skipped).toEqual([]);
  expect(data.sessions).toHaveLength(5);
});

test("a write that fails is one line naming the weights file, and leaves no temporary file behind", () => {
  const dir = join(TMP, "write");
  mkdirSync(join(dir, "need-weights.json"), { recursive: true });
  expect(() => writeWeights(join(dir, "need-weights.json"), "{}\n")).toThrow(`${join(dir, "need-weights.json")}: cannot be written (a folder is in the way)`);
  expect(readdirSync(dir)).toEqual(["need-weights.json"]);
  writeFileSync(join(dir, "file"), "");
  expect(() => writeWeights(join(dir, "file", "need-weights.json"), "{}\n")).toThrow(
    `${join(dir, "file", "need-weights.json")}: cannot be written (a file is in the way of its folder)`,
  );
  expect(readdirSync(dir).sort()).toEqual(["file", "need-weights.json"]);
  writeWeights(join(dir, "new", "need-weights.json"), "{}\n");
  expect(readdirSync(join(dir, "new"))).toEqual(["need-weights.json"]);
  expect(existsSync(join(dir, "new", "need-weights.json"))).toBe(true);
});
