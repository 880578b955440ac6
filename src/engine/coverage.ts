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
import { forEachIdentifierMatch } from "./identifier-scan.ts";
import { IDENTIFIER_GRAMMAR, NUMBER_GRAMMAR } from "./tokens.ts";

/** Characters of each result its names are read from. */
export const SAMPLE_CHARS = 2000;

/**
 * A result's names, as ids (see NameIds), each with where its first occurrence ends (a
 * head that long shows it).
 */
interface Names {
  readonly ids: Int32Array;
  readonly ends: Int32Array;
}

const NO_NAMES: Names = { ids: new Int32Array(0), ends: new Int32Array(0) };

/** An id for a string that is never a name: prose or a call input holds it, or it is not distinctive. */
const NOT_A_NAME = -1;

/**
 * Every name of the session, numbered once: a name is hashed once per occurrence, and whether
 * it counts (distinctive, held by no prose or input) is asked once per name, not per occurrence.
 */
class NameIds {
  private readonly ids = new Map<string, number>();
  /** per name id: the last sample it was seen in (to take its first occurrence only) */
  private lastSample = new Int32Array(64).fill(-1);
  private count = 0;
  private readonly inProse: (name: string) => boolean;

  constructor(inProse: (name: string) => boolean) {
    this.inProse = inProse;
  }

  get size(): number {
    return this.count;
  }

  /** The id of a name found as an identifier (which must be distinctive) or as a long number. */
  private idOf(name: string, identifier: boolean): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = (!identifier || IDENTIFIER_GRAMMAR.isDistinctive(name)) && !this.inProse(name) ? this.count++ : NOT_A_NAME;
      this.ids.set(name, id);
      if (this.count > this.lastSample.length) {
        const grown = new Int32Array(2 * this.lastSample.length).fill(-1);
        grown.set(this.lastSample);
        this.lastSample = grown;
      }
    }
    return id;
  }

  /** The names of one sample (`sample` numbers it), each once, with where its first occurrence ends. */
  namesIn(text: string, sample: number): Names {
    const ids: number[] = [];
    const ends: number[] = [];
    const take = (id: number, end: number): void => {
      if (id === NOT_A_NAME || this.lastSample[id] === sample) return;
      this.lastSample[id] = sample;
      ids.push(id);
      ends.push(end);
    };
    forEachIdentifierMatch(text, (start, end) => take(this.idOf(text.slice(start, end), true), end));
    for (const m of text.matchAll(NUMBER_GRAMMAR.pattern)) take(this.idOf(m[0], false), m.index + m[0].length);
    return ids.length === 0 ? NO_NAMES : { ids: Int32Array.from(ids), ends: Int32Array.from(ends) };
  }
}

/** Held whole: every name of the result is shown. */
export const WHOLE = Number.POSITIVE_INFINITY;

export class Coverage {
  /** per result (by ordinal): its names no prose or call input holds */
  private readonly names: Names[];
  /** per result: how many of its first characters the history still shows (0: none; WHOLE) */
  private readonly shows: Float64Array;
  /** per name id: how many results still show it */
  private readonly holders: Int32Array;

  /**
   * `showing(item)`: how many of the item's first characters the history shows as things stand
   * (WHOLE when kept, its head when truncated, 0 when dropped); `scored(item)`: whether its own
   * names are asked for (names are read for these and for every holder only).
   */
  constructor(facts: SessionFacts, showing: (item: ResultItem) => number, scored: (item: ResultItem) => boolean) {
    const { firstSeen } = facts.lookup.tokenTables();
    const ids = new NameIds((name) => firstSeen.has(name));
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
        names = ids.namesIn(sample, bySample.size);
        bySample.set(sample, names);
      }
      this.names[item.ordinal] = names;
      this.shows[item.ordinal] = shows;
    }
    this.holders = new Int32Array(ids.size);
    this.names.forEach(({ ids: held, ends }, k) => {
      const shows = this.shows[k]!;
      for (let i = 0; i < held.length; i++) if (ends[i]! <= shows) this.holders[held[i]!]!++;
    });
  }

  /**
   * The share of the result's names that no other result shows and that cutting it to its first
   * `keep` characters would hide (0 when it has none).
   */
  ownShare(ordinal: number, keep = 0): number {
    const { ids, ends } = this.names[ordinal]!;
    if (ids.length === 0) return 0;
    const shows = this.shows[ordinal]!;
    let own = 0;
    for (let i = 0; i < ids.length; i++) {
      const end = ends[i]!;
      if (end > keep && this.holders[ids[i]!]! - (end <= shows ? 1 : 0) === 0) own++;
    }
    return own / ids.length;
  }

  /** The result is cut to its first `keep` characters (0: dropped): the names past them are no longer shown. */
  release(ordinal: number, keep = 0): void {
    const shows = this.shows[ordinal]!;
    if (keep >= shows) return;
    const { ids, ends } = this.names[ordinal]!;
    for (let i = 0; i < ids.length; i++) {
      const end = ends[i]!;
      if (end <= shows && end > keep) this.holders[ids[i]!]!--;
    }
    this.shows[ordinal] = keep;
  }
}
