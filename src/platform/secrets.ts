import { createHash, timingSafeEqual } from "node:crypto";

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
export const MIXED_ALPHANUMERIC = UPPER + LOWER + DIGITS;
export const LOWER_ALPHANUMERIC = LOWER + DIGITS;

/** A uniformly random string over `alphabet` from the CSPRNG (rejection sampling avoids bias). */
export function randomString(length: number, alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    const bytes = new Uint8Array(length * 2);
    crypto.getRandomValues(bytes);
    for (const b of bytes) {
      if (b < limit) out += alphabet[b % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * SHA-256 of a UTF-8 string as lower-case hex. Secrets are random and long, so
 * a fast hash fits; it runs on every authenticated request, so it is the
 * synchronous one (Web Crypto's `digest` costs a round trip through the
 * runtime's thread pool).
 */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
