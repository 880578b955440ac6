// How to run this bc again as another process (the hook Codex runs, bc eval's worker processes):
// the compiled binary itself, or bun with the entry file from a checkout.

export const selfCommand = (): string[] => {
  const main = Bun.main;
  return main.startsWith("/$bunfs") || main.startsWith("B:/~BUN") ? [process.execPath] : [process.execPath, main];
};
