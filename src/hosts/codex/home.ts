// Where Codex keeps its state: $CODEX_HOME, by default ~/.codex.
import { homedir } from "node:os";
import { join } from "node:path";

/** $CODEX_HOME, else `<home>/.codex` (home: the user's home folder unless given). */
export const defaultCodexHome = (home?: string): string => process.env.CODEX_HOME || join(home ?? homedir(), ".codex");
