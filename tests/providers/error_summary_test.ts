import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { errorFromStatus, redact } from "../../src/providers/error_summary.ts";
import { openAiErrorDetail } from "../../src/providers/openai_chat.ts";
import { ProviderError } from "../../src/providers/errors.ts";

const KEY = "sk-proj-TEST-fake-key-not-real-0123";

describe("provider error summary", () => {
  test("redact removes the key and anything shaped like a key", () => {
    const text = `key ${KEY}, masked sk-proj-****6789, google AIzaSyA1b2C3d4E5f6, Bearer abc.def`;
    const out = redact(text, KEY);
    assert.ok(!out.includes(KEY));
    assert.ok(!out.includes("sk-"));
    assert.ok(!out.includes("AIza"));
    assert.ok(!out.includes("abc.def"));
    assert.equal(redact("nothing secret here", KEY), "nothing secret here");
  });

  test("error summary quotes the provider message for a non-credential failure", () => {
    const body = JSON.stringify({ error: { message: "Slow down", type: "tokens", code: "rate" } });
    const error = errorFromStatus("openai", 429, body, openAiErrorDetail, KEY);
    assert.ok(error instanceof ProviderError);
    assert.equal(error.category, "rate_limit");
    assert.equal(error.status, 429);
    assert.equal(error.message, 'openai answered HTTP 429: rate: "Slow down"');
  });

  test("error summary leaves out the provider's prose on a credential rejection", () => {
    const body = JSON.stringify({
      error: {
        message: `Incorrect API key provided: ${KEY.slice(0, 12)}`,
        code: "invalid_api_key",
      },
    });
    const error = errorFromStatus("openai", 401, body, openAiErrorDetail, KEY);
    assert.equal(error.category, "invalid_credentials");
    assert.equal(error.message, "openai answered HTTP 401: invalid_api_key");
  });

  test("error summary survives a body that is not JSON and clips long text", () => {
    const plain = errorFromStatus("gemini", 502, "<html>Bad Gateway</html>", () => ({}), KEY);
    assert.equal(plain.category, "provider_unavailable");
    assert.equal(plain.message, "gemini answered HTTP 502");
    const long = JSON.stringify({ error: { message: "x".repeat(5000) } });
    const clipped = errorFromStatus("openai", 400, long, openAiErrorDetail, KEY);
    assert.ok(clipped.message.length < 260, `message of ${clipped.message.length} chars`);
  });

  test("error summary takes a category the body makes more precise", () => {
    const body = JSON.stringify({
      error: { message: "too long", code: "context_length_exceeded" },
    });
    const error = errorFromStatus("openai", 400, body, openAiErrorDetail);
    assert.equal(error.category, "context_length");
    assert.equal(error.code, "context_length_exceeded");
  });
});
