// The declaration file shipped beside the plugin's bundle (hooks/better-compaction.d.ts), so
// that Claude Code's check of hooks/register.ts finds the types of what it imports. TypeScript
// emits declarations per source file; this puts the ones the bundle's entry reaches into one
// file: each imported module as a local namespace, imports turned into aliases of it.
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const REPO = join(import.meta.dir, "..");

const COMPILER_OPTIONS: ts.CompilerOptions = {
  declaration: true,
  emitDeclarationOnly: true,
  isolatedDeclarations: true,
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
  skipLibCheck: true,
  types: [],
};

/** `{ a, type B, c as d }` -> [["a","a"], ["B","B"], ["c","d"]] */
const specifiers = (list: string): [string, string][] =>
  list
    .split(",")
    .map((s) => s.trim().replace(/^type\s+/, ""))
    .filter(Boolean)
    .map((s) => {
      const [from, to] = s.split(/\s+as\s+/);
      return [from!, to ?? from!];
    });

const IMPORT = /^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"([^"]+)";$/gm;
const RE_EXPORT = /^export\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"([^"]+)";$/gm;
const INLINE_IMPORT = /import\("([^"]+)"\)\./g;

/** One declaration file for the module `entry` and every module its declarations import. */
export const bundleDeclarations = (entryPath: string): string => {
  const entry = resolve(entryPath);
  // each file on its own (no type checking, no lib files): fast, and enough for declarations whose
  // types are written out, as the exports a hooks module imports must be anyway
  const emitted = new Map<string, string>();
  const declarationsOf = (file: string): string | undefined => {
    if (!emitted.has(file)) {
      let source: string;
      try {
        source = readFileSync(file, "utf8");
      } catch {
        return undefined;
      }
      // a declaration whose type is not written out comes out without one; register.ts's check
      // against this file (a unit test) says whether anything it uses lost its type
      const out = ts.transpileDeclaration(source, { fileName: file, compilerOptions: COMPILER_OPTIONS });
      emitted.set(file, out.outputText);
    }
    return emitted.get(file);
  };

  const names = new Map<string, string>();
  const order: string[] = [];
  const target = (from: string, spec: string): string => {
    if (!spec.startsWith(".")) throw new Error(`${relative(REPO, from)}: its declarations import the package '${spec}'; the plugin's types must stand alone`);
    return resolve(dirname(from), spec);
  };
  const visit = (file: string): void => {
    if (names.has(file)) return;
    const text = declarationsOf(file);
    if (text === undefined) throw new Error(`no declarations emitted for ${relative(REPO, file)}`);
    names.set(file, `_${names.size}`);
    if (/^export \* /m.test(text)) throw new Error(`${relative(REPO, file)}: 'export *' is not supported in the plugin's declarations`);
    for (const re of [IMPORT, RE_EXPORT, INLINE_IMPORT]) for (const m of text.matchAll(re)) visit(target(file, m[m.length - 1]!));
    order.push(file);
  };
  visit(entry);

  const rewrite = (file: string): string => {
    const ns = (spec: string): string => names.get(target(file, spec))!;
    return emitted
      .get(file)!
      .replace(IMPORT, (_m, list: string, spec: string) =>
        specifiers(list)
          .map(([from, to]) => `import ${to} = ${ns(spec)}.${from};`)
          .join("\n"),
      )
      .replace(RE_EXPORT, (_m, list: string, spec: string) =>
        specifiers(list)
          .map(([from, to]) => `export import ${to} = ${ns(spec)}.${from};`)
          .join("\n"),
      )
      .replace(INLINE_IMPORT, (_m, spec: string) => `${ns(spec)}.`);
  };
  const parts = order.map((file) => {
    if (file === entry) return rewrite(file);
    // inside a namespace every declaration is already ambient
    const body = rewrite(file)
      .replace(/^(export\s+)?declare\s+/gm, "$1")
      .replace(/^export \{\};\n?/m, "");
    return `/** ${relative(REPO, file)} */\ndeclare namespace ${names.get(file)} {\n${body.replace(/^(?=.)/gm, "  ")}}\n`;
  });
  return `// better-compaction: the types of the bundled module beside this file, from its sources.\n${parts.join("\n")}`;
};
