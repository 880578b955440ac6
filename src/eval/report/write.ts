// Writing the three report files: all three are written to temporary names first and then
// renamed into place, so an interrupted run never leaves a half-written report.
import { existsSync, mkdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BcError } from "../../util/errors.ts";
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
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new BcError("bad-input", `${dir}: cannot create the report folder (${(e as Error).message})`);
  }
  const texts = renderReport(r);
  const tmp = (name: string): string => join(dir, `.${name}.${process.pid}.tmp`);
  try {
    for (const name of REPORT_FILES) writeFileSync(tmp(name), texts[name]);
    for (const name of REPORT_FILES) renameSync(tmp(name), join(dir, name));
  } catch (e) {
    for (const name of REPORT_FILES) if (existsSync(tmp(name))) unlinkSync(tmp(name));
    throw new BcError("bad-input", `${dir}: cannot write the report (${(e as Error).message})`);
  }
  return REPORT_FILES.map((name) => join(dir, name));
};
