// Bit sets and hash mixing for the fast lookup's filters and tables: one place for both.

/** Spread a 32-bit hash and keep its top (32 - shift) bits: a bucket among 2^(32 - shift). */
export const mix = (h: number, shift: number): number => Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> shift;

export const setBit = (bits: Uint32Array | Int32Array, b: number): void => {
  bits[b >>> 5]! |= 1 << (b & 31);
};

export const clearBit = (bits: Uint32Array | Int32Array, b: number): void => {
  bits[b >>> 5]! &= ~(1 << (b & 31));
};

export const hasBit = (bits: Uint32Array | Int32Array, b: number): boolean => (bits[b >>> 5]! & (1 << (b & 31))) !== 0;
