// The plugin's icon (.claude-plugin/icon.png), drawn here rather than kept as a binary file:
// a square of 512 px, three bars for what bc does to a tool result: kept whole, cut to its
// head, dropped (a stub of its call left).
import { deflateSync } from "node:zlib";

export const ICON_SIZE = 512;

type Rgb = readonly [number, number, number];
const BACKGROUND: Rgb = [0x1b, 0x1f, 0x24];
const BARS: readonly { readonly y: number; readonly width: number; readonly color: Rgb }[] = [
  { y: 128, width: 352, color: [0x3f, 0xb9, 0x50] }, // keep
  { y: 224, width: 200, color: [0xd2, 0x99, 0x22] }, // truncate
  { y: 320, width: 48, color: [0x8b, 0x94, 0x9e] }, // drop
];
const BAR_X = 80;
const BAR_HEIGHT = 64;
const RADIUS = 96;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Uint8Array): number => {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

const chunk = (type: string, data: Uint8Array): Buffer => {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
};

/** Inside the rounded square? */
const inside = (x: number, y: number): boolean => {
  const cx = Math.min(Math.max(x, RADIUS), ICON_SIZE - 1 - RADIUS);
  const cy = Math.min(Math.max(y, RADIUS), ICON_SIZE - 1 - RADIUS);
  return (x - cx) ** 2 + (y - cy) ** 2 <= RADIUS ** 2;
};

/** The icon as PNG bytes (RGBA, transparent outside the rounded square). */
export const iconPng = (): Uint8Array => {
  const row = 1 + ICON_SIZE * 4;
  const raw = Buffer.alloc(row * ICON_SIZE);
  for (let y = 0; y < ICON_SIZE; y++) {
    raw[y * row] = 0; // filter: none
    const bar = BARS.find((b) => y >= b.y && y < b.y + BAR_HEIGHT);
    for (let x = 0; x < ICON_SIZE; x++) {
      const at = y * row + 1 + x * 4;
      if (!inside(x, y)) continue; // transparent
      const color = bar && x >= BAR_X && x < BAR_X + bar.width ? bar.color : BACKGROUND;
      raw[at] = color[0];
      raw[at + 1] = color[1];
      raw[at + 2] = color[2];
      raw[at + 3] = 0xff;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(ICON_SIZE, 0);
  header.writeUInt32BE(ICON_SIZE, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", deflateSync(raw, { level: 9 })), chunk("IEND", new Uint8Array())]));
};
