// Reading what Claude Code sent the mock: tool results by id, tool uses, and prose, so the
// e2e tests can say what a compaction changed in the next request and what it left alone.

import { dropNote } from "../../../src/engine/notes.ts";

/** A removal note, in any form bc ever wrote (the first, those naming the call for `bc recall`, today's short one). */
export const NOTE_RE =
  /^\[(?:output removed by better-compaction: (\d+) chars|bc removed (\d+) chars); (?:re-run the call to see it|run bc recall \S+ to see it exactly, or re-run the call|bc recall \S+ prints it)\]$/;
/** Whether a request (as its JSON text) carries a removal note bc writes today. */
export const HAS_NOTE = /\[bc removed \d+ chars; /;
export const noteFor = (chars: number, callId: string): string => dropNote(chars, callId);

type Block = { type: string; text?: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown; is_error?: boolean };

const blocks = (m: any): Block[] => (typeof m?.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m?.content) ? m.content : []);

const contentText = (c: unknown): string =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c
          .filter((b: any) => b?.type === "text")
          .map((b: any) => b.text as string)
          .join("\n")
      : "";

const isNoise = (t: string): boolean => {
  const s = t.trimStart();
  return s.startsWith("<system-reminder>") || s.startsWith("<local-command") || s.startsWith("<command-") || s.trim() === "";
};

export interface RequestView {
  /** tool_result content text by tool_use_id; an id seen twice is listed in `duplicateResults` */
  readonly results: Map<string, string>;
  readonly duplicateResults: string[];
  /** tool_use blocks in order */
  readonly uses: { id: string; name: string; input: unknown }[];
  /** assistant text blocks in order */
  readonly assistantTexts: string[];
  /** user text blocks that are not Claude Code's own reminders or command records */
  readonly userTexts: string[];
}

export const viewOf = (body: any): RequestView => {
  const results = new Map<string, string>();
  const duplicateResults: string[] = [];
  const uses: RequestView["uses"] = [];
  const assistantTexts: string[] = [];
  const userTexts: string[] = [];
  for (const m of body?.messages ?? []) {
    for (const b of blocks(m)) {
      if (m.role === "assistant" && b.type === "text") assistantTexts.push(b.text ?? "");
      if (m.role === "assistant" && b.type === "tool_use") uses.push({ id: b.id!, name: b.name!, input: b.input });
      if (m.role === "user" && b.type === "text" && !isNoise(b.text ?? "")) userTexts.push(b.text ?? "");
      if (m.role === "user" && b.type === "tool_result") {
        if (results.has(b.tool_use_id!)) duplicateResults.push(b.tool_use_id!);
        results.set(b.tool_use_id!, contentText(b.content));
      }
    }
  }
  return { results, duplicateResults, uses, assistantTexts, userTexts };
};

/** Every thinking block's text in a request, in order. */
export const thinkingTexts = (body: any): string[] =>
  (body?.messages ?? []).flatMap((m: any) =>
    blocks(m)
      .filter((b: any) => b.type === "thinking")
      .map((b: any) => (b as { thinking?: string }).thinking ?? ""),
  );

/**
 * The answers of the tool loop a request ends in, each as its blocks: the assistant messages after
 * its last prompt (a user message without tool results), when its last message carries tool
 * results; [] when it ends otherwise.
 */
export const openLoopAnswers = (body: any): any[][] => {
  const messages: any[] = (body?.messages ?? []).filter((m: any) => m?.role === "user" || m?.role === "assistant");
  const hasResults = (m: any): boolean => blocks(m).some((b) => b.type === "tool_result");
  const last = messages.at(-1);
  if (last?.role !== "user" || !hasResults(last)) return [];
  let prompt = messages.length - 1;
  while (prompt >= 0 && (messages[prompt].role !== "user" || hasResults(messages[prompt]))) prompt--;
  return messages
    .slice(prompt + 1)
    .filter((m) => m.role === "assistant")
    .map(blocks);
};

/** Notes in a request: tool_use_id -> note text. */
export const notesOf = (v: RequestView): Map<string, string> => new Map([...v.results].filter(([, t]) => NOTE_RE.test(t)));

/** Problems with `after` as the pruned form of `before`: [] when every kept result is byte-identical, every change a note of the right size, no call lost, prose the same. */
export const comparePruned = (before: RequestView, after: RequestView, dropped: ReadonlySet<string>): string[] => {
  const problems: string[] = [];
  for (const [id, text] of before.results) {
    const now = after.results.get(id);
    if (now === undefined) problems.push(`result ${id} is gone`);
    else if (dropped.has(id)) {
      if (NOTE_RE.test(text)) {
        if (now !== text) problems.push(`note of ${id} changed`);
      } else if (now !== noteFor(text.length, id))
        problems.push(`dropped result ${id} is not the note for ${text.length} chars: ${JSON.stringify(now.slice(0, 80))}`);
    } else if (now !== text) problems.push(`kept result ${id} changed (${text.length} -> ${now.length} chars)`);
  }
  for (const u of before.uses) {
    const now = after.uses.find((x) => x.id === u.id);
    if (!now) problems.push(`tool_use ${u.id} is gone`);
    else if (now.name !== u.name || JSON.stringify(now.input) !== JSON.stringify(u.input)) problems.push(`tool_use ${u.id} changed`);
  }
  for (const id of after.uses.map((u) => u.id)) if (!after.results.has(id)) problems.push(`tool_use ${id} has no result`);
  if (after.duplicateResults.length > 0) problems.push(`results sent twice: ${after.duplicateResults.join(", ")}`);
  // prose: the earlier assistant texts and prompts, in order, byte for byte
  const prefix = (a: string[], b: string[], what: string) => {
    a.forEach((t, i) => {
      if (b[i] !== t) problems.push(`${what} #${i} differs: ${JSON.stringify(t.slice(0, 60))} vs ${JSON.stringify((b[i] ?? "<missing>").slice(0, 60))}`);
    });
  };
  prefix(before.assistantTexts, after.assistantTexts, "assistant text");
  prefix(before.userTexts, after.userTexts, "user text");
  return problems;
};

/**
 * What breaks the API's pairing rule in a request: each assistant message's tool_use ids must all
 * be answered by tool_result blocks in the message right after it, and every tool_result must
 * answer a call of the message right before it. [] when the request keeps it.
 */
export const unpairedCalls = (body: any): string[] => {
  const messages: any[] = (body?.messages ?? []).filter((m: any) => m?.role === "user" || m?.role === "assistant");
  const problems: string[] = [];
  messages.forEach((m, i) => {
    if (m.role === "assistant") {
      const answered = new Set(i + 1 < messages.length ? blocks(messages[i + 1]).map((b) => b.tool_use_id) : []);
      for (const b of blocks(m))
        if (b.type === "tool_use" && !answered.has(b.id)) problems.push(`messages.${i}: tool_use ${b.id} has no tool_result right after it`);
    } else {
      const asked = new Set(i > 0 && messages[i - 1].role === "assistant" ? blocks(messages[i - 1]).map((b) => b.id) : []);
      for (const b of blocks(m))
        if (b.type === "tool_result" && !asked.has(b.tool_use_id)) problems.push(`messages.${i}: tool_result ${b.tool_use_id} answers no call right before it`);
    }
  });
  return problems;
};
