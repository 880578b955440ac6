// The need facts of results in a small made-up session, each worked out by hand.
import { describe, expect, test } from "bun:test";
import { needTable } from "../../../src/engine/need/table.ts";
import { BEYOND_RECENT, SessionBuilder, fileLines } from "../support/build.ts";

const body = (name: string): string => fileLines(name, 30).join("\n");

describe("need facts", () => {
  const b = new SessionBuilder().user("look at the config");
  const first = b.read("/repo/config.ts", body("config_first"));
  const failed = b.call("Read", { file_path: "/repo/config.ts" }, "File does not exist.", { isError: true });
  const second = b.read("/repo/config.ts", body("config_second"));
  const other = b.read("/repo/other.ts", body("other_file"));
  b.call("Edit", { file_path: "/repo/other.ts", old_string: "a", new_string: "b" }, "The file /repo/other.ts has been updated.");
  const listing = b.bash("ls src", "alpha.ts\nbeta.ts\n");
  b.bash("ls src", "alpha.ts\nbeta.ts\n");
  b.filler(BEYOND_RECENT);
  const rows = needTable(b.session());
  const facts = (id: string) => rows.find((r) => r.callId === id)!.facts;

  test("a read followed by another read of its file: read again, not the latest", () => {
    expect(facts(first)).toMatchObject({ toolClass: "read", readAgain: true, latestRead: false });
  });

  test("the last read of a file: the latest, not read again (a failed read after it would not count)", () => {
    expect(facts(second)).toMatchObject({ readAgain: false, latestRead: true, writtenAfter: false });
    expect(facts(failed).latestRead).toBe(false);
  });

  test("a read whose file a later call changed: written after", () => {
    expect(facts(other)).toMatchObject({ readAgain: false, latestRead: true, writtenAfter: true });
  });

  test("a command run again later with the same input: repeated later; the rerun is not", () => {
    expect(facts(listing)).toMatchObject({ toolClass: "listing", repeatedLater: true });
    expect(rows.at(-1)!.facts.repeatedLater).toBe(false);
  });
});
