// A wait with an end, for a read of Claude Code's that the hook can do without. Runs inside
// Claude Code's hooks worker: no Bun, no Node, no bare package on this path (its timers are there).

/** `promise`, or a rejection once `ms` milliseconds have passed without its answer. */
export const within = <T>(ms: number, promise: Promise<T>): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};
