// JSON string bodies full of escapes (\", \uXXXX, surrogate pairs, \\), for tests of the
// piecewise decoding of huge lines (src/util/huge-line.ts).

export const UNIT = 'log line \\"quoted\\" caf\\u00e9 \\uD83D\\uDE00 raw é 😀 back\\\\slash tab\\t end\\n';

/** A JSON string body of `chars` characters: the unit repeated, shifted by `shift`, cut clean at the end. */
export const trickyBody = (chars: number, shift: number): string =>
  ("x".repeat(shift) + UNIT.repeat(Math.ceil(chars / UNIT.length) + 1)).slice(0, chars).replace(/\\[^"]*$/, "");
