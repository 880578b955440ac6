// The need facts of results in a small made-up session, each worked out by hand.
import { describe, expect, test } from "bun:test";
import { repeatedLaterOf } from "../../../src/engine/need/facts.ts";
import { needTable } from "../../../src/engine/need/table.ts";
import type { ResultItem } from "../../../src/engine/session-facts.ts";
import { BEYOND_RECENT, SessionBuilder, fileLines } from "../support/build.ts";
import { prng } from "../support/generate.ts";

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

describe("a call repeated later", () => {
  test("read from the end, tool then input: the same answers as the plain search for a later result with both the same", () => {
    const rnd = prng(31);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const names = ["Read", "Bash", "shell", "Re\u0000ad"];
    const inputs = ["{}", '{"a":1}', "ls", "x".repeat(2000), "x".repeat(2001), "ad\u0000{}", ""];
    for (let round = 0; round < 200; round++) {
      const items = Array.from({ length: Math.floor(rnd() * 12) }, (_, ordinal) => ({
        ordinal,
        call: rnd() < 0.15 ? undefined : { name: pick(names), inputText: pick(inputs) },
      })) as unknown as ResultItem[];
      // the plain definition: a later result's call has the same tool and the same input, not too long to count
      const plain = items.map((a, k) =>
        a.call !== undefined &&
        a.call.inputText.length <= 2000 &&
        items.some((b, j) => j > k && b.call?.name === a.call!.name && b.call.inputText === a.call!.inputText)
          ? 1
          : 0,
      );
      expect([...repeatedLaterOf(items)]).toEqual(plain);
    }
  });
});
