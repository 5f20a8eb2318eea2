/**
 * Sealing a message to an ephemeral key pair (ECIES with Web Crypto): P-256
 * ECDH between the recipient's key and a fresh sender key, HKDF-SHA-256 to an
 * AES-256-GCM key, and `context` as the associated data, so a ciphertext made
 * for one hand-off does not open as another. Used to pass plaintext between
 * instances through the database without the database being able to read it.
 */

const CURVE = { name: "ECDH", namedCurve: "P-256" } as const;
const INFO = new TextEncoder().encode("switchyard handoff v1");

export interface RecipientKeys {
  /** Raw public key, base64: the part that may be stored. */
  publicKey: string;
  privateKey: CryptoKey;
}

export interface SealedMessage {
  senderKey: string;
  iv: string;
  sealed: string;
}

/** Chunked so a large message does not overflow the argument list of `fromCharCode`. */
function toBase64(data: ArrayBuffer | Uint8Array): string {
  const bytes = new Uint8Array(data);
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x6000) {
    out += String.fromCharCode(...bytes.subarray(i, i + 0x6000));
  }
  return btoa(out);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export async function newRecipientKeys(): Promise<RecipientKeys> {
  const pair = await crypto.subtle.generateKey(CURVE, false, ["deriveBits"]);
  const raw = await crypto.subtle.exportKey("raw", pair.publicKey);
  return { publicKey: toBase64(raw), privateKey: pair.privateKey };
}

async function messageKey(
  privateKey: CryptoKey,
  publicKey: string,
  context: string,
): Promise<CryptoKey> {
  const peer = await crypto.subtle.importKey("raw", fromBase64(publicKey), CURVE, false, []);
  const shared = await crypto.subtle.deriveBits({ name: "ECDH", public: peer }, privateKey, 256);
  const ikm = await crypto.subtle.importKey("raw", shared, "HKDF", false, ["deriveKey"]);
  return await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new TextEncoder().encode(context), info: INFO },
    ikm,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** Seals `plaintext` so that only the holder of `recipientKey`'s private half opens it. */
export async function sealTo(
  recipientKey: string,
  context: string,
  plaintext: string,
): Promise<SealedMessage> {
  const sender = await crypto.subtle.generateKey(CURVE, true, ["deriveBits"]);
  const key = await messageKey(sender.privateKey, recipientKey, context);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(context) },
    key,
    new TextEncoder().encode(plaintext),
  );
  return {
    senderKey: toBase64(await crypto.subtle.exportKey("raw", sender.publicKey)),
    iv: toBase64(iv),
    sealed: toBase64(sealed),
  };
}

/** The plaintext, or null when the message was not sealed to these keys for `context` or was altered. */
export async function openWith(
  keys: RecipientKeys,
  context: string,
  message: SealedMessage,
): Promise<string | null> {
  try {
    const key = await messageKey(keys.privateKey, message.senderKey, context);
    const plain = await crypto.subtle.decrypt(
      {
        name: "AES-GCM",
        iv: fromBase64(message.iv),
        additionalData: new TextEncoder().encode(context),
      },
      key,
      fromBase64(message.sealed),
    );
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  }
}
