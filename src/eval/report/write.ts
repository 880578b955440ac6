// Writing the three report files: all three are written beside their places before any is
// renamed into place, so an interrupted run never leaves a half-written report.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { BcError } from "../../util/errors.ts";
import { replaceFiles } from "../../util/jsonl.ts";
import type { EvalReport } from "../run.ts";
import { renderHtml } from "./html.ts";
import { renderMarkdown } from "./markdown.ts";

export const REPORT_FILES = ["report.md", "report.json", "report.html"] as const;

export const renderJson = (r: EvalReport): string => `${JSON.stringify(r, null, 2)}\n`;

export const renderReport = (r: EvalReport): Record<(typeof REPORT_FILES)[number], string> => ({
  "report.md": renderMarkdown(r),
  "report.json": renderJson(r),
  "report.html": renderHtml(r),
});

/** Default folder: named by the corpus fingerprint, so the same corpus lands in the same place. */
export const defaultOutDir = (r: EvalReport): string => `bc-eval-${r.corpus.kind}-${r.corpus.fingerprint.slice(0, 12)}`;

export const writeReport = (dir: string, r: EvalReport): string[] => {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new BcError("bad-input", `${dir}: exists and is not a folder`, "pass --out with a folder path");
  const texts = renderReport(r);
  const files = REPORT_FILES.map((name) => ({ path: join(dir, name), text: texts[name] }));
  // a report is read like any file the user makes: the umask decides who may read it
  replaceFiles(files, { newMode: 0o666, hint: "no report was written; pass --out with a folder you can write to" });
  return files.map((f) => f.path);
};
