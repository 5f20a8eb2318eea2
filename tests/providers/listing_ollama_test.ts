import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { showDetails } from "../../src/providers/listing_ollama.ts";
import { replay } from "./listing_replay.ts";

const ollama = { provider: "ollama", dir: "ollama" };

describe("Ollama model listing", () => {
  test("lists the pulled models from /api/tags, then asks /api/show for each", async () => {
    await replay({ ...ollama, fixtures: ["list_page", "list_show_qwen3", "list_show_llama3.2"] });
  });

  test("a model /api/show cannot describe keeps the Ollama defaults", async () => {
    await replay({ ...ollama, fixtures: ["list_page", "list_show_404", "list_show_404"] });
  });

  test("reports a server error as provider_unavailable", async () => {
    await replay({ ...ollama, fixtures: ["list_500"] });
  });

  test("reports an answer past the deadline as timeout", async () => {
    await replay({ ...ollama, fixtures: ["list_slow"], deadlineMs: 200 });
  });

  test("an embedding model (no completion capability) is left out", () => {
    assert.equal(showDetails("nomic-embed-text", { capabilities: ["embedding"] }), null);
  });

  test("a num_ctx below the trained window is the window; vision means images", () => {
    const d = showDetails("m", {
      parameters: "num_ctx 4096\ntemperature 0.2",
      model_info: { "general.architecture": "gemma3", "gemma3.context_length": 131072 },
      capabilities: ["completion", "vision"],
    });
    assert.deepEqual(d, {
      id: "m",
      max_context_tokens: 4096,
      capabilities: { tools: false, reasoning: false, images: true },
    });
  });
});
