// Numbers as people read them in bc's terminal output.

/**
 * A token (or character) count: 950, 12.3k, 26.34M. `exactBelow` moves where the exact figure
 * gives way to thousands (default 1,000): a table of sizes may show 9500 rather than 9.5k.
 */
export const tokenCount = (n: number, opts: { readonly exactBelow?: number } = {}): string =>
  // thousands that round to 1000.0k are shown as millions
  n >= 999_950 ? `${(n / 1_000_000).toFixed(2)}M` : n >= (opts.exactBelow ?? 1_000) ? `${(n / 1_000).toFixed(1)}k` : String(Math.round(n));

/** A count with its noun, singular for one: "1 session", "3 sessions". */
export const counted = (n: number, noun: string, plural = `${noun}s`): string => `${n.toLocaleString("en-US")} ${n === 1 ? noun : plural}`;
