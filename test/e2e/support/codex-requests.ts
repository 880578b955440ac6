// Reading what Codex sent the mock: its base instructions apart from the rest of the input, and the
// history a request carries, so the e2e tests can compare it with a rollout's.
import { contentText, isInjectedContext } from "../../../src/hosts/codex/items.ts";

type Item = Record<string, any>;

const textOf = (item: Item | undefined): string => (Array.isArray(item?.content) ? contentText(item.content) : "");

/**
 * The base instructions a request carries, the same in every request of a Codex process (made from
 * the session's `base_instructions`; the interactive CLI's leave out the `update_plan` sections):
 * Codex 0.163.0 and later send them as the first developer message of `input`, 0.150 to 0.156 in
 * `instructions`. In `input` they are a developer message like a hook's, told apart only by their
 * place and text: Codex writes them in no history.
 */
export const baseInstructionsOf = (body: Item): string =>
  typeof body.instructions === "string" && body.instructions.length > 0 ? body.instructions : textOf((body.input as Item[])[0]);

/** A request's input after its base instructions, which must be `base` (an earlier request's); throws if they are not there. */
export const inputAfterBaseInstructions = (body: Item, base: string): Item[] => {
  const input = body.input as Item[];
  if (typeof body.instructions === "string" && body.instructions.length > 0) {
    if (body.instructions !== base) throw new Error(`the request's instructions are not the session's base instructions: ${body.instructions.slice(0, 80)}`);
    return input;
  }
  const first = input[0];
  if (first?.type !== "message" || first.role !== "developer" || textOf(first) !== base)
    throw new Error(`the request's input does not begin with the session's base instructions: ${JSON.stringify(first).slice(0, 200)}`);
  return input.slice(1);
};

/** A request's history: its input after the base instructions, without Codex's context messages and without the newest prompt. */
export const requestHistory = (body: Item, base: string): Item[] =>
  inputAfterBaseInstructions(body, base)
    .filter((it) => !isInjectedContext(it as any))
    .slice(0, -1);
