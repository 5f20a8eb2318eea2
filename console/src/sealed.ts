/**
 * Opens envelopes of an encrypted session in the browser with a key the user pastes: AES-256-GCM
 * with the envelope's `key_id` as additional data, the scheme of Switchyard's own clients. The
 * key lives in this page's memory only and is never sent anywhere.
 */
import type { Schemas } from "./api.ts";

type Envelope = Schemas["Envelope"];

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** The key from its base64 text (32 bytes), or an error naming what is wrong. */
export async function importKey(base64: string): Promise<CryptoKey> {
  let raw: Uint8Array;
  try {
    raw = fromBase64(base64.trim());
  } catch {
    throw new Error("the key is not base64");
  }
  if (raw.length !== 32) throw new Error(`expected a 32-byte key, got ${raw.length} bytes`);
  return await crypto.subtle.importKey("raw", raw as BufferSource, "AES-GCM", false, ["decrypt"]);
}

/** The plaintext of `envelope`, or null when this key does not open it. */
export async function openEnvelope(key: CryptoKey, envelope: Envelope): Promise<string | null> {
  if (envelope.algorithm !== "AES-256-GCM") return null;
  try {
    const plain = await crypto.subtle.decrypt(
      {
        name: "AES-GCM",
        iv: fromBase64(envelope.nonce) as BufferSource,
        additionalData: new TextEncoder().encode(envelope.key_id),
      },
      key,
      fromBase64(envelope.ciphertext) as BufferSource,
    );
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  }
}
