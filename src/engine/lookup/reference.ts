// The lookup's definition: every token of every result extracted, every message's tokens
// extracted on their own, every place of a result checked for a quote. No filters, no caps, no
// sampling, no shared work between results: slow and obviously right. fast.ts is held to it.
import type { ResultItem, SessionFacts } from "../session-facts.ts";
import { extractTokens } from "../tokens.ts";
import type { Lookup, TokenTables } from "./lookup.ts";
import { messageText, sightings } from "./lookup.ts";
import { type QuoteTables, buildQuoteTables, findQuote } from "./quotes.ts";

export class ReferenceLookup implements Lookup {
  private readonly facts: SessionFacts;
  private readonly tokenLists = new Map<ResultItem, readonly string[]>();
  private tables?: TokenTables;
  private quotes?: QuoteTables;

  constructor(facts: SessionFacts) {
    this.facts = facts;
  }

  tokensOf(item: ResultItem): readonly string[] {
    let list = this.tokenLists.get(item);
    if (list === undefined) {
      // the whole text, host header included: the same text the evaluation's yardstick reads
      list = item.cut ? [] : extractTokens(item.result.text);
      this.tokenLists.set(item, list);
    }
    return list;
  }

  tokenTables(): TokenTables {
    if (this.tables !== undefined) return this.tables;
    const { firstSeen, lastSeen } = sightings(this.facts.session.messages, (m, visit) => visit(messageText(m)));
    const resultCount = new Map<string, number>();
    for (const item of this.facts.items) for (const t of this.tokensOf(item)) if (lastSeen.has(t)) resultCount.set(t, (resultCount.get(t) ?? 0) + 1);
    this.tables = { firstSeen, lastSeen, resultCount };
    return this.tables;
  }

  quotedAt(item: ResultItem): number {
    this.quotes ??= buildQuoteTables(this.facts.session.messages);
    return findQuote(this.quotes, item.result.text, item.messageIndex);
  }

  sameText(a: ResultItem, b: ResultItem): boolean {
    return a.result.text === b.result.text;
  }
}
