/**
 * The golden routing decisions (fixtures/golden/**.json): every case runs
 * through the pure core (`parseTurnRequest` + `previewTurn` on the catalog a
 * fetch stub's listings give) and through `POST …/preview` in process, with
 * the listings served over real HTTP by fake providers, and both must give the
 * bytes of the case's `expected`. `UPDATE_GOLDEN=1` rewrites `expected` from
 * the endpoint's answer, after checking that the core agrees; read the diff.
 *
 * The determinism test replays every case twice on each path and requires
 * identical bytes. The suite runs under Deno and under Bun against the same
 * files, so equal bytes across the two runtimes follow from both matching
 * the one `expected`.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import type { Failure } from "../../src/core/errors.ts";
import { previewTurn } from "../../src/core/preview.ts";
import { HTTP_STATUS } from "../../src/http/error_response.ts";
import { parseTurnRequest } from "../../src/http/turn_request.ts";
import { registryFromConfig } from "../../src/main.ts";
import { parseCredentialHeaders } from "../../src/providers/credentials.ts";
import type { Registry } from "../../src/providers/registry.ts";
import { catalogForRequest, catalogInput } from "../../src/providers/request_catalog.ts";
import { createTestApp, signUp, type TestApp } from "../support/app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { assertMatchesOpenApi } from "../support/openapi.ts";
import {
  GOLDEN_PROVIDER_IDS,
  goldenProviders,
  listingResponse,
  loadCases,
  type LoadedCase,
  showResponses,
  writeExpected,
} from "./golden_cases.ts";

const UPDATE = process.env.UPDATE_GOLDEN === "1";
/** Listing deadlines: the fake answers a `timeout` listing well after either. */
const HTTP_DEADLINE_MS = "1000";
const CORE_DEADLINE_MS = 300;

const cases = await loadCases();

function errorBytes(status: number, failure: Failure): string {
  const error: Record<string, unknown> = { status, code: failure.code, message: failure.message };
  if (failure.details !== undefined) error.details = failure.details;
  return JSON.stringify({ error });
}

/** A registry whose providers live on made-up hosts the fetch stub answers for. */
const hostOf = (id: string) => `http://${id.replace(":", "-")}.golden.invalid`;
const coreRegistry = registryFromConfig({ providers: goldenProviders(hostOf) } as never);

function stubFetch(registry: Registry, loaded: LoadedCase): typeof fetch {
  return ((input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const provider = registry.providers.find((p) => new URL(p.base_url).host === url.host);
    if (provider === undefined) return Promise.reject(new TypeError(`no provider at ${url}`));
    const spec = loaded.golden.listings[provider.id];
    const answer = url.pathname.endsWith("/api/show")
      ? showResponses(provider.protocol, spec)[0]
      : listingResponse(provider.protocol, spec);
    if (answer.delay_ms !== undefined) {
      return new Promise((_resolve, reject) => {
        init.signal?.addEventListener("abort", () => reject(init.signal?.reason));
      });
    }
    const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    return Promise.resolve(new Response(body, { status: answer.status, headers: answer.headers }));
  }) as typeof fetch;
}

/** The preview through the core alone: validation, catalog for the request, decision. */
async function runCore(loaded: LoadedCase): Promise<string> {
  // Validation fills defaults into the body it is given: the case's own request stays as written.
  const parsed = parseTurnRequest(structuredClone(loaded.golden.request));
  if (!parsed.ok) return errorBytes(HTTP_STATUS[parsed.failure.code], parsed.failure);
  const rc = await catalogForRequest(
    coreRegistry,
    parseCredentialHeaders(new Headers(loaded.golden.credentials)),
    { deadlineMs: CORE_DEADLINE_MS, fetch: stubFetch(coreRegistry, loaded) },
  );
  const out = previewTurn({ request: parsed.value, ...catalogInput(rc) });
  return out.ok
    ? JSON.stringify(out.value)
    : errorBytes(HTTP_STATUS[out.failure.code], out.failure);
}

let app: TestApp;
let token: string;
let sessionPath: string;
const fakes = new Map<string, FakeProvider>();

/** The preview through the endpoint, its listings served by the fake providers. */
async function runHttp(loaded: LoadedCase): Promise<string> {
  app.listingCache.clear();
  const credentials = parseCredentialHeaders(new Headers(loaded.golden.credentials));
  // Providers are listed only for a valid body; an invalid one is refused before.
  const lists = parseTurnRequest(structuredClone(loaded.golden.request)).ok;
  const expectedCalls = new Map<string, number>();
  for (const provider of app.registry.providers) {
    const called = lists && provider.models === undefined &&
      (provider.auth !== "api_key" || credentials.has(provider.id));
    const fake = fakes.get(provider.id)!;
    const spec = loaded.golden.listings[provider.id];
    const shows = called ? showResponses(provider.protocol, spec) : [];
    expectedCalls.set(provider.id, fake.requests.length + (called ? 1 + shows.length : 0));
    if (called) {
      fake.enqueue(listingResponse(provider.protocol, spec));
      for (const show of shows) fake.enqueue(show);
    }
  }
  const response = await app.handler(
    new Request(`http://127.0.0.1${sessionPath}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "x-router-timeout-ms": HTTP_DEADLINE_MS,
        ...loaded.golden.credentials,
      },
      body: JSON.stringify(loaded.golden.request),
    }),
  );
  const text = await response.text();
  assert.equal(response.headers.get("content-type"), "application/json");
  assertMatchesOpenApi("POST", sessionPath, {
    status: response.status,
    headers: response.headers,
    body: JSON.parse(text),
  });
  for (const [id, count] of expectedCalls) {
    assert.equal(
      fakes.get(id)!.requests.length,
      count,
      `one listing call to ${id} at most (and Ollama's /api/show per model)`,
    );
  }
  for (const key of Object.values(loaded.golden.credentials)) {
    assert.ok(!text.includes(key), "a provider key never appears in the answer");
  }
  if (response.status === 200) return text;
  return errorBytes(response.status, JSON.parse(text).error);
}

before(async () => {
  for (const id of GOLDEN_PROVIDER_IDS) fakes.set(id, await startFakeProvider());
  app = await createTestApp({ providers: goldenProviders((id) => fakes.get(id)!.url) });
  token = (await signUp(app)).token;
  const created = await app.handler(
    new Request("http://127.0.0.1/api/v1/sessions", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ title: "golden" }),
    }),
  );
  sessionPath = `/api/v1/sessions/${(await created.json()).session.id}/preview`;
});

after(async () => {
  await app.close();
  for (const fake of fakes.values()) await fake.close();
});

describe("golden routing decisions", () => {
  test("the corpus holds at least 150 cases with unique names", () => {
    assert.ok(cases.length >= 150, `only ${cases.length} cases`);
    const names = cases.map((c) => c.golden.name);
    assert.equal(new Set(names).size, names.length);
  });

  for (const loaded of cases) {
    test(`${loaded.golden.name}: core and endpoint give the expected bytes`, async () => {
      const core = await runCore(loaded);
      const http = await runHttp(loaded);
      assert.equal(core, http, "the endpoint adds nothing to the core's decision");
      if (UPDATE) await writeExpected(loaded, JSON.parse(http));
      else assert.equal(http, JSON.stringify(loaded.golden.expected));
    });
  }
});

describe("golden determinism", () => {
  for (const loaded of cases) {
    test(`${loaded.golden.name}: two more runs on each path give identical bytes`, async () => {
      const first = await runCore(loaded);
      assert.equal(await runCore(loaded), first);
      assert.equal(await runHttp(loaded), first);
      assert.equal(await runHttp(loaded), first);
    });
  }
});
