// The lines of a byte stream (UTF-8, "\n" between lines), as they arrive: what bc's line
// protocols read (the MCP server's stdin, bc eval's worker processes and their answers).

/** Each line of `stream`, without its "\n"; a last line without one too, when not empty. */
export async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += dec.decode(chunk, { stream: true });
    let from = 0;
    for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n", from)) {
      yield buf.slice(from, nl);
      from = nl + 1;
    }
    buf = buf.slice(from);
  }
  buf += dec.decode();
  if (buf !== "") yield buf;
}
