// Help as people read it: wrapped to the terminal (80 columns when not a terminal), flags spelled
// as they are typed (`--dry-run`), and every usage line starting with the whole command (`bc plan`).
import type { ArgDef, ArgsDef, CommandDef } from "citty";

const resolve = async <T>(v: T | (() => T | Promise<T>) | Promise<T>): Promise<T> => (typeof v === "function" ? await (v as () => T | Promise<T>)() : await v);

/** How wide help may be: the terminal's width, or 80 columns for a pipe or a file. */
export const helpWidth = (stream: { isTTY?: boolean; columns?: number } = process.stdout): number =>
  stream.isTTY && stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;

/** A flag's name as users type it: `outDir` and `out-dir` both read `out-dir`. */
export const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Break `text` into lines of at most `width` characters at spaces; a word longer than a line stands alone. */
export const wrap = (text: string, width: number): string[] => {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line === "") line = word;
      else if (line.length + 1 + word.length <= width) line += ` ${word}`;
      else {
        lines.push(line);
        line = word;
      }
    }
    lines.push(line);
  }
  return lines;
};

/** Two columns: terms on the left, their text wrapped beside them (or below, when a term is long). */
const columns = (rows: readonly (readonly [string, string])[], width: number): string[] => {
  const INDENT = 2;
  const GAP = 2;
  const widest = Math.max(...rows.map(([t]) => t.length));
  const left = Math.min(widest, Math.max(12, Math.floor(width / 3)));
  const text = Math.max(20, width - INDENT - left - GAP);
  const out: string[] = [];
  for (const [term, description] of rows) {
    const body = description === "" ? [] : wrap(description, text);
    if (term.length > left) {
      out.push(" ".repeat(INDENT) + term);
      for (const l of body) out.push(" ".repeat(INDENT + left + GAP) + l);
      continue;
    }
    out.push((" ".repeat(INDENT) + term.padEnd(left) + " ".repeat(GAP) + (body[0] ?? "")).trimEnd());
    for (const l of body.slice(1)) out.push(" ".repeat(INDENT + left + GAP) + l);
  }
  return out;
};

const positionalTerm = (name: string, def: ArgDef): string => {
  const required = def.required !== false && def.default === undefined;
  const many = "valueHint" in def && def.valueHint === "...";
  return `${required ? `<${name}>` : `[${name}]`}${many ? "..." : ""}`;
};

const flagTerm = (name: string, def: ArgDef): string => {
  const long = def.type === "boolean" && def.default === true ? `--no-${kebab(name)}` : `--${kebab(name)}`;
  const aliases = "alias" in def && def.alias !== undefined ? (Array.isArray(def.alias) ? def.alias : [def.alias]) : [];
  const short = aliases
    .filter((a) => a.length === 1)
    .map((a) => `-${a}, `)
    .join("");
  if (def.type === "boolean") return short + long;
  const hint = def.type === "enum" && def.options ? def.options.join("|") : ("valueHint" in def && def.valueHint) || "value";
  return `${short}${long} <${hint}>`;
};

const flagText = (def: ArgDef): string => {
  const d = def.description ?? "";
  if (def.type === "boolean" || def.default === undefined) return d;
  return `${d} (default: ${String(def.default)})`;
};

/** The whole help of `cmd`, reached as `path` (["bc", "claude", "install"]). */
export const renderHelp = async (cmd: CommandDef<any>, path: readonly string[], width = helpWidth()): Promise<string> => {
  const meta = (await resolve(cmd.meta)) ?? {};
  const args: ArgsDef = (await resolve(cmd.args)) ?? {};
  const subs = cmd.subCommands ? await resolve(cmd.subCommands) : undefined;
  const name = path.join(" ");
  const out: string[] = [];
  const positionals = Object.entries(args).filter(([, d]) => d.type === "positional");
  const flags = Object.entries(args).filter(([, d]) => d.type !== "positional");
  const usage = [name];
  if (subs) usage.push("<command>");
  usage.push("[options]");
  for (const [n, d] of positionals) usage.push(positionalTerm(n, d));
  out.push(...wrap(`Usage: ${usage.join(" ")}`, width), "");
  const title = meta.version ? `${name} ${meta.version}: ${meta.description ?? ""}` : (meta.description ?? "");
  if (title !== "") out.push(...wrap(title, width), "");
  if (subs) {
    const rows: [string, string][] = [];
    // commands the hosts and bc itself run: named, not described
    const hidden: string[] = [];
    for (const [sub, def] of Object.entries(subs)) {
      const m = (await resolve((await resolve(def))?.meta)) ?? {};
      if (m.hidden) hidden.push(sub);
      else rows.push([sub, m.description ?? ""]);
    }
    out.push("Commands:", ...columns(rows, width), "");
    if (hidden.length > 0) out.push(...wrap(`Run by the hosts or by bc itself, not by people: ${hidden.join(", ")}.`, width), "");
  }
  if (positionals.length > 0)
    out.push(
      "Arguments:",
      ...columns(
        positionals.map(([n, d]) => [positionalTerm(n, d), d.description ?? ""]),
        width,
      ),
      "",
    );
  const flagRows: [string, string][] = flags.map(([n, d]) => [flagTerm(n, d), flagText(d)]);
  flagRows.push(["-h, --help", "Show this help"]);
  if (meta.version) flagRows.push(["--version", "Print the version"]);
  out.push("Options:", ...columns(flagRows, width));
  if (subs) out.push("", ...wrap(`Run '${name} <command> --help' for a command's options.`, width));
  return out.join("\n");
};

/** The closest of `names` to a mistyped `word` (an edit or two away, or a unique prefix), if any. */
export const closest = (word: string, names: readonly string[]): string | undefined => {
  const distance = (a: string, b: string): number => {
    // optimal string alignment: insertions, deletions, substitutions and swaps of neighbours
    const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) {
        const cost = a[i - 1] === b[j - 1] ? 0 : 1;
        d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    return d[a.length]![b.length]!;
  };
  const w = word.toLowerCase();
  const prefixed = names.filter((n) => n.startsWith(w));
  if (w.length >= 2 && prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.floor(w.length / 2));
  for (const n of names) {
    const dist = distance(w, n);
    if (dist <= bestDistance && (best === undefined || dist < bestDistance)) {
      best = n;
      bestDistance = dist;
    }
  }
  return best;
};
