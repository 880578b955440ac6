// Folders that may not be there: listing one, and taking back the ones bc made.
import { readdirSync, rmdirSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** A folder's entries (name, and whether a folder); none when it cannot be read. */
export const listDir = (dir: string): { name: string; dir: boolean }[] => {
  try {
    return readdirSync(dir, { withFileTypes: true }).map((d) => ({ name: d.name, dir: d.isDirectory() }));
  } catch {
    return [];
  }
};

/**
 * Remove the folders `mkdirSync(dir, { recursive: true })` made, from `dir` out to `created` (what
 * it returned), each only while it is empty: a write that fails leaves no empty folder behind, and
 * never removes one that was there before or holds anything.
 */
export const removeMadeDirs = (dir: string, created: string | undefined): void => {
  if (created === undefined) return;
  const outermost = resolve(created);
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return;
    }
    if (d === outermost || dirname(d) === d) return;
  }
};
