/**
 * Every provider kind answers on the Responses API surface in its own shape:
 * for each recorded exchange of OpenAI, Anthropic, Gemini and Ollama (plain,
 * streamed, a tool call, parallel tool calls, a reply cut at max tokens), what
 * the provider's adapter itself reads from the bytes (text, tool calls in
 * order, usage, why it stopped) is what the official `openai` client's
 * `responses.create` and `responses.stream` receive, every answer and event
 * held against OpenAI's published document on the way.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { adapterFor } from "../../src/providers/adapter_for.ts";
import type { WireProtocol } from "../../src/providers/registry.ts";
import type { ProviderEvent } from "../../src/providers/types.ts";
import {
  type Account,
  call,
  createTestApp,
  signUp,
  type TestApp,
} from "../support/app.ts";
import { responsesFetch } from "../support/openai_responses_schema.ts";
import {
  type FakeProvider,
  startFakeProvider,
} from "../support/fake_provider.ts";

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
  return k.header === ""
    ? {}
    : { [`x-router-provider-${k.header}-api-key`]: "sk-test" };
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

const TOOLS = [{
  type: "function" as const,
  name: "read_file",
  parameters: { type: "object", properties: {} },
  strict: false,
}];

for (const k of KINDS) {
  describe(`${k.provider} answers on /v1/responses`, () => {
    for (const { fixture, stream } of EXCHANGES) {
      test(`${fixture} through responses.${stream ? "stream" : "create"}`, async () => {
        const expected = await adapterReads(k, fixture, stream);
        await usePolicy(k);
        await fakes.get(k.provider)!.enqueueFixture(k.provider, fixture);
        const openai = new OpenAI({
          apiKey: alice.apiKey,
          baseURL: "http://switchyard.test/v1",
          defaultHeaders: headers(k),
          maxRetries: 0,
          fetch: responsesFetch(() => app),
        });
        const request = { model: "switchyard", input: "hi", tools: TOOLS };
        let deltas = "";
        const response = stream
          ? await (async () => {
            const s = openai.responses.stream(request);
            s.on("response.output_text.delta", (e) => deltas += e.delta);
            return await s.finalResponse();
          })()
          : await openai.responses.create(request);
        if (stream) assert.equal(deltas, expected.text);
        assert.equal(response.output_text, expected.text);
        assert.deepEqual(
          response.output.flatMap((i) =>
            i.type === "function_call"
              ? [{ name: i.name, arguments: JSON.parse(i.arguments) }]
              : []
          ),
          expected.calls,
        );
        assert.equal(
          response.status,
          expected.stop === "max_tokens" ? "incomplete" : "completed",
        );
        assert.equal(response.usage?.input_tokens, expected.input);
        assert.equal(response.usage?.output_tokens, expected.output);
        assert.equal(response.model, `${k.provider}/${k.model}`);
      });
    }
  });
}
