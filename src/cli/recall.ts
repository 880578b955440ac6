// `bc recall <call id>`: print a tool call's original output, byte for byte, from the files the host
// keeps (bc never deletes an output from disk). `bc recall --list`: what bc removed in a session.
import { defineCommand } from "citty";
import { z } from "zod";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectHost, resolveSession } from "../hosts/load.ts";
import { otherThreadFiles } from "../hosts/codex/rollout-files.ts";
import { projectSessionFiles, recall, type Recalled } from "../hosts/recall/lookup.ts";
import { handsBack, type StoredImage } from "../hosts/recall/records.ts";
import { removedIn, type RemovedList } from "../hosts/recall/removed.ts";
import { subagentFiles } from "../hosts/claude/transcript.ts";
import { needWeightsPath } from "../hosts/claude/install.ts";
import { needModelsOption, weightsInUse } from "../hosts/need-weights.ts";
import { checkPositionals, parseFlags, pathFlag } from "./args.ts";
import { BcError } from "../util/errors.ts";
import { log, out, warnList } from "../util/log.ts";
import { counted } from "../util/format.ts";

const size = (n: number): string => (n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)} MB` : n >= 1000 ? `${(n / 1000).toFixed(1)} kB` : `${n} B`);

export const describeImage = (i: StoredImage): string =>
  `${i.type}${i.toolName ? ` ${i.toolName}` : ""}${i.mediaType ? ` ${i.mediaType}` : ""}${i.bytes === undefined ? "" : `, ${size(i.bytes)}`}`;

/** What the blocks beside an output's text are called: images when every one is, else blocks (a ToolSearch's tool_reference is no picture). */
const blocksNoun = (blocks: readonly StoredImage[]): string => (blocks.every((b) => /image/.test(b.type)) ? "image" : "non-text block");

/** One line for people (stderr): what was recalled and from where. */
export const recallHeading = (r: Recalled): string => {
  const parts = [`${r.id}${r.tool ? ` (${r.tool})` : ""}: ${r.text.length} chars from ${r.path}:${r.lineNo}`];
  if (r.isError) parts.push("the tool reported an error (is_error)");
  if (r.images.length > 0) parts.push(`${counted(r.images.length, blocksNoun(r.images))} not printed: ${r.images.map(describeImage).join("; ")}`);
  return parts.join("; ");
};

const EXTENSIONS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "application/pdf": "pdf",
};

/** An image written to a file by --images: where, and what it is. */
export interface WrittenImage {
  readonly file: string;
  readonly mediaType?: string;
  readonly bytes: number;
}

/**
 * Write the output's inline pictures and PDFs into `dir` (made if missing), one file each:
 * `<id>-<n>.<ext>`, n counting from 1 among the blocks beside the text. A file already there with
 * other bytes is never overwritten (an error names it); with the same bytes it is taken as
 * written. Blocks without inline data, or of other kinds, are passed over.
 */
export const writeImages = (r: Recalled, dir: string): WrittenImage[] => {
  const written: WrittenImage[] = [];
  const safeId = r.id.replace(/[^\w.-]/g, "_");
  r.images.forEach((img, i) => {
    if (!handsBack(img)) return;
    const bytes = Buffer.from(img.data!, "base64");
    const file = join(dir, `${safeId}-${i + 1}.${EXTENSIONS[img.mediaType!] ?? "img"}`);
    if (written.length === 0) mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(file, bytes, { flag: "wx" });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "EEXIST") throw new BcError("bad-input", `${file}: cannot be written (${(e as Error).message})`, "pass --images a folder you can write to");
      if (!readFileSync(file).equals(bytes))
        throw new BcError("exists", `${file}: already there with other bytes; not overwritten`, "pass --images an empty folder");
    }
    written.push({ file, ...(img.mediaType ? { mediaType: img.mediaType } : {}), bytes: bytes.length });
  });
  return written;
};

export const recallJson = (r: Recalled) => ({
  id: r.id,
  host: r.host,
  tool: r.tool ?? null,
  input: r.input ?? null,
  isError: r.isError,
  chars: r.text.length,
  text: r.text,
  images: r.images.map(({ data: _data, ...rest }) => rest),
  path: r.path,
  line: r.lineNo,
  alsoIn: r.alsoIn,
});

export const formatRemoved = (l: RemovedList): string => {
  const lines = [`${l.path}${l.sessionId ? ` (${l.sessionId})` : ""}: ${counted(l.removed.length, "output")} removed or truncated by bc`];
  if (l.removed.length === 0) return lines[0]!;
  const rows = l.removed.map((r) => [r.id, r.tool, r.kind, String(r.charsRemoved), r.rule ?? "-", r.recallable ? "yes" : "no: original not in this file"]);
  const head = ["id", "tool", "action", "chars", "rule", "recall"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]): string =>
    r
      .map((c, i) => (i === 3 ? c.padStart(widths[i]!) : i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  lines.push(fmt(head), ...rows.map(fmt));
  return lines.join("\n");
};

/** What bc removed in one session file; a Codex fork's rules are found by planning again as codex-fork plans: with the need weights in use. */
const removedInFile = (path: string): RemovedList => {
  const host = detectHost(path);
  if (host !== "codex") return removedIn(path, host);
  // a thread bc compacted live goes on in a new file: the originals are in its earlier ones
  return removedIn(path, host, needModelsOption(weightsInUse(needWeightsPath())), otherThreadFiles(path));
};

/** This project's newest session that can be read: one that cannot is passed over, and said. */
const newestReadable = (): RemovedList => {
  const files = projectSessionFiles({});
  if (files.length === 0) throw new BcError("not-found", `no session of this project (${process.cwd()}) found`, "pass --session <session id, name or file>");
  for (const f of files) {
    try {
      return removedInFile(f.path);
    } catch (e) {
      if (!(e instanceof BcError)) throw e;
      warnList([`${e.message.split("\n")[0]}; passed over for the next newest session`], () => "");
    }
  }
  throw new BcError(
    "bad-input",
    `none of this project's ${counted(files.length, "session file")} (${process.cwd()}) can be read`,
    "pass --session <session id, name or file>",
  );
};

const listRemoved = (session: string | undefined, json: boolean): number => {
  const list = session === undefined ? newestReadable() : removedInFile(resolveSession(session));
  const { path, host } = list;
  // a Claude Code subagent's own compactions are in its file beside the session
  const subagents =
    host === "claude"
      ? subagentFiles(path)
          .map((f) => removedIn(f, "claude"))
          .filter((l) => l.removed.length > 0)
      : [];
  if (json) out(JSON.stringify(subagents.length === 0 ? list : { ...list, subagents }, null, 2));
  else out([list, ...subagents].map(formatRemoved).join("\n\n"));
  return 0;
};

export default defineCommand({
  meta: {
    name: "recall",
    description:
      "Print a tool call's original output, byte for byte, from the session files the host keeps (bc never deletes an output from disk). " +
      "Looks in the given session, else this project's sessions (newest first), then every session. --list: what bc removed in a session.",
  },
  args: {
    id: { type: "positional", required: false, description: "The tool call id a removal note names (toolu_… for Claude Code, call_… for Codex)" },
    session: {
      type: "string",
      description: "A session file, id (or its start) or name, to look in first (with --list: the session to list; default: this project's newest)",
    },
    list: { type: "boolean", default: false, description: "List what bc removed in a session: ids, tools, sizes, rule, whether recall can give it back" },
    images: {
      type: "string",
      description: "Also write the output's images and PDFs into this folder, a file each (<id>-<n>.png ...), and name them on stderr",
    },
    json: { type: "boolean", default: false, description: "Print JSON on stdout, for scripts" },
  },
  run({ args }) {
    checkPositionals(args, "bc recall", 1);
    const id = args.id as string | undefined;
    if (args.list) {
      if (id !== undefined) throw new BcError("usage", "--list takes no call id", "run 'bc recall --list [--session <id or file>]'");
      if (args.images !== undefined) throw new BcError("usage", "--images goes with a call id, not --list", "run 'bc recall <call id> --images <folder>'");
      return listRemoved(args.session as string | undefined, args.json as boolean);
    }
    if (id === undefined) throw new BcError("usage", "no call id given", "run 'bc recall <call id>' with the id a removal note names, or 'bc recall --list'");
    const { images } = parseFlags(z.object({ images: pathFlag().optional() }), args, "bc recall", 1);
    const r = recall(id, { session: args.session as string | undefined });
    const written = images === undefined ? undefined : writeImages(r, images);
    if (args.json) {
      out(JSON.stringify(written === undefined ? recallJson(r) : { ...recallJson(r), written }, null, 2));
      return 0;
    }
    // people at a terminal get a heading; a program (an agent's shell tool) gets the bytes alone,
    // and a line on stderr where pictures are left out, or were written where asked
    if (process.stderr.isTTY) log.info(recallHeading(r));
    const left = r.images.filter(handsBack);
    if (written !== undefined) for (const w of written) process.stderr.write(`bc recall: wrote ${w.file} (${w.mediaType ?? "image"}, ${size(w.bytes)})\n`);
    else if (left.length > 0 && !process.stderr.isTTY) {
      const pdfs = left.filter((i) => i.mediaType === "application/pdf").length;
      const what = [...(left.length > pdfs ? [counted(left.length - pdfs, "image")] : []), ...(pdfs > 0 ? [counted(pdfs, "PDF")] : [])].join(" and ");
      process.stderr.write(`bc recall: ${what} not printed; --images <folder> writes ${left.length === 1 ? "it" : "them"} to files\n`);
    }
    process.stdout.write(r.text);
    return 0;
  },
});
