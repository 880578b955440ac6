import { defineCommand } from "citty";
import { BcError } from "../util/errors.ts";

export default defineCommand({
  meta: { name: "inspect", description: "Print a session's shape: messages, tool calls, output size, host compactions" },
  args: {},
  run() {
    throw new BcError("usage", "'bc inspect' is not available in this build yet");
  },
});
