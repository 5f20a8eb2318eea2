import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  credentialFingerprint,
  credentialHeaderName,
  parseCredentialHeaders,
} from "../../src/providers/credentials.ts";

describe("parseCredentialHeaders", () => {
  test("maps built-in provider headers case-insensitively", () => {
    const headers = new Headers({
      "X-Router-Provider-OpenAI-Api-Key": "sk-openai",
      "x-router-provider-anthropic-api-key": "sk-ant",
      "X-ROUTER-PROVIDER-GEMINI-API-KEY": "gm-key",
    });
    assert.deepEqual(
      Object.fromEntries(parseCredentialHeaders(headers)),
      { openai: "sk-openai", anthropic: "sk-ant", gemini: "gm-key" },
    );
  });

  test("maps an instance name to openai-compat:<name>", () => {
    const headers = new Headers({
      "X-Router-Provider-Local-Api-Key": "k1",
      "X-Router-Provider-lm_studio-2-Api-Key": "k2",
    });
    assert.deepEqual(Object.fromEntries(parseCredentialHeaders(headers)), {
      "openai-compat:local": "k1",
      "openai-compat:lm_studio-2": "k2",
    });
  });

  test("ignores empty values, other headers and names that cannot be providers", () => {
    const headers = new Headers({
      "X-Router-Provider-OpenAI-Api-Key": "   ",
      "X-Router-Provider--Api-Key": "x",
      "X-Router-Provider-a.b-Api-Key": "x",
      "Authorization": "Bearer t",
      "X-Router-Timeout-Ms": "100",
    });
    assert.equal(parseCredentialHeaders(headers).size, 0);
  });

  test("names the header a provider takes", () => {
    assert.equal(credentialHeaderName("openai"), "X-Router-Provider-openai-Api-Key");
    assert.equal(credentialHeaderName("openai-compat:vllm"), "X-Router-Provider-vllm-Api-Key");
  });
});

describe("credentialFingerprint", () => {
  test("is the SHA-256 hex of the key", async () => {
    assert.equal(
      await credentialFingerprint("abc"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  test("differs per key, never contains the key, and is 'none' without one", async () => {
    const a = await credentialFingerprint("sk-secret-a");
    const b = await credentialFingerprint("sk-secret-b");
    assert.notEqual(a, b);
    assert.match(a, /^[0-9a-f]{64}$/);
    assert.ok(!a.includes("sk-secret"));
    assert.equal(await credentialFingerprint(undefined), "none");
    assert.equal(await credentialFingerprint(""), "none");
  });
});
