// A JSON-RPC client of Codex's app-server: over the shared daemon's control socket (WebSocket on a
// Unix socket, `$CODEX_HOME/app-server-control/app-server-control.sock`), or over the stdio of a
// `codex app-server` bc starts itself (for `bc codex install --trust`). Requests carry an id and
// wait for the answer with that id; notifications are ignored. Every wait is bounded.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { VERSION } from "../../../version.ts";

/** The interactive CLI's shared app-server listens here (absent under `codex exec` or `--no-daemon`). */
export const controlSocketPath = (codexHome: string): string => join(codexHome, "app-server-control", "app-server-control.sock");

export const socketExists = (codexHome: string): boolean => existsSync(controlSocketPath(codexHome));

export class AppServerError extends Error {
  constructor(
    readonly method: string,
    message: string,
    readonly code?: number,
  ) {
    super(`${method}: ${message}`);
    this.name = "AppServerError";
  }
}

export interface AppServerClient {
  request<T = any>(method: string, params: unknown, timeoutMs?: number): Promise<T>;
  close(): void;
}

interface Transport {
  send(text: string): void;
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/** The request/answer bookkeeping shared by both transports. */
const rpc = (
  open: (onMessage: (text: string) => void, onClose: (why: string) => void) => Transport,
): AppServerClient & { readonly closed: () => string | undefined } => {
  let next = 0;
  let closedWhy: string | undefined;
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void; method: string }>();
  const onMessage = (text: string): void => {
    let v: any;
    try {
      v = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof v?.id !== "number" || !pending.has(v.id)) return;
    const p = pending.get(v.id)!;
    pending.delete(v.id);
    if (v.error) p.reject(new AppServerError(p.method, String(v.error.message ?? JSON.stringify(v.error)), v.error.code));
    else p.resolve(v.result);
  };
  const onClose = (why: string): void => {
    closedWhy ??= why;
    for (const p of pending.values()) p.reject(new AppServerError(p.method, `connection closed (${why})`));
    pending.clear();
  };
  const t = open(onMessage, onClose);
  return {
    closed: () => closedWhy,
    request: (method, params, timeoutMs = DEFAULT_TIMEOUT_MS) =>
      new Promise((resolve, reject) => {
        if (closedWhy !== undefined) return reject(new AppServerError(method, `connection closed (${closedWhy})`));
        const id = ++next;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new AppServerError(method, `no answer within ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
        pending.set(id, {
          method,
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        t.send(JSON.stringify({ id, method, params }));
      }),
    close: () => {
      onClose("closed by bc");
      t.close();
    },
  };
};

const handshake = async (client: AppServerClient): Promise<void> => {
  await client.request("initialize", { clientInfo: { name: "better-compaction", title: null, version: VERSION }, capabilities: null });
};

/** Connect to the control socket and initialize; rejects when there is no socket or no answer. */
export const connectSocket = (socketPath: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<AppServerClient> =>
  new Promise((resolve, reject) => {
    if (!existsSync(socketPath)) return reject(new AppServerError("connect", `no app-server socket at ${socketPath}`));
    let ws: WebSocket;
    const timer = setTimeout(() => {
      reject(new AppServerError("connect", `no connection within ${Math.round(timeoutMs / 1000)} s`));
      try {
        ws.close();
      } catch {}
    }, timeoutMs);
    let client: ReturnType<typeof rpc>;
    try {
      client = rpc((onMessage, onClose) => {
        ws = new WebSocket(`ws+unix://${socketPath}`);
        ws.onmessage = (m) => onMessage(typeof m.data === "string" ? m.data : Buffer.from(m.data as ArrayBuffer).toString("utf8"));
        ws.onclose = (e) => onClose(`socket closed${e.reason ? `: ${e.reason}` : ""}`);
        ws.onerror = () => onClose("socket error");
        return { send: (text) => ws.send(text), close: () => ws.close() };
      });
    } catch (e) {
      clearTimeout(timer);
      return reject(new AppServerError("connect", (e as Error).message));
    }
    ws!.onopen = () => {
      handshake(client).then(
        () => {
          ws.send(JSON.stringify({ method: "initialized" }));
          clearTimeout(timer);
          resolve(client);
        },
        (e) => {
          clearTimeout(timer);
          client.close();
          reject(e);
        },
      );
    };
    const closeBefore = ws!.onclose;
    ws!.onclose = (e) => {
      closeBefore?.call(ws, e);
      clearTimeout(timer);
      reject(new AppServerError("connect", client.closed() ?? "socket closed"));
    };
  });

/** Start `<codex> app-server` on stdio (JSON lines) with this environment, and initialize. */
export const spawnStdio = async (codexBin: string, env: Record<string, string | undefined>, timeoutMs = 30_000): Promise<AppServerClient> => {
  let child: ChildProcess;
  const client = rpc((onMessage, onClose) => {
    child = spawn(codexBin, ["app-server", "--listen", "stdio://"], { env: env as NodeJS.ProcessEnv, stdio: ["pipe", "pipe", "ignore"] });
    let buf = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) onMessage(line);
      }
    });
    child.stdin!.on("error", () => onClose("codex app-server closed its input"));
    child.on("exit", (code) => onClose(`codex app-server exited (${code})`));
    child.on("error", (e) => onClose(e.message));
    return {
      send: (text) => child.stdin!.write(`${text}\n`),
      close: () => {
        child.stdin!.end();
        child.kill();
      },
    };
  });
  try {
    await client.request("initialize", { clientInfo: { name: "better-compaction", title: null, version: VERSION }, capabilities: null }, timeoutMs);
    child!.stdin!.write(`${JSON.stringify({ method: "initialized" })}\n`);
  } catch (e) {
    client.close();
    throw e;
  }
  return client;
};
