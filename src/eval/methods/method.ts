// What a method is to the replay: given a cut, the text it leaves in place of each tool
// result it changes. Results it leaves alone are absent from the map.
import type { CutContext } from "../cut.ts";

/** ordinal of a result → the text the method leaves in its place */
export type Rewrites = ReadonlyMap<number, string>;

export interface MethodInput extends CutContext {
  /** tool-output tokens the rules freed at this cut (largest-first's budget) */
  readonly rulesFreedTokens: number;
}

export interface Method {
  /** stable kebab-case id: flags, report rows, JSON keys */
  readonly id: string;
  /** one line for the report: what it does, with its parameters */
  readonly summary: string;
  readonly run: (input: MethodInput) => Rewrites;
}
