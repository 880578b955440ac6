// Codex's own estimate of a history it has not sent (codex-rs, context_manager/history.rs), figures
// worked out by hand here.
import { expect, test } from "bun:test";
import { codexItemBytes, codexTokens } from "../../../src/hosts/codex/codex-estimate.ts";

test("an item counts its JSON's UTF-8 bytes; tokens are each item's bytes / 4 rounded up, summed", () => {
  const item = { type: "message", role: "user", content: [{ type: "input_text", text: "é" }] };
  const json = '{"type":"message","role":"user","content":[{"type":"input_text","text":"é"}]}';
  expect(codexItemBytes(item)).toBe(json.length + 1);
  // 78 bytes: 20 tokens each, 40 for two (one sum of 156 bytes would also be 39)
  expect(codexItemBytes(item)).toBe(78);
  expect(codexTokens([item, item])).toBe(40);
  const five = { a: 1 }; // {"a":1}: 7 bytes, 2 tokens
  expect(codexTokens([five, five, five])).toBe(6);
});

test("a reasoning item's encrypted content counts as 3/4 of its length less 650 bytes, whatever else the item holds", () => {
  const reasoning = (chars: number) => ({
    type: "reasoning",
    summary: [{ type: "summary_text", text: "x".repeat(5000) }],
    content: null,
    encrypted_content: "A".repeat(chars),
  });
  expect(codexItemBytes(reasoning(4000))).toBe(2350);
  expect(codexTokens([reasoning(4000)])).toBe(588);
  expect(codexItemBytes(reasoning(800))).toBe(0);
  // without encrypted content, its JSON
  const plain = { type: "reasoning", summary: [], content: null };
  expect(codexItemBytes(plain)).toBe(JSON.stringify(plain).length);
});

test("an inline base64 image counts 7,373 bytes in place of its data; an image by URL, its JSON", () => {
  const data = "B".repeat(100_000);
  const msg = { type: "message", role: "user", content: [{ type: "input_image", image_url: `data:image/png;base64,${data}` }] };
  expect(codexItemBytes(msg)).toBe(JSON.stringify(msg).length - 100_000 + 7373);
  const out = { type: "function_call_output", call_id: "c1", output: [{ type: "input_image", image_url: `data:image/jpeg;base64,${data}` }] };
  expect(codexItemBytes(out)).toBe(JSON.stringify(out).length - 100_000 + 7373);
  const byUrl = { type: "message", role: "user", content: [{ type: "input_image", image_url: "https://example.com/a.png" }] };
  expect(codexItemBytes(byUrl)).toBe(JSON.stringify(byUrl).length);
});
