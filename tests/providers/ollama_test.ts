import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ollamaBody } from "../../src/providers/ollama_request.ts";
import { ollamaAdapter } from "../../src/providers/ollama.ts";
import { conformanceSuite } from "./conformance.ts";

conformanceSuite("ollama", ollamaAdapter);

describe("Ollama request body", () => {
  test("sends the window routing trusted as num_ctx, beside num_predict", () => {
    const body = ollamaBody({
      model: "qwen3:8b",
      messages: [{ role: "user", content: "hi" }],
      stream: false,
      maxOutputTokens: 1024,
      contextWindow: 40960,
    });
    assert.deepEqual(body.options, { num_ctx: 40960, num_predict: 1024 });
  });

  test("sends no options when neither is known", () => {
    const body = ollamaBody({ model: "m", messages: [], stream: false });
    assert.equal(body.options, undefined);
  });
});
