import { defineCommand } from "citty";
import { BcError } from "../util/errors.ts";

export default defineCommand({
  meta: { name: "plan", description: "Dry run: show what the rules would keep, truncate or drop, and why" },
  args: {},
  run() {
    throw new BcError("usage", "'bc plan' is not available in this build yet");
  },
});
