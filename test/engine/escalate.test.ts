// Escalation toward a token budget (escalate.ts): the classes in order, oldest first within one,
// never a pinned or never-drop result, and the budget's outcome reported.
import { describe, expect, test } from "bun:test";
import { truncatedText } from "../../src/engine/notes.ts";
import { plan } from "../../src/engine/plan.ts";
import { SessionBuilder, fileLines, numbered } from "./support/build.ts";

const big = (tag: string, n = 40) => Array.from({ length: n }, (_, i) => `${tag} line ${i} of output that nobody will mention again`).join("\n");

const LISTING = Array.from({ length: 40 }, (_, i) => `-rw-r--r-- 1 dev staff 100 listed_file_${i}.txt`).join("\n");

/** oldest first: a listing, a read re-read later (changed, so not superseded), then recent unreferenced outputs */
const escalationSession = () => {
  const b = new SessionBuilder().user("go");
  b.filler(2);
  const listing = b.bash("ls -la", LISTING);
  const readA = b.read("/r/a.ts", numbered(fileLines("alpha", 30)));
  b.assistant("I will look at listed_file_3.txt and alphaValue3 next."); // both referenced: kept by the rules
  b.call("Edit", { file_path: "/r/a.ts", old_string: "x", new_string: "y" }, "ok");
  b.filler(6);
  const recent = b.bash("./report", big("report"));
  b.read("/r/a.ts", numbered(fileLines("alphb", 30)));
  b.filler(3);
  return { session: b.session(), listing, readA, recent };
};

describe("escalation", () => {
  test("escalation: re-runnable output first, then re-read files, then recent unreferenced results; oldest first; pins untouched", () => {
    const { session, listing, readA, recent } = escalationSession();
    const base = plan(session);
    const rule = (p: typeof base, id: string) => p.decisions.find((d) => d.callId === id)!;
    expect(rule(base, recent).rule).toBe("too-recent");
    // a budget met by the listing alone
    expect(rule(base, listing)).toMatchObject({ action: "truncate", rule: "re-runnable" });
    expect(rule(base, readA)).toMatchObject({ action: "keep", rule: "referenced" });
    const first = plan(session, { budgetTokens: base.totals.tokensAfter - 10 });
    expect(rule(first, listing)).toMatchObject({ action: "drop", rule: "escalation" });
    expect(rule(first, readA).rule).not.toBe("escalation");
    expect(first.budget).toEqual({ tokens: base.totals.tokensAfter - 10, reached: true });
    // a budget that needs one more: the re-read file goes next, the recent output stays
    const second = plan(session, { budgetTokens: first.totals.tokensAfter - 10 });
    expect([listing, readA, recent].map((id) => rule(second, id).rule)).toEqual(["escalation", "escalation", "too-recent"]);
    const third = plan(session, { budgetTokens: second.totals.tokensAfter - 10 });
    expect([listing, readA, recent].map((id) => rule(third, id).rule)).toEqual(["escalation", "escalation", "escalation"]);
    // an impossible budget: everything allowed is cut, pins and prose are not, and it says so
    const none = plan(session, { budgetTokens: 1 });
    expect(none.budget).toEqual({ tokens: 1, reached: false });
    for (const d of none.decisions) if (d.rule === "pinned" || d.rule === "never-drop") expect(d.action).toBe("keep");
  });

  test("never a result an earlier pass cut, nor one without a call, nor one its note would not shorten", () => {
    const b = new SessionBuilder().user("go");
    const cut = b.bash("ls -la", truncatedText(LISTING, 200));
    const short = b.bash("ls", "a.txt b.txt");
    b.messages.push({ role: "user", kind: "tool", text: "", toolCalls: [], toolResults: [{ callId: "orphan", text: big("orphan"), isError: false, images: 0 }] });
    const listing = b.bash("ls -la", LISTING);
    b.assistant("I will look at listed_file_3.txt next."); // referenced: the rules only truncate it
    b.filler(12);
    const p = plan(b.session(), { budgetTokens: 1 });
    const rule = (id: string) => p.decisions.find((d) => d.callId === id)!;
    expect(p.budget).toEqual({ tokens: 1, reached: false });
    expect(rule(cut)).toMatchObject({ action: "keep", rule: "already-cut" });
    expect(rule(short).action).toBe("keep");
    expect(rule("orphan").rule).not.toBe("escalation");
    expect(rule(listing)).toMatchObject({ action: "drop", rule: "escalation" });
  });
});
