import { describe, expect, test } from "bun:test";
import type { Session } from "../../src/engine/types.ts";
import { cutContext } from "../../src/eval/cut.ts";
import { needSamples } from "../../src/eval/need-data.ts";
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
