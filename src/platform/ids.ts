/** Two hex digits for each byte value. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
/** Random bytes drawn in bulk: one call to the system's generator serves 512 ids. */
const pool = new Uint8Array(16 * 512);
let used = pool.length;

/** UUID version 7 (RFC 9562): a millisecond timestamp then random bits, so ids sort by creation. */
export function uuidv7(nowMs: number = Date.now()): string {
  if (used === pool.length) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  const bytes = pool.subarray(used, used + 16);
  used += 16;
  let ms = Math.floor(nowMs);
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  let hex = "";
  for (let i = 0; i < 16; i++) {
    hex += HEX[bytes[i]];
    if (i === 3 || i === 5 || i === 7 || i === 9) hex += "-";
  }
  return hex;
}
