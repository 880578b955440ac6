// A fork's ids and names, as Codex makes them: a UUID v7 thread id, a rollout file named for its
// local start time and id, under the day's sessions folder.
import { join } from "node:path";

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const CANONICAL_NAME_RE =
  /^rollout-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;
export const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** UUID v7: 48-bit Unix ms timestamp, version 7, variant 10, the rest random. */
export const uuidV7 = (nowMs: number, random: Uint8Array = crypto.getRandomValues(new Uint8Array(10))): string => {
  if (random.length < 10) throw new Error("uuidV7 needs 10 random bytes");
  const b = new Uint8Array(16);
  let ms = Math.floor(nowMs);
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  b[6] = 0x70 | (random[0]! & 0x0f);
  b[7] = random[1]!;
  b[8] = 0x80 | (random[2]! & 0x3f);
  for (let i = 9; i < 16; i++) b[i] = random[i - 6]!;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

const pad = (n: number): string => String(n).padStart(2, "0");

/** `rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl`, in local time like Codex (recorder.rs). */
export const canonicalFileName = (now: Date, id: string): string =>
  `rollout-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}-${id}.jsonl`;

/** `$CODEX_HOME/sessions/YYYY/MM/DD` (local date, like Codex). */
export const sessionsDayDir = (codexHome: string, now: Date): string =>
  join(codexHome, "sessions", String(now.getFullYear()), pad(now.getMonth() + 1), pad(now.getDate()));
