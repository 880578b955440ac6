// What every benchmark shares: its flags, the median, and the floor it is measured beside.

/** A positive number given as `name N` on the command line, or `fallback`; a bad value exits 2. */
export const argNumber = (bench: string, name: string, fallback: number, opts: { readonly whole?: boolean } = {}): number => {
  const i = process.argv.indexOf(name);
  const n = i === -1 ? fallback : Number(process.argv[i + 1]);
  if (!Number.isFinite(n) || n <= 0 || (opts.whole && !Number.isInteger(n))) {
    process.stderr.write(`${bench}: ${name} needs a positive ${opts.whole ? "whole " : ""}number\n`);
    process.exit(2);
  }
  return n;
};

/** `--runs N`: how many timed runs (after a warm-up). */
export const runsArg = (bench: string, fallback: number): number => argNumber(bench, "--runs", fallback, { whole: true });

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * The floor: a bun program that only reads a JSONL file (its last argument) and JSON.parses
 * every line. Run it as `bun -e FLOOR_SCRIPT <file>` or from a file.
 */
export const FLOOR_SCRIPT = `
const text = await Bun.file(process.argv.at(-1)).text();
let n = 0;
for (const line of text.split("\\n")) if (line.length > 0) { JSON.parse(line); n++; }
process.stdout.write(String(n) + "\\n");
`;
