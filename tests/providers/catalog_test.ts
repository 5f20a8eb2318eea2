import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Big from "big.js";
import {
  catalogDescriptors,
  describeModel,
  lookupCatalog,
  mergeListing,
  normaliseCapabilities,
} from "../../src/providers/catalog.ts";
import { CATALOG } from "../../src/providers/catalog_data.ts";
import { buildRegistry, findProvider, type ProviderEntry } from "../../src/providers/registry.ts";

const built = buildRegistry({
  providers: { "openai-compat:lan": { base_url: "http://10.0.0.2:8000/v1", local: true } },
});
if (!built.ok) throw new Error(built.failure.message);
const provider = (id: string) => findProvider(built.value, id) as ProviderEntry;

describe("shipped catalog data", () => {
  test("holds the models the service names in its defaults", () => {
    const required = [
      ["openai", "gpt-5.5"],
      ["openai", "gpt-5.4"],
      ["openai", "gpt-5.4-mini"],
      ["anthropic", "claude-opus-4-8"],
      ["anthropic", "claude-sonnet-4-6"],
      ["anthropic", "claude-haiku-4-5"],
      ["gemini", "gemini-2.5-pro"],
      ["gemini", "gemini-2.5-flash"],
      ["gemini", "gemini-2.5-flash-lite"],
      ["gemini", "gemini-3.5-flash"],
    ];
    for (const [p, m] of required) assert.ok(lookupCatalog(p, m), `${p}/${m}`);
  });

  test("every entry is unique, has positive limits and plain decimal prices", () => {
    const seen = new Set<string>();
    for (const e of CATALOG) {
      for (const id of [e.model, ...(e.aliases ?? [])]) {
        const key = `${e.provider}/${id}`;
        assert.ok(!seen.has(key), `duplicate ${key}`);
        seen.add(key);
      }
      assert.ok(Number.isSafeInteger(e.max_context_tokens) && e.max_context_tokens > 0);
      if (e.max_output_tokens !== undefined) {
        assert.ok(e.max_output_tokens > 0 && e.max_output_tokens <= e.max_context_tokens);
      }
      for (
        const price of [
          e.input_cost_per_million_tokens,
          e.output_cost_per_million_tokens,
          e.cache_read_cost_per_million_tokens,
          e.cache_write_cost_per_million_tokens,
        ]
      ) {
        if (price === undefined) continue;
        assert.match(price, /^(0|[1-9]\d*)(\.\d*[1-9])?$/, `${e.model} price ${price}`);
        assert.equal(new Big(price).toFixed(), price);
      }
    }
  });

  test("matches published figures for the default models", () => {
    const figures = (p: string, m: string) => {
      const e = lookupCatalog(p, m);
      return e && [
        e.max_context_tokens,
        e.max_output_tokens,
        e.input_cost_per_million_tokens,
        e.output_cost_per_million_tokens,
      ];
    };
    assert.deepEqual(figures("openai", "gpt-5.5"), [1_050_000, 128_000, "5", "30"]);
    assert.deepEqual(figures("openai", "gpt-5.4-mini"), [400_000, 128_000, "0.75", "4.5"]);
    assert.deepEqual(figures("anthropic", "claude-sonnet-4-6"), [1_000_000, 128_000, "3", "15"]);
    assert.deepEqual(figures("anthropic", "claude-haiku-4-5"), [200_000, 64_000, "1", "5"]);
    assert.deepEqual(figures("gemini", "gemini-2.5-flash-lite"), [1_048_576, 65_536, "0.1", "0.4"]);
  });

  test("every model has a cache read price below its input price; writes only where charged", () => {
    for (const e of CATALOG) {
      const read = e.cache_read_cost_per_million_tokens;
      assert.ok(read !== undefined, `${e.provider}/${e.model} has a cache read price`);
      assert.ok(new Big(read).lt(e.input_cost_per_million_tokens!), `${e.model} read < input`);
      const write = e.cache_write_cost_per_million_tokens;
      if (e.provider === "anthropic") {
        // Anthropic's published rule: 5-minute writes 1.25×, reads 0.1× the input price.
        const input = new Big(e.input_cost_per_million_tokens!);
        assert.equal(write, input.times("1.25").toFixed(), `${e.model} write`);
        assert.equal(read, input.times("0.1").toFixed(), `${e.model} read`);
      } else assert.equal(write, undefined, `${e.model}: no write premium`);
    }
    const cache = (p: string, m: string) => {
      const e = lookupCatalog(p, m);
      return e && [e.cache_read_cost_per_million_tokens, e.cache_write_cost_per_million_tokens];
    };
    assert.deepEqual(cache("openai", "gpt-5.5"), ["0.5", undefined]);
    assert.deepEqual(cache("openai", "gpt-4o-mini"), ["0.075", undefined]);
    assert.deepEqual(cache("openai", "gpt-4.1"), ["0.5", undefined]);
    assert.deepEqual(cache("anthropic", "claude-sonnet-4-5-20250929"), ["0.3", "3.75"]);
    assert.deepEqual(cache("anthropic", "claude-opus-4-8"), ["0.5", "6.25"]);
    assert.deepEqual(cache("gemini", "gemini-2.5-flash"), ["0.03", undefined]);
    assert.deepEqual(cache("gemini", "gemini-2.5-pro"), ["0.125", undefined]);
  });
});

describe("describeModel", () => {
  test("a known model takes what the listing states; the catalog fills the rest", () => {
    const d = describeModel(provider("anthropic"), {
      id: "claude-haiku-4-5-20251001",
      display_name: "Listed name",
      max_context_tokens: 100_000,
      capabilities: { images: false },
    });
    assert.deepEqual(d, {
      provider: "anthropic",
      model: "claude-haiku-4-5-20251001",
      display_name: "Listed name",
      local: false,
      auth: "api_key",
      capabilities: normaliseCapabilities({
        ...lookupCatalog("anthropic", "claude-haiku-4-5")!.capabilities,
        images: false,
      }),
      max_context_tokens: 100_000,
      max_output_tokens: 64_000,
      input_cost_per_million_tokens: "1",
      output_cost_per_million_tokens: "5",
      // Anthropic's published cache prices: reads 0.1×, 5-minute writes 1.25× the input price.
      cache_read_cost_per_million_tokens: "0.1",
      cache_write_cost_per_million_tokens: "1.25",
      default_parameters: {},
    });
  });

  test("a listing's window below the catalog's wins: claude-sonnet-4-6 listed at 200,000", () => {
    const listed = describeModel(provider("anthropic"), {
      id: "claude-sonnet-4-6",
      max_context_tokens: 200_000,
      max_output_tokens: 64_000,
    });
    assert.equal(lookupCatalog("anthropic", "claude-sonnet-4-6")!.max_context_tokens, 1_000_000);
    assert.equal(listed.max_context_tokens, 200_000);
    assert.equal(listed.input_cost_per_million_tokens, "3");
  });

  test("a listing figure that is not a positive integer is ignored", () => {
    const d = describeModel(provider("anthropic"), {
      id: "claude-haiku-4-5",
      max_context_tokens: 0,
      max_output_tokens: -1,
    });
    assert.equal(d.max_context_tokens, 200_000);
    assert.equal(d.max_output_tokens, 64_000);
  });

  test("fills an unknown model from the listing, then from the provider's defaults", () => {
    const d = describeModel(provider("gemini"), {
      id: "gemma-3-4b-it",
      display_name: "Gemma 3 4B",
      max_context_tokens: 32_768,
      max_output_tokens: 8_192,
      capabilities: { reasoning: true },
    });
    assert.equal(d.display_name, "Gemma 3 4B");
    assert.equal(d.max_context_tokens, 32_768);
    assert.equal(d.max_output_tokens, 8_192);
    assert.equal(d.capabilities.reasoning, true);
    assert.equal(d.capabilities.tools, false);
    assert.equal("input_cost_per_million_tokens" in d, false);

    const bare = describeModel(provider("openai"), { id: "gpt-new", max_context_tokens: 0 });
    assert.equal(bare.max_context_tokens, 128_000);
    assert.equal("max_output_tokens" in bare, false);
    assert.equal("display_name" in bare, false);
  });

  test("never applies the shipped catalog to a compatible instance", () => {
    const d = describeModel(provider("openai-compat:lan"), { id: "gpt-5.4" });
    assert.equal(d.local, true);
    assert.equal(d.auth, "optional_api_key");
    assert.equal(d.max_context_tokens, 32_768);
    assert.equal("input_cost_per_million_tokens" in d, false);
  });

  test("lists every capability flag in a fixed order, memory following tools", () => {
    assert.deepEqual(Object.entries(normaliseCapabilities({ tools: true, streaming: true })), [
      ["streaming", true],
      ["tools", true],
      ["json_output", false],
      ["system_prompt", false],
      ["images", false],
      ["reasoning", false],
      ["memory", true],
    ]);
  });
});

describe("mergeListing", () => {
  test("dedupes, adds the alias of a dated snapshot, and sorts by model id", () => {
    const merged = mergeListing(provider("anthropic"), [
      { id: "claude-sonnet-4-6" },
      { id: "claude-haiku-4-5-20251001" },
      { id: "claude-sonnet-4-6" },
    ]);
    assert.deepEqual(merged.map((m) => m.model), [
      "claude-haiku-4-5",
      "claude-haiku-4-5-20251001",
      "claude-sonnet-4-6",
    ]);
  });

  test("gives the shipped catalog of a built-in provider, none for a compatible one", () => {
    const models = catalogDescriptors(provider("gemini")).map((m) => m.model);
    assert.ok(models.includes("gemini-3.5-flash"));
    assert.deepEqual(models, [...models].sort());
    assert.deepEqual(catalogDescriptors(provider("openai-compat:lan")), []);
  });
});

describe("descriptor JSON", () => {
  test("keeps the interface's field order", () => {
    const d = describeModel(provider("openai"), { id: "gpt-5.4" });
    assert.deepEqual(Object.keys(d), [
      "provider",
      "model",
      "display_name",
      "local",
      "auth",
      "capabilities",
      "max_context_tokens",
      "max_output_tokens",
      "input_cost_per_million_tokens",
      "output_cost_per_million_tokens",
      "cache_read_cost_per_million_tokens",
      "default_parameters",
    ]);
  });
});
