// One corpus file read as a session, the same way for bc eval and for a fit (bc calibrate,
// build/fit-need.ts): its bytes are hashed (the corpus fingerprint is over these hashes, so the
// weights a fit writes name the corpus as bc eval's report does), then the same bytes are loaded:
// the file is read once, and what is replayed is what was hashed.
import type { Host } from "../engine/types.ts";
import { detectHost, loadSessionFile } from "../hosts/load.ts";
import type { LoadedSession } from "../hosts/types.ts";
import { readOnce, withBytes } from "../util/jsonl.ts";
import { contentHash, type CorpusFile, notASession, unreadable } from "./corpus.ts";

export type SessionFileRead =
  | { readonly kind: "unreadable"; readonly reason: string }
  /** not of the host asked for */
  | { readonly kind: "filtered" }
  | { readonly kind: "not-a-session"; readonly hash: string; readonly reason: string }
  | { readonly kind: "session"; readonly hash: string; readonly session: LoadedSession };

/** Read, hash and load one file; `host`: only sessions of this host (the others are "filtered", unhashed). */
export const readSessionFile = (f: CorpusFile, host?: Host): SessionFileRead => {
  let bytes: Uint8Array;
  try {
    bytes = readOnce(f.path);
  } catch (e) {
    return { kind: "unreadable", reason: unreadable(f.name, e) };
  }
  try {
    if (host !== undefined && withBytes(f.path, bytes, () => detectHost(f.path)) !== host) return { kind: "filtered" };
  } catch {
    // not recognisable: loading says why below
  }
  const hash = contentHash(bytes);
  try {
    return { kind: "session", hash, session: withBytes(f.path, bytes, () => loadSessionFile(f.path)) };
  } catch (e) {
    return { kind: "not-a-session", hash, reason: notASession(f, e) };
  }
};
