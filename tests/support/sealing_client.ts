/**
 * A client of encrypted sessions that really seals and opens, with AES-256-GCM
 * through Web Crypto: each envelope has a fresh 96-bit nonce and binds its
 * `key_id` as additional data, so a tampered envelope does not open. The
 * service never sees the key.
 */
import type { Envelope } from "../../src/core/sealed_envelope.ts";

export interface SealingClient {
  keyId: string;
  seal(text: string): Promise<Envelope>;
  /** Throws when the envelope was tampered with or sealed under another key. */
  open(envelope: Envelope): Promise<string>;
  sealAll(map: Record<string, string>): Promise<Record<string, Envelope>>;
  openAll(map: Record<string, Envelope>): Promise<Record<string, string>>;
}

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** A client with a fresh key, or with the 32 raw bytes given (a key a person could paste). */
export async function sealingClient(keyId: string, raw?: Uint8Array): Promise<SealingClient> {
  const uses: KeyUsage[] = ["encrypt", "decrypt"];
  const key = raw
    ? await crypto.subtle.importKey("raw", raw as BufferSource, "AES-GCM", false, uses)
    : await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, uses);
  const aad = new TextEncoder().encode(keyId);
  const client: SealingClient = {
    keyId,
    async seal(text) {
      const nonce = crypto.getRandomValues(new Uint8Array(12));
      const sealed = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv: nonce, additionalData: aad },
        key,
        new TextEncoder().encode(text),
      );
      return {
        version: 1,
        algorithm: "AES-256-GCM",
        key_id: keyId,
        nonce: toBase64(nonce),
        ciphertext: toBase64(new Uint8Array(sealed)),
      };
    },
    async open(envelope) {
      const plain = await crypto.subtle.decrypt(
        {
          name: "AES-GCM",
          iv: fromBase64(envelope.nonce),
          additionalData: new TextEncoder().encode(envelope.key_id),
        },
        key,
        fromBase64(envelope.ciphertext),
      );
      return new TextDecoder().decode(plain);
    },
    async sealAll(map) {
      const out: Record<string, Envelope> = {};
      for (const [ref, text] of Object.entries(map)) out[ref] = await client.seal(text);
      return out;
    },
    async openAll(map) {
      const out: Record<string, string> = {};
      for (const [ref, envelope] of Object.entries(map)) out[ref] = await client.open(envelope);
      return out;
    },
  };
  return client;
}
