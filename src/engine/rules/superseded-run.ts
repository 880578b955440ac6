// Superseded runs: the output of a command the agent ran again later, word for word and in the same
// folder, is dropped when the latest such run the rules keep whole shows every token of it used
// since: that output is the fresher answer, and holds all of this one the session went on to use.
// A later run the rules drop or cut to its head vouches for nothing; nor do reads (superseded-read
// compares their text).
import { worthANote } from "../notes.ts";
import type { ResultItem, SessionFacts } from "../session-facts.ts";
import { neverDrop } from "./never-drop.ts";
import { pin } from "./pin.ts";
import { reRunnable } from "./re-runnable.ts";
import { referenced } from "./referenced.ts";
import { type Rule, at } from "./rule.ts";

/** Per session: each superseded output, and the latest run kept whole that supersedes it. */
const supersededCache = new WeakMap<SessionFacts, Map<ResultItem, ResultItem>>();

/**
 * Whether the rules keep this output whole: pinned or never dropped, or kept by the lookup and
 * not cut to its head as re-runnable. (A later run is never a read, and no run is superseded by
 * itself, so the other rules have nothing to say of it.)
 */
const keptWhole = (facts: SessionFacts, item: ResultItem): boolean => {
  const ctx = { facts, item };
  if (pin.decide(ctx) !== undefined || neverDrop.decide(ctx) !== undefined) return true;
  return reRunnable.decide(ctx) === undefined && referenced.decide(ctx)?.action === "keep";
};

const supersededRuns = (facts: SessionFacts): Map<ResultItem, ResultItem> => {
  let out = supersededCache.get(facts);
  if (out !== undefined) return out;
  out = new Map();
  const runs = new Map<string, ResultItem[]>();
  for (const item of facts.items) {
    const command = item.meaning.command?.trim();
    if (command === undefined || command === "" || item.meaning.read !== undefined || item.cut) continue;
    const key = `${command}\u0000${item.meaning.workdir ?? ""}`;
    const list = runs.get(key);
    if (list === undefined) runs.set(key, [item]);
    else list.push(item);
  }
  const { lastSeen } = facts.lookup.tokenTables();
  for (const list of runs.values()) {
    // the latest run kept whole: what the earlier runs are held to
    let k = list.length - 1;
    while (k > 0 && !keptWhole(facts, list[k]!)) k--;
    const latest = list[k]!;
    for (let a = 0; a < k; a++) {
      const run = list[a]!;
      let holds = true;
      for (const t of facts.lookup.tokensOf(run)) {
        const seenAt = lastSeen.get(t);
        if (seenAt !== undefined && seenAt > run.messageIndex && !latest.result.text.includes(t)) {
          holds = false;
          break;
        }
      }
      if (holds) out.set(run, latest);
    }
  }
  supersededCache.set(facts, out);
  return out;
};

export const supersededRun: Rule = {
  id: "superseded-run",
  decide({ facts, item }) {
    // an output too short to be worth a note is left to the other rules, which say why it stays
    if (!worthANote(item.result.text.length, item.result.callId)) return undefined;
    const later = supersededRuns(facts).get(item);
    if (later === undefined) return undefined;
    return { action: "drop", rule: "superseded-run", reason: `run again at ${at(later.callMessageIndex)}, which shows all of it used since` };
  },
};
