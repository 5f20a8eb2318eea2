/**
 * The adapter conformance suite: every completion fixture of a provider is
 * replayed through the fake provider over real HTTP, and both sides are
 * checked: the request the adapter sent (method, path, headers, exact JSON
 * body) and the normalised events or the ProviderError it produced.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import {
  type FakeProvider,
  type Fixture,
  loadFixture,
  startFakeProvider,
} from "../support/fake_provider.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import type {
  CompletionRequest,
  ProviderAdapter,
  ProviderEvent,
  ProviderTarget,
} from "../../src/providers/types.ts";

/** The key the tests hand to adapters; fixtures write it as "<API_KEY>". */
export const TEST_KEY = "sk-switchyard-test-0f3a9c27d41b";

/** How a fixture names the adapter call it records (beside request/response/expected). */
export interface CompletionFixture extends Fixture {
  invoke: { request: Omit<CompletionRequest, "signal">; timeout_ms?: number; keyless?: boolean };
  expected: Array<ProviderEvent | { error: { category: string; status?: number } }>;
}

/** Credentials go only in the provider's own header: every other one must be absent. */
const CREDENTIAL_HEADERS = ["authorization", "x-api-key", "x-goog-api-key"];

export type Outcome = Array<ProviderEvent | { error: { category: string; status?: number } }>;

export async function collect(
  adapter: ProviderAdapter,
  target: ProviderTarget,
  request: CompletionRequest,
): Promise<{ outcome: Outcome; error?: unknown }> {
  const outcome: Outcome = [];
  try {
    for await (const event of adapter.invoke(target, request)) outcome.push(event);
  } catch (error) {
    if (!(error instanceof ProviderError)) return { outcome, error };
    const status = error.status === undefined ? {} : { status: error.status };
    outcome.push({ error: { category: error.category, ...status } });
    return { outcome, error };
  }
  return { outcome };
}

export function completionFixtureNames(provider: string): string[] {
  const dir = new URL(`../../fixtures/providers/${provider}/`, import.meta.url);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json") && !name.startsWith("list_"))
    .map((name) => name.slice(0, -".json".length))
    .sort();
}

export function loadCompletionFixture(provider: string, name: string): Promise<CompletionFixture> {
  return loadFixture(provider, name) as Promise<CompletionFixture>;
}

function expectedHeaders(fixture: Fixture): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(fixture.request.headers ?? {})) {
    out[name.toLowerCase()] = value.replaceAll("<API_KEY>", TEST_KEY);
  }
  return out;
}

/**
 * Runs every fixture of `provider` against `adapter`. `basePath` is the path
 * part of the provider's default base URL (`/v1` for OpenAI), since fixture
 * paths are relative to the origin.
 */
export function conformanceSuite(provider: string, adapter: ProviderAdapter, basePath = "") {
  describe(`${provider} adapter conformance`, () => {
    let fake: FakeProvider;
    before(async () => {
      fake = await startFakeProvider();
    });
    after(() => fake.close());

    for (const name of completionFixtureNames(provider)) {
      test(`${provider} adapter replays fixture ${name}`, async () => {
        const fixture = await loadCompletionFixture(provider, name);
        fake.enqueue(fixture.response);
        const seen = fake.requests.length;
        const target: ProviderTarget = {
          provider,
          baseUrl: fake.url + basePath,
          apiKey: fixture.invoke.keyless ? undefined : TEST_KEY,
          timeoutMs: fixture.invoke.timeout_ms ?? 5000,
        };
        const { outcome } = await collect(adapter, target, fixture.invoke.request);

        assert.equal(fake.requests.length, seen + 1, "the adapter sends exactly one request");
        const sent = fake.requests[seen];
        assert.equal(sent.method, fixture.request.method);
        assert.equal(sent.path, fixture.request.path);
        assert.ok(!sent.path.includes(TEST_KEY), "no credential in the URL");
        for (const [header, value] of Object.entries(expectedHeaders(fixture))) {
          assert.equal(sent.headers[header], value, `header ${header}`);
        }
        const expected = expectedHeaders(fixture);
        for (const header of CREDENTIAL_HEADERS) {
          if (!(header in expected)) assert.equal(sent.headers[header], undefined, `no ${header}`);
        }
        assert.deepEqual(sent.json, fixture.request.body, "request body");

        assert.deepEqual(outcome, fixture.expected);
      });
    }
  });
}
