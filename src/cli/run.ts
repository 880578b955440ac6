// The CLI's edge: dispatch, flag checking, and the one way errors reach a person.
import { runCommand, type ArgsDef, type CommandDef } from "citty";
import { closest, renderHelp } from "./help.ts";
import { BcError, isBcError } from "../util/errors.ts";

const resolve = async <T>(v: T | (() => T | Promise<T>) | Promise<T>): Promise<T> => (typeof v === "function" ? await (v as () => T | Promise<T>)() : await v);

const flagNames = (args: ArgsDef): Set<string> => {
  const names = new Set<string>(["help", "h"]);
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    names.add(name);
    const kebab = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    names.add(kebab);
    if (def.type === "boolean" || def.type === undefined) {
      names.add(`no-${name}`);
      names.add(`no-${kebab}`);
    }
    const alias = "alias" in def ? def.alias : undefined;
    for (const a of alias === undefined ? [] : Array.isArray(alias) ? alias : [alias]) names.add(a);
  }
  return names;
};

/** The switches a command declares (booleans), by every name a user may type them with. */
const switchNames = (args: ArgsDef): Set<string> => {
  const names = new Set<string>(["help", "h"]);
  for (const [name, def] of Object.entries(args)) {
    if (def.type !== "boolean") continue;
    const kebab = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    for (const n of [name, kebab]) names.add(n).add(`no-${n}`);
  }
  return names;
};

/**
 * Reject flags a command does not declare: citty would silently accept them. A switch given a
 * value other than true or false (`--json=no`) is refused too: citty would turn it on.
 */
const checkFlags = (argv: readonly string[], args: ArgsDef, commandPath: string): void => {
  const known = flagNames(args);
  const switches = switchNames(args);
  for (const a of argv) {
    if (a === "--") break;
    if (!a.startsWith("-") || a === "-") continue;
    const [flag = "", ...value] = a.split("=");
    const name = flag.replace(/^--?/, "");
    if (/^\d/.test(name)) continue; // a negative number value
    if (!known.has(name)) throw new BcError("usage", `unknown option '${flag}' for '${commandPath}'`, `run '${commandPath} --help' to see its options`);
    if (value.length > 0 && switches.has(name) && !["true", "false"].includes(value.join("=")))
      throw new BcError(
        "usage",
        `${flag} is a switch: give it alone, or =true or =false, not '${value.join("=")}'`,
        `run '${commandPath} --help' to see its options`,
      );
  }
};

const wantsHelp = (argv: readonly string[]): boolean => {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "--help" || a === "-h") return true;
  }
  return false;
};

/** Walk subcommands, then run the leaf; returns the process exit code. */
export const dispatch = async (root: CommandDef<any>, argv: readonly string[], name: string): Promise<number> => {
  let cmd: CommandDef<any> = root;
  let rest = [...argv];
  const path = [name];
  for (;;) {
    const subs = cmd.subCommands ? await resolve(cmd.subCommands) : undefined;
    if (!subs) break;
    const i = rest.findIndex((a) => !a.startsWith("-"));
    const word = i === -1 ? undefined : rest[i];
    // flags before the subcommand belong to this command: reject unknown ones (`bc --frob`)
    if (!wantsHelp(rest)) checkFlags(i === -1 ? rest : rest.slice(0, i), cmd.args ? await resolve(cmd.args) : {}, path.join(" "));
    if (word === undefined || i !== 0) {
      if (wantsHelp(rest) || word === undefined) {
        const code = word === undefined && !wantsHelp(rest) && !cmd.run ? 2 : 0;
        // usage asked for is data (stdout); usage shown because a command is missing is an error (stderr)
        (code === 2 ? process.stderr : process.stdout).write(`${await renderHelp(cmd, path)}\n`);
        return code;
      }
    }
    const next = word === undefined ? undefined : subs[word];
    if (!next) {
      if (word === "help") {
        // `bc help codex install`: the help of the command named after it, as `bc codex install --help` shows it
        const named = rest.slice(i + 1).filter((a) => !a.startsWith("-"));
        // an unknown name is said as `bc <name>` says it
        if (named.length > 0) return dispatch(cmd, [...named, "--help"], path.join(" "));
        process.stdout.write(`${await renderHelp(cmd, path)}\n`);
        return 0;
      }
      const near = closest(word!, Object.keys(subs));
      throw new BcError(
        "usage",
        `unknown command '${word}'${near === undefined ? "" : `; did you mean '${[...path, near].join(" ")}'?`}`,
        `run '${path.join(" ")} --help' to see the commands`,
      );
    }
    cmd = await resolve(next);
    path.push(word!);
    rest = rest.slice(1);
  }
  if (wantsHelp(rest)) {
    process.stdout.write(`${await renderHelp(cmd, path)}\n`);
    return 0;
  }
  checkFlags(rest, cmd.args ? await resolve(cmd.args) : {}, path.join(" "));
  try {
    const result = await runCommand(cmd, { rawArgs: rest });
    return typeof result.result === "number" ? result.result : 0;
  } catch (e) {
    if ((e as Error)?.name === "CLIError") {
      const message = (e as Error).message.replace(/\x1b\[[0-9;]*m/g, "");
      // an enum flag's value: said the way every other flag's bad value is said
      const bad = /^Invalid value for argument: (--\S+) \((.*)\)\. Expected one of: (.*)\.$/.exec(message);
      const options = (bad?.[3] ?? "").split(", ").map((o) => `'${o}'`);
      const said = bad ? `${bad[1]} must be ${options.slice(0, -1).join(", ")}${options.length > 1 ? " or " : ""}${options.at(-1)}, got '${bad[2]}'` : message;
      throw new BcError("usage", said, `run '${path.join(" ")} --help' to see its usage`);
    }
    throw e;
  }
};

/** Print an error the one readable way; return the exit code. */
export const report = (e: unknown): number => {
  if (isBcError(e)) {
    process.stderr.write(`bc: ${e.message}\n`);
    if (e.hint) process.stderr.write(`hint: ${e.hint}\n`);
    return e.exitCode;
  }
  const msg = e instanceof Error ? e.message : String(e);
  process.stderr.write(`bc: internal error: ${msg}\n`);
  if (process.env.BC_DEBUG && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  process.stderr.write("hint: this is a bug in bc; rerun with BC_DEBUG=1 for details and report it\n");
  return 1;
};
