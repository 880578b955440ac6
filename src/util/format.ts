// Numbers as people read them in bc's terminal output.

/** A token count: 950, 12.3k, 26.34M. */
export const tokenCount = (n: number): string =>
  n >= 1_000_000 ? `${(n / 1_000_000).toFixed(2)}M` : n >= 1_000 ? `${(n / 1_000).toFixed(1)}k` : String(Math.round(n));
