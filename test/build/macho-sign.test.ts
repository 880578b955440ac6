// The ad-hoc signer of the darwin release binaries, on small Mach-O files made here, checked by a
// reading of the signature written in this test (not the signer's own checkSignature). The real
// binaries are checked in macho-sign.slow.test.ts.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { MachOError, adhocSign, checkSignature } from "../../build/macho-sign.ts";

const PAGE = 4096;

/**
 * A Mach-O executable: header, __TEXT (the first `textPages` pages), __LINKEDIT after it, and an
 * old signature of `oldSigBytes` at the end (bytes that are no valid signature of this file).
 */
const machO = (textPages: number, linkeditBefore: number, oldSigBytes: number): Uint8Array => {
  const sizeofcmds = 72 + 72 + 16;
  const textSize = textPages * PAGE;
  const dataoff = textSize + linkeditBefore;
  const b = new Uint8Array(dataoff + oldSigBytes);
  for (let i = 32 + sizeofcmds; i < b.length; i++) b[i] = (i * 7 + 3) & 0xff;
  const v = new DataView(b.buffer);
  v.setUint32(0, 0xfeedfacf, true);
  v.setUint32(4, 0x01000007, true); // x86_64
  v.setUint32(8, 3, true);
  v.setUint32(12, 2, true); // MH_EXECUTE
  v.setUint32(16, 3, true);
  v.setUint32(20, sizeofcmds, true);
  const segment = (at: number, name: string, fileoff: number, filesize: number) => {
    v.setUint32(at, 0x19, true);
    v.setUint32(at + 4, 72, true);
    b.set(new TextEncoder().encode(name), at + 8);
    v.setBigUint64(at + 24, BigInt(0x100000000 + fileoff), true);
    v.setBigUint64(at + 32, BigInt(Math.ceil(filesize / PAGE) * PAGE), true);
    v.setBigUint64(at + 40, BigInt(fileoff), true);
    v.setBigUint64(at + 48, BigInt(filesize), true);
    for (let k = 56; k < 72; k++) b[at + k] = 0;
  };
  segment(32, "__TEXT", 0, textSize);
  segment(104, "__LINKEDIT", textSize, linkeditBefore + oldSigBytes);
  v.setUint32(176, 0x1d, true);
  v.setUint32(180, 16, true);
  v.setUint32(184, dataoff, true);
  v.setUint32(188, oldSigBytes, true);
  return b;
};

/** The signature read back with this test's own code: where it is, and its page hashes checked one by one. */
const readBack = (b: Uint8Array) => {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const dataoff = v.getUint32(184, true);
  const datasize = v.getUint32(188, true);
  expect(v.getUint32(dataoff)).toBe(0xfade0cc0);
  expect(v.getUint32(dataoff + 4)).toBe(datasize);
  const cd = dataoff + v.getUint32(dataoff + 16);
  expect(v.getUint32(cd)).toBe(0xfade0c02);
  const hashOffset = v.getUint32(cd + 16);
  const nCode = v.getUint32(cd + 28);
  const codeLimit = v.getUint32(cd + 32);
  let wrong = 0;
  for (let k = 0; k < nCode; k++) {
    const page = b.subarray(k * PAGE, Math.min(codeLimit, (k + 1) * PAGE));
    const want = createHash("sha256").update(page).digest("hex");
    const got = Buffer.from(b.subarray(cd + hashOffset + 32 * k, cd + hashOffset + 32 * (k + 1))).toString("hex");
    if (want !== got) wrong++;
  }
  return {
    dataoff,
    datasize,
    end: dataoff + datasize,
    codeLimit,
    nCode,
    wrong,
    flags: v.getUint32(cd + 12),
    ident: new TextDecoder().decode(b.subarray(cd + v.getUint32(cd + 20), cd + hashOffset - 1)),
    execSeg: [v.getBigUint64(cd + 64), v.getBigUint64(cd + 72), v.getBigUint64(cd + 80)].map(Number),
    linkedit: { vmsize: Number(v.getBigUint64(136, true)), filesize: Number(v.getBigUint64(152, true)), fileoff: Number(v.getBigUint64(144, true)) },
  };
};

describe("adhocSign", () => {
  test("every page up to the old signature is hashed, the file ends with the new one, and the sizes in the load commands say so", () => {
    // an old signature far too small for the new one: the file grows
    const file = machO(5, 1000, 64);
    const signed = adhocSign(file);
    const r = readBack(signed);
    expect(r.dataoff).toBe(5 * PAGE + 1000);
    expect(r.codeLimit).toBe(r.dataoff);
    expect(r.nCode).toBe(Math.ceil(r.dataoff / PAGE));
    expect(r.wrong).toBe(0);
    expect(r.end).toBe(signed.length);
    expect(r.flags).toBe(0x20002); // adhoc, linker-signed
    expect(r.ident).toBe("a.out");
    expect(r.execSeg).toEqual([0, 5 * PAGE, 1]);
    expect(r.linkedit.filesize).toBe(signed.length - r.linkedit.fileoff);
    expect(r.linkedit.vmsize).toBe(Math.ceil(r.linkedit.filesize / PAGE) * PAGE);
    expect(checkSignature(signed)).toMatchObject({ valid: true, badPages: 0, uncovered: 0, pages: r.nCode });
  });

  test("the bytes before the signature are the file's, but for the three sizes it sets; a larger old signature is cut off", () => {
    const file = machO(3, 4096 + 17, 900_000);
    const signed = adhocSign(file);
    const r = readBack(signed);
    expect(signed.length).toBeLessThan(file.length);
    const sizes = new Set([...Array(4).keys()].map((k) => 188 + k));
    for (const at of [136, 152]) for (let k = 0; k < 8; k++) sizes.add(at + k);
    const differ: number[] = [];
    for (let i = 0; i < r.dataoff; i++) if (signed[i] !== file[i]) differ.push(i);
    expect(differ.every((i) => sizes.has(i))).toBe(true);
    expect(differ.length).toBeGreaterThan(0);
    expect(r.wrong).toBe(0);
  });

  test("deterministic, and signing a signed file again changes nothing", () => {
    const once = adhocSign(machO(4, 123, 5000));
    expect(Buffer.compare(Buffer.from(adhocSign(machO(4, 123, 5000))), Buffer.from(once))).toBe(0);
    expect(Buffer.compare(Buffer.from(adhocSign(once)), Buffer.from(once))).toBe(0);
  });

  test("checkSignature tells a broken signature: one changed byte in the code, or pages left out", () => {
    const signed = adhocSign(machO(4, 500, 64));
    const changed = signed.slice();
    changed[2 * PAGE + 5]! ^= 1;
    expect(checkSignature(changed)).toMatchObject({ valid: false, badPages: 1 });
    // the old signature of a file whose code then grew: the new pages are not covered
    const grown = adhocSign(machO(2, 10, 64));
    const bigger = machO(4, 10, readBack(grown).datasize);
    bigger.set(grown.subarray(readBack(grown).dataoff), 4 * PAGE + 10);
    const check = checkSignature(bigger);
    expect(check.valid).toBe(false);
    expect(check.uncovered).toBe(2 * PAGE);
  });

  test("what it cannot sign is a MachOError, never a half-written file", () => {
    expect(() => adhocSign(new TextEncoder().encode("#!/bin/sh\necho not a Mach-O file\n"))).toThrow(MachOError);
    const noSig = machO(2, 10, 64);
    new DataView(noSig.buffer).setUint32(16, 2, true); // the signature command no longer counted
    expect(() => adhocSign(noSig)).toThrow("no code signature load command");
    const pastEnd = machO(2, 10, 64);
    new DataView(pastEnd.buffer).setUint32(188, 65, true);
    expect(() => adhocSign(pastEnd)).toThrow(MachOError);
  });
});
