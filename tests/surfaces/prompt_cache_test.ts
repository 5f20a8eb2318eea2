/**
 * Prompt caching kept end to end (decisions.md §15): the `cache_control`
 * marks the service places for an Anthropic model (policy `caching = "auto"`,
 * the default) and none under `"off"`, read in the bytes the Anthropic fake
 * received; a client's own marks through the official `@anthropic-ai/sdk`
 * reaching the model as sent; OpenAI's `prompt_cache_key` = the session id;
 * and the cache reads and writes of a recorded answer priced exactly and
 * reported in the turn's usage, the `cost` trace event, the session and
 * period usage reports and both surfaces' own usage fields.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";

const OPERATOR = "operator-token-0123456789";
const KEYS = {
  "x-router-provider-anthropic-api-key": "sk-ant-test",
  "x-router-provider-openai-api-key": "sk-test-openai",
};

let anthropic: FakeProvider;
let openai: FakeProvider;
let app: TestApp;
let alice: Account;

before(async () => {
  anthropic = await startFakeProvider();
  openai = await startFakeProvider();
  app = await createTestApp({
    providers: {
      anthropic: {
        base_url: anthropic.url,
        models: ["claude-sonnet-4-5", "claude-haiku-4-5"],
      },
      openai: { base_url: `${openai.url}/v1`, models: ["gpt-4o-mini"] },
    },
    configure: (c) => void (c.auth.operatorToken = OPERATOR),
  });
  alice = await signUp(app);
});
after(async () => {
  await app.close();
  await anthropic.close();
  await openai.close();
});
beforeEach(() => {
  anthropic.requests.length = 0;
  openai.requests.length = 0;
});

function policy(model: string, caching?: "auto" | "off") {
  return {
    routing: { default: { model, fallbacks: [] }, rules: [] },
    tools: { permissions: { file_read: "allow" } },
    privacy: { remote: { mode: "allow" } },
    ...(caching === undefined ? {} : { caching }),
  };
}

async function session(): Promise<string> {
  const r = await call(app, "POST", "/api/v1/sessions", {
    token: alice.token,
    body: { title: "t" },
  });
  return r.body.session.id as string;
}

const execute = (id: string, body: unknown) =>
  call(app, "POST", `/api/v1/sessions/${id}/execute`, {
    token: alice.token,
    body,
    headers: KEYS,
  });

/** Every `cache_control` in a request body, with the JSON path that holds it. */
function marks(value: unknown, path = "$"): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((v, i) => marks(v, `${path}[${i}]`));
  }
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    k === "cache_control" ? [`${path}: ${JSON.stringify(v)}`] : marks(v, `${path}.${k}`)
  );
}

describe("an Anthropic model on a native turn", () => {
  test("caching auto (the default): a mark after the tools and system prompt, one on the last message", async () => {
    const id = await session();
    const fixture = await anthropic.enqueueFixture(
      "anthropic",
      "cache_marks_placed",
    );
    const r = await execute(id, {
      input: { text: "Fix the failing test." },
      policy: policy("anthropic/claude-sonnet-4-5"),
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const sent = anthropic.requests[0].json as Record<string, unknown>;
    const lastMessage = (sent.messages as unknown[]).length - 1;
    const lastBlock = (sent.messages as { content: unknown[] }[])[lastMessage].content.length -
      1;
    assert.deepEqual(marks(sent), [
      `$.system[0]: {"type":"ephemeral"}`,
      `$.messages[${lastMessage}].content[${lastBlock}]: {"type":"ephemeral"}`,
    ]);
    assert.ok(marks(sent).length <= 4);

    // The recorded answer read 4200 and wrote 1840 of its 6065 prompt tokens:
    // 25 × 3 + 4200 × 0.3 + 1840 × 3.75 + 120 × 15 = 10035 per 10^6.
    const usage = (fixture.response.body as { usage: Record<string, number> }).usage;
    assert.deepEqual([
      usage.input_tokens,
      usage.cache_read_input_tokens,
      usage.cache_creation_input_tokens,
    ], [25, 4200, 1840]);
    assert.deepEqual(r.body.data.usage, {
      input_tokens: 6065,
      output_tokens: 120,
      cache_read_tokens: 4200,
      cache_write_tokens: 1840,
      estimated_cost: "0.010035",
      currency: "USD",
    });
    const trace = await call(app, "GET", `/api/v1/sessions/${id}/traces`, {
      token: alice.token,
    });
    const cost = trace.body.trace.events.find((e: { event_type: string }) =>
      e.event_type === "cost"
    );
    assert.deepEqual(cost.payload.plaintext, {
      type: "cost",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      input_tokens: 6065,
      output_tokens: 120,
      cache_read_tokens: 4200,
      cache_write_tokens: 1840,
      cost: "0.010035",
    });
    const report = await call(app, "GET", `/api/v1/sessions/${id}/usage`, {
      token: alice.token,
    });
    assert.deepEqual(report.body.total, {
      input_tokens: 6065,
      output_tokens: 120,
      cache_read_tokens: 4200,
      cache_write_tokens: 1840,
      total_tokens: 6185,
      estimated_cost: "0.010035",
      currency: "USD",
    });
    const period = await call(app, "GET", "/api/v1/usage", {
      token: alice.token,
    });
    assert.equal(period.status, 200);
    const model = period.body.by_model.find((m: { model: string }) =>
      m.model === "claude-sonnet-4-5"
    );
    assert.deepEqual([model.cache_read_tokens, model.cache_write_tokens], [
      4200,
      1840,
    ]);
    const admin = await call(app, "GET", "/api/v1/admin/usage", {
      token: OPERATOR,
    });
    assert.equal(admin.status, 200);
    const mine = admin.body.users.find((u: { user_id: string }) => u.user_id === alice.userId);
    assert.deepEqual(
      [mine.total.cache_read_tokens, mine.total.cache_write_tokens],
      [
        period.body.total.cache_read_tokens,
        period.body.total.cache_write_tokens,
      ],
    );
    assert.ok(mine.total.cache_write_tokens >= 1840);
  });

  test("caching off: no mark at all, the system prompt a plain string", async () => {
    const id = await session();
    await anthropic.enqueueFixture("anthropic", "plain_buffered");
    const r = await execute(id, {
      input: { text: "Fix the failing test." },
      policy: policy("anthropic/claude-sonnet-4-5", "off"),
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const sent = anthropic.requests[0].json as Record<string, unknown>;
    assert.deepEqual(marks(sent), []);
    assert.equal(typeof sent.system, "string");
  });

  test("a caching value other than auto or off is refused with its path", async () => {
    const id = await session();
    const r = await execute(id, {
      input: { text: "x" },
      policy: { ...policy("anthropic/claude-sonnet-4-5"), caching: "on" },
    });
    assert.ok(r.status === 400 || r.status === 422, String(r.status));
    assert.match(JSON.stringify(r.body), /caching/);
    const stored = await call(app, "PUT", "/api/v1/policies/cached", {
      token: alice.token,
      body: { caching: "sometimes" },
    });
    assert.ok(
      stored.status >= 400 && stored.status < 500,
      String(stored.status),
    );
    const off = await call(app, "PUT", "/api/v1/policies/uncached", {
      token: alice.token,
      body: { caching: "off" },
    });
    assert.ok(off.status < 300, JSON.stringify(off.body));
  });
});

describe("a client's own marks on the Anthropic surface", () => {
  test("reach the model as sent, and the answer reports the cache in Anthropic's fields", async () => {
    const stored = await call(app, "PUT", "/api/v1/policies/claude", {
      token: alice.token,
      body: policy("anthropic/claude-haiku-4-5"),
    });
    assert.ok(stored.status < 300);
    await anthropic.enqueueFixture("anthropic", "cache_marks_client");
    const client = new Anthropic({
      apiKey: alice.apiKey,
      baseURL: "http://switchyard.test",
      defaultHeaders: KEYS,
      maxRetries: 0,
      fetch: checkedFetch(() => app),
    });
    const message = await client.messages.stream({
      model: "switchyard/claude",
      max_tokens: 1024,
      system: [{
        type: "text",
        text: "Rules.",
        cache_control: { type: "ephemeral", ttl: "1h" },
      }],
      tools: [{
        name: "read_file",
        description: "Read a file",
        input_schema: {
          type: "object",
          properties: { path: { type: "string" } },
        },
        cache_control: { type: "ephemeral" },
      }],
      messages: [
        {
          role: "user",
          content: [{
            type: "text",
            text: "Read a.ts",
            cache_control: { type: "ephemeral" },
          }],
        },
        { role: "assistant", content: "Which part?" },
        { role: "user", content: [{ type: "text", text: "All of it." }] },
      ],
    }).finalMessage();
    const sent = anthropic.requests[0].json as Record<string, unknown>;
    // As sent: nothing placed on the last message, whose client put no mark there.
    assert.deepEqual(marks(sent), [
      `$.system[0]: {"type":"ephemeral","ttl":"1h"}`,
      `$.messages[0].content[0]: {"type":"ephemeral"}`,
      `$.tools[0]: {"type":"ephemeral"}`,
    ]);
    assert.deepEqual(message.usage.input_tokens, 8);
    assert.equal(message.usage.cache_creation_input_tokens, 3000);
    assert.equal(message.usage.cache_read_input_tokens, 0);
    assert.equal(message.usage.output_tokens, 42);
  });
});

describe("OpenAI's prompt_cache_key", () => {
  test("is the session id on a native turn; absent under caching off", async () => {
    const id = await session();
    await openai.enqueueFixture("openai", "plain_buffered");
    assert.equal(
      (await execute(id, {
        input: { text: "hi" },
        policy: policy("openai/gpt-4o-mini"),
      })).status,
      200,
    );
    assert.equal(
      (openai.requests[0].json as Record<string, unknown>).prompt_cache_key,
      id,
    );
    await openai.enqueueFixture("openai", "plain_buffered");
    const off = {
      input: { text: "hi" },
      policy: policy("openai/gpt-4o-mini", "off"),
    };
    assert.equal((await execute(await session(), off)).status, 200);
    assert.equal(
      "prompt_cache_key" in
        (openai.requests[1].json as Record<string, unknown>),
      false,
    );
  });

  test("is the session id on the OpenAI surface, and cached tokens come back in OpenAI's field", async () => {
    const stored = await call(app, "PUT", "/api/v1/policies/gpt", {
      token: alice.token,
      body: policy("openai/gpt-4o-mini"),
    });
    assert.ok(stored.status < 300);
    await openai.enqueueFixture("openai", "prompt_cache_key");
    const client = new OpenAI({
      apiKey: alice.apiKey,
      baseURL: "http://switchyard.test/v1",
      defaultHeaders: KEYS,
      maxRetries: 0,
      fetch: checkedFetch(() => app),
    });
    const { data, response } = await client.chat.completions.create({
      model: "switchyard/gpt",
      messages: [{
        role: "user",
        content: "Fix the failing test in src/a.ts.",
      }],
    }).withResponse();
    const sessionId = response.headers.get("x-router-session-id");
    assert.ok(sessionId);
    assert.equal(
      (openai.requests[0].json as Record<string, unknown>).prompt_cache_key,
      sessionId,
    );
    assert.equal(data.usage?.prompt_tokens, 3120);
    assert.equal(data.usage?.prompt_tokens_details?.cached_tokens, 2944);
    // (3120 − 2944) × 0.15 + 2944 × 0.075 + 18 × 0.6 = 258 per 10^6
    const report = await call(
      app,
      "GET",
      `/api/v1/sessions/${sessionId}/usage`,
      { token: alice.token },
    );
    assert.deepEqual(report.body.total, {
      input_tokens: 3120,
      output_tokens: 18,
      cache_read_tokens: 2944,
      total_tokens: 3138,
      estimated_cost: "0.000258",
      currency: "USD",
    });
  });

  test("a key the client sent is its own: it goes as sent, under caching off too", async () => {
    const stored = await call(app, "PUT", "/api/v1/policies/gpt-off", {
      token: alice.token,
      body: policy("openai/gpt-4o-mini", "off"),
    });
    assert.ok(stored.status < 300);
    await openai.enqueueFixture("openai", "plain_buffered");
    const r = await call(app, "POST", "/v1/chat/completions", {
      token: alice.token,
      headers: KEYS,
      body: {
        model: "switchyard/gpt-off",
        messages: [{ role: "user", content: "Say hello in five words." }],
        prompt_cache_key: "codex-conversation-42",
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(
      (openai.requests[0].json as Record<string, unknown>).prompt_cache_key,
      "codex-conversation-42",
    );
  });
});
