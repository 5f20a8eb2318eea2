import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { newRecipientKeys, openWith, sealTo } from "../../src/platform/handoff_cipher.ts";

const CONTEXT = "0191a7c0-0000-7000-8000-000000000001:3";

describe("hand-off cipher", () => {
  test("only the recipient opens a sealed message, and only for its context", async () => {
    const recipient = await newRecipientKeys();
    const stranger = await newRecipientKeys();
    const message = await sealTo(recipient.publicKey, CONTEXT, "PARTIAL_CANARY_42 ünïcödé");
    assert.equal(await openWith(recipient, CONTEXT, message), "PARTIAL_CANARY_42 ünïcödé");
    assert.equal(await openWith(stranger, CONTEXT, message), null);
    assert.equal(
      await openWith(recipient, "0191a7c0-0000-7000-8000-000000000001:4", message),
      null,
    );
  });

  test("the stored parts carry no plaintext, and each sealing is fresh", async () => {
    const recipient = await newRecipientKeys();
    const text = "PARTIAL_CANARY_43 ".repeat(5000);
    const one = await sealTo(recipient.publicKey, CONTEXT, text);
    const two = await sealTo(recipient.publicKey, CONTEXT, text);
    const stored = JSON.stringify(one) + recipient.publicKey;
    assert.equal(stored.includes("PARTIAL_CANARY_43"), false);
    assert.equal(atob(one.sealed).includes("PARTIAL_CANARY_43"), false);
    assert.notEqual(one.sealed, two.sealed);
    assert.notEqual(one.senderKey, two.senderKey);
    assert.equal(await openWith(recipient, CONTEXT, one), text);
  });

  test("an altered ciphertext, iv or sender key does not open", async () => {
    const recipient = await newRecipientKeys();
    const message = await sealTo(recipient.publicKey, CONTEXT, "hello");
    const bytes = Uint8Array.from(atob(message.sealed), (c) => c.charCodeAt(0));
    bytes[0] ^= 1;
    const flipped = btoa(String.fromCharCode(...bytes));
    const other = await sealTo(recipient.publicKey, CONTEXT, "hello");
    assert.equal(await openWith(recipient, CONTEXT, { ...message, sealed: flipped }), null);
    assert.equal(await openWith(recipient, CONTEXT, { ...message, iv: other.iv }), null);
    assert.equal(
      await openWith(recipient, CONTEXT, { ...message, senderKey: other.senderKey }),
      null,
    );
    assert.equal(
      await openWith(recipient, CONTEXT, { ...message, senderKey: "not base64!" }),
      null,
    );
  });
});
