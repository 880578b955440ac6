import { defineCommand } from "citty";
import { BcError } from "../util/errors.ts";

export default defineCommand({
  meta: { name: "codex-fork", description: "Fork a Codex rollout into a session whose history is the pruned verbatim one" },
  args: {},
  run() {
    throw new BcError("usage", "'bc codex-fork' is not available in this build yet");
  },
});
