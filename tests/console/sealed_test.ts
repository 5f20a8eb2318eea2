/**
 * Opening sealed content in the console: a pasted base64 AES-256-GCM key opens envelopes sealed
 * with the `key_id` as additional data (the scheme of tests/support/sealing_client.ts); a wrong
 * key, a tampered envelope or another algorithm leave it sealed; a malformed key is refused.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { importKey, openEnvelope } from "../../console/src/sealed.ts";
import { sealingClient } from "../support/sealing_client.ts";

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

const seal = async (raw: Uint8Array, keyId: string, text: string) =>
  await (await sealingClient(keyId, raw)).seal(text);

describe("opening sealed content in the page", () => {
  const raw = crypto.getRandomValues(new Uint8Array(32));

  test("the session's key opens what was sealed with it", async () => {
    const envelope = await seal(raw, "notes-key-1", "the plan: ship on Friday");
    assert.equal(
      await openEnvelope(await importKey(toBase64(raw)), envelope),
      "the plan: ship on Friday",
    );
  });

  test("another key, a changed key_id or another algorithm leave the envelope sealed", async () => {
    const envelope = await seal(raw, "notes-key-1", "secret");
    const other = await importKey(toBase64(crypto.getRandomValues(new Uint8Array(32))));
    assert.equal(await openEnvelope(other, envelope), null);
    const key = await importKey(toBase64(raw));
    assert.equal(await openEnvelope(key, { ...envelope, key_id: "notes-key-2" }), null);
    assert.equal(await openEnvelope(key, { ...envelope, algorithm: "XChaCha20-Poly1305" }), null);
  });

  test("a key that is not 32 bytes of base64 is refused with the reason", async () => {
    await assert.rejects(importKey("not base64 at all!"), /not base64/);
    await assert.rejects(importKey(toBase64(new Uint8Array(16))), /expected a 32-byte key, got 16/);
  });
});
