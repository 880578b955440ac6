// linesOf: the lines of a byte stream however its chunks fall: across line ends, inside a
// character of several bytes, one long line in many pieces, a last line with no "\n".
import { expect, test } from "bun:test";
import { linesOf } from "../../src/util/lines.ts";

const streamOf = (chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> =>
  new ReadableStream({
    start(c) {
      for (const x of chunks) c.enqueue(x);
      c.close();
    },
  });

const linesIn = async (chunks: readonly Uint8Array[]): Promise<string[]> => {
  const out: string[] = [];
  for await (const l of linesOf(streamOf(chunks))) out.push(l);
  return out;
};

/** `text`'s bytes cut every `size` bytes. */
const cut = (text: string, size: number): Uint8Array[] => {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
};

test("the same lines whatever the chunk size, a character of several bytes cut in two included", async () => {
  const text = 'first\n\n{"a":"ü€😀"}\nlast without a line end';
  for (const size of [1, 2, 3, 5, 64]) expect(await linesIn(cut(text, size))).toEqual(["first", "", '{"a":"ü€😀"}', "last without a line end"]);
});

test("a long line in many small chunks, and nothing after a last line end", async () => {
  const long = "x".repeat(200_000);
  expect(await linesIn(cut(`${long}\nshort\n`, 1000))).toEqual([long, "short"]);
  expect(await linesIn([])).toEqual([]);
});
