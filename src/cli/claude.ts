import { defineCommand } from "citty";
import { BcError } from "../util/errors.ts";

export default defineCommand({
  meta: { name: "claude", description: "Install, remove and inspect the Claude Code plugin" },
  args: {},
  run() {
    throw new BcError("usage", "'bc claude' is not available in this build yet");
  },
});
