// A throwaway Codex world: a temp CODEX_HOME whose config.toml points a custom provider at the
// mock Responses API, a work dir with a few real files, and helpers to run the real `codex`.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface CodexEnv {
  readonly root: string;
  readonly home: string;
  readonly work: string;
  readonly env: Record<string, string>;
  cleanup(): void;
}

export const MOCK_KEY_ENV = "BC_E2E_MOCK_KEY";

export const configToml = (mockUrl: string, work: string): string =>
  [
    `model = "mock-model"`,
    `model_provider = "mock"`,
    `approval_policy = "never"`,
    `sandbox_mode = "danger-full-access"`,
    `check_for_update_on_startup = false`,
    ``,
    `[model_providers.mock]`,
    `name = "mock"`,
    `base_url = ${JSON.stringify(mockUrl)}`,
    `wire_api = "responses"`,
    `env_key = "${MOCK_KEY_ENV}"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
    `[features]`,
    `plugins = false`,
    `remote_plugin = false`,
    ``,
    `[projects.${JSON.stringify(work)}]`,
    `trust_level = "trusted"`,
    ``,
  ].join("\n");

export const WORK_FILES: Record<string, string> = {
  "a.txt": "alpha: the first file\nit has two lines\n",
  "b.txt": `bravo: ${"0123456789".repeat(40)}\n`,
  "notes.md": "# Notes\n\nThe build uses `make`; tests live in test/.\n",
};

export const makeCodexEnv = (mockUrl: string): CodexEnv => {
  const root = mkdtempSync(join(tmpdir(), "bc-e2e-codex-"));
  const home = join(root, "codex-home");
  const work = join(root, "work");
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  for (const [name, text] of Object.entries(WORK_FILES)) writeFileSync(join(work, name), text);
  writeFileSync(join(home, "config.toml"), configToml(mockUrl, work));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: root,
    CODEX_HOME: home,
    [MOCK_KEY_ENV]: "mock-key",
    NO_COLOR: "1",
    TERM: "dumb",
    LANG: "C.UTF-8",
  };
  return { root, home, work, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
};

export interface RunResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run a program asynchronously (the mock lives in this process, so a sync spawn would deadlock). */
export const run = async (argv: string[], opts: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<RunResult> => {
  const p = Bun.spawn(argv, { cwd: opts.cwd, env: opts.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => p.kill(), opts.timeoutMs ?? 120_000);
  const [stdout, stderr, exitCode] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(timer);
  return { exitCode, stdout, stderr };
};

/** `codex exec "<prompt>" < /dev/null` */
export const codexExec = (bin: string, e: CodexEnv, prompt: string, extra: string[] = []): Promise<RunResult> =>
  run([bin, "exec", "--skip-git-repo-check", ...extra, prompt], { cwd: e.work, env: e.env });

/** `codex exec resume <id> "<prompt>" < /dev/null` */
export const codexResume = (bin: string, e: CodexEnv, id: string, prompt: string, extra: string[] = []): Promise<RunResult> =>
  run([bin, "exec", "--skip-git-repo-check", ...extra, "resume", id, prompt], { cwd: e.work, env: e.env });

/** every rollout file under $CODEX_HOME/sessions */
export const listRollouts = (home: string): string[] => {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/^rollout-.*\.jsonl$/.test(n)) out.push(p);
    }
  };
  walk(join(home, "sessions"));
  return out.sort();
};
