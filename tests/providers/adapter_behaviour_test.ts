/**
 * Behaviour every adapter shares beyond its fixtures: aborting stops the
 * upstream call at once, a consumer that stops reading drops the connection,
 * the timeout holds however slow the provider, transport failures are
 * categorised, and no error ever carries the credential.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { startFakeProvider } from "../support/fake_provider.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import { anthropicMessagesAdapter } from "../../src/providers/anthropic_messages.ts";
import { geminiAdapter } from "../../src/providers/gemini.ts";
import { ollamaAdapter } from "../../src/providers/ollama.ts";
import { openAiChatAdapter } from "../../src/providers/openai_chat.ts";
import type { ProviderAdapter, ProviderTarget } from "../../src/providers/types.ts";
import { collect, completionFixtureNames, loadCompletionFixture, TEST_KEY } from "./conformance.ts";

const ADAPTERS: Array<{ provider: string; adapter: ProviderAdapter; basePath: string }> = [
  { provider: "openai", adapter: openAiChatAdapter, basePath: "/v1" },
  { provider: "anthropic", adapter: anthropicMessagesAdapter, basePath: "" },
  { provider: "gemini", adapter: geminiAdapter, basePath: "" },
  { provider: "ollama", adapter: ollamaAdapter, basePath: "" },
];

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

for (const { provider, adapter, basePath } of ADAPTERS) {
  const target = (url: string, timeoutMs = 10_000): ProviderTarget => ({
    provider,
    baseUrl: url + basePath,
    apiKey: TEST_KEY,
    timeoutMs,
  });

  describe(`${provider} adapter behaviour`, () => {
    test(`${provider} adapter stops the upstream call at once when aborted mid-stream`, async () => {
      const fake = await startFakeProvider();
      try {
        const fixture = await loadCompletionFixture(provider, "streamed_answer");
        fake.enqueue({ ...fixture.response, chunk_delay_ms: 400 });
        const controller = new AbortController();
        const request = { ...fixture.invoke.request, signal: controller.signal };
        const iterator = adapter.invoke(target(fake.url), request)[Symbol.asyncIterator]();
        const first = await iterator.next();
        assert.equal(first.done, false);
        const started = Date.now();
        const pending = iterator.next();
        controller.abort();
        await assert.rejects(pending, (error: unknown) => {
          assert.ok(!(error instanceof ProviderError), "an abort is not a provider failure");
          assert.equal((error as Error).name, "AbortError");
          return true;
        });
        assert.ok(Date.now() - started < 300, "the abort is seen at once");
        await within(fake.clientClosed(), 2000, "the fake seeing the connection close");
      } finally {
        await fake.close();
      }
    });

    test(`${provider} adapter aborts while still waiting for the status line`, async () => {
      const fake = await startFakeProvider();
      try {
        const fixture = await loadCompletionFixture(provider, "streamed_answer");
        fake.enqueue({ ...fixture.response, delay_ms: 5000 });
        const controller = new AbortController();
        const request = { ...fixture.invoke.request, signal: controller.signal };
        setTimeout(() => controller.abort(), 100);
        const { outcome, error } = await within(
          collect(adapter, target(fake.url), request),
          1000,
          "the aborted call",
        );
        assert.deepEqual(outcome, []);
        assert.equal((error as Error).name, "AbortError");
        await within(fake.clientClosed(), 2000, "the fake seeing the connection close");
      } finally {
        await fake.close();
      }
    });

    test(`${provider} adapter drops the connection when the consumer stops reading`, async () => {
      const fake = await startFakeProvider();
      try {
        const fixture = await loadCompletionFixture(provider, "streamed_answer");
        fake.enqueue({ ...fixture.response, chunk_delay_ms: 400 });
        for await (const _event of adapter.invoke(target(fake.url), fixture.invoke.request)) break;
        await within(fake.clientClosed(), 2000, "the fake seeing the connection close");
      } finally {
        await fake.close();
      }
    });

    test(`${provider} adapter times out a stalled answer without waiting for it`, async () => {
      const fake = await startFakeProvider();
      try {
        const fixture = await loadCompletionFixture(provider, "streamed_answer");
        fake.enqueue({ ...fixture.response, delay_ms: 3000 });
        const started = Date.now();
        const { error } = await collect(adapter, target(fake.url, 250), fixture.invoke.request);
        const elapsed = Date.now() - started;
        assert.ok(error instanceof ProviderError);
        assert.equal(error.category, "timeout");
        assert.equal(error.code, "request_timeout");
        assert.match(error.message, /250 ms/);
        assert.ok(elapsed >= 240 && elapsed < 1500, `gave up after ${elapsed} ms`);
      } finally {
        await fake.close();
      }
    });

    test(`${provider} adapter times out a buffered answer that stalls mid-body`, async () => {
      const fake = await startFakeProvider();
      try {
        const fixture = await loadCompletionFixture(provider, "plain_buffered");
        const body = JSON.stringify(fixture.response.body);
        const half = Math.floor(body.length / 2);
        fake.enqueue({
          status: fixture.response.status,
          headers: fixture.response.headers,
          chunks: [body.slice(0, half), body.slice(half)],
          chunk_delay_ms: 3000,
        });
        const started = Date.now();
        const { error } = await collect(adapter, target(fake.url, 250), fixture.invoke.request);
        const elapsed = Date.now() - started;
        assert.ok(error instanceof ProviderError);
        assert.equal(error.category, "timeout");
        assert.ok(elapsed >= 240 && elapsed < 1500, `gave up after ${elapsed} ms`);
      } finally {
        await fake.close();
      }
    });

    test(`${provider} adapter reports an unreachable provider as unavailable`, async () => {
      const fake = await startFakeProvider();
      const url = fake.url;
      await fake.close(); // nothing listens on this port any more
      const fixture = await loadCompletionFixture(provider, "streamed_answer");
      const { error } = await collect(adapter, target(url), fixture.invoke.request);
      assert.ok(error instanceof ProviderError);
      assert.equal(error.category, "provider_unavailable");
      assert.equal(error.provider, provider);
      assert.ok(!error.message.includes(TEST_KEY));
    });

    test(`${provider} adapter never puts the credential in an error`, async () => {
      const fake = await startFakeProvider();
      try {
        let failures = 0;
        for (const name of completionFixtureNames(provider)) {
          const fixture = await loadCompletionFixture(provider, name);
          if (fixture.invoke.timeout_ms !== undefined) continue; // covered above, and slow
          fake.enqueue(fixture.response);
          const { error } = await collect(adapter, target(fake.url), fixture.invoke.request);
          if (error === undefined) continue;
          failures++;
          assert.ok(error instanceof ProviderError, `${name}: a ProviderError`);
          const shown = [error.message, String(error), JSON.stringify(error), error.stack ?? ""];
          for (const text of shown) {
            assert.ok(!text.includes(TEST_KEY), `${name}: the key leaked`);
            assert.ok(!/sk-[A-Za-z0-9*]/.test(text), `${name}: something key-shaped leaked`);
          }
          assert.match(error.message, new RegExp(provider));
        }
        assert.ok(failures >= 8, `expected the error fixtures to fail, saw ${failures}`);
      } finally {
        await fake.close();
      }
    });
  });
}
