/**
 * Replays listing fixtures through the fake provider over real HTTP: queues
 * the recorded answers, lists one provider, and checks what was sent against
 * each fixture's request and what came out against the last one's `expected`.
 */
import assert from "node:assert/strict";
import type { ModelDescriptor, UnavailableEntry } from "../../src/core/model.ts";
import { listModels } from "../../src/providers/listing.ts";
import { buildRegistry, type ProviderSettings } from "../../src/providers/registry.ts";
import { type Fixture, startFakeProvider } from "../support/fake_provider.ts";

export const KEY = "sk-test-listing-0123456789-secret";
const CREDENTIAL_HEADERS = ["authorization", "x-api-key", "x-goog-api-key"];

export interface ReplayCase {
  provider: string;
  /** Fixture directory under fixtures/providers. */
  dir: string;
  fixtures: string[];
  /** Provider settings; `base_url` is appended to the fake's URL. */
  settings?: ProviderSettings & { path?: string };
  key?: string;
  deadlineMs?: number;
}

interface Expected {
  models: ModelDescriptor[];
  unavailable?: UnavailableEntry[];
}

export async function replay(c: ReplayCase) {
  const fake = await startFakeProvider();
  try {
    const fixtures: Fixture[] = [];
    for (const name of c.fixtures) fixtures.push(await fake.enqueueFixture(c.dir, name));
    const { path, ...settings } = c.settings ?? {};
    const built = buildRegistry({
      providers: { [c.provider]: { ...settings, base_url: `${fake.url}${path ?? ""}` } },
    });
    assert.ok(built.ok);
    const registry = { providers: built.value.providers.filter((p) => p.id === c.provider) };
    const credentials = new Map(c.key === undefined ? [] : [[c.provider, c.key]]);
    const result = await listModels(registry, credentials, { deadlineMs: c.deadlineMs ?? 5000 });

    assert.equal(fake.requests.length, fixtures.length, "one request per recorded exchange");
    fixtures.forEach((fixture, i) => {
      const sent = fake.requests[i];
      assert.equal(sent.method, fixture.request.method);
      assert.equal(sent.path, fixture.request.path);
      const want = fixture.request.headers ?? {};
      for (const [name, value] of Object.entries(want)) {
        assert.equal(sent.headers[name], value.replace("<API_KEY>", c.key ?? ""), `header ${name}`);
      }
      for (const name of CREDENTIAL_HEADERS) {
        if (!(name in want)) assert.equal(sent.headers[name], undefined, `no ${name} header`);
      }
      if (fixture.request.body !== undefined) {
        assert.deepEqual(sent.json, fixture.request.body, "the listing query's body");
      } else if (fixture.request.method === "GET") {
        assert.equal(sent.body, "", "a listing GET has no body");
      }
    });

    const expected = fixtures[fixtures.length - 1].expected as Expected;
    assert.deepEqual(result.models, expected.models);
    const reasons = result.unavailable.map(({ provider, reason }) => ({ provider, reason }));
    assert.deepEqual(reasons, expected.unavailable ?? []);
    for (const entry of result.unavailable) {
      assert.ok(!JSON.stringify(entry).includes(KEY), "the key never appears in a message");
      assert.match(entry.message ?? "", new RegExp(`^${c.provider}: `));
    }
    return result;
  } finally {
    await fake.close();
  }
}
