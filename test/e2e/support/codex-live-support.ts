// Driving the real interactive Codex through tmux against the scripted mock, for bc's live
// integration: a tmux session per test world, typed prompts, screen reads, bounded waits.
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { CONTINUE_TEXT } from "../../../src/hosts/codex/live/applier.ts";
import { threadIdInName } from "../../../src/hosts/codex/rollout-files.ts";
import { spawnStdio } from "../../../src/hosts/codex/live/app-server.ts";
import { trustText } from "../../../src/hosts/codex/live/install.ts";
import { type LiveRecord, logPath, parseLiveLog } from "../../../src/hosts/codex/live/state.ts";
import { type CodexEnv, makeCodexEnv, run } from "./codex-env.ts";
import { type InstalledCodex, installCodex } from "./codex-install.ts";
import { KIND_HEADER, type LoggedRequest, type MockServer, readBody, startMock } from "./codex-mock.ts";
import { CODEX_LIVE } from "./versions.ts";

/** The Codex release the live integration is tested with (from the one list; BC_CODEX_LIVE_VERSION tries another). */
export const CODEX_LIVE_VERSION = process.env.BC_CODEX_LIVE_VERSION || CODEX_LIVE;

export const hasTmux = (): boolean => Bun.which("tmux") !== null;

const REPO = join(import.meta.dir, "..", "..", "..");
const DIST = join(REPO, "dist", process.platform === "win32" ? "bc.exe" : "bc");
/** bc as the tests run it: the built binary when there is one, else bun with the entry file. */
export const BC = existsSync(DIST) ? [DIST] : [process.execPath, join(REPO, "src", "main.ts")];
/**
 * Small enough that the big task crosses it (each read adds ~2.5k tokens; the request's fixed part,
 * instructions and tools, is ~13k), large enough that the pruned history fits under bc's share of it.
 */
export const AUTO_COMPACT_LIMIT = 60_000;
/** under Codex's own 10 KB cut of a shell output, so every read adds its whole file */
export const BIG = ["big1.txt", "big2.txt", "big3.txt", "big4.txt"];
/** `rounds` reads of each big file, as one prompt */
export const bigReads = (rounds: number): string => Array.from({ length: rounds }, () => BIG.map((f) => `RUN: cat ${f}`).join(" ")).join(" ");

/**
 * A test world for the live integration: the pinned Codex, the mock, a CODEX_HOME whose
 * config.toml sets AUTO_COMPACT_LIMIT, the big files in the work dir; `env` is added to the world's.
 */
export const startLiveWorld = (env: Record<string, string> = {}): { codex: InstalledCodex; mock: LiveMock; e: CodexEnv } => {
  const codex = installCodex(CODEX_LIVE_VERSION);
  const mock = startLiveMock();
  const base = makeCodexEnv(mock.url);
  const e = { ...base, env: { ...base.env, ...env } };
  const cfg = join(e.home, "config.toml");
  writeFileSync(cfg, `model_auto_compact_token_limit = ${AUTO_COMPACT_LIMIT}\n${readFileSync(cfg, "utf8")}`);
  writeBigFiles(e.work, BIG, 9_000);
  return { codex, mock, e };
};

/** Stop what a live world started (the TUI, Codex's shared app-server, the mock) and remove it. */
export const stopLiveWorld = async (w: { codex?: InstalledCodex; mock?: LiveMock; e?: CodexEnv }, tui?: Tui): Promise<void> => {
  tui?.stop();
  if (w.codex && w.e) await stopDaemon(w.codex.bin, w.e.work, w.e.env, w.e.root);
  w.mock?.stop();
  w.e?.cleanup();
};

/** `bc <args>` in the world's work dir, with its environment. */
export const runBc = (e: CodexEnv, args: readonly string[]) => run([...BC, ...args], { cwd: e.work, env: e.env, timeoutMs: 60_000 });

/** bc's decision log for a thread (none yet: empty). */
export const liveRecords = (home: string, threadId: string): LiveRecord[] => {
  const p = logPath(home, threadId);
  return existsSync(p) ? parseLiveLog(readFileSync(p, "utf8")).records : [];
};

/** The thread id a rollout file is named after. */
export const threadIdOf = (rolloutPath: string): string => threadIdInName(basename(rolloutPath))!;

/**
 * Add a hook of the user's for `event` (PreCompact, SessionStart, ...) to `$CODEX_HOME/hooks.json`
 * and mark it trusted with the key and hash Codex itself reports for it (`hooks/list`), as
 * `bc codex install --trust` does for bc's.
 */
export const addTrustedHook = async (codexBin: string, e: CodexEnv, event: string, command: string): Promise<void> => {
  const path = join(e.home, "hooks.json");
  const hooks = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {};
  hooks.hooks ??= {};
  hooks.hooks[event] = [...(hooks.hooks[event] ?? []), { hooks: [{ type: "command", command, timeout: 60 }] }];
  writeFileSync(path, `${JSON.stringify(hooks, null, 2)}\n`);
  const client = await spawnStdio(codexBin, e.env);
  try {
    const r: { data: { hooks: { key: string; currentHash: string; command?: string; trustStatus: string }[] }[] } = await client.request(
      "hooks/list",
      { cwds: [e.work] },
      30_000,
    );
    const hook = r.data.flatMap((d) => d.hooks).find((h) => h.command === command);
    if (!hook) throw new Error(`Codex does not list the hook '${command}'`);
    appendFileSync(join(e.home, "config.toml"), trustText(hook.key, hook.currentHash));
  } finally {
    client.close();
  }
};

/** Wait until `check` returns a value other than undefined/false; throws with `what` after `timeoutMs`. */
export const waitFor = async <T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
  onTimeout?: () => string,
): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${onTimeout ? `\n${onTimeout()}` : ""}`);
    await Bun.sleep(200);
  }
};

const tmux = (socket: string, args: string[]): string => {
  const r = Bun.spawnSync(["tmux", "-L", socket, ...args], { stdout: "pipe", stderr: "pipe" });
  return r.stdout.toString();
};

export interface Tui {
  /** the screen as text (trailing blank lines dropped) */
  screen(): string;
  /** type a line and press Enter */
  type(text: string): Promise<void>;
  keys(...keys: string[]): void;
  stop(): void;
}

/** Start `argv` in a fresh tmux server (its own socket name), 160x50, in `cwd` with exactly `env`. */
export const startTui = (name: string, argv: readonly string[], cwd: string, env: Record<string, string>): Tui => {
  const socket = `bc-e2e-${name}-${process.pid}`;
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  const quoted = ["env", "-i", ...envArgs, ...argv].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  tmux(socket, ["new-session", "-d", "-s", "t", "-x", "160", "-y", "50", "-c", cwd, `${quoted}; sleep 300`]);
  const tui: Tui = {
    screen: () => tmux(socket, ["capture-pane", "-p", "-t", "t"]).replace(/\s+$/, ""),
    type: async (text) => {
      // typed a few characters at a time, as a person types: Codex takes a fast burst for a paste
      // and holds an Enter that arrives inside it as text
      for (let i = 0; i < text.length; i += 6) {
        tmux(socket, ["send-keys", "-t", "t", "-l", "--", text.slice(i, i + 6)]);
        await Bun.sleep(20);
      }
      // whether the text stands in the input box: the lines from the last prompt mark to the blank
      // line under them (the status line below names the thread after its first prompt: not counted)
      const tail = text.slice(-16).replace(/\s+/g, "");
      const pending = (): boolean => {
        const lines = tui.screen().split("\n");
        let at = -1;
        for (let i = lines.length - 1; i >= 0 && at === -1; i--) if (lines[i]!.trimStart().startsWith("›")) at = i;
        if (at === -1) return false;
        let end = at + 1;
        while (end < lines.length && lines[end]!.trim() !== "") end++;
        return lines.slice(at, end).join("").replace(/\s+/g, "").includes(tail);
      };
      // Enter only once the whole text shows: a fresh Codex draws nothing for a second or two while
      // it starts, and an Enter pressed then is lost while the screen still shows part of the text
      for (let waited = 0; !pending() && waited < 10_000; waited += 100) await Bun.sleep(100);
      await Bun.sleep(200);
      // then Enter, again while the text still stands there (Codex can also take a while after start
      // before it submits anything: keep trying, for half a minute)
      for (let tries = 0; tries < 30; tries++) {
        tmux(socket, ["send-keys", "-t", "t", "Enter"]);
        await Bun.sleep(1000);
        if (!pending()) return;
      }
    },
    keys: (...keys) => void tmux(socket, ["send-keys", "-t", "t", ...keys]),
    stop: () => void tmux(socket, ["kill-server"]),
  };
  return tui;
};

/** The Codex prompt is up and waiting for input. */
export const isReady = (screen: string): boolean => /›/.test(screen) && !/Working|esc to interrupt/.test(screen.split("\n").slice(-6).join("\n"));

/**
 * The scripted mock, behind a small relay that hides bc's "continue" message and Codex's
 * `<turn_aborted>` note from the script, so a task interrupted by a compaction and restarted by bc
 * goes on with its remaining RUN commands. The relay logs what Codex really sent.
 */
export interface LiveMock {
  readonly url: string;
  /** /responses bodies exactly as Codex sent them */
  readonly sent: { body: any; kind: LoggedRequest["kind"] }[];
  compactions(): number;
  stop(): void;
}

const isHiddenPrompt = (it: any): boolean => {
  if (it?.type !== "message" || it.role !== "user" || !Array.isArray(it.content)) return false;
  const text = it.content
    .map((c: any) => (typeof c?.text === "string" ? c.text : ""))
    .join("\n")
    .trimStart();
  return text === CONTINUE_TEXT || text.startsWith("<turn_aborted>");
};

export const startLiveMock = (): LiveMock => {
  const inner: MockServer = startMock({ lifetimeMs: 10 * 60_000 });
  const sent: LiveMock["sent"] = [];
  const relay = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(req) {
      const url = new URL(req.url);
      const { raw, body } = await readBody(req);
      let forward = raw;
      if (req.method === "POST" && url.pathname.endsWith("/responses") && Array.isArray(body?.input)) {
        forward = JSON.stringify({ ...body, input: body.input.filter((it: any) => !isHiddenPrompt(it)) });
      }
      const headers = new Headers(req.headers);
      headers.delete("content-length");
      const answer = await fetch(`${inner.url.replace(/\/v1$/, "")}${url.pathname}${url.search}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : forward,
      });
      if (req.method === "POST" && url.pathname.endsWith("/responses"))
        sent.push({ body, kind: (answer.headers.get(KIND_HEADER) as LoggedRequest["kind"] | null) ?? "other" });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    },
  });
  const timer = setTimeout(() => relay.stop(true), 10 * 60_000);
  return {
    url: `http://127.0.0.1:${relay.port}/v1`,
    sent,
    compactions: () => inner.compactionRequests().length,
    stop: () => {
      clearTimeout(timer);
      relay.stop(true);
      inner.stop();
    },
  };
};

/** Files large enough that a few reads cross a small auto-compact limit. */
export const writeBigFiles = (work: string, names: readonly string[], bytes: number): void => {
  for (const [i, name] of names.entries()) {
    const lines: string[] = [];
    for (let n = 0; lines.join("\n").length < bytes; n++) lines.push(`${name} line ${n}: value ${(n * 7919 + i * 104729) % 1000003} of the ${name} table`);
    if (!existsSync(join(work, name))) writeFileSync(join(work, name), `${lines.join("\n")}\n`);
  }
};

/**
 * Stop the shared app-server the interactive CLI started for a test world: `codex app-server daemon
 * stop`, then any process of that daemon still running from the world's folder (found by its command
 * line, so only processes this test started are touched).
 */
export const stopDaemon = async (codexBin: string, cwd: string, env: Record<string, string>, root: string): Promise<void> => {
  const p = Bun.spawn([codexBin, "app-server", "daemon", "stop"], { cwd, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  const timer = setTimeout(() => p.kill(), 30_000);
  await p.exited;
  clearTimeout(timer);
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (cmd.includes(root) && Number(pid) !== process.pid) {
      try {
        process.kill(Number(pid));
      } catch {}
    }
  }
};
