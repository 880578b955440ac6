// The request Codex sends after bc's injection, read as the end-to-end suite reads what Codex sent
// its mock: the history in it must be the source's, pruned verbatim, each item once.
import { describe, expect, test } from "bun:test";
import { isAlreadyCut } from "../../../../src/engine/notes.ts";
import { rebuildHistory } from "../../../../src/hosts/codex/history.ts";
import { isInjectedContext, isOutputItem, outputText, sentForm } from "../../../../src/hosts/codex/items.ts";
import { planLive } from "../../../../src/hosts/codex/live/plan.ts";
import { parseRollout, sessionMeta } from "../../../../src/hosts/codex/rollout.ts";
import { baseInstructionsOf, inputAfterBaseInstructions, requestHistory } from "../../../e2e/support/codex-requests.ts";
import { bigText, RolloutBuilder } from "./support.ts";

type Json = Record<string, any>;

const message = (role: string, text: string): Json => ({ type: "message", role, content: [{ type: "input_text", text }] });
const PROMPT = message("user", "What is the codeword?");
const HOOK_TEXT = "## Related Decisions\n\n### 1. Keep the cache";

const rollout = parseRollout(
  new RolloutBuilder()
    .turn("turn-1")
    .context()
    .user("RUN: cat a.txt RUN: cat b.txt RUN: cat a.txt")
    .hook(HOOK_TEXT)
    .shell("cat a.txt", bigText("a.txt", 8_000))
    .shell("cat b.txt", bigText("b.txt", 8_000))
    .shell("cat a.txt", bigText("a.txt", 8_000))
    .shell("echo one", "one\n")
    .assistant("Done.")
    .tokens(20_000)
    .done("turn-1")
    .text(),
  "rollout.jsonl",
);
const base = (sessionMeta(rollout)!.payload as Json).base_instructions.text as string;
const plan = planLive(rollout, { autoCompactLimit: 100_000 });
const rebuilt = rebuildHistory(rollout).items.map((h) => sentForm(h.item) as Json);
/** the source's history as the suite takes it from the rollout: without Codex's context */
const source = rebuilt.filter((it) => !isInjectedContext(it as any));
/**
 * What Codex 0.163.0 to 0.171.0 send after bc's revert and injection: the base instructions as the
 * first developer message, the initial context, the injected items, the prompt.
 */
const request: Json = { input: [message("developer", base), ...rebuilt.filter((it) => isInjectedContext(it as any)), ...plan.items, PROMPT] };

describe("the request after bc's injection, as the end-to-end suite reads it", () => {
  test("Codex's base instructions, a developer message it writes in no history, are no part of the history; a hook's developer message is, once, in its place", () => {
    expect(plan.fits).toBe(true);
    expect(baseInstructionsOf(request)).toBe(base);
    const history = requestHistory(request, base);
    expect(history).toEqual([...plan.items]);
    expect(history.length).toBe(source.length);
    let cut = 0;
    history.forEach((it, i) => {
      const src = source[i]!;
      if (isOutputItem(it as any) && outputText(it.output).text !== outputText(src.output).text) {
        expect(isAlreadyCut(outputText(it.output).text)).toBe(true);
        cut++;
      } else expect(it).toEqual(src);
    });
    expect(cut).toBe(plan.resultsDropped + plan.resultsTruncated);
    expect(history.filter((it) => it.role === "developer")).toEqual([message("developer", HOOK_TEXT)]);
  });

  test("Codex 0.150 to 0.156 send them in `instructions`: the input holds the context and the history alone", () => {
    const older = { instructions: base, input: request.input.slice(1) };
    expect(baseInstructionsOf(older)).toBe(base);
    expect(requestHistory(older, base)).toEqual([...plan.items]);
  });

  test("a request that does not begin with the session's base instructions is refused, not read as history", () => {
    expect(() => inputAfterBaseInstructions({ input: request.input.slice(1) }, base)).toThrow("does not begin with the session's base instructions");
    expect(() => inputAfterBaseInstructions({ instructions: "You are someone else.", input: [] }, base)).toThrow("not the session's base instructions");
  });
});
