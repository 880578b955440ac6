// The lines of a byte stream (UTF-8, "\n" between lines), as they arrive: what bc's line
// protocols read (the MCP server's stdin, bc eval's worker processes and their answers). A line
// may arrive in many chunks: only each new chunk is searched, and a line's pieces are joined once.

/** Each line of `stream`, without its "\n"; a last line without one too, when not empty. */
export async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const dec = new TextDecoder();
  /** the pieces of the line under way */
  let pieces: string[] = [];
  const take = function* (text: string): Generator<string> {
    let from = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
      pieces.push(text.slice(from, nl));
      yield pieces.length === 1 ? pieces[0]! : pieces.join("");
      pieces = [];
      from = nl + 1;
    }
    if (from < text.length) pieces.push(text.slice(from));
  };
  for await (const chunk of stream) yield* take(dec.decode(chunk, { stream: true }));
  yield* take(dec.decode());
  const last = pieces.join("");
  if (last !== "") yield last;
}
