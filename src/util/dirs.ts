// Folders that may not be there: listing one, whether bc can write in one, and taking back the
// ones bc made.
import { mkdirSync, readdirSync, rmdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

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

/** The nearest part of `path` that exists (the path itself when it does). */
const nearestExisting = (path: string): string => {
  let p = path;
  while (dirname(p) !== p) {
    try {
      statSync(p);
      return p;
    } catch {
      p = dirname(p);
    }
  }
  return p;
};

/**
 * Why bc cannot make a file in `dir` (undefined: it can), found by making one: as root, access()
 * says yes to nearly everything, a real write does not. `at`: the part of the path in the way or
 * refused; `code`: the system's (ENOTDIR: `at` is a file, not a folder). Nothing is left behind,
 * the folders made for the test included: a command that checks first and fails later has
 * changed nothing.
 */
export const unwritableDir = (dir: string): { readonly at: string; readonly code: string } | undefined => {
  const there = nearestExisting(dir);
  if (!statSync(there).isDirectory()) return { at: there, code: "ENOTDIR" };
  const probe = join(dir, `.bc-probe-${process.pid}-${Date.now()}`);
  let created: string | undefined;
  try {
    created = mkdirSync(dir, { recursive: true });
    writeFileSync(probe, "", { flag: "wx" });
    return undefined;
  } catch (e) {
    return { at: there, code: (e as NodeJS.ErrnoException).code ?? (e as Error).message };
  } finally {
    rmSync(probe, { force: true });
    removeMadeDirs(dir, created);
  }
};
