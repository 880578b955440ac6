import { describe, expect, test } from "bun:test";
import { apply } from "../../src/engine/apply.ts";
import { isAlreadyCut } from "../../src/engine/notes.ts";
import { plan } from "../../src/engine/plan.ts";
import { BEYOND_RECENT, SessionBuilder } from "./support/build.ts";
import { RULES_ONLY_NEED } from "./support/decide.ts";

const LISTING = Array.from({ length: 40 }, (_, i) => `drwxr-xr-x  file${i}.txt  ${"é😀".repeat(i % 3)}`).join("\n");
const BUILD = "compiling the modules, all of them, one after another\n".repeat(20);

const build = () => {
  const b = new SessionBuilder().user("Do the thing.");
  const dropped = b.bash("./build", BUILD);
  const truncated = b.bash("git status", LISTING);
  b.assistant("Next is file39.txt, then the rest.");
  b.filler(BEYOND_RECENT);
  return { session: b.session(), dropped, truncated };
};

describe("apply", () => {
  const { session, dropped, truncated } = build();
  const p = plan(session, { needModels: RULES_ONLY_NEED });
  const out = apply(session, p);
  const resultOf = (msgs: typeof out, id: string) => msgs.flatMap((m) => m.toolResults).find((r) => r.callId === id)!;

  test("the plan drops one and truncates one", () => {
    expect(p.decisions.find((d) => d.callId === dropped)).toMatchObject({ action: "drop" });
    expect(p.decisions.find((d) => d.callId === truncated)).toMatchObject({ action: "truncate", headChars: 200 });
  });

  test("a dropped result becomes exactly the removal note", () => {
    expect(resultOf(out, dropped).text).toBe(`[bc removed ${BUILD.length} chars; bc recall ${dropped} prints it]`);
  });

  test("a truncated result keeps its head byte for byte and ends with a note giving the characters removed", () => {
    const text = resultOf(out, truncated).text;
    expect(text.startsWith(LISTING.slice(0, 200))).toBe(true);
    expect(text.slice(200)).toBe(`\n[bc cut ${LISTING.length - 200} more chars; bc recall ${truncated} prints it whole]`);
    expect(isAlreadyCut(text)).toBe(true);
  });

  test("a head never splits a surrogate pair", () => {
    const emoji = `${"a".repeat(199)}😀${"b".repeat(500)}`;
    const b = new SessionBuilder().user("go");
    const id = b.bash("ls", emoji);
    b.assistant(`see ${"b".repeat(3)}`);
    b.filler(3);
    const s = b.session();
    const q = plan(s, { pinLastMessages: 0, recentResults: 100 });
    const text = apply(s, { ...q, decisions: q.decisions.map((d) => (d.callId === id ? { ...d, action: "truncate" as const, headChars: 200 } : d)) })
      .flatMap((m) => m.toolResults)
      .find((r) => r.callId === id)!.text;
    expect(text.startsWith(`${"a".repeat(199)}\n[bc cut `)).toBe(true);
  });

  test("untouched messages come back as the same objects; calls and prose are never changed", () => {
    expect(out.length).toBe(session.messages.length);
    out.forEach((m, i) => {
      const before = session.messages[i]!;
      const touched = p.decisions.some((d) => d.messageIndex === i && d.action !== "keep");
      if (!touched) expect(m).toBe(before);
      expect(m.text).toBe(before.text);
      expect(m.toolCalls).toBe(before.toolCalls);
      expect(m.toolResults.map((r) => r.callId)).toEqual(before.toolResults.map((r) => r.callId));
    });
  });

  test("the input session is not modified", () => {
    expect(resultOf([...session.messages], dropped).text).toBe(BUILD);
  });

  test("a skipped plan returns the input messages unchanged", () => {
    const skipped = plan(session, { minRemovalFraction: 0.99 });
    expect(skipped.skipped).toBe(true);
    const same = apply(session, skipped);
    same.forEach((m, i) => expect(m).toBe(session.messages[i]!));
  });

  test("a plan for another session is refused", () => {
    const other = build().session;
    const changed = { ...other, messages: other.messages.map((m) => ({ ...m, toolResults: m.toolResults.map((r) => ({ ...r, text: `${r.text}!` })) })) };
    expect(() => apply(changed, p)).toThrow(/plan does not match/);
  });
});

test("two results with one call id in a message: each takes its own decision, in order (a pinned error stays whole, the other is cut)", () => {
  const big = "x".repeat(2400);
  const call = (id: string) => ({ id, name: "Bash", input: { command: "./build" }, inputText: '{"command":"./build"}' });
  const session = {
    host: "claude" as const,
    id: "s",
    messages: [
      { role: "user" as const, kind: "prompt" as const, text: "go", toolCalls: [], toolResults: [] },
      { role: "assistant" as const, kind: "reply" as const, text: "", toolCalls: [call("toolu_1"), call("toolu_1")], toolResults: [] },
      {
        role: "user" as const,
        kind: "tool" as const,
        text: "",
        toolCalls: [],
        toolResults: [
          { callId: "toolu_1", text: big, isError: true, images: 0 },
          { callId: "toolu_1", text: `${big.slice(0, 1200)}${"y".repeat(1200)}`, isError: false, images: 0 },
        ],
      },
    ],
  };
  const decisions = [
    { callId: "toolu_1", messageIndex: 2, tool: "Bash", chars: 2400, action: "keep" as const, rule: "pinned" as const, reason: "" },
    { callId: "toolu_1", messageIndex: 2, tool: "Bash", chars: 2400, action: "drop" as const, rule: "escalation" as const, reason: "" },
  ];
  const out = apply(session, { decisions, totals: plan(session).totals, skipped: false });
  expect(out[2]!.toolResults[0]!.text).toBe(big);
  expect(isAlreadyCut(out[2]!.toolResults[1]!.text)).toBe(true);
  // a plan for a different session still says so
  const wrong = [decisions[0]!, { ...decisions[1]!, chars: 12 }];
  expect(() => apply(session, { decisions: wrong, totals: plan(session).totals, skipped: false })).toThrow("plan does not match the session");
});
