// Where Claude Code keeps its state: $CLAUDE_CONFIG_DIR, by default ~/.claude.
import { homedir } from "node:os";
import { join } from "node:path";

/** $CLAUDE_CONFIG_DIR, else `<home>/.claude` (home: the user's home folder unless given). */
export const defaultClaudeDir = (home?: string): string => process.env.CLAUDE_CONFIG_DIR || join(home ?? homedir(), ".claude");
