/**
 * Client-sealed content of encrypted sessions (interface.md "Encrypted
 * envelope", "Content reference"; decisions.md §8). The service never opens
 * an envelope; it only checks that it is well formed and sealed with the
 * session's key, so a wrong key is refused before anything is stored.
 */

export interface Envelope {
  version: number;
  algorithm: string;
  key_id: string;
  nonce: string;
  ciphertext: string;
}

export const CONTENT_REFERENCE_KINDS = [
  "message",
  "tool_call",
  "diff",
  "plan",
  "memory",
  "trace",
  "run_input",
] as const;
export type ContentReferenceKind = typeof CONTENT_REFERENCE_KINDS[number];

/** `kind:id`, e.g. `message:0192…`. */
export function isContentReference(value: string): boolean {
  const colon = value.indexOf(":");
  if (colon < 0 || colon === value.length - 1) return false;
  return (CONTENT_REFERENCE_KINDS as readonly string[]).includes(value.slice(0, colon));
}

export function contentReference(kind: ContentReferenceKind, id: string): string {
  return `${kind}:${id}`;
}

/** Standard or URL-safe alphabet, padding optional; a length of 4n+1 is never base64. */
export function isBase64(value: string): boolean {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) return false;
  const body = value.replace(/=+$/, "");
  if (body.length % 4 === 1) return false;
  return value.length === body.length || value.length % 4 === 0;
}

/** Bytes a base64 string decodes to (it is known to be base64). */
function decodedLength(value: string): number {
  return Math.floor((value.replace(/=+$/, "").length * 3) / 4);
}

/**
 * Every AEAD clients use appends a 16-byte tag: a shorter ciphertext was cut
 * or made up, never sealed.
 */
const TAG_BYTES = 16;

/** Nonce sizes of the AEADs known by name (compared without case or punctuation). */
const NONCE_BYTES: Readonly<Record<string, number>> = {
  aes256gcm: 12,
  aes128gcm: 12,
  a256gcm: 12,
  a128gcm: 12,
  chacha20poly1305: 12,
  c20p: 12,
  xchacha20poly1305: 24,
  xc20p: 24,
};

/**
 * What is wrong with an envelope for a session sealed with `keyId`, or null.
 * The service cannot open it, so it checks what a genuine one must be: its
 * key, base64 fields, a ciphertext at least a tag long, and, for an AEAD it
 * knows, the nonce size. The message names the field and the expected value;
 * key ids are not secrets.
 */
export function envelopeProblem(envelope: Envelope, keyId: string): string | null {
  if (envelope.version !== 1) return `version must be 1, got ${envelope.version}`;
  if (envelope.algorithm === "") return "algorithm must not be empty";
  if (envelope.key_id !== keyId) {
    return `key_id must be the session's '${keyId}', got '${envelope.key_id}'`;
  }
  if (!isBase64(envelope.nonce) || envelope.nonce === "") return "nonce must be base64";
  if (!isBase64(envelope.ciphertext)) return "ciphertext must be base64";
  if (decodedLength(envelope.ciphertext) < TAG_BYTES) {
    return `ciphertext must hold at least the ${TAG_BYTES}-byte authentication tag`;
  }
  const nonceBytes = NONCE_BYTES[envelope.algorithm.toLowerCase().replace(/[^a-z0-9]/g, "")];
  if (nonceBytes !== undefined && decodedLength(envelope.nonce) !== nonceBytes) {
    return `nonce must be ${nonceBytes} bytes for ${envelope.algorithm}, got ${
      decodedLength(envelope.nonce)
    }`;
  }
  return null;
}
