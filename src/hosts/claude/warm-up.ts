// A made-up session for the plugin's warm-up: the kinds of work a real one holds, so that a
// compaction at load time runs the code a real compaction runs, at sizes where its loops are hot
// (many results and lines, many candidate tokens, replies to look for quotes in). Reads
// with Claude Code's line numbers (`     1→`, so the text is not Latin-1 only), files read again
// and edited, searches, listings, test runs that fail, a person's answer, and replies that name
// identifiers, quote a line and lay down a rule. Deterministic: no clock, no random source.
// Runs inside Claude Code's hooks worker: no Bun, no Node here.
import type { SessionRow, ToolUseSummary } from "./rows.ts";

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"];
/** files the session works on */
const FILES = 16;
/** tool results in the session */
const RESULTS = 72;
/** lines of a file */
const LINES = 90;

/** a small linear congruential sequence: the same numbers every time */
const sequence = (seed: number): (() => number) => {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
};

/** the made-up project's folder */
const ROOT = "/home/dev/shop";
/** a file's path in the project, and the same from the project's folder */
const relative = (f: number): string => `src/${WORDS[f % WORDS.length]}/${WORDS[(f * 7) % WORDS.length]}_service${f}.ts`;
const path = (f: number): string => `${ROOT}/${relative(f)}`;
const ident = (f: number, i: number, v: number): string => `${WORDS[(f + i) % WORDS.length]}Handler${f}_${i}${v > 0 ? `_v${v}` : ""}`;
const fileLine = (f: number, i: number, v: number): string =>
  i % 9 === 0
    ? `// ${WORDS[i % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]}: see issue #${4000 + f * 100 + i}`
    : `export const ${ident(f, i, v)} = register("${WORDS[i % WORDS.length]}-${f}-${i}", { retries: ${i % 7}, timeoutMs: ${1000 + i * 37} });`;
const fileText = (f: number, v: number, from = 1, to = LINES): string => {
  const out: string[] = [];
  for (let i = from; i <= to; i++) out.push(`${String(i).padStart(6)}\u2192${fileLine(f, i, v)}`);
  return out.join("\n");
};

/** The rows of the made-up session, ending with an assistant reply. */
export const warmUpRows = (): SessionRow[] => {
  const next = sequence(7919);
  const pick = (n: number): number => Math.floor(next() * n);
  const version = new Array<number>(FILES).fill(0);
  const rows: SessionRow[] = [{ role: "user", text: "Please move the handlers to the new registry and keep the tests green.", toolUses: [] }];
  /** lines results showed, for replies to quote */
  const shown: string[] = [];
  let id = 0;
  const step = (tool: string, input: unknown, text: string, isError = false, say = ""): void => {
    const toolUse: ToolUseSummary = { tool_use_id: `toolu_warm_${++id}`, tool, input };
    rows.push({ role: "assistant", text: say, toolUses: [toolUse] });
    rows.push({ role: "user", text: "", toolUses: [], toolResults: [{ tool_use_id: toolUse.tool_use_id, text, isError }] });
  };
  // a longer reply, as agents write them: what was found, with names, paths, numbers and quoted strings
  const explain = (f: number): string => {
    const i = 1 + pick(LINES - 1);
    const g = (f + 1 + pick(FILES - 1)) % FILES;
    return [
      `I looked at \`${path(f)}\` and \`${path(g)}\`. The registry is built in \`${ident(f, i, version[f]!)}\`, which passes "${WORDS[i % WORDS.length]}-${f}-${i}" and a timeout of ${1000 + i * 37} ms.`,
      `- \`${ident(g, i, version[g]!)}\` still uses the old \`register()\` signature (line ${i}), so issue #${4000 + g * 100 + i} applies there too.`,
      `- The failing case reads "expected ${1000 + 3 * 37}, received 0" \u2014 the timeout is dropped when retries is 0.`,
      `Plan: update both call sites, then run \`bun test ${relative(g)}\` and the whole suite.`,
    ].join("\n");
  };
  const reply = (): string => {
    const r = next();
    const f = pick(FILES);
    if (r < 0.3 && shown.length > 0) return `The line that matters is:\n\`\`\`\n${shown[pick(shown.length)]}\n\`\`\``;
    if (r < 0.45) return `Next I change ${ident(f, 1 + pick(LINES - 1), version[f]!)} in ${path(f)}.`;
    if (r < 0.6) return explain(f);
    if (r < 0.7) return "Note: we must keep the public API stable \u2192 old names stay as aliases.";
    return "";
  };
  for (let k = 0; k < RESULTS; k++) {
    const f = pick(FILES);
    const r = next();
    if (r < 0.4) {
      const ranged = next() < 0.3;
      const from = ranged ? 1 + pick(LINES / 2) : 1;
      const to = ranged ? from + 10 + pick(30) : LINES;
      const text = fileText(f, version[f]!, from, to);
      step("Read", ranged ? { file_path: path(f), offset: from, limit: to - from + 1 } : { file_path: path(f) }, text, false, reply());
      shown.push(fileLine(f, from + 1, version[f]!));
    } else if (r < 0.55) {
      const i = 1 + pick(LINES - 1);
      const old = fileLine(f, i, version[f]!);
      version[f]!++;
      step("Edit", { file_path: path(f), old_string: old, new_string: fileLine(f, i, version[f]!) }, `The file ${path(f)} has been updated successfully.`);
    } else if (r < 0.65) {
      const word = WORDS[pick(WORDS.length)]!;
      const hits = Array.from(
        { length: 30 },
        (_, j) => `${path((f + j) % FILES)}:${1 + ((j * 13) % LINES)}:${fileLine((f + j) % FILES, 1 + ((j * 13) % LINES), 0)}`,
      );
      step("Grep", { pattern: `${word}Handler`, path: `${ROOT}/src`, output_mode: "content", "-n": true }, hits.join("\n"));
    } else if (r < 0.72) {
      step("Glob", { pattern: "src/**/*.ts" }, Array.from({ length: FILES }, (_, j) => path(j)).join("\n"));
    } else if (r < 0.85) {
      const failing = next() < 0.4;
      const cases = Array.from({ length: 40 }, (_, j) => `(pass) ${ident(j % FILES, j + 1, 0)} registers [${(j % 5) + 0.1}ms]`);
      const text = `${failing ? `(fail) ${ident(f, 3, 0)} keeps its timeout\nerror: expect(received).toBe(expected)\n  Expected: ${1000 + 3 * 37}\n  Received: 0\n` : ""}${cases.join("\n")}\n\n ${failing ? 39 : 40} pass\n ${failing ? 1 : 0} fail`;
      step("Bash", { command: "bun test", description: "Run the tests" }, failing ? `Exit code 1\n${text}` : text, failing);
    } else if (r < 0.92) {
      step(
        "Bash",
        { command: "git status --short", description: "What changed" },
        version
          .map((v, j) => (v > 0 ? ` M ${relative(j)}` : ""))
          .filter(Boolean)
          .join("\n") || "(nothing)",
      );
    } else if (r < 0.95) {
      step("AskUserQuestion", { questions: [{ question: "Keep the old names as aliases?" }] }, "User answered: yes, for one release");
    } else {
      step(
        "Bash",
        { command: `ls -la src/${WORDS[f % WORDS.length]}`, description: "List" },
        Array.from(
          { length: 24 },
          (_, j) => `-rw-r--r-- 1 dev dev ${1200 + j * 31} Dec  1 10:${String(j).padStart(2, "0")} ${WORDS[j % WORDS.length]}_service${j}.ts`,
        ).join("\n"),
      );
    }
  }
  rows.push({ role: "assistant", text: `Done. ${reply()} You must keep ${ident(1, 2, version[1]!)}.`, toolUses: [] });
  return rows;
};
