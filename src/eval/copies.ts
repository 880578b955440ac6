// A session that is a copy of one read before it: a fork that was not continued (bc's Codex fork,
// Claude Code's `--resume … --fork-session`), whose history repeats its source's. Replaying it too
// would count every one of its results twice (in the eval's figures and in a refit's samples).
// A copy is a session every tool result of which an earlier session holds under the same call id
// with the same text: hosts give every call a random id, so that happens only to copies.
import type { Session } from "../engine/types.ts";

/** Each tool result of a session as a copy is told by: its host, call id and a hash of its output. */
export const copyKeys = (session: Session): string[] =>
  session.messages.flatMap((m) => m.toolResults.map((r) => `${session.host}\u0000${r.callId}\u0000${Bun.hash(r.text).toString(36)}`));

export class CopyFinder {
  /** host, call id and a hash of the output -> the first session holding it */
  private readonly holders = new Map<string, string>();

  /**
   * The name of an earlier session holding every tool result of this one (undefined when it has a
   * result of its own, or none at all); the session's results are remembered either way.
   */
  copyOf(name: string, session: Session): string | undefined {
    return this.copyOfKeys(name, copyKeys(session));
  }

  /** copyOf, for a session given by its copyKeys. */
  copyOfKeys(name: string, keys: readonly string[]): string | undefined {
    const first = keys.length === 0 ? undefined : this.holders.get(keys[0]!);
    const copy = first !== undefined && keys.every((k) => this.holders.has(k)) ? first : undefined;
    for (const k of keys) if (!this.holders.has(k)) this.holders.set(k, name);
    return copy;
  }
}

/** The reason a copy is not replayed. */
export const copyReason = (name: string, of: string): string =>
  `${name}: a copy of ${of} (every tool result of it is there, with the same id and text): replayed once`;

/** What decides which of two sessions holding the same results is kept, the other being its copy. */
export interface CopyCandidate {
  readonly name: string;
  readonly hash: string;
  readonly keys: readonly string[];
  readonly messages: number;
}

/**
 * Which of two sessions holding the same results is kept (the other is its copy): the one with more
 * results, then more messages (a copy taken while its session was shorter loses), then the lower
 * content hash. Never the name or the order found: renaming or moving files must not move a fit or
 * a report. The name decides only between byte-identical files, which give the same figures.
 */
export const keptFirst = (a: CopyCandidate, b: CopyCandidate): number =>
  b.keys.length - a.keys.length || b.messages - a.messages || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Which of `sessions` are copies of another among them, decided by content alone (keptFirst), once
 * every one is read: each copy, with the name of the session it copies.
 */
export const copiesByContent = <T extends CopyCandidate>(sessions: readonly T[]): Map<T, string> => {
  const finder = new CopyFinder();
  const copies = new Map<T, string>();
  for (const c of [...sessions].sort(keptFirst)) {
    const of = finder.copyOfKeys(c.name, c.keys);
    if (of !== undefined) copies.set(c, of);
  }
  return copies;
};
