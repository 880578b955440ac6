// Driving the real Claude Code against the mock: a temp HOME, the env that points it at the
// mock, a headless stream-json session fed one prompt at a time, and an interactive one under tmux.
// Every wait is bounded; every process started here is stopped by `close()`.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const API_KEY = "sk-ant-bc-e2e-0000000000000000000000000000";

export interface Sandbox {
  readonly dir: string;
  readonly home: string;
  readonly project: string;
  cleanup(): void;
}

/** A temp folder with a HOME (onboarding done, key approved, project trusted) and a project folder. */
export const makeSandbox = (name: string, settings?: Record<string, unknown>): Sandbox => {
  const dir = mkdtempSync(join(tmpdir(), `bc-e2e-${name}-`));
  const home = join(dir, "home");
  const project = join(dir, "project");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: "dark",
      numStartups: 3,
      customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
      projects: { [project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] } },
    }),
  );
  if (settings) writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(settings));
  return { dir, home, project, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
};

export const claudeEnv = (sandbox: Sandbox, mockUrl: string, extra: Record<string, string> = {}): Record<string, string> => {
  const keep = ["PATH", "LANG", "TERM", "TMPDIR"];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k]) env[k] = process.env[k]!;
  return {
    ...env,
    HOME: sandbox.home,
    ANTHROPIC_BASE_URL: mockUrl,
    ANTHROPIC_API_KEY: API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    ...extra,
  };
};

export const withTimeout = async <T>(p: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};

export interface HeadlessOptions {
  readonly bin: string;
  readonly sandbox: Sandbox;
  readonly env: Record<string, string>;
  readonly pluginDir?: string;
  readonly debugFile: string;
  readonly extraArgs?: readonly string[];
}

/** One headless `claude -p --input-format stream-json` process, fed one user line at a time. */

/** `claude -p` with stream-json output, the debug log, accepted edits and the plugin; `first` right after -p. */
const headlessArgs = (opts: HeadlessOptions, first: readonly string[]): string[] => [
  opts.bin,
  "-p",
  ...first,
  "--output-format",
  "stream-json",
  "--verbose",
  "--debug-file",
  opts.debugFile,
  "--permission-mode",
  "acceptEdits",
  ...(opts.pluginDir ? ["--plugin-dir", opts.pluginDir] : []),
  ...(opts.extraArgs ?? []),
];

export class HeadlessSession {
  private readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  private buffer = "";
  private readonly lines: any[] = [];
  private waiters: (() => void)[] = [];
  private exited = false;
  stderr = "";
  sessionId: string | undefined;

  constructor(readonly opts: HeadlessOptions) {
    const args = headlessArgs(opts, ["--input-format", "stream-json"]);
    this.proc = Bun.spawn(args, { cwd: opts.sandbox.project, env: opts.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    void this.pump();
    void new Response(this.proc.stderr).text().then((t) => (this.stderr = t));
    void this.proc.exited.then(() => {
      this.exited = true;
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private async pump(): Promise<void> {
    const dec = new TextDecoder();
    for await (const chunk of this.proc.stdout) {
      this.buffer += dec.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = this.buffer.indexOf("\n")) !== -1) {
        const line = this.buffer.slice(0, nl).trim();
        this.buffer = this.buffer.slice(nl + 1);
        if (!line) continue;
        try {
          const v = JSON.parse(line);
          if (typeof v?.session_id === "string") this.sessionId = v.session_id;
          this.lines.push(v);
        } catch {
          this.lines.push({ type: "unparsed", line });
        }
      }
      this.wake();
    }
  }

  /** All stdout lines so far. */
  get output(): readonly any[] {
    return this.lines;
  }

  /** Send one prompt; resolve with the lines it produced up to and including its `result` line. */
  async send(text: string, timeoutMs = 90_000): Promise<any[]> {
    const from = this.lines.length;
    this.proc.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`);
    this.proc.stdin.flush();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = this.lines.slice(from);
      if (got.some((l) => l?.type === "result")) return got;
      if (this.exited) throw new Error(`claude exited before answering ${JSON.stringify(text.slice(0, 40))}; stderr: ${this.stderr.slice(-2000)}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no result within ${timeoutMs} ms for ${JSON.stringify(text.slice(0, 40))}; last lines: ${JSON.stringify(got.slice(-3)).slice(0, 2000)}`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 1000));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    try {
      this.proc.stdin.end();
    } catch {}
    const done = await Promise.race([this.proc.exited.then(() => true), Bun.sleep(5000).then(() => false)]);
    if (!done) {
      this.proc.kill("SIGTERM");
      const gone = await Promise.race([this.proc.exited.then(() => true), Bun.sleep(3000).then(() => false)]);
      if (!gone) this.proc.kill("SIGKILL");
    }
  }
}

/** `claude -p <prompt>` in a new process (e.g. with `--resume <id>`); returns stdout lines (stream-json). */
export const runPrint = async (opts: HeadlessOptions, prompt: string, timeoutMs = 90_000): Promise<{ code: number; lines: any[]; stderr: string }> => {
  const args = headlessArgs(opts, [prompt]);
  const proc = Bun.spawn(args, { cwd: opts.sandbox.project, env: opts.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  const lines = out
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return { type: "unparsed", line: l };
      }
    });
  return { code, lines, stderr: err };
};

export const readDebug = (path: string): string => (existsSync(path) ? readFileSync(path, "utf8") : "");

/** Milliseconds of every `answered session.compact without next() in N ms` line of a debug log. */
export const hookTimes = (debug: string): number[] =>
  [...debug.matchAll(/answered session\.compact without next\(\) in ([\d.]+) ?ms/g)].map((m) => Number(m[1]));

/** Poll `check` until it returns a value, bounded. */
export const waitFor = async <T>(check: () => T | undefined | false, timeoutMs: number, what: string, everyMs = 250): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
};

/** The transcript path Claude Code writes for a session in `project`. */
export const transcriptPath = (sandbox: Sandbox, sessionId: string): string =>
  join(sandbox.home, ".claude", "projects", sandbox.project.replace(/[^A-Za-z0-9]/g, "-"), `${sessionId}.jsonl`);
