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

/** A result's names, each with where its first occurrence ends (a head that long shows it). */
interface Names {
  readonly names: readonly string[];
  readonly ends: Int32Array;
}

const NO_NAMES: Names = { names: [], ends: new Int32Array(0) };

/** The names of a sample no prose or call input holds. */
const namesIn = (sample: string, inProse: (name: string) => boolean): Names => {
  const seen = new Map<string, number>();
  for (const m of sample.matchAll(IDENTIFIER_GRAMMAR.pattern)) {
    const id = m[0];
    if (!seen.has(id) && IDENTIFIER_GRAMMAR.isDistinctive(id) && !inProse(id)) seen.set(id, m.index + id.length);
  }
  for (const m of sample.matchAll(NUMBER_GRAMMAR.pattern)) {
    const n = m[0];
    if (!seen.has(n) && !inProse(n)) seen.set(n, m.index + n.length);
  }
  return { names: [...seen.keys()], ends: Int32Array.from(seen.values()) };
};

/** Held whole: every name of the result is shown. */
export const WHOLE = Number.POSITIVE_INFINITY;

export class Coverage {
  /** per result (by ordinal): its names no prose or call input holds */
  private readonly names: Names[];
  /** per result: how many of its first characters the history still shows (0: none; WHOLE) */
  private readonly shows: Float64Array;
  /** each name -> how many results still show it */
  private readonly holders = new Map<string, number>();

  /**
   * `showing(item)`: how many of the item's first characters the history shows as things stand
   * (WHOLE when kept, its head when truncated, 0 when dropped); `scored(item)`: whether its own
   * names are asked for (names are read for these and for every holder only).
   */
  constructor(facts: SessionFacts, showing: (item: ResultItem) => number, scored: (item: ResultItem) => boolean) {
    const { firstSeen } = facts.lookup.tokenTables();
    const inProse = (name: string): boolean => firstSeen.has(name);
    // a sample seen before is read once (outputs repeat: the same file read again, the same listing)
    const bySample = new Map<string, Names>();
    this.names = facts.items.map(() => NO_NAMES);
    this.shows = new Float64Array(facts.items.length);
    for (const item of facts.items) {
      const shows = showing(item);
      if (shows === 0 && !scored(item)) continue;
      const sample = item.result.text.slice(0, SAMPLE_CHARS);
      let names = bySample.get(sample);
      if (names === undefined) {
        names = namesIn(sample, inProse);
        bySample.set(sample, names);
      }
      this.names[item.ordinal] = names;
      this.shows[item.ordinal] = shows;
      names.names.forEach((n, i) => {
        if (names.ends[i]! <= shows) this.holders.set(n, (this.holders.get(n) ?? 0) + 1);
      });
    }
  }

  /**
   * The share of the result's names that no other result shows and that cutting it to its first
   * `keep` characters would hide (0 when it has none).
   */
  ownShare(ordinal: number, keep = 0): number {
    const { names, ends } = this.names[ordinal]!;
    if (names.length === 0) return 0;
    const shows = this.shows[ordinal]!;
    let own = 0;
    names.forEach((n, i) => {
      const end = ends[i]!;
      if (end <= keep) return;
      if ((this.holders.get(n) ?? 0) - (end <= shows ? 1 : 0) === 0) own++;
    });
    return own / names.length;
  }

  /** The result is cut to its first `keep` characters (0: dropped): the names past them are no longer shown. */
  release(ordinal: number, keep = 0): void {
    const shows = this.shows[ordinal]!;
    if (keep >= shows) return;
    const { names, ends } = this.names[ordinal]!;
    names.forEach((n, i) => {
      const end = ends[i]!;
      if (end <= shows && end > keep) this.holders.set(n, this.holders.get(n)! - 1);
    });
    this.shows[ordinal] = keep;
  }
}
