// A real failure in the middle of a write, as a full disk makes one: a child process the system lets
// grow no file past 512 bytes (`ulimit -f 1`), SIGXFSZ ignored so the write fails with EFBIG
// instead of killing it. And a folder's whole content, to show that such a failure changed nothing.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** How large a file the child may write: a text longer than this fails part way. */
export const FILE_SIZE_LIMIT = 512;

/** Run `argv` under the limit. */
export const underFileSizeLimit = (argv: readonly string[], opts: { readonly cwd?: string; readonly env?: Record<string, string | undefined> } = {}) => {
  const r = Bun.spawnSync(["/bin/sh", "-c", `trap '' XFSZ; ulimit -f 1; exec "$@"`, "sh", ...argv], {
    cwd: opts.cwd,
    env: opts.env,
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
};

/** `bun -e script` under the limit, in `cwd`: the lines it prints. */
export const evalUnderFileSizeLimit = (script: string, cwd?: string): string[] =>
  underFileSizeLimit([process.execPath, "-e", script], { cwd }).stdout.trim().split("\n");

/** Every file and folder under `dir` (relative path to the file's bytes, "folder" for a folder): a temporary file left shows as one more. */
export const folderContent = (dir: string): Record<string, Buffer | "folder"> => {
  const out: Record<string, Buffer | "folder"> = {};
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const rel = join(e.parentPath, e.name).slice(dir.length + 1);
    out[rel] = e.isDirectory() ? "folder" : readFileSync(join(dir, rel));
  }
  return out;
};
