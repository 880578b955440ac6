import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Session } from "../../src/engine/types.ts";
import { collectFiles } from "../../src/eval/corpus.ts";
import { cutContext } from "../../src/eval/cut.ts";
import { DEMO_FILES } from "../../src/eval/demo/index.ts";
import { collectNeedSamples, needSamples } from "../../src/eval/need-data.ts";
import { runEval } from "../../src/eval/run.ts";
import { indexSession } from "../../src/eval/session-index.ts";
import { SessionBuilder } from "../engine/support/build.ts";

const lines = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag} row ${i}: value_${tag}_${i}`).join("\n");

const history = () => {
  const b = new SessionBuilder().user("start");
  const used = b.bash("./one", lines("one", 30));
  const unused = b.bash("./two", lines("two", 30));
  for (let k = 0; k < 12; k++) b.bash(`echo ${k}`, `ok ${k}`);
  b.filler(8);
  return { b, used, unused };
};

describe("need samples by replay", () => {
  test("labels say whether the session used the result after the cut", () => {
    const { b } = history();
    b.assistant("now value_one_4 again");
    b.filler(2);
    const s = b.session();
    const at = 0.8;
    const rows = needSamples("g", s, [at]);
    const ctx = cutContext(indexSession(s), at);
    const byCall = new Map(rows.map((r) => [ctx.results[r.ordinal]!.callId, r.y]));
    const first = ctx.results[0]!;
    expect(byCall.get(first.callId)).toBe(1);
    expect(byCall.get(ctx.results[1]!.callId)).toBe(0);
  });

  test("features see nothing after the cut: another continuation gives the same features", () => {
    const a = history();
    a.b.assistant("now value_one_4 again");
    a.b.filler(2);
    const b = history();
    b.b.assistant("something else: value_two_9");
    b.b.bash("./three", lines("three", 40));
    b.b.filler(2);
    const sa: Session = a.b.session();
    const sb: Session = b.b.session();
    // the same prefix, cut at the same message
    const at = cutContext(indexSession(sa), 0.8).at;
    const share = at / sa.messages.length;
    const shareB = at / sb.messages.length;
    const fa = needSamples("g", sa, [share]);
    const fb = needSamples("g", sb, [shareB]);
    expect(cutContext(indexSession(sb), shareB).at).toBe(at);
    expect(fa.map((r) => [...r.x])).toEqual(fb.map((r) => [...r.x]));
    expect(fa.map((r) => r.y)).not.toEqual(fb.map((r) => r.y));
  });
});

test("a fit names its corpus by the fingerprint bc eval's report gives the same files (a file that is no session counts in both)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bc-need-data-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const demos = Object.entries(DEMO_FILES).slice(0, 2);
  demos.forEach(([, text], i) => {
    mkdirSync(join(dir, `s${i}`));
    writeFileSync(join(dir, `s${i}`, "session.jsonl"), text);
  });
  writeFileSync(join(dir, "notes.jsonl"), "not a session\n");
  const fit = collectNeedSamples([dir], () => {});
  expect(fit.samples.length).toBeGreaterThan(0);
  expect(fit.files).toBe(3);
  expect(fit.skipped).toHaveLength(1);
  expect(fit.skipped[0]).toStartWith(`${join(dir, ".").split("/").pop()}/notes.jsonl`);
  const report = await runEval({ ...collectFiles([dir]), kind: "files", cuts: [0.5], passes: [], methods: ["rules"] });
  expect(report.corpus.files).toBe(3);
  expect(fit.fingerprint).toBe(report.corpus.fingerprint);
});
