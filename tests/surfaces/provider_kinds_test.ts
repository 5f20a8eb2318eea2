/**
 * Every provider kind answers on both compatible surfaces in the surface's
 * own shape: for each recorded exchange of OpenAI, Anthropic, Gemini and
 * Ollama (plain, streamed, a tool call, parallel tool calls, a reply cut at
 * max tokens), what the provider's adapter itself reads from the bytes (text,
 * tool calls in order, usage, why it stopped) is what the official `openai`
 * and `@anthropic-ai/sdk` clients receive.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { adapterFor } from "../../src/providers/adapter_for.ts";
import type { WireProtocol } from "../../src/providers/registry.ts";
import type { ProviderEvent } from "../../src/providers/types.ts";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";

interface Kind {
  provider: WireProtocol;
  model: string;
  header: string;
  /** The base URL as the provider's configuration takes it. */
  base: (url: string) => string;
}

const KINDS: Kind[] = [
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

const EXCHANGES: { fixture: string; stream: boolean }[] = [
  { fixture: "plain_buffered", stream: false },
  { fixture: "streamed_answer", stream: true },
  { fixture: "tool_call_streamed", stream: true },
  { fixture: "parallel_tool_calls_streamed", stream: true },
  { fixture: "parallel_tool_calls_buffered", stream: false },
  { fixture: "max_tokens_buffered", stream: false },
];

interface Expected {
  text: string;
  calls: { name: string; arguments: Record<string, unknown> }[];
  input: number;
  output: number;
  stop: string;
}

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

function headers(k: Kind): Record<string, string> {
  return k.header === "" ? {} : { [`x-router-provider-${k.header}-api-key`]: "sk-test" };
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

const OPENAI_FINISH: Record<string, string> = {
  stop: "stop",
  tool_calls: "tool_calls",
  max_tokens: "length",
};
const ANTHROPIC_STOP: Record<string, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  max_tokens: "max_tokens",
};

const TOOLS = [{
  type: "function" as const,
  function: {
    name: "read_file",
    parameters: { type: "object", properties: {} },
  },
}];

for (const k of KINDS) {
  describe(`${k.provider} answers on the compatible surfaces`, () => {
    for (const { fixture, stream } of EXCHANGES) {
      test(`${fixture} through /v1/chat/completions`, async () => {
        const expected = await adapterReads(k, fixture, stream);
        await usePolicy(k);
        await fakes.get(k.provider)!.enqueueFixture(k.provider, fixture);
        const openai = new OpenAI({
          apiKey: alice.apiKey,
          baseURL: "http://switchyard.test/v1",
          defaultHeaders: headers(k),
          maxRetries: 0,
          fetch: checkedFetch(() => app),
        });
        const request = {
          model: "switchyard",
          messages: [{ role: "user" as const, content: "hi" }],
          tools: TOOLS,
        };
        let text = "";
        let finish: string | null = null;
        let usage: OpenAI.CompletionUsage | undefined;
        const calls = new Map<number, { name: string; args: string }>();
        if (stream) {
          const chunks = await openai.chat.completions.create({
            ...request,
            stream: true,
            stream_options: { include_usage: true },
          });
          for await (const chunk of chunks) {
            usage = chunk.usage ?? usage;
            for (const c of chunk.choices) {
              text += c.delta.content ?? "";
              finish = c.finish_reason ?? finish;
              for (const t of c.delta.tool_calls ?? []) {
                const seen = calls.get(t.index) ?? { name: "", args: "" };
                calls.set(t.index, {
                  name: seen.name + (t.function?.name ?? ""),
                  args: seen.args + (t.function?.arguments ?? ""),
                });
              }
            }
          }
        } else {
          const r = await openai.chat.completions.create(request);
          const m = r.choices[0].message;
          text = m.content ?? "";
          finish = r.choices[0].finish_reason;
          usage = r.usage;
          (m.tool_calls ?? []).forEach((t, i) => {
            if (t.type === "function") {
              calls.set(i, {
                name: t.function.name,
                args: t.function.arguments,
              });
            }
          });
        }
        assert.equal(text, expected.text);
        assert.deepEqual(
          [...calls.values()].map((c) => ({
            name: c.name,
            arguments: JSON.parse(c.args),
          })),
          expected.calls,
        );
        assert.equal(finish, OPENAI_FINISH[expected.stop]);
        assert.equal(usage?.prompt_tokens, expected.input);
        assert.equal(usage?.completion_tokens, expected.output);
      });

      test(`${fixture} through /v1/messages`, async () => {
        const expected = await adapterReads(k, fixture, stream);
        await usePolicy(k);
        await fakes.get(k.provider)!.enqueueFixture(k.provider, fixture);
        const anthropic = new Anthropic({
          apiKey: alice.apiKey,
          baseURL: "http://switchyard.test",
          defaultHeaders: headers(k),
          maxRetries: 0,
          fetch: checkedFetch(() => app),
        });
        const request = {
          model: "switchyard",
          max_tokens: 512,
          messages: [{ role: "user" as const, content: "hi" }],
          tools: [{
            name: "read_file",
            input_schema: { type: "object" as const, properties: {} },
          }],
        };
        const message = stream
          ? await anthropic.messages.stream(request).finalMessage()
          : await anthropic.messages.create(request);
        const text = message.content.flatMap((b) => b.type === "text" ? [b.text] : []).join("");
        const calls = message.content.flatMap((b) =>
          b.type === "tool_use" ? [{ name: b.name, arguments: b.input }] : []
        );
        assert.equal(text, expected.text);
        assert.deepEqual(calls, expected.calls);
        assert.equal(message.stop_reason, ANTHROPIC_STOP[expected.stop]);
        assert.equal(message.usage.input_tokens, expected.input);
        assert.equal(message.usage.output_tokens, expected.output);
      });
    }
  });
}
