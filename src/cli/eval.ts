import { defineCommand } from "citty";
import { BcError } from "../util/errors.ts";

export default defineCommand({
  meta: { name: "eval", description: "Replay sessions, cut them, and score what each method loses" },
  args: {},
  run() {
    throw new BcError("usage", "'bc eval' is not available in this build yet");
  },
});
