import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DEFAULT_LISTING_TIMEOUT_MS,
  listingTimeoutMs,
  listModels,
  modelsResponseBody,
  routingCatalog,
} from "../../src/providers/listing.ts";
import { createModelCache } from "../../src/providers/model_cache.ts";
import type { ModelDescriptor } from "../../src/core/model.ts";
import { buildRegistry, type ProvidersConfig } from "../../src/providers/registry.ts";

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** Each built-in answers on its own host, so one fake fetch serves them all. */
const CONFIG: ProvidersConfig = {
  providers: {
    openai: { base_url: "http://openai.test/v1" },
    anthropic: { base_url: "http://anthropic.test" },
    gemini: { base_url: "http://gemini.test" },
    ollama: { base_url: "http://ollama.test" },
  },
};

function registryOf(config: ProvidersConfig = CONFIG) {
  const built = buildRegistry(config);
  if (!built.ok) throw new Error(built.failure.message);
  return built.value;
}

type Handler = (url: URL, init: RequestInit) => Promise<Response> | Response;

function fakeFetch(handlers: Record<string, Handler>) {
  const calls: string[] = [];
  const fetch = ((input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(String(input));
    calls.push(url.host);
    const handler = handlers[url.host];
    return handler
      ? Promise.resolve(handler(url, init))
      : Promise.resolve(json({ error: "no handler" }, 404));
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const ANSWERS: Record<string, Handler> = {
  "openai.test": () => json({ data: [{ id: "gpt-5.4" }, { id: "gpt-5.5" }] }),
  "anthropic.test": () => json({ data: [{ id: "claude-sonnet-4-6" }], has_more: false }),
  "gemini.test": () =>
    json({
      models: [{
        name: "models/gemini-2.5-flash",
        supportedGenerationMethods: ["generateContent"],
      }],
    }),
  "ollama.test": () => json({ models: [{ name: "qwen3:8b" }] }),
};

const ALL_KEYS = new Map([["openai", "k1"], ["anthropic", "k2"], ["gemini", "k3"]]);
const ids = (models: ModelDescriptor[]) => models.map((m) => `${m.provider}/${m.model}`);

/** Never answers; rejects when its signal aborts, like fetch. */
const hang: Handler = (_url, init) =>
  new Promise((_resolve, reject) => {
    init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
  });

describe("listModels", () => {
  test("lists every provider, sorted by provider then model", async () => {
    const { fetch } = fakeFetch(ANSWERS);
    const result = await listModels(registryOf(), ALL_KEYS, { deadlineMs: 2000, fetch });
    assert.deepEqual(ids(result.models), [
      "anthropic/claude-sonnet-4-6",
      "gemini/gemini-2.5-flash",
      "ollama/qwen3:8b",
      "openai/gpt-5.4",
      "openai/gpt-5.5",
    ]);
    assert.deepEqual(result.unavailable, []);
    assert.deepEqual(modelsResponseBody(result), { models: result.models });
  });

  test("reports keyed providers without a key as missing_credentials, without calling them", async () => {
    const { fetch, calls } = fakeFetch(ANSWERS);
    const result = await listModels(registryOf(), new Map([["gemini", "k3"]]), {
      deadlineMs: 2000,
      fetch,
    });
    assert.deepEqual([...new Set(calls)].sort(), ["gemini.test", "ollama.test"]);
    assert.deepEqual(ids(result.models), ["gemini/gemini-2.5-flash", "ollama/qwen3:8b"]);
    assert.deepEqual(result.unavailable, [
      {
        provider: "anthropic",
        reason: "missing_credentials",
        message: "missing credentials: send the X-Router-Provider-anthropic-Api-Key header",
      },
      {
        provider: "openai",
        reason: "missing_credentials",
        message: "missing credentials: send the X-Router-Provider-openai-Api-Key header",
      },
    ]);
    assert.deepEqual(modelsResponseBody(result).unavailable, result.unavailable);
  });

  test("queries the providers in parallel", async () => {
    let arrived = 0;
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated = (answer: Handler): Handler => async (url, init) => {
      if (++arrived === 4) open();
      await gate; // a sequential listing would never get past the first provider
      return answer(url, init);
    };
    const handlers = Object.fromEntries(
      Object.entries(ANSWERS).map(([host, answer]) => [host, gated(answer)]),
    );
    const { fetch } = fakeFetch(handlers);
    const result = await listModels(registryOf(), ALL_KEYS, { deadlineMs: 3000, fetch });
    assert.equal(result.unavailable.length, 0);
    assert.equal(result.models.length, 5);
  });

  test("gives each provider its own deadline: a hung one is timeout, the rest are listed", async () => {
    const { fetch } = fakeFetch({ ...ANSWERS, "anthropic.test": hang });
    const result = await listModels(registryOf(), ALL_KEYS, { deadlineMs: 150, fetch });
    assert.deepEqual(result.unavailable.map((u) => [u.provider, u.reason]), [
      ["anthropic", "timeout"],
    ]);
    assert.equal(result.models.length, 4);
  });

  test("keeps its deadline even when a fetch ignores the abort signal", async () => {
    let release: () => void = () => {};
    const stuck: Handler = () =>
      new Promise((resolve) => (release = () => resolve(json({ models: [] }))));
    const { fetch } = fakeFetch({ ...ANSWERS, "ollama.test": stuck });
    const result = await listModels(registryOf(), ALL_KEYS, { deadlineMs: 100, fetch });
    release();
    assert.deepEqual(result.unavailable.map((u) => [u.provider, u.reason]), [[
      "ollama",
      "timeout",
    ]]);
  });

  test("maps failures to their reason and orders unavailable by provider", async () => {
    const { fetch } = fakeFetch({
      ...ANSWERS,
      "openai.test": () => json({ error: { message: "slow down" } }, 429),
      "gemini.test": () => json({ error: { code: 403, status: "PERMISSION_DENIED" } }, 403),
      "anthropic.test": () => new Response("not json", { status: 200 }),
      "ollama.test": () => Promise.reject(new TypeError("connection refused")),
    });
    const result = await listModels(registryOf(), ALL_KEYS, { deadlineMs: 2000, fetch });
    assert.deepEqual(result.unavailable.map((u) => [u.provider, u.reason]), [
      ["anthropic", "unknown"],
      ["gemini", "authentication"],
      ["ollama", "provider_unavailable"],
      ["openai", "rate_limit"],
    ]);
    assert.deepEqual(result.models, []);
  });

  test("uses a compatible instance's configured models instead of listing, keyless", async () => {
    const { fetch, calls } = fakeFetch(ANSWERS);
    const registry = registryOf({
      providers: {
        "openai-compat:lan": { base_url: "http://lan.test/v1", local: true, models: ["m2", "m1"] },
      },
    });
    const only = { providers: registry.providers.filter((p) => p.id === "openai-compat:lan") };
    const result = await listModels(only, new Map(), { deadlineMs: 1000, fetch });
    assert.deepEqual(calls, []);
    assert.deepEqual(ids(result.models), ["openai-compat:lan/m1", "openai-compat:lan/m2"]);
    assert.ok(result.models.every((m) => m.local && m.auth === "optional_api_key"));
  });

  test("sends a compatible instance's optional key as a Bearer token when given", async () => {
    const seen: Array<string | null> = [];
    const { fetch } = fakeFetch({
      "lan.test": (_url, init) => {
        seen.push(new Headers(init.headers).get("authorization"));
        return json({ data: [{ id: "m" }] });
      },
    });
    const registry = registryOf({
      providers: { "openai-compat:lan": { base_url: "http://lan.test/v1" } },
    });
    const only = { providers: registry.providers.filter((p) => p.id === "openai-compat:lan") };
    await listModels(only, new Map([["openai-compat:lan", "lan-key"]]), {
      deadlineMs: 1000,
      fetch,
    });
    await listModels(only, new Map(), { deadlineMs: 1000, fetch });
    assert.deepEqual(seen, ["Bearer lan-key", null]);
  });

  test("serves a repeated listing from the cache, per credential", async () => {
    const { fetch, calls } = fakeFetch(ANSWERS);
    const cache = createModelCache<ModelDescriptor[]>({ now: () => 0 });
    const registry = { providers: registryOf().providers.filter((p) => p.id === "openai") };
    const options = { deadlineMs: 1000, fetch, cache };
    const first = await listModels(registry, new Map([["openai", "k1"]]), options);
    const again = await listModels(registry, new Map([["openai", "k1"]]), options);
    assert.deepEqual(again, first);
    assert.equal(calls.length, 1);
    await listModels(registry, new Map([["openai", "other-key"]]), options);
    assert.equal(calls.length, 2);
  });

  test("a listing slower than the deadline is not asked again by every request, and lands when it answers", async () => {
    let answer: (() => void) | undefined;
    const { fetch, calls } = fakeFetch({
      // Answers only when the test says so, whatever its signal does (a host swallowing packets).
      "openai.test": () =>
        new Promise((resolve) => (answer = () => resolve(json({ data: [{ id: "gpt-5.5" }] })))),
    });
    const cache = createModelCache<ModelDescriptor[]>({ now: () => 0 });
    const registry = { providers: registryOf().providers.filter((p) => p.id === "openai") };
    const keys = new Map([["openai", "k1"]]);
    const options = { deadlineMs: 50, fetch, cache };
    for (let i = 0; i < 3; i++) {
      const late = await listModels(registry, keys, options);
      assert.deepEqual(late.unavailable, [
        { provider: "openai", reason: "timeout", message: "openai: no listing within 50 ms" },
      ]);
    }
    assert.equal(calls.length, 1, "the first request's listing went on; the others were told");
    answer!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const listed = await listModels(registry, keys, options);
    assert.deepEqual([ids(listed.models), listed.unavailable], [["openai/gpt-5.5"], []]);
    assert.equal(calls.length, 1);
  });
});

describe("routingCatalog", () => {
  test("adds the shipped catalog of providers that could not be listed", async () => {
    const { fetch } = fakeFetch(ANSWERS);
    const registry = registryOf();
    const result = await listModels(registry, new Map(), { deadlineMs: 1000, fetch });
    const catalog = routingCatalog(registry, result);
    const refs = ids(catalog);
    assert.ok(refs.includes("openai/gpt-5.4-mini"));
    assert.ok(refs.includes("anthropic/claude-opus-4-8"));
    assert.ok(refs.includes("ollama/qwen3:8b"));
    assert.deepEqual(refs, [...refs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    assert.equal(catalog.find((m) => m.provider === "openai")?.auth, "api_key");
  });
});

describe("listingTimeoutMs", () => {
  const cases: Array<[string | null, number]> = [
    [null, DEFAULT_LISTING_TIMEOUT_MS],
    ["", 10_000],
    ["0", 10_000],
    ["-5", 10_000],
    ["abc", 10_000],
    ["1.5", 10_000],
    ["1e3", 10_000],
    ["250", 250],
    [" 2500 ", 2500],
    ["60000", 60_000],
    ["60001", 60_000],
    ["999999999999999999999", 60_000],
  ];
  for (const [header, expected] of cases) {
    test(`X-Router-Timeout-Ms ${JSON.stringify(header)} gives ${expected}`, () => {
      assert.equal(listingTimeoutMs(header), expected);
    });
  }
});
