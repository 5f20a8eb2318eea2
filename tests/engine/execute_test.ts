/**
 * Buffered and streamed execute through the in-process handler against fake
 * providers: a completed turn with its history, trace and usage; provider
 * failures with fallback; routing rejections as plain JSON errors.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { call } from "../support/app.ts";
import { callStream, engineHarness, openAiReply, openAiStream } from "../support/engine_app.ts";

const h = engineHarness();
const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };

const policy = {
  routing: { default: { model: "openai/gpt-4o-mini", fallbacks: ["ollama/qwen3:8b"] }, rules: [] },
  tools: { permissions: { file_read: "allow" } },
  privacy: { remote: { mode: "allow" } },
};

function turn(text: string, extra: Record<string, unknown> = {}) {
  return { input: { text }, policy, ...extra };
}

const execute = (id: string, body: unknown, headers: Record<string, string> = KEY) =>
  call(h.app, "POST", `/api/v1/sessions/${id}/execute`, { token: h.alice.token, body, headers });

describe("buffered execute", () => {
  test("a completed turn answers the model's message, priced exactly, and persists history", async () => {
    const id = await h.session();
    await h.openai.enqueueFixture("openai", "plain_buffered");
    const r = await execute(id, turn("Say hello in five words."));
    assert.equal(r.status, 200);
    assert.equal(r.body.status, "completed");
    assert.deepEqual(r.body.allowed_continuations, []);
    const data = r.body.data;
    assert.deepEqual(data.message, {
      role: "assistant",
      content: "Hello there, nice to meet you!",
      provider: "openai",
      model: "gpt-4o-mini",
    });
    assert.equal(data.routing.provider, "openai");
    assert.equal(data.routing.fallback_used, false);
    // 24 × 0.15 / 10^6 + 7 × 0.6 / 10^6
    assert.deepEqual(data.usage, {
      input_tokens: 24,
      output_tokens: 7,
      estimated_cost: "0.0000078",
      currency: "USD",
    });
    assert.deepEqual(data.to_encrypt, {});
    // The credential went to OpenAI only, as its bearer token.
    assert.equal(h.openai.requests.length, 1);
    assert.equal(h.openai.requests[0].headers.authorization, "Bearer sk-test-openai");
    assert.equal(h.ollama.requests.length, 0);

    const detail = await call(h.app, "GET", `/api/v1/sessions/${id}`, { token: h.alice.token });
    assert.deepEqual(detail.body.session.messages, [
      { role: "user", content: { plaintext: "Say hello in five words." } },
      {
        role: "assistant",
        content: { plaintext: "Hello there, nice to meet you!" },
        provider: "openai",
        model: "gpt-4o-mini",
      },
    ]);
    const trace = await call(h.app, "GET", `/api/v1/sessions/${id}/traces`, {
      token: h.alice.token,
    });
    const events = trace.body.trace.events;
    const types = new Set(events.map((e: { event_type: string }) => e.event_type));
    for (const t of ["message", "classification", "routing_decision", "cost"]) {
      assert.ok(types.has(t), `trace has a ${t} event`);
    }
    for (const e of events) assert.equal(e.trace_id, data.trace_id);
    const usage = await call(h.app, "GET", `/api/v1/sessions/${id}/usage`, {
      token: h.alice.token,
    });
    assert.equal(usage.body.total.estimated_cost, "0.0000078");
    assert.equal(usage.body.by_model[0].request_count, 1);
  });

  test("the next turn of the session sends the earlier exchange as history", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiReply({ text: "first answer" }));
    assert.equal((await execute(id, turn("first question"))).status, 200);
    h.openai.enqueue(openAiReply({ text: "second answer" }));
    const r = await execute(id, turn("second question"));
    assert.equal(r.body.status, "completed");
    assert.ok(r.body.data.context.included.includes("message 1"));
    const sent = JSON.stringify(h.openai.requests[1].json);
    assert.ok(sent.includes("first question") && sent.includes("first answer"));
  });

  test("a provider outage moves to the next candidate and the trace records the hop", async () => {
    const id = await h.session();
    await h.openai.enqueueFixture("openai", "error_503");
    await h.ollama.enqueueFixture("ollama", "plain_buffered");
    const r = await execute(id, turn("hello"));
    assert.equal(r.status, 200);
    assert.equal(r.body.data.routing.provider, "ollama");
    assert.equal(r.body.data.usage.estimated_cost, "0");
    const trace = await call(h.app, "GET", `/api/v1/sessions/${id}/traces`, {
      token: h.alice.token,
    });
    const hops = trace.body.trace.events.filter((
      e: { event_type: string; payload: { plaintext: { reason: string } } },
    ) => e.event_type === "routing_decision" && e.payload.plaintext.reason.includes("failed"));
    assert.equal(hops.length, 1);
  });

  test("a turn on a local model records zero cost in its trace and usage, not null", async () => {
    const id = await h.session();
    await h.ollama.enqueueFixture("ollama", "plain_buffered");
    const local = { ...policy, routing: { default: { model: "ollama/qwen3:8b" }, rules: [] } };
    const r = await execute(id, turn("hello", { policy: local }), {});
    assert.equal(r.status, 200);
    assert.equal(r.body.data.usage.estimated_cost, "0");
    // Ollama serves only the window it is told; it gets the one routing trusted.
    const sent = h.ollama.requests[0].json as { options: Record<string, number> };
    assert.equal(sent.options.num_ctx, 8192);
    const trace = await call(h.app, "GET", `/api/v1/sessions/${id}/traces`, {
      token: h.alice.token,
    });
    const costs = trace.body.trace.events.filter((e: { event_type: string }) =>
      e.event_type === "cost"
    );
    assert.equal(costs.length, 1);
    assert.equal(costs[0].payload.plaintext.cost, "0");
    const rows = await h.app.db.query<{ cost: string | null }>(
      "SELECT cost::text AS cost FROM usage_events WHERE session_id = $1",
      [id],
    );
    assert.deepEqual(rows.map((row) => row.cost), ["0"]);
  });

  test("every candidate failing answers fallback_exhausted with each hop, and the run is over", async () => {
    const id = await h.session();
    await h.openai.enqueueFixture("openai", "error_503");
    await h.ollama.enqueueFixture("ollama", "error_503");
    const r = await execute(id, turn("hello"));
    assert.equal(r.status, 503);
    assert.equal(r.body.error.code, "fallback_exhausted");
    assert.equal(r.body.error.details.hops.length, 2);
    assert.ok(!JSON.stringify(r.body).includes("sk-test-openai"));
    // The session is usable again.
    h.openai.enqueue(openAiReply({ text: "ok" }));
    assert.equal((await execute(id, turn("again"))).body.status, "completed");
  });

  test("a single-candidate route answers the provider's own error", async () => {
    const id = await h.session();
    await h.openai.enqueueFixture("openai", "error_429");
    const body = turn("hello", {
      policy: { ...policy, routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] } },
    });
    const r = await execute(id, body);
    assert.equal(r.status, 429);
    assert.equal(r.body.error.code, "rate_limited");
  });

  test("a rejected credential is not retried elsewhere", async () => {
    const id = await h.session();
    await h.openai.enqueueFixture("openai", "error_401");
    const r = await execute(id, turn("hello"));
    assert.equal(r.status, 503);
    assert.equal(r.body.error.code, "invalid_provider_credentials");
    assert.equal(h.ollama.requests.length, 0);
  });

  test("a routing rejection is a plain JSON error, streamed or not", async () => {
    const id = await h.session();
    const body = turn("hello", { input: { text: "hello", explicit_model: "nope" } });
    const r = await execute(id, body);
    assert.equal(r.status, 422);
    assert.equal(r.body.error.code, "invalid_model_reference");
    const s = await callStream(h.app, `/api/v1/sessions/${id}/execute`, h.alice.token, body, KEY);
    assert.equal(s.status, 422);
    assert.equal(s.body.error.code, "invalid_model_reference");
  });
});

describe("streamed execute", () => {
  test("text deltas, usage, then exactly one completed turn_end priced like the buffered turn", async () => {
    const id = await h.session();
    h.openai.enqueue(openAiStream(["Hello", " there"]));
    const s = await callStream(
      h.app,
      `/api/v1/sessions/${id}/execute`,
      h.alice.token,
      turn("hi"),
      KEY,
    );
    assert.equal(s.status, 200);
    assert.ok(s.contentType?.startsWith("text/event-stream"));
    const deltas = s.events.filter((e) => e.type === "text_delta").map((e) => e.delta);
    assert.deepEqual(deltas, ["Hello", " there"]);
    assert.equal(s.events.filter((e) => e.type === "turn_end").length, 1);
    const end = s.events.at(-1);
    assert.equal(end.type, "turn_end");
    assert.equal(end.status, "completed");
    assert.equal(end.data.message.content, "Hello there");
    const usage = s.events.find((e) => e.type === "usage");
    const { type: _type, ...usageFields } = usage;
    assert.deepEqual(end.data.usage, usageFields);
    // 24 × 0.15 / 10^6 + 2 × 0.6 / 10^6
    assert.equal(end.data.usage.estimated_cost, "0.0000048");
    assert.equal(usage.estimated_cost, "0.0000048");
  });

  test("a failure after the stream started ends it with an error turn_end", async () => {
    const id = await h.session();
    await h.openai.enqueueFixture("openai", "stream_cut");
    const body = turn("hi", {
      policy: { ...policy, routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] } },
    });
    const s = await callStream(h.app, `/api/v1/sessions/${id}/execute`, h.alice.token, body, KEY);
    assert.equal(s.status, 200);
    const end = s.events.at(-1);
    assert.equal(end.type, "turn_end");
    assert.equal(end.status, "error");
    assert.equal(typeof end.data.error.code, "string");
    assert.equal(s.events.filter((e) => e.type === "turn_end").length, 1);
  });
});
