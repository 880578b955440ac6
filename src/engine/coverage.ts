// Names that only results hold. Prose and call inputs are never cut, so a name they hold stays in
// the history whatever happens to results; a name only results hold is gone once the last result
// holding it is cut. Cutting one of several results that hold the same names loses nothing the
// others do not still show. The escalation weighs a result's need by the share of its names that
// no other kept result holds, and updates that share as it cuts.
//
// Names are the distinctive identifiers and the long numbers (ports, ids, counts, line numbers) of
// the token grammar, read from the first SAMPLE_CHARS characters of each result: enough to tell a
// result that repeats others from one with names of its own, at a fraction of the cost of reading
// every result whole. (Paths too were measured: no better at 95% of the window, and slower.)
import type { ResultItem, SessionFacts } from "./session-facts.ts";
import { IDENTIFIER_GRAMMAR, NUMBER_GRAMMAR } from "./tokens.ts";

/** Characters of each result its names are read from. */
export const SAMPLE_CHARS = 2000;

/** The names of a sample no prose or call input holds. */
const namesIn = (sample: string, inProse: (name: string) => boolean): string[] => {
  const seen = new Set<string>();
  for (const m of sample.matchAll(IDENTIFIER_GRAMMAR.pattern)) {
    const id = m[0];
    if (!seen.has(id) && IDENTIFIER_GRAMMAR.isDistinctive(id) && !inProse(id)) seen.add(id);
  }
  for (const m of sample.matchAll(NUMBER_GRAMMAR.pattern)) {
    const n = m[0];
    if (!seen.has(n) && !inProse(n)) seen.add(n);
  }
  return [...seen];
};

export class Coverage {
  /** per result (by ordinal): its names no prose or call input holds */
  private readonly names: (readonly string[])[];
  /** per result: whether it still holds its names (kept whole) */
  private readonly holds: Uint8Array;
  /** each name -> how many results still hold it */
  private readonly holders = new Map<string, number>();

  /**
   * `holding(item)`: whether the item is kept whole as things stand; `scored(item)`: whether its
   * own names are asked for (names are read for these and for every holder only).
   */
  constructor(facts: SessionFacts, holding: (item: ResultItem) => boolean, scored: (item: ResultItem) => boolean) {
    const { firstSeen } = facts.lookup.tokenTables();
    const inProse = (name: string): boolean => firstSeen.has(name);
    // a sample seen before is read once (outputs repeat: the same file read again, the same listing)
    const bySample = new Map<string, readonly string[]>();
    this.names = facts.items.map(() => []);
    this.holds = new Uint8Array(facts.items.length);
    for (const item of facts.items) {
      const holds = holding(item);
      if (!holds && !scored(item)) continue;
      const sample = item.result.text.slice(0, SAMPLE_CHARS);
      let names = bySample.get(sample);
      if (names === undefined) {
        names = namesIn(sample, inProse);
        bySample.set(sample, names);
      }
      this.names[item.ordinal] = names;
      if (!holds) continue;
      this.holds[item.ordinal] = 1;
      for (const n of names) this.holders.set(n, (this.holders.get(n) ?? 0) + 1);
    }
  }

  /** The share of the result's names no other result holds (0 when it has none). */
  ownShare(ordinal: number): number {
    const names = this.names[ordinal]!;
    if (names.length === 0) return 0;
    const self = this.holds[ordinal]!;
    let own = 0;
    for (const n of names) if ((this.holders.get(n) ?? 0) - self === 0) own++;
    return own / names.length;
  }

  /** The result is cut: it no longer holds its names. */
  release(ordinal: number): void {
    if (this.holds[ordinal] === 0) return;
    this.holds[ordinal] = 0;
    for (const n of this.names[ordinal]!) this.holders.set(n, this.holders.get(n)! - 1);
  }
}
