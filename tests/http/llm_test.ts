import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { registryFromConfig } from "../../src/main.ts";
import { listingTimeoutMs } from "../../src/providers/listing.ts";
import { call, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";

const KEYS = {
  openai: "sk-openai-llm-test-0123456789",
  anthropic: "sk-ant-llm-test-0123456789",
  gemini: "gm-llm-test-0123456789",
};
const KEY_HEADERS = {
  "X-Router-Provider-OpenAI-Api-Key": KEYS.openai,
  "x-router-provider-anthropic-api-key": KEYS.anthropic,
  "X-ROUTER-PROVIDER-GEMINI-API-KEY": KEYS.gemini,
};

let app: TestApp;
let token: string;
const fakes: Record<string, FakeProvider> = {};
const ids = ["openai", "anthropic", "gemini", "ollama", "openai-compat:lab"];

before(async () => {
  for (const id of ids) fakes[id] = await startFakeProvider();
  app = await createTestApp({
    providers: {
      openai: { base_url: `${fakes.openai.url}/v1` },
      anthropic: { base_url: fakes.anthropic.url },
      gemini: { base_url: fakes.gemini.url },
      ollama: { base_url: fakes.ollama.url },
      "openai-compat:lab": {
        base_url: `${fakes["openai-compat:lab"].url}/v1`,
        local: true,
        display_name: "Lab box",
      },
    },
  });
  token = (await signUp(app)).token;
});

after(async () => {
  await app.close();
  for (const fake of Object.values(fakes)) await fake.close();
});

beforeEach(() => app.listingCache.clear());

/** Queues one listing answer per provider that will be asked. */
async function queueListings(except: string[] = []) {
  const lists: Record<string, string> = {
    openai: "list_page",
    anthropic: "list_page",
    gemini: "list_page",
    ollama: "list_page",
  };
  for (const [id, name] of Object.entries(lists)) {
    if (!except.includes(id)) await fakes[id].enqueueFixture(id, name);
  }
  if (!except.includes("openai-compat:lab")) {
    fakes["openai-compat:lab"].enqueue({
      status: 200,
      headers: { "content-type": "application/json" },
      body: { object: "list", data: [{ id: "coder-7b", object: "model", max_model_len: 16384 }] },
    });
  }
}

const requestCounts = () => Object.fromEntries(ids.map((id) => [id, fakes[id].requests.length]));

describe("GET /api/v1/llm/providers", () => {
  test("lists the built-in providers and the configured compatible instance", async () => {
    const res = await call(app, "GET", "/api/v1/llm/providers", { token });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.deepEqual(res.body, {
      providers: [
        { id: "anthropic", display_name: "Anthropic", local: false },
        { id: "gemini", display_name: "Google Gemini", local: false },
        { id: "ollama", display_name: "Ollama", local: true },
        { id: "openai", display_name: "OpenAI", local: false },
        { id: "openai-compat:lab", display_name: "Lab box", local: true },
      ],
    });
  });

  test("needs a bearer token", async () => {
    const res = await call(app, "GET", "/api/v1/llm/providers");
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, "missing_credentials");
    const bad = await call(app, "GET", "/api/v1/llm/providers", { token: "nope" });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.error.code, "invalid_token");
  });

  test("answers 405 with Allow for another method", async () => {
    const res = await call(app, "POST", "/api/v1/llm/providers", { token });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET");
  });
});

describe("GET /api/v1/llm/models", () => {
  test("every provider listed: models sorted, no unavailable field", async () => {
    await queueListings();
    const res = await call(app, "GET", "/api/v1/llm/models", { token, headers: KEY_HEADERS });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.ok(!("unavailable" in res.body), "unavailable is absent when all listed");
    const models: { provider: string; model: string }[] = res.body.models;
    const byProviderThenModel = [...models].sort((a, b) =>
      a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : a.model < b.model ? -1 : 1
    );
    assert.deepEqual(models, byProviderThenModel, "sorted by provider, then model");
    const refs = models.map((m) => `${m.provider}/${m.model}`);
    for (const id of ids) {
      assert.ok(refs.some((r: string) => r.startsWith(`${id}/`)), `${id} has models`);
    }
    assert.ok(refs.includes("openai-compat:lab/coder-7b"));
    assert.ok(!JSON.stringify(res.body).includes("llm-test"), "no key in the answer");
  });

  test("one provider rejects the key, one times out, keyless Ollama is listed without one", async () => {
    await queueListings(["anthropic", "gemini"]);
    await fakes.anthropic.enqueueFixture("anthropic", "list_401");
    await fakes.gemini.enqueueFixture("gemini", "list_slow");
    const before = requestCounts();
    const started = performance.now();
    const res = await call(app, "GET", "/api/v1/llm/models", {
      token,
      headers: {
        "x-router-provider-anthropic-api-key": KEYS.anthropic,
        "x-router-provider-gemini-api-key": KEYS.gemini,
        "x-router-timeout-ms": "300",
      },
    });
    const elapsed = performance.now() - started;
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.unavailable, [
      {
        provider: "anthropic",
        reason: "invalid_credentials",
        message: "anthropic: model listing failed with HTTP 401",
      },
      { provider: "gemini", reason: "timeout", message: "gemini: no listing within 300 ms" },
      {
        provider: "openai",
        reason: "missing_credentials",
        message: "missing credentials: send the X-Router-Provider-openai-Api-Key header",
      },
    ]);
    assert.ok(elapsed < 1400, `listed in parallel under the deadline (${Math.round(elapsed)} ms)`);
    const providers = new Set(res.body.models.map((m: { provider: string }) => m.provider));
    assert.deepEqual([...providers].sort(), ["ollama", "openai-compat:lab"]);
    // OpenAI had no key: not called at all. Ollama was called, and without any credential.
    assert.equal(fakes.openai.requests.length, before.openai);
    const ollama = fakes.ollama.requests.slice(before.ollama);
    assert.deepEqual(ollama.map((r) => r.path), ["/api/tags", "/api/show", "/api/show"]);
    for (const request of ollama) {
      for (const name of ["authorization", "x-api-key", "x-goog-api-key"]) {
        assert.equal(request.headers[name], undefined);
      }
    }
    assert.ok(!JSON.stringify(res.body).includes(KEYS.anthropic));
  });

  test("no credentials at all: keyed providers are missing_credentials, keyless ones listed", async () => {
    await queueListings(["openai", "anthropic", "gemini"]);
    const res = await call(app, "GET", "/api/v1/llm/models", { token });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.unavailable.map((u: { provider: string; reason: string }) => [u.provider, u.reason]),
      [
        ["anthropic", "missing_credentials"],
        ["gemini", "missing_credentials"],
        ["openai", "missing_credentials"],
      ],
    );
    assert.ok(res.body.models.every((m: { local: boolean }) => m.local));
  });

  for (
    const [label, header] of [
      ["missing", undefined],
      ["zero", "0"],
      ["non-numeric", "soon"],
      ["negative", "-5"],
      ["over the maximum", "999999"],
    ] as const
  ) {
    test(`X-Router-Timeout-Ms ${label}: a listing slower than 300 ms still arrives`, async () => {
      await queueListings(["openai", "anthropic", "gemini", "ollama"]);
      await fakes.ollama.enqueue({
        status: 200,
        headers: { "content-type": "application/json" },
        body: { models: [{ name: "slow:1b" }] },
        delay_ms: 400,
      });
      const headers: Record<string, string> = header === undefined
        ? {}
        : { "x-router-timeout-ms": header };
      const res = await call(app, "GET", "/api/v1/llm/models", { token, headers });
      assert.equal(res.status, 200);
      assert.ok(res.body.models.some((m: { model: string }) => m.model === "slow:1b"));
    });
  }

  test("X-Router-Timeout-Ms: default 10000, clamp at 60000", () => {
    assert.equal(listingTimeoutMs(null), 10_000);
    assert.equal(listingTimeoutMs("0"), 10_000);
    assert.equal(listingTimeoutMs("abc"), 10_000);
    assert.equal(listingTimeoutMs("999999"), 60_000);
    assert.equal(listingTimeoutMs("250"), 250);
  });

  test("a listing is cached per provider and credential for the instance", async () => {
    await queueListings();
    const first = await call(app, "GET", "/api/v1/llm/models", { token, headers: KEY_HEADERS });
    const counts = requestCounts();
    const second = await call(app, "GET", "/api/v1/llm/models", { token, headers: KEY_HEADERS });
    assert.deepEqual(second.body, first.body);
    assert.deepEqual(requestCounts(), counts, "no provider asked again");
    // Another OpenAI key is another cache entry.
    await fakes.openai.enqueueFixture("openai", "list_page");
    await call(app, "GET", "/api/v1/llm/models", {
      token,
      headers: { ...KEY_HEADERS, "X-Router-Provider-OpenAI-Api-Key": "sk-other" },
    });
    assert.equal(fakes.openai.requests.length, counts.openai + 1);
    assert.equal(fakes.anthropic.requests.length, counts.anthropic);
  });

  test("needs a bearer token", async () => {
    const res = await call(app, "GET", "/api/v1/llm/models");
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, "missing_credentials");
  });

  test("a provider key in the query string is refused before anything", async () => {
    const res = await call(app, "GET", "/api/v1/llm/models?openai_api_key=sk-x", { token });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "credentials_in_query");
  });
});

describe("provider configuration at start-up", () => {
  for (
    const [label, providers, line] of [
      [
        "an instance named like a built-in",
        { "openai-compat:openai": { base_url: "http://127.0.0.1:1/v1" } },
        'invalid configuration: router.providers."openai-compat:openai": instance name "openai" is taken by a built-in provider',
      ],
      [
        "a base URL with a query string",
        { ollama: { base_url: "http://127.0.0.1:11434/?key=1" } },
        'invalid configuration: router.providers.ollama.base_url: "http://127.0.0.1:11434/?key=1" is not an http(s) URL without query or credentials',
      ],
    ] as const
  ) {
    test(`${label} stops start-up with one line naming the key`, async () => {
      const config = await loadConfig([], {});
      config.providers = providers;
      assert.throws(
        () => registryFromConfig(config),
        (error: unknown) => error instanceof ConfigError && error.message === line,
      );
    });
  }
});
