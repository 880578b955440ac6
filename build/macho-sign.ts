// An ad-hoc code signature for a 64-bit Mach-O executable, written the way Bun's compiler signs
// its darwin-arm64 output: one CodeDirectory (SHA-256 of every 4 KiB page up to the signature,
// flags adhoc and linker-signed, the __TEXT segment as the executable segment) in a SuperBlob,
// the file ending with it.
//
// Why: cross-compiling for darwin-x64, Bun leaves the runtime's own signature in place (Oven's
// Developer ID signature, with the hardened runtime), no longer valid once bc's code is in the
// file: some of its page hashes no longer match, and the pages added after it are outside it.
// macOS may refuse to start such a binary. An ad-hoc signature, as the arm64 build has, is valid.
// Signing the arm64 build again gives back Bun's bytes exactly (test/build/macho-sign.test.ts).
import { createHash } from "node:crypto";

const MH_MAGIC_64 = 0xfeedfacf;
const MH_EXECUTE = 2;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CSSLOT_CODEDIRECTORY = 0;
/** supports the executable segment fields */
const CD_VERSION = 0x20400;
const CS_ADHOC = 0x2;
const CS_LINKER_SIGNED = 0x20000;
const CS_EXECSEG_MAIN_BINARY = 0x1;
const CS_HASHTYPE_SHA256 = 2;
const HASH_SIZE = 32;
const PAGE_LOG2 = 12;
const PAGE = 1 << PAGE_LOG2;
/** the CodeDirectory's fixed part at CD_VERSION; the identifier follows it */
const CD_HEADER = 88;

export class MachOError extends Error {
  override name = "MachOError";
}

interface Segment {
  /** offset of its load command */
  readonly at: number;
  readonly fileoff: number;
  readonly filesize: number;
}

interface Layout {
  readonly filetype: number;
  readonly text: Segment;
  readonly linkedit: Segment;
  /** offset of LC_CODE_SIGNATURE */
  readonly sigAt: number;
  readonly dataoff: number;
  readonly datasize: number;
}

const layoutOf = (b: Uint8Array): Layout => {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.byteLength < 32 || v.getUint32(0, true) !== MH_MAGIC_64) throw new MachOError("not a 64-bit little-endian Mach-O file");
  const filetype = v.getUint32(12, true);
  const ncmds = v.getUint32(16, true);
  const sizeofcmds = v.getUint32(20, true);
  if (32 + sizeofcmds > b.byteLength) throw new MachOError("load commands run past the end of the file");
  const segments = new Map<string, Segment>();
  let sigAt: number | undefined;
  let at = 32;
  for (let i = 0; i < ncmds; i++) {
    if (at + 8 > 32 + sizeofcmds) throw new MachOError(`load command ${i} runs past the load commands`);
    const cmd = v.getUint32(at, true);
    const size = v.getUint32(at + 4, true);
    if (size < 8 || at + size > 32 + sizeofcmds) throw new MachOError(`load command ${i} has a bad size (${size})`);
    if (cmd === LC_SEGMENT_64) {
      const name = new TextDecoder().decode(b.subarray(at + 8, at + 24)).replace(/\0+$/, "");
      segments.set(name, { at, fileoff: Number(v.getBigUint64(at + 40, true)), filesize: Number(v.getBigUint64(at + 48, true)) });
    } else if (cmd === LC_CODE_SIGNATURE) sigAt = at;
    at += size;
  }
  const text = segments.get("__TEXT");
  const linkedit = segments.get("__LINKEDIT");
  if (!text || !linkedit) throw new MachOError("no __TEXT or no __LINKEDIT segment");
  if (sigAt === undefined) throw new MachOError("no code signature load command (this signer replaces one, it does not add one)");
  const dataoff = v.getUint32(sigAt + 8, true);
  const datasize = v.getUint32(sigAt + 12, true);
  if (dataoff < linkedit.fileoff || dataoff + datasize > b.byteLength) throw new MachOError("the code signature is not inside __LINKEDIT and the file");
  if (linkedit.fileoff + linkedit.filesize > dataoff + datasize) throw new MachOError("__LINKEDIT goes on after the code signature");
  return { filetype, text, linkedit, sigAt, dataoff, datasize };
};

const pageHashes = (b: Uint8Array, codeLimit: number, out: Uint8Array, at: number): void => {
  for (let start = 0, k = 0; start < codeLimit; start += PAGE, k++) {
    const digest = createHash("sha256")
      .update(b.subarray(start, Math.min(codeLimit, start + PAGE)))
      .digest();
    out.set(digest, at + k * HASH_SIZE);
  }
};

/**
 * The file signed ad hoc: the bytes before its code signature as they are (but for the sizes of
 * the signature and of __LINKEDIT in the load commands), then a new signature over them.
 */
export const adhocSign = (file: Uint8Array, identifier = "a.out"): Uint8Array => {
  const l = layoutOf(file);
  const ident = new TextEncoder().encode(`${identifier}\0`);
  const codeLimit = l.dataoff;
  const nCode = Math.ceil(codeLimit / PAGE);
  const hashOffset = CD_HEADER + ident.byteLength;
  const cdLength = hashOffset + nCode * HASH_SIZE;
  const superLength = 12 + 8 + cdLength;
  const out = new Uint8Array(l.dataoff + superLength);
  out.set(file.subarray(0, l.dataoff));
  const v = new DataView(out.buffer);
  // the load commands first: they are in the first page, which the signature hashes
  v.setUint32(l.sigAt + 12, superLength, true);
  const linkeditSize = l.dataoff + superLength - l.linkedit.fileoff;
  v.setBigUint64(l.linkedit.at + 48, BigInt(linkeditSize), true);
  v.setBigUint64(l.linkedit.at + 32, BigInt(Math.ceil(linkeditSize / PAGE) * PAGE), true);
  // SuperBlob: one index entry, the CodeDirectory
  let p = l.dataoff;
  v.setUint32(p, CSMAGIC_EMBEDDED_SIGNATURE);
  v.setUint32(p + 4, superLength);
  v.setUint32(p + 8, 1);
  v.setUint32(p + 12, CSSLOT_CODEDIRECTORY);
  v.setUint32(p + 16, 20);
  p += 20;
  v.setUint32(p, CSMAGIC_CODEDIRECTORY);
  v.setUint32(p + 4, cdLength);
  v.setUint32(p + 8, CD_VERSION);
  v.setUint32(p + 12, CS_ADHOC | CS_LINKER_SIGNED);
  v.setUint32(p + 16, hashOffset);
  v.setUint32(p + 20, CD_HEADER);
  v.setUint32(p + 24, 0); // special slots: none (no requirements, no entitlements)
  v.setUint32(p + 28, nCode);
  v.setUint32(p + 32, codeLimit);
  out[p + 36] = HASH_SIZE;
  out[p + 37] = CS_HASHTYPE_SHA256;
  out[p + 38] = 0; // platform
  out[p + 39] = PAGE_LOG2;
  // spare2, scatterOffset, teamOffset, spare3, codeLimit64: zero
  v.setBigUint64(p + 64, BigInt(l.text.fileoff));
  v.setBigUint64(p + 72, BigInt(l.text.filesize));
  v.setBigUint64(p + 80, BigInt(l.filetype === MH_EXECUTE ? CS_EXECSEG_MAIN_BINARY : 0));
  out.set(ident, p + CD_HEADER);
  pageHashes(out, codeLimit, out, p + hashOffset);
  return out;
};

export interface SignatureCheck {
  /** every page up to the signature is covered, and every page hash matches */
  readonly valid: boolean;
  readonly pages: number;
  /** pages whose hash does not match */
  readonly badPages: number;
  /** bytes before the signature that the CodeDirectory does not cover */
  readonly uncovered: number;
  readonly flags: number;
}

/** Checks a file's (first) CodeDirectory against its bytes, as the kernel would page by page. */
export const checkSignature = (file: Uint8Array): SignatureCheck => {
  const l = layoutOf(file);
  const v = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (v.getUint32(l.dataoff) !== CSMAGIC_EMBEDDED_SIGNATURE) throw new MachOError("the code signature is not a SuperBlob");
  const count = v.getUint32(l.dataoff + 8);
  let cd: number | undefined;
  for (let i = 0; i < count; i++) if (v.getUint32(l.dataoff + 12 + 8 * i) === CSSLOT_CODEDIRECTORY) cd = l.dataoff + v.getUint32(l.dataoff + 16 + 8 * i);
  if (cd === undefined || v.getUint32(cd) !== CSMAGIC_CODEDIRECTORY) throw new MachOError("the code signature has no CodeDirectory");
  const hashOffset = v.getUint32(cd + 16);
  const nCode = v.getUint32(cd + 28);
  const codeLimit = v.getUint32(cd + 32);
  if (file[cd + 36] !== HASH_SIZE || file[cd + 37] !== CS_HASHTYPE_SHA256 || file[cd + 39] !== PAGE_LOG2)
    throw new MachOError("the CodeDirectory is not SHA-256 over 4 KiB pages");
  const hashes = new Uint8Array(nCode * HASH_SIZE);
  pageHashes(file, Math.min(codeLimit, nCode * PAGE), hashes, 0);
  let badPages = 0;
  for (let k = 0; k < nCode; k++) {
    const at = cd + hashOffset + k * HASH_SIZE;
    for (let j = 0; j < HASH_SIZE; j++)
      if (hashes[k * HASH_SIZE + j] !== file[at + j]) {
        badPages++;
        break;
      }
  }
  const uncovered = Math.max(0, l.dataoff - codeLimit);
  return { valid: badPages === 0 && uncovered === 0 && nCode === Math.ceil(codeLimit / PAGE), pages: nCode, badPages, uncovered, flags: v.getUint32(cd + 12) };
};
