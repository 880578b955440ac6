// Listing a folder that may not be there.
import { readdirSync } from "node:fs";

/** A folder's entries (name, and whether a folder); none when it cannot be read. */
export const listDir = (dir: string): { name: string; dir: boolean }[] => {
  try {
    return readdirSync(dir, { withFileTypes: true }).map((d) => ({ name: d.name, dir: d.isDirectory() }));
  } catch {
    return [];
  }
};
