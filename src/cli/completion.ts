// `bc completion bash|zsh|fish`: a shell completion script for every command and flag, made from
// the same command definitions the help is made from, so it never lists a flag bc does not take.
import { type ArgDef, type ArgsDef, type CommandDef, defineCommand } from "citty";
import { BcError } from "../util/errors.ts";
import { checkPositionals } from "./args.ts";
import { kebab } from "./help.ts";

const resolve = async <T>(v: T | (() => T | Promise<T>) | Promise<T>): Promise<T> => (typeof v === "function" ? await (v as () => T | Promise<T>)() : await v);

interface Node {
  /** the words after `bc` that reach this command */
  readonly path: readonly string[];
  readonly description: string;
  readonly subcommands: readonly string[];
  readonly flags: readonly { readonly name: string; readonly description: string; readonly takesValue: boolean; readonly options?: readonly string[] }[];
  /** takes session files or folders */
  readonly files: boolean;
  /** its positional takes one of these words (`valueHint: "a|b|c"`) instead of files */
  readonly choices?: readonly string[];
}

/** A flag whose value is a path (a folder, a file, a binary): the shell completes file names for it. */
const takesPath = (name: string): boolean => /dir|out|session|weights|codex|home|images/.test(name);

/** A description's first clause, for a completion menu: cut where a sentence or clause ends, not at a dot inside a name (report.md). */
const firstClause = (text: string): string => text.split(/[.:;](?:\s|$)|\s\(/)[0]!.trim();

const flagName = (name: string, def: ArgDef): string => (def.type === "boolean" && def.default === true ? `no-${kebab(name)}` : kebab(name));

/** Every command under `cmd`, depth first. */
const walk = async (cmd: CommandDef<any>, path: readonly string[]): Promise<Node[]> => {
  const meta = (await resolve(cmd.meta)) ?? {};
  const args: ArgsDef = (await resolve(cmd.args)) ?? {};
  const subs = cmd.subCommands ? await resolve(cmd.subCommands) : {};
  const flags = Object.entries(args)
    .filter(([, d]) => d.type !== "positional")
    .map(([n, d]) => ({
      name: flagName(n, d),
      description: firstClause(d.description ?? ""),
      takesValue: d.type === "string" || d.type === "enum",
      ...(d.type === "enum" && d.options ? { options: d.options } : {}),
    }));
  flags.push({ name: "help", description: "Show this help", takesValue: false });
  const positional = Object.values(args).find((d) => d.type === "positional");
  const hint = positional !== undefined && "valueHint" in positional ? positional.valueHint : undefined;
  const choices = hint?.includes("|") ? hint.split("|") : undefined;
  // the commands the hosts and bc itself run (hidden from help) are not offered either
  const shown: string[] = [];
  for (const [name, sub] of Object.entries(subs)) if (!(await resolve((await resolve(sub)).meta))?.hidden) shown.push(name);
  const node: Node = {
    path,
    description: firstClause(meta.description ?? ""),
    subcommands: shown,
    flags,
    files: positional !== undefined && choices === undefined,
    ...(choices === undefined ? {} : { choices }),
  };
  const out = [node];
  for (const name of shown) out.push(...(await walk(await resolve(subs[name]!), [...path, name])));
  return out;
};

const single = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

const bash = (nodes: readonly Node[]): string => {
  const known = nodes.filter((n) => n.path.length > 0).map((n) => `"${["bc", ...n.path].join(" ")}"`);
  const words = nodes.map((n) => {
    const list = [...n.subcommands, ...(n.choices ?? []), ...n.flags.map((f) => `--${f.name}`), ...(n.path.length === 0 ? ["--version"] : [])].join(" ");
    return `    "${["bc", ...n.path].join(" ")}") words=${single(list)}; files=${n.files ? 1 : 0} ;;`;
  });
  const values = nodes.flatMap((n) =>
    n.flags
      .filter((f) => f.takesValue)
      .map((f) => {
        // a folder or file flag completes paths, an enum its values, a number nothing
        const reply = f.options ? `($(compgen -W ${single(f.options.join(" "))} -- "$cur"))` : takesPath(f.name) ? `($(compgen -f -- "$cur"))` : "()";
        return `    "${["bc", ...n.path].join(" ")} --${f.name}") COMPREPLY=${reply}; return ;;`;
      }),
  );
  return `# bash completion for bc (better-compaction). Load it with: source <(bc completion bash)
_bc_better_compaction() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="bc" words="" files=0 i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "$cmd \${COMP_WORDS[i]}" in
      ${known.join("|")}) cmd="$cmd \${COMP_WORDS[i]}" ;;
    esac
  done
  case "$cmd $prev" in
${values.join("\n")}
  esac
  case "$cmd" in
${words.join("\n")}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  if [[ $files == 1 && $cur != -* ]]; then COMPREPLY+=($(compgen -f -- "$cur")); fi
}
complete -o filenames -F _bc_better_compaction bc better-compaction
`;
};

const zsh = (nodes: readonly Node[]): string =>
  `#compdef bc
# zsh completion for bc (better-compaction), through zsh's bash completion support.
# Load it with: source <(bc completion zsh)
(( $+functions[compdef] )) || { autoload -U +X compinit && compinit }
autoload -U +X bashcompinit && bashcompinit
${bash(nodes).split("\n").slice(1).join("\n")}`;

const fish = (nodes: readonly Node[]): string => {
  const lines = [
    "# fish completion for bc (better-compaction). Install it where fish looks first, so that it takes",
    "# the place of fish's own completion for the bc calculator:",
    "#   bc completion fish > ~/.config/fish/completions/bc.fish",
    "complete -c bc -e",
    "complete -c bc -f",
    // the words after bc that are not options, in order: where on the command tree the line is
    // (fish's __fish_seen_subcommand_from takes any word anywhere: `bc eval claude/` is no `bc claude`)
    "function __bc_at --description 'bc: the command line is at this command (--only: and no word after it)'",
    "    set -l only 0",
    '    if test "$argv[1]" = --only',
    "        set only 1",
    "        set -e argv[1]",
    "    end",
    "    set -l words",
    "    for w in (commandline -opc)[2..-1]",
    "        string match -q -- '-*' $w; or set -a words $w",
    "    end",
    "    test (count $words) -ge (count $argv); or return 1",
    "    test $only = 0; or test (count $words) -eq (count $argv); or return 1",
    "    for i in (seq (count $argv))",
    '        test "$words[$i]" = "$argv[$i]"; or return 1',
    "    end",
    "end",
  ];
  for (const n of nodes) {
    // a command with commands under it is reached when the line holds its words and nothing more;
    // one without, when the line starts with its words (its arguments may follow)
    const cond = n.path.length === 0 ? "__fish_use_subcommand" : `__bc_at${n.subcommands.length > 0 ? " --only" : ""} ${n.path.join(" ")}`;
    for (const s of n.subcommands) {
      const d = nodes.find((x) => x.path.join(" ") === [...n.path, s].join(" "))?.description ?? "";
      lines.push(`complete -c bc -n ${single(cond)} -a ${s} -d ${single(d)}`);
    }
    for (const f of n.flags) {
      const value = f.takesValue ? (f.options ? ` -x -a ${single(f.options.join(" "))}` : takesPath(f.name) ? " -r -F" : " -x") : "";
      lines.push(`complete -c bc -n ${single(cond)} -l ${f.name}${value} -d ${single(f.description)}`);
    }
    if (n.files && n.subcommands.length === 0) lines.push(`complete -c bc -n ${single(cond)} -F`);
    if (n.choices !== undefined) lines.push(`complete -c bc -n ${single(cond)} -a ${single(n.choices.join(" "))}`);
  }
  lines.push("complete -c bc -n __fish_use_subcommand -l version -d 'Print the version'");
  // the binary's second name completes as bc does
  lines.push("complete -c better-compaction -w bc");
  return `${lines.join("\n")}\n`;
};

const SHELLS = { bash, zsh, fish } as const;

export default defineCommand({
  meta: { name: "completion", description: "Print a shell completion script: bc completion bash|zsh|fish (load it with: source <(bc completion bash))" },
  args: { shell: { type: "positional", required: true, valueHint: "bash|zsh|fish", description: "The shell: bash, zsh or fish" } },
  async run({ args }) {
    checkPositionals(args, "bc completion", 1);
    const shell = String(args.shell);
    if (!(shell in SHELLS)) throw new BcError("usage", `no completion for '${shell}': bash, zsh or fish`, "run 'bc completion --help'");
    // the root command, already loaded by the time a subcommand runs
    const { main } = (await import("../main.ts")) as { main: CommandDef<any> };
    process.stdout.write(SHELLS[shell as keyof typeof SHELLS](await walk(main, [])));
    return 0;
  },
});
