// build/escaped-losses.ts: the tokens a call input shows once unescaped, which the frozen yardstick,
// reading the input as written (JSON), may not find.
import { expect, test } from "bun:test";
import { inputTokensBefore } from "../../build/escaped-losses.ts";
import { extractTokens } from "../../src/eval/yardstick/v1.ts";
import { SessionBuilder } from "../engine/support/build.ts";

test("a name after a tab in a Write's content: the yardstick reads the input as written and misses it; unescaped, it is there", () => {
  const b = new SessionBuilder().user("restyle the dashboard");
  b.call("Write", { file_path: "/p/styles.go", content: "var (\n\ttitleStyle = lipgloss.NewStyle()\n)\n" }, "File written");
  b.assistant("done");
  const s = b.session();
  const write = s.messages[1]!.toolCalls[0]!;
  expect(extractTokens(write.inputText)).not.toContain("titleStyle");
  expect(extractTokens(write.inputText)).toContain("ttitleStyle");
  expect(inputTokensBefore(s, s.messages.length).has("titleStyle")).toBe(true);
  // only the calls before the cut count
  expect(inputTokensBefore(s, 1).has("titleStyle")).toBe(false);
});
