// Generated sessions for property tests and benchmarks: a seeded PRNG (here, never in the
// engine) drives a plausible coding session: reads (whole and ranged) of a small set of
// files, edits between them, shell commands (listings, git, passing and failing tests),
// errors, questions to the user, and replies that mention, quote or lay down rules about
// what came before.
import type { Host, Message, Session, ToolCall, ToolResult } from "../../../src/engine/types.ts";

import { seededRandom } from "../../../src/eval/interval.ts";

/** mulberry32 (the eval's, for its resampling): small, fast, good enough for test data */
export const prng = seededRandom;

export interface GenerateOptions {
  readonly seed: number;
  readonly host?: Host;
  /** number of tool results */
  readonly results: number;
  /** rough size of a file read or a long output, in characters */
  readonly outputChars?: number;
}

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"];

export class Generator {
  private readonly rnd: () => number;
  private readonly host: Host;
  private readonly outputChars: number;
  private readonly messages: Message[] = [];
  private readonly files: { path: string; version: number; lines: number }[] = [];
  private readonly recentTokens: string[] = [];
  private readonly recentLines: string[] = [];
  private n = 0;

  constructor(opts: GenerateOptions) {
    this.rnd = prng(opts.seed);
    this.host = opts.host ?? "claude";
    this.outputChars = opts.outputChars ?? 2000;
    for (let i = 0; i < 12; i++) this.files.push({ path: `/repo/src/${this.pick(WORDS)}/${this.pick(WORDS)}_module${i}.ts`, version: 0, lines: 0 });
    for (const f of this.files) f.lines = Math.max(5, Math.round(this.outputChars / 60));
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)]!;
  }

  private fileLine(f: { path: string; version: number }, i: number): string {
    const base = f.path.split("/").pop()!.replace(".ts", "");
    return `export const ${base}Item${i}_v${f.version} = computeValue(${1000 + i}, "${WORDS[i % WORDS.length]} value ${i}");`;
  }

  private fileText(f: { path: string; version: number; lines: number }, from = 1, to = f.lines): string {
    const out: string[] = [];
    for (let i = from; i <= Math.min(to, f.lines); i++) out.push(`${String(i).padStart(6)}→${this.fileLine(f, i)}`);
    return out.join("\n");
  }

  private remember(text: string): void {
    const ids = text.match(/[A-Za-z]+Item\d+_v\d+/g) ?? [];
    for (const t of ids.slice(0, 3)) this.recentTokens.push(t);
    const lines = text.split("\n").filter((l) => l.length > 50);
    if (lines.length > 0) this.recentLines.push(this.pick(lines).replace(/^\s*\d+→/, ""));
    if (this.recentTokens.length > 40) this.recentTokens.splice(0, 20);
    if (this.recentLines.length > 20) this.recentLines.splice(0, 10);
  }

  private push(call: ToolCall, result: Omit<ToolResult, "callId">): void {
    const assistant: Message = { role: "assistant", kind: "reply", text: this.rnd() < 0.3 ? this.replyText() : "", toolCalls: [call], toolResults: [] };
    const tool: Message = {
      role: this.host === "claude" ? "user" : "assistant",
      kind: "tool",
      text: "",
      toolCalls: [],
      toolResults: [{ callId: call.id, ...result }],
    };
    this.messages.push(assistant, tool);
  }

  private replyText(): string {
    const r = this.rnd();
    if (r < 0.3 && this.recentTokens.length > 0) return `Next I will change ${this.pick(this.recentTokens)} accordingly.`;
    if (r < 0.4 && this.recentLines.length > 0) return `The relevant line is:\n\`\`\`\n${this.pick(this.recentLines)}\n\`\`\``;
    if (r < 0.45) return "Note: we must keep the public API stable.";
    return `Working on the ${this.pick(WORDS)} part now.`;
  }

  private call(name: string, input: unknown): ToolCall {
    const id = `${this.host === "claude" ? "toolu" : "call"}_${(++this.n).toString(36).padStart(6, "0")}`;
    return { id, name, input, inputText: JSON.stringify(input) };
  }

  private codexOutput(code: number, body: string): string {
    return `Chunk ID: ${(this.n * 7919).toString(16).slice(0, 6)}\nWall time: 0.0100 seconds\nProcess exited with code ${code}\nOriginal token count: ${Math.ceil(body.length / 4)}\nOutput:\n${body}`;
  }

  private shell(command: string, body: string, code = 0): void {
    if (this.host === "claude")
      this.push(this.call("Bash", { command, description: "run" }), { text: code === 0 ? body : `Exit code ${code}\n${body}`, isError: code !== 0, images: 0 });
    else this.push(this.call("exec_command", { cmd: command, workdir: "/repo" }), { text: this.codexOutput(code, body), isError: false, images: 0 });
  }

  private step(): void {
    const r = this.rnd();
    const f = this.pick(this.files);
    if (r < 0.35) {
      // read, whole or ranged
      const ranged = this.rnd() < 0.3;
      const from = ranged ? 1 + Math.floor(this.rnd() * (f.lines / 2)) : 1;
      const to = ranged ? from + 5 + Math.floor(this.rnd() * 20) : f.lines;
      const body = this.fileText(f, from, to);
      if (this.host === "claude")
        this.push(this.call("Read", ranged ? { file_path: f.path, offset: from, limit: to - from + 1 } : { file_path: f.path }), {
          text: body,
          isError: false,
          images: 0,
        });
      else this.shell(ranged ? `sed -n '${from},${to}p' ${f.path}` : `cat ${f.path}`, body.replace(/^\s*\d+→/gm, ""));
      this.remember(body);
    } else if (r < 0.5) {
      f.version++;
      if (this.host === "claude")
        this.push(this.call("Edit", { file_path: f.path, old_string: this.fileLine({ ...f, version: f.version - 1 }, 1), new_string: this.fileLine(f, 1) }), {
          text: `The file ${f.path} has been updated successfully.`,
          isError: false,
          images: 0,
        });
      else
        this.push(this.call("apply_patch", { input: `*** Begin Patch\n*** Update File: ${f.path}\n@@\n-old\n+new\n*** End Patch\n` }), {
          text: `Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM ${f.path}\n`,
          isError: false,
          images: 0,
        });
    } else if (r < 0.6) {
      this.shell(
        "ls -la src",
        Array.from({ length: Math.max(5, this.outputChars / 50) }, (_, i) => `-rw-r--r-- 1 dev staff ${100 + i} Jan 1 file_${i}.ts`).join("\n"),
      );
    } else if (r < 0.67) {
      this.shell("git status", `On branch main\n${this.files.map((x) => `\tmodified:   ${x.path}`).join("\n")}`);
    } else if (r < 0.75) {
      const pass = this.rnd() < 0.8;
      const body = `${"(pass) module works [0.1ms]\n".repeat(Math.max(3, this.outputChars / 30))}\n ${pass ? 40 : 39} pass\n ${pass ? 0 : 1} fail\n`;
      this.shell("bun test", pass ? body : `(fail) ${this.pick(WORDS)}_module breaks\n${body}`, pass ? 0 : 1);
    } else if (r < 0.78 && this.host === "claude") {
      this.push(this.call("AskUserQuestion", { questions: [{ question: "Which approach?" }] }), {
        text: `User answered: use the ${this.pick(WORDS)} approach`,
        isError: false,
        images: 0,
      });
    } else {
      const tag = `${this.pick(WORDS)}-report-${Math.floor(this.rnd() * 100000)}`;
      const body = `report ${tag}\n${"lorem ipsum dolor sit amet consectetur\n".repeat(Math.max(2, this.outputChars / 40))}`;
      this.shell(`./tools/report --tag ${this.pick(WORDS)}`, body, this.rnd() < 0.05 ? 2 : 0);
      this.remember(body);
      if (this.rnd() < 0.5) this.recentTokens.push(tag);
    }
  }

  /** Append `results` more tool results (and replies) to the session so far. */
  grow(results: number): Session {
    if (this.messages.length === 0) this.messages.push({ role: "user", kind: "prompt", text: "Please refactor the modules.", toolCalls: [], toolResults: [] });
    for (let i = 0; i < results; i++) {
      this.step();
      if (this.rnd() < 0.05) this.messages.push({ role: "user", kind: "prompt", text: `Also look at ${this.pick(WORDS)}.`, toolCalls: [], toolResults: [] });
    }
    this.messages.push({ role: "assistant", kind: "reply", text: this.replyText(), toolCalls: [], toolResults: [] });
    return this.session();
  }

  /** Continue from a compacted history: the generator's own messages are replaced by `messages`. */
  continueFrom(messages: readonly Message[]): void {
    this.messages.splice(0, this.messages.length, ...messages);
  }

  session(): Session {
    return { host: this.host, id: "generated", messages: [...this.messages] };
  }
}

export const generateSession = (opts: GenerateOptions): Session => new Generator(opts).grow(opts.results);
