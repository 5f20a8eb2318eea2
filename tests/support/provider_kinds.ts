/**
 * Every provider kind behind the compatible surfaces, for the tests that hold
 * what a surface answers against what the provider's own adapter reads from a
 * recorded exchange: one fake provider per kind, a service configured with
 * them, and a user whose default policy names the kind under test.
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { adapterFor } from "../../src/providers/adapter_for.ts";
import type { WireProtocol } from "../../src/providers/registry.ts";
import type { ProviderEvent } from "../../src/providers/types.ts";
import { type Account, call, createTestApp, signUp, type TestApp } from "./app.ts";
import { type FakeProvider, startFakeProvider } from "./fake_provider.ts";

export interface Kind {
  provider: WireProtocol;
  model: string;
  header: string;
  /** The base URL as the provider's configuration takes it. */
  base: (url: string) => string;
}

export const KINDS: Kind[] = [
  {
    provider: "openai",
    model: "gpt-4o-mini",
    header: "openai",
    base: (u) => `${u}/v1`,
  },
  {
    provider: "anthropic",
    model: "claude-sonnet-4-6",
    header: "anthropic",
    base: (u) => u,
  },
  {
    provider: "gemini",
    model: "gemini-2.5-flash",
    header: "gemini",
    base: (u) => u,
  },
  { provider: "ollama", model: "qwen3:8b", header: "", base: (u) => u },
];

export const EXCHANGES: { fixture: string; stream: boolean }[] = [
  { fixture: "plain_buffered", stream: false },
  { fixture: "streamed_answer", stream: true },
  { fixture: "tool_call_streamed", stream: true },
  { fixture: "parallel_tool_calls_streamed", stream: true },
  { fixture: "parallel_tool_calls_buffered", stream: false },
  { fixture: "max_tokens_buffered", stream: false },
];

export interface Expected {
  text: string;
  calls: { name: string; arguments: Record<string, unknown> }[];
  input: number;
  output: number;
  stop: string;
}

export function headers(k: Kind): Record<string, string> {
  return k.header === "" ? {} : { [`x-router-provider-${k.header}-api-key`]: "sk-test" };
}

/**
 * One fake provider per kind and a service configured with them, started before the file's tests
 * and closed after (each test file its own: Bun runs every file in one process).
 */
export function providerKinds() {
  const fakes = new Map<string, FakeProvider>();
  let app: TestApp;
  let alice: Account;

  before(async () => {
    for (const k of KINDS) fakes.set(k.provider, await startFakeProvider());
    app = await createTestApp({
      providers: Object.fromEntries(
        KINDS.map((
          k,
        ) => [k.provider, {
          base_url: k.base(fakes.get(k.provider)!.url),
          models: [k.model],
        }]),
      ),
    });
    alice = await signUp(app);
  });

  after(async () => {
    await app.close();
    for (const f of fakes.values()) await f.close();
  });

  /** What the adapter reads from the fixture's bytes, called directly. */

  async function adapterReads(
    k: Kind,
    fixture: string,
    stream: boolean,
  ): Promise<Expected> {
    const fake = fakes.get(k.provider)!;
    await fake.enqueueFixture(k.provider, fixture);
    const out: Expected = { text: "", calls: [], input: 0, output: 0, stop: "" };
    const events: AsyncIterable<ProviderEvent> = adapterFor(k.provider).invoke(
      {
        provider: k.provider,
        baseUrl: k.base(fake.url),
        apiKey: "sk-test",
        timeoutMs: 10_000,
      },
      { model: k.model, messages: [{ role: "user", content: "hi" }], stream },
    );
    for await (const e of events) {
      if (e.type === "text_delta") out.text += e.delta;
      else if (e.type === "tool_call_complete") {
        out.calls.push({ name: e.name, arguments: e.arguments });
      } else if (e.type === "usage") {
        out.input = e.usage.inputTokens ?? out.input;
        out.output = e.usage.outputTokens ?? out.output;
      } else if (e.type === "end") out.stop = e.stopReason;
    }
    return out;
  }

  async function usePolicy(k: Kind) {
    const r = await call(app, "PUT", "/api/v1/policies/default", {
      token: alice.token,
      body: {
        routing: {
          default: { model: `${k.provider}/${k.model}`, fallbacks: [] },
          rules: [],
        },
        privacy: { remote: { mode: "allow" } },
      },
    });
    assert.ok(r.status < 300, JSON.stringify(r.body));
  }

  return {
    app: (): TestApp => app,
    alice: (): Account => alice,
    fake: (k: Kind): FakeProvider => fakes.get(k.provider)!,
    adapterReads,
    usePolicy,
  };
}
