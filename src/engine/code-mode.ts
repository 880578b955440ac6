// Codex "code mode": the model's `exec` tool runs JavaScript that calls the other tools,
// `const r = await tools.exec_command({cmd: "…", workdir: "…"}); text(r.output);`. The
// arguments are a JavaScript object literal, written as JSON or with bare keys and single or
// back quotes. This reads such a literal when it holds only constants, and the string
// constants of the script (an apply_patch body is bound to a constant before the call), so
// that a code-mode call means what the same call made directly means. Anything computed at
// run time reads as unknown, never as an error.

/** A constant value of a JavaScript literal: what JSON.parse would give for the same data. */
type Constant = string | number | boolean | null | Constant[] | { [key: string]: Constant };

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", 0: "\0" };

class Reader {
  at: number;
  constructor(
    readonly text: string,
    at: number,
  ) {
    this.at = at;
  }

  /** Skips white space and comments. */
  space(): void {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.at);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.at++;
      else if (t.startsWith("//", this.at)) {
        const end = t.indexOf("\n", this.at);
        this.at = end === -1 ? t.length : end + 1;
      } else if (t.startsWith("/*", this.at)) {
        const end = t.indexOf("*/", this.at + 2);
        this.at = end === -1 ? t.length : end + 2;
      } else return;
    }
  }

  /** A quoted string ("…", '…', or `…` without substitutions) at the cursor, decoded; undefined if none. */
  string(): string | undefined {
    const t = this.text;
    const quote = t[this.at];
    if (quote !== '"' && quote !== "'" && quote !== "`") return undefined;
    let out = "";
    let i = this.at + 1;
    while (i < t.length) {
      const c = t[i]!;
      if (c === quote) {
        this.at = i + 1;
        return out;
      }
      if (quote === "`" && c === "$" && t[i + 1] === "{") return undefined;
      if ((c === "\n" || c === "\r") && quote !== "`") return undefined;
      if (c !== "\\") {
        out += c;
        i++;
        continue;
      }
      const e = t[i + 1];
      if (e === undefined) return undefined;
      if (e === "x" && /^[0-9a-fA-F]{2}$/.test(t.slice(i + 2, i + 4))) {
        out += String.fromCharCode(Number.parseInt(t.slice(i + 2, i + 4), 16));
        i += 4;
      } else if (e === "u" && t[i + 2] === "{") {
        const end = t.indexOf("}", i + 3);
        const hex = end === -1 ? "" : t.slice(i + 3, end);
        if (!/^[0-9a-fA-F]{1,6}$/.test(hex) || Number.parseInt(hex, 16) > 0x10ffff) return undefined;
        out += String.fromCodePoint(Number.parseInt(hex, 16));
        i = end + 1;
      } else if (e === "u") {
        const hex = t.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
        out += String.fromCharCode(Number.parseInt(hex, 16));
        i += 6;
      } else if (e === "\n") i += 2;
      else if (e === "\r") i += t[i + 2] === "\n" ? 3 : 2;
      else {
        out += SIMPLE_ESCAPES[e] ?? e;
        i += 2;
      }
    }
    return undefined;
  }

  /** A constant at the cursor (string, number, true/false/null, array or object of constants); undefined if anything else. */
  constant(depth = 0): Constant | undefined {
    if (depth > 16) return undefined;
    this.space();
    const t = this.text;
    const c = t[this.at];
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"' || c === "'" || c === "`") return this.string();
    const word = /^(?:-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|true|false|null)(?![\w$])/.exec(t.slice(this.at, this.at + 40));
    if (!word) return undefined;
    this.at += word[0].length;
    if (word[0] === "true") return true;
    if (word[0] === "false") return false;
    if (word[0] === "null") return null;
    return Number(word[0]);
  }

  private array(depth: number): Constant[] | undefined {
    this.at++;
    const out: Constant[] = [];
    for (;;) {
      this.space();
      if (this.text[this.at] === "]") {
        this.at++;
        return out;
      }
      const v = this.constant(depth + 1);
      if (v === undefined) return undefined;
      out.push(v);
      this.space();
      if (this.text[this.at] === ",") this.at++;
      else if (this.text[this.at] !== "]") return undefined;
    }
  }

  private object(depth: number): { [key: string]: Constant } | undefined {
    this.at++;
    const out: { [key: string]: Constant } = {};
    for (;;) {
      this.space();
      if (this.text[this.at] === "}") {
        this.at++;
        return out;
      }
      let key = this.string();
      if (key === undefined) {
        const bare = /^[A-Za-z_$][\w$]*|^\d+/.exec(this.text.slice(this.at, this.at + 200));
        if (!bare) return undefined;
        key = bare[0];
        this.at += key.length;
      }
      this.space();
      if (this.text[this.at] !== ":") return undefined;
      this.at++;
      const v = this.constant(depth + 1);
      if (v === undefined) return undefined;
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      this.space();
      if (this.text[this.at] === ",") this.at++;
      else if (this.text[this.at] !== "}") return undefined;
    }
  }
}

const TOOL_CALL_RE = /\btools\.([A-Za-z_$][\w$]*)\s*\(/g;

/** The tools a code-mode script calls, in order, each with where its argument starts. */
export const codeModeCalls = (code: string): { tool: string; argsAt: number }[] =>
  [...code.matchAll(TOOL_CALL_RE)].map((m) => ({ tool: m[1]!, argsAt: m.index + m[0].length }));

/** The constant at `at` in `code` (after white space), or undefined when it is anything else. */
export const constantAt = (code: string, at: number): Constant | undefined => new Reader(code, at).constant();

/** Every string constant in `code` ("…", '…', `…` without substitutions), decoded, in order. */
export const stringConstants = (code: string): string[] => {
  const out: string[] = [];
  const r = new Reader(code, 0);
  for (let i = 0; i < code.length; ) {
    const c = code[i];
    if (c === "/" && (code[i + 1] === "/" || code[i + 1] === "*")) {
      r.at = i;
      r.space();
      i = r.at;
    } else if (c === '"' || c === "'" || c === "`") {
      r.at = i;
      const s = r.string();
      if (s === undefined) {
        // not a constant (a template with substitutions, or unclosed): step past its opening quote
        i++;
        continue;
      }
      out.push(s);
      i = r.at;
    } else i++;
  }
  return out;
};
