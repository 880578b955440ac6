// The methods bc is compared with, each as published, at its
// published defaults. Pins are enforced for every method by the replay, after the method
// runs, so each method is judged on the same removable results as the rules.
import { estimateTextTokens } from "../../engine/estimate.ts";
import type { ResultInfo } from "../session-index.ts";
import type { Method, MethodInput, Rewrites } from "./method.ts";

export const REMOVAL_NOTE = (chars: number): string => `[output removed: ${chars} chars; re-run the call to see it]`;

// --- clear-tool-uses: Anthropic API context editing `clear_tool_uses_20250919`
export const CLEAR_TOOL_USES = { triggerTokens: 100_000, keepToolUses: 3, clearAtLeastTokens: 0 } as const;
export const CLEARED_PLACEHOLDER = "[tool result cleared]";

// --- microcompact: Claude Code's own tool-result clearing
export const MICROCOMPACT = { keepToolUses: 12, clearAtLeastTokens: 20_000 } as const;
export const MICROCOMPACT_PLACEHOLDER = "[Old tool result content cleared]";
export const MICROCOMPACT_TOOLS: ReadonlySet<string> = new Set(["Read", "Bash", "Grep", "Glob", "WebSearch", "WebFetch", "Edit", "Write"]);
/** Codex's shell tools, counted as Bash */
export const CODEX_SHELL_TOOLS: ReadonlySet<string> = new Set([
  "exec_command",
  "write_stdin",
  "exec",
  "shell",
  "shell_command",
  "local_shell",
  "container.exec",
]);

// --- opencode-prune: sst/opencode packages/opencode/src/session/compaction.ts
export const OPENCODE_PRUNE = { protectTokens: 40_000, minimumTokens: 20_000, protectUserTurns: 2 } as const;
export const OPENCODE_PROTECTED_TOOLS: ReadonlySet<string> = new Set(["skill"]);
export const OPENCODE_PLACEHOLDER = "[Old tool result content cleared]";

// --- observation-mask: JetBrains "The Complexity Trap" (SWE-agent LastNObservations)
export const OBSERVATION_MASK = { keepResults: 10 } as const;
export const OBSERVATION_PLACEHOLDER = (text: string): string => `Old environment output: (${text.split("\n").length} lines omitted)`;

// --- size-cap: kompact's measured best aggregate cap
export const SIZE_CAP = { capChars: 8_000 } as const;

const tokensSaved = (r: ResultInfo, after: string): number => r.estTokens - estimateTextTokens(after);

const keepAll: Method = {
  id: "keep-all",
  summary: "nothing removed: the floor (0 freed, 0 lost)",
  run: () => new Map(),
};

const dropUnpinned: Method = {
  id: "drop-unpinned",
  summary: "every unpinned tool result replaced by a removal note: the no-judgment ceiling",
  run: ({ results, pinned }) => {
    const out = new Map<number, string>();
    for (const r of results) if (!pinned.has(r.ordinal)) out.set(r.ordinal, REMOVAL_NOTE(r.text.length));
    return out;
  },
};

/** clear every tool result but the newest `keepToolUses` */
const clearOldest = (input: MethodInput): Rewrites => {
  const out = new Map<number, string>();
  const cleared = input.results.slice(0, Math.max(0, input.results.length - CLEAR_TOOL_USES.keepToolUses));
  let saved = 0;
  for (const r of cleared) {
    out.set(r.ordinal, CLEARED_PLACEHOLDER);
    saved += tokensSaved(r, CLEARED_PLACEHOLDER);
  }
  return saved >= CLEAR_TOOL_USES.clearAtLeastTokens ? out : new Map();
};

const clearToolUses: Method = {
  id: "clear-tool-uses",
  summary: `Anthropic context editing clear_tool_uses_20250919: once the prefix is over ${CLEAR_TOOL_USES.triggerTokens.toLocaleString("en-US")} tokens, clear all but the newest ${CLEAR_TOOL_USES.keepToolUses} tool results`,
  run: (input) => (input.tokensBefore > CLEAR_TOOL_USES.triggerTokens ? clearOldest(input) : new Map()),
};

const clearToolUsesAlways: Method = {
  id: "clear-tool-uses-always",
  summary: `clear-tool-uses applied at every cut whatever the prefix size (trigger ignored), keep ${CLEAR_TOOL_USES.keepToolUses}`,
  run: clearOldest,
};

const isMicrocompactable = (tool: string): boolean => MICROCOMPACT_TOOLS.has(tool) || CODEX_SHELL_TOOLS.has(tool);

const microcompact: Method = {
  id: "microcompact",
  summary: `Claude Code microcompact: clear all but the newest ${MICROCOMPACT.keepToolUses} results of Read/Bash/Grep/Glob/WebSearch/WebFetch/Edit/Write (Codex shell tools as Bash), only if that saves ${MICROCOMPACT.clearAtLeastTokens.toLocaleString("en-US")} tokens; results with images skipped`,
  run: ({ results }) => {
    const compactable = results.filter((r) => isMicrocompactable(r.tool));
    const older = compactable.slice(0, Math.max(0, compactable.length - MICROCOMPACT.keepToolUses));
    const out = new Map<number, string>();
    let saved = 0;
    for (const r of older) {
      if (r.images > 0) continue;
      out.set(r.ordinal, MICROCOMPACT_PLACEHOLDER);
      saved += tokensSaved(r, MICROCOMPACT_PLACEHOLDER);
    }
    return saved >= MICROCOMPACT.clearAtLeastTokens ? out : new Map();
  },
};

const opencodePrune: Method = {
  id: "opencode-prune",
  summary: `opencode prune: newest to oldest, past the last ${OPENCODE_PRUNE.protectUserTurns} user turns, protect ${OPENCODE_PRUNE.protectTokens.toLocaleString("en-US")} tokens of tool output, clear everything older if over ${OPENCODE_PRUNE.minimumTokens.toLocaleString("en-US")}; errors and skill results never`,
  run: ({ prefix, results }) => {
    const byMessage = new Map<number, ResultInfo[]>();
    for (const r of results) {
      const list = byMessage.get(r.message);
      if (list) list.push(r);
      else byMessage.set(r.message, [r]);
    }
    let turns = 0;
    let total = 0;
    let pruned = 0;
    const marked: ResultInfo[] = [];
    for (let i = prefix.messages.length - 1; i >= 0; i--) {
      const m = prefix.messages[i]!;
      if (m.role === "user" && m.kind === "prompt") turns++;
      if (turns < OPENCODE_PRUNE.protectUserTurns) continue;
      const rs = byMessage.get(i) ?? [];
      for (let j = rs.length - 1; j >= 0; j--) {
        const r = rs[j]!;
        if (r.isError) continue; // only completed tool parts are pruned
        // opencode's tool is `skill`; Claude Code's the same tool, `Skill`
        if (OPENCODE_PROTECTED_TOOLS.has(r.tool.toLowerCase())) continue;
        total += r.estTokens;
        if (total > OPENCODE_PRUNE.protectTokens) {
          pruned += r.estTokens;
          marked.push(r);
        }
      }
    }
    if (pruned <= OPENCODE_PRUNE.minimumTokens) return new Map();
    return new Map(marked.map((r) => [r.ordinal, OPENCODE_PLACEHOLDER]));
  },
};

const observationMask: Method = {
  id: "observation-mask",
  summary: `observation masking: keep the newest ${OBSERVATION_MASK.keepResults} tool results verbatim, older ones become a placeholder`,
  run: ({ results }) => {
    const out = new Map<number, string>();
    for (const r of results.slice(0, Math.max(0, results.length - OBSERVATION_MASK.keepResults))) out.set(r.ordinal, OBSERVATION_PLACEHOLDER(r.text));
    return out;
  },
};

const sizeCap: Method = {
  id: "size-cap",
  summary: `cut every tool result longer than ${SIZE_CAP.capChars.toLocaleString("en-US")} characters to its first ${SIZE_CAP.capChars.toLocaleString("en-US")}`,
  run: ({ results }) => {
    const out = new Map<number, string>();
    for (const r of results) if (r.text.length > SIZE_CAP.capChars) out.set(r.ordinal, r.text.slice(0, SIZE_CAP.capChars));
    return out;
  },
};

const largestFirst: Method = {
  id: "largest-first",
  summary: "drop unpinned results largest first (passing over any that would overshoot) until as many tokens are freed as the rules freed at that cut",
  run: ({ results, pinned, rulesFreedTokens }) => {
    const out = new Map<number, string>();
    if (rulesFreedTokens <= 0) return out;
    const candidates = results.filter((r) => !pinned.has(r.ordinal)).sort((a, b) => b.estTokens - a.estTokens || a.ordinal - b.ordinal);
    let freed = 0;
    for (const r of candidates) {
      if (freed >= rulesFreedTokens) break;
      const note = REMOVAL_NOTE(r.text.length);
      const saved = tokensSaved(r, note);
      // a result that would carry the total past the budget is passed over for a smaller one:
      // the comparison is at equal budget, not "whatever the largest result happens to free"
      if (saved <= 0 || freed + saved > rulesFreedTokens) continue;
      out.set(r.ordinal, note);
      freed += saved;
    }
    return out;
  },
};

export const BASELINES: readonly Method[] = [
  keepAll,
  dropUnpinned,
  clearToolUses,
  clearToolUsesAlways,
  microcompact,
  opencodePrune,
  observationMask,
  sizeCap,
  largestFirst,
];
