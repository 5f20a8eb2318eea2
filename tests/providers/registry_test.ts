import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkProviderId, isWellFormedProviderId } from "../../src/core/model_reference.ts";
import {
  buildRegistry,
  findProvider,
  providerDescriptors,
  resolveProvider,
} from "../../src/providers/registry.ts";
import { listModels } from "../../src/providers/listing.ts";

function registryOf(config: Parameters<typeof buildRegistry>[0]) {
  const built = buildRegistry(config);
  if (!built.ok) throw new Error(built.failure.message);
  return built.value;
}

describe("provider id grammar", () => {
  test("accepts bare lower-case ids and openai-compat:<name>", () => {
    const longest = `openai-compat:${"a".repeat(63)}`;
    for (
      const id of ["openai", "mistral", "openai-compat:local", "openai-compat:lm_studio-2", longest]
    ) {
      assert.ok(isWellFormedProviderId(id), id);
    }
    assert.deepEqual(checkProviderId("openai-compat:vllm"), {
      kind: "compat",
      id: "openai-compat:vllm",
      name: "vllm",
    });
  });

  test("rejects upper case, spaces, punctuation, empty and over-long names", () => {
    const bad = [
      "",
      "OpenAI",
      "openai-compat:",
      "openai-compat:Bad Name!",
      "openai-compat:-lead",
      "open ai",
      "openai-compat:a:b",
      "openai-compat:my.box",
      "lm.studio",
      `openai-compat:${"a".repeat(64)}`,
    ];
    for (const id of bad) assert.equal(isWellFormedProviderId(id), false, id);
  });
});

describe("buildRegistry", () => {
  test("holds the four built-ins with their published bases and auth by default", () => {
    const registry = registryOf({});
    assert.deepEqual(
      registry.providers.map((p) => [p.id, p.protocol, p.base_url, p.local, p.auth]),
      [
        ["anthropic", "anthropic", "https://api.anthropic.com", false, "api_key"],
        ["gemini", "gemini", "https://generativelanguage.googleapis.com", false, "api_key"],
        ["ollama", "ollama", "http://127.0.0.1:11434", true, "none"],
        ["openai", "openai", "https://api.openai.com/v1", false, "api_key"],
      ],
    );
  });

  test("overrides a built-in base_url and drops a trailing slash", () => {
    const registry = registryOf({ providers: { openai: { base_url: "http://127.0.0.1:9/v1/" } } });
    assert.equal(findProvider(registry, "openai")?.base_url, "http://127.0.0.1:9/v1");
  });

  test("adds compatible instances: Chat Completions, optional key, remote unless declared", () => {
    const registry = registryOf({
      providers: {
        "openai-compat:vllm": { base_url: "http://gpu.lan:8000/v1", local: true },
        "openai-compat:router": {
          base_url: "https://llm.example.com/v1",
          display_name: "Team router",
          models: ["b", "a", "b"],
        },
      },
    });
    const vllm = findProvider(registry, "openai-compat:vllm");
    assert.deepEqual(vllm, {
      id: "openai-compat:vllm",
      display_name: "vllm",
      local: true,
      protocol: "openai",
      base_url: "http://gpu.lan:8000/v1",
      auth: "optional_api_key",
    });
    const router = findProvider(registry, "openai-compat:router");
    assert.equal(router?.local, false);
    assert.equal(router?.display_name, "Team router");
    assert.deepEqual(router?.models, [{ id: "a" }, { id: "b" }]);
  });

  test("describes every provider for GET /llm/providers", () => {
    const registry = registryOf({
      providers: { "openai-compat:local": { base_url: "http://127.0.0.1:1234/v1", local: true } },
    });
    assert.deepEqual(providerDescriptors(registry), [
      { id: "anthropic", display_name: "Anthropic", local: false },
      { id: "gemini", display_name: "Google Gemini", local: false },
      { id: "ollama", display_name: "Ollama", local: true },
      { id: "openai", display_name: "OpenAI", local: false },
      { id: "openai-compat:local", display_name: "local", local: true },
    ]);
  });

  const invalid: Array<[string, Parameters<typeof buildRegistry>[0], string]> = [
    ["a compatible instance without base_url", {
      providers: { "openai-compat:x": {} },
    }, 'router.providers."openai-compat:x".base_url'],
    ["a base_url that is not http(s)", {
      providers: { ollama: { base_url: "ftp://host" } },
    }, "router.providers.ollama.base_url"],
    ["a base_url carrying credentials", {
      providers: { "openai-compat:x": { base_url: "https://user:pw@host/v1" } },
    }, 'router.providers."openai-compat:x".base_url'],
    ["a malformed compatible name", {
      providers: { "openai-compat:Bad Name!": { base_url: "http://h" } },
    }, 'router.providers."openai-compat:Bad Name!"'],
    ["an unknown bare provider", {
      providers: { mistral: { base_url: "http://h" } },
    }, "router.providers.mistral"],
    ["a compatible name shadowing a built-in header", {
      providers: { "openai-compat:openai": { base_url: "http://h" } },
    }, 'router.providers."openai-compat:openai"'],
    ["a cloud provider declared local", {
      providers: { anthropic: { local: true } },
    }, "router.providers.anthropic.local"],
    ["models that are not strings", {
      providers: { "openai-compat:x": { base_url: "http://h", models: [""] } },
    }, 'router.providers."openai-compat:x".models[0]'],
    ["a model declared twice", {
      providers: {
        "openai-compat:x": {
          base_url: "http://h",
          models: ["m", { name: "m", max_context_tokens: 9 }],
        },
      },
    }, 'router.providers."openai-compat:x".models[1]'],
    ["a declared price that is a number", {
      providers: {
        "openai-compat:x": {
          base_url: "http://h",
          models: [{ name: "m", input_cost_per_million_tokens: 0.1 }],
        },
      },
    }, 'router.providers."openai-compat:x".models[0].input_cost_per_million_tokens'],
  ];
  for (const [what, config, key] of invalid) {
    test(`rejects ${what}, naming the key`, () => {
      const built = buildRegistry(config);
      assert.equal(built.ok, false);
      if (built.ok) return;
      assert.equal(built.failure.code, "invalid_provider_configuration");
      assert.deepEqual(built.failure.details, { key });
      assert.ok(built.failure.message.includes(key), built.failure.message);
    });
  }
});

describe("declared models", () => {
  test("a declared model's figures win and reach the listing; a bare id gets the defaults", async () => {
    const registry = registryOf({
      providers: {
        "openai-compat:lab": {
          base_url: "http://127.0.0.1:9/v1",
          local: true,
          models: [
            "tiny-model",
            {
              name: "qwen3-8b",
              max_context_tokens: 8192,
              max_output_tokens: 2048,
              display_name: "Qwen3 8B",
              capabilities: { tools: true, streaming: true },
              input_cost_per_million_tokens: "0.10",
              output_cost_per_million_tokens: "0.40",
            },
          ],
        },
      },
    });
    const lab = { providers: registry.providers.filter((p) => p.id === "openai-compat:lab") };
    const listed = await listModels(lab, new Map(), { deadlineMs: 1000 });
    assert.deepEqual(listed.models, [
      {
        provider: "openai-compat:lab",
        model: "qwen3-8b",
        display_name: "Qwen3 8B",
        local: true,
        auth: "optional_api_key",
        capabilities: {
          streaming: true,
          tools: true,
          json_output: false,
          system_prompt: true,
          images: false,
          reasoning: false,
          memory: true,
        },
        max_context_tokens: 8192,
        max_output_tokens: 2048,
        input_cost_per_million_tokens: "0.10",
        output_cost_per_million_tokens: "0.40",
        default_parameters: {},
      },
      {
        provider: "openai-compat:lab",
        model: "tiny-model",
        local: true,
        auth: "optional_api_key",
        capabilities: {
          streaming: true,
          tools: false,
          json_output: false,
          system_prompt: true,
          images: false,
          reasoning: false,
          memory: false,
        },
        max_context_tokens: 32768,
        default_parameters: {},
      },
    ]);
  });
});

describe("resolveProvider", () => {
  const registry = registryOf({
    providers: { "openai-compat:local": { base_url: "http://127.0.0.1:1234/v1" } },
  });

  test("finds built-in and configured providers", () => {
    const found = resolveProvider(registry, "openai-compat:local");
    assert.ok(found.ok);
    assert.equal(found.value.id, "openai-compat:local");
  });

  test("tells a malformed id (invalid_provider_name) from an unknown one (unknown_provider)", () => {
    const malformed = resolveProvider(registry, "openai-compat:Bad Name!");
    assert.equal(malformed.ok ? "" : malformed.failure.code, "invalid_provider_name");
    const unknown = resolveProvider(registry, "openai-compat:other");
    assert.equal(unknown.ok ? "" : unknown.failure.code, "unknown_provider");
    const bare = resolveProvider(registry, "mistral");
    assert.equal(bare.ok ? "" : bare.failure.code, "unknown_provider");
  });
});
