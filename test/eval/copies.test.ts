// A copy of a session read before (a fork not continued) is replayed once, in the eval and in a refit.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Session } from "../../src/engine/types.ts";
import { CopyFinder } from "../../src/eval/copies.ts";
import { DEMO_FILES } from "../../src/eval/demo/index.ts";
import { collectFiles } from "../../src/eval/corpus.ts";
import { collectNeedSamples } from "../../src/eval/need-data.ts";
import { runEval } from "../../src/eval/run.ts";
import { SessionBuilder, bashTurn } from "../engine/support/build.ts";

const TMP = mkdtempSync(join(tmpdir(), "bc-copies-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** A session of tool results given as [call id, output]. */
const session = (results: [string, string][], host: Session["host"] = "claude"): Session => {
  const b = new SessionBuilder().user("start");
  const s = b.session();
  const messages = [...s.messages];
  for (const [id, text] of results) messages.push(...bashTurn(id, "ls", text));
  return { ...s, host, messages };
};

describe("CopyFinder", () => {
  test("a session every result of which an earlier one holds (same id, same text) is a copy of it", () => {
    const f = new CopyFinder();
    expect(
      f.copyOf(
        "a",
        session([
          ["toolu_1", "one"],
          ["toolu_2", "two"],
        ]),
      ),
    ).toBeUndefined();
    expect(
      f.copyOf(
        "b",
        session([
          ["toolu_1", "one"],
          ["toolu_2", "two"],
        ]),
      ),
    ).toBe("a");
    // a fork continued past its source: results of its own, not a copy
    expect(
      f.copyOf(
        "c",
        session([
          ["toolu_1", "one"],
          ["toolu_2", "two"],
          ["toolu_3", "three"],
        ]),
      ),
    ).toBeUndefined();
    // a copy of the continued fork, read after it
    expect(f.copyOf("d", session([["toolu_3", "three"]]))).toBe("c");
  });

  test("the same id with another text, the same id under the other host, or no result at all: no copy", () => {
    const f = new CopyFinder();
    f.copyOf("a", session([["toolu_1", "one"]]));
    expect(f.copyOf("b", session([["toolu_1", "another"]]))).toBeUndefined();
    expect(f.copyOf("c", session([["toolu_1", "one"]], "codex"))).toBeUndefined();
    expect(f.copyOf("d", session([]))).toBeUndefined();
  });
});

test("a refit's samples: a session and its copy give the samples of the session alone, and the copy is named", () => {
  const [, text] = Object.entries(DEMO_FILES).find(([k]) => k.includes("/codex/"))!;
  const one = join(TMP, "one");
  const two = join(TMP, "two");
  mkdirSync(join(one, "x"), { recursive: true });
  mkdirSync(join(two, "x"), { recursive: true });
  writeFileSync(join(one, "x", "a.jsonl"), text);
  writeFileSync(join(two, "x", "a.jsonl"), text);
  writeFileSync(join(two, "x", "b.jsonl"), text);
  const alone = collectNeedSamples([one], () => {});
  const both = collectNeedSamples([two], () => {});
  expect(alone.samples.length).toBeGreaterThan(0);
  expect(both.samples).toEqual(alone.samples);
  expect(both.skipped).toEqual(["two/x/b.jsonl: a copy of two/x/a.jsonl (every tool result of it is there, with the same id and text): replayed once"]);
});

test("bc eval keeps the longer of a session and a copy taken while it was shorter, whatever the files are called", async () => {
  const [, text] = Object.entries(DEMO_FILES).find(([k]) => k.includes("/claude/"))!;
  const lines = text.trimEnd().split("\n");
  const prefix = `${lines.slice(0, Math.floor(lines.length * 0.6)).join("\n")}\n`;
  const run = async (copyName: string) => {
    const dir = join(TMP, `eval-${copyName}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "m-session.jsonl"), text);
    writeFileSync(join(dir, copyName), prefix);
    return runEval({ ...collectFiles([dir]), kind: "files", cuts: [0.5], passes: [], methods: ["rules"] });
  };
  const before = await run("a-copy.jsonl");
  const after = await run("z-copy.jsonl");
  for (const [r, copy] of [
    [before, "a-copy.jsonl"],
    [after, "z-copy.jsonl"],
  ] as const) {
    expect(r.sessions.map((s) => basename(s.file))).toEqual(["m-session.jsonl"]);
    expect(r.corpus.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(new RegExp(`${copy}: a copy of \\S*m-session\\.jsonl`))]);
  }
  expect(after.hosts).toEqual(before.hosts);
});
