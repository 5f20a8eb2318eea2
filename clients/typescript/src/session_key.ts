/**
 * The key of an encrypted session, and the envelopes of decisions.md §8:
 * AES-256-GCM through Web Crypto, a fresh 96-bit nonce per envelope, the
 * `key_id` bound as additional data so an envelope moved to another key does
 * not open. The key never leaves the client; only envelopes are sent.
 */
import type { Envelope, EnvelopeMap, PlaintextMap } from "./types.ts";

export const ENVELOPE_ALGORITHM = "AES-256-GCM";

export interface SessionKey {
  /** The id the session is created with (`key_id`); not a secret. */
  keyId: string;
  key: CryptoKey;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

const randomHex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0"))
    .join("");

/**
 * A new random key. `extractable` lets `exportSessionKey` write it to a key
 * file; leave it false for a key that should live only in this process.
 */
export async function createSessionKey(
  options: { keyId?: string; extractable?: boolean } = {},
): Promise<SessionKey> {
  const key = await crypto.subtle.generateKey(
    { name: "AES-GCM", length: 256 },
    options.extractable ?? true,
    ["encrypt", "decrypt"],
  );
  return { keyId: options.keyId ?? `key-${randomHex(8)}`, key };
}

/** The key as `{ key_id, key }` (raw key in base64), e.g. for a key file only its owner reads. */
export async function exportSessionKey(
  sessionKey: SessionKey,
): Promise<{ key_id: string; key: string }> {
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", sessionKey.key));
  return { key_id: sessionKey.keyId, key: toBase64(raw) };
}

export async function importSessionKey(
  exported: { key_id: string; key: string },
  options: { extractable?: boolean } = {},
): Promise<SessionKey> {
  const raw = fromBase64(exported.key);
  if (raw.length !== 32) throw new Error("a session key is 32 bytes (AES-256)");
  const key = await crypto.subtle.importKey(
    "raw",
    raw,
    { name: "AES-GCM" },
    options.extractable ?? false,
    ["encrypt", "decrypt"],
  );
  return { keyId: exported.key_id, key };
}

export async function seal(sessionKey: SessionKey, text: string): Promise<Envelope> {
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv: nonce, additionalData: encoder.encode(sessionKey.keyId) },
    sessionKey.key,
    encoder.encode(text),
  );
  return {
    version: 1,
    algorithm: ENVELOPE_ALGORITHM,
    key_id: sessionKey.keyId,
    nonce: toBase64(nonce),
    ciphertext: toBase64(new Uint8Array(sealed)),
  };
}

/** Throws when the envelope was sealed under another key or tampered with. */
export async function open(sessionKey: SessionKey, envelope: Envelope): Promise<string> {
  if (envelope.key_id !== sessionKey.keyId) {
    throw new Error(`envelope sealed under key '${envelope.key_id}', not '${sessionKey.keyId}'`);
  }
  const plain = await crypto.subtle.decrypt(
    {
      name: "AES-GCM",
      iv: fromBase64(envelope.nonce),
      additionalData: encoder.encode(envelope.key_id),
    },
    sessionKey.key,
    fromBase64(envelope.ciphertext),
  );
  return decoder.decode(plain);
}

export async function sealAll(sessionKey: SessionKey, map: PlaintextMap): Promise<EnvelopeMap> {
  const refs = Object.keys(map);
  const envelopes = await Promise.all(refs.map((ref) => seal(sessionKey, map[ref])));
  return Object.fromEntries(refs.map((ref, i) => [ref, envelopes[i]]));
}

export async function openAll(sessionKey: SessionKey, map: EnvelopeMap): Promise<PlaintextMap> {
  const refs = Object.keys(map);
  const texts = await Promise.all(refs.map((ref) => open(sessionKey, map[ref])));
  return Object.fromEntries(refs.map((ref, i) => [ref, texts[i]]));
}
