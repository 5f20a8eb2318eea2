/**
 * `GET /metrics` after a scripted mix of turns through the in-process handler
 * against fake providers (buffered, streamed, failing, fallback, a tool call
 * and its continuation, a refused second execute), read with a real
 * Prometheus text parser and checked for exact counts; labels stay bounded
 * and carry no id, prompt or key whatever clients send.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import {
  callStream,
  createEngineApp,
  openAiReply,
  openAiStream,
  openStream,
} from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { delta, type Scrape, scrape } from "../support/prometheus.ts";
import { createTelemetry, type Telemetry } from "../../src/telemetry/telemetry.ts";

const KEY_VALUE = "sk-CANARY-metrics-key-7781";
const KEY = { "x-router-provider-openai-api-key": KEY_VALUE };
const policy = {
  routing: { default: { model: "openai/gpt-4o-mini", fallbacks: ["ollama/qwen3:8b"] }, rules: [] },
  tools: { permissions: { file_read: "allow" } },
  privacy: { remote: { mode: "allow" } },
};
const EXECUTE = "/api/v1/sessions/:session_id/execute";
const GPT = { provider: "openai", model: "gpt-4o-mini" };

let openai: FakeProvider;
let ollama: FakeProvider;
let telemetry: Telemetry;
let app: TestApp;
let alice: Account;
const sessions: string[] = [];

before(async () => {
  openai = await startFakeProvider();
  ollama = await startFakeProvider();
  telemetry = await createTelemetry({ metrics: true });
  app = await createEngineApp({ openai: openai.url, ollama: ollama.url, telemetry });
  alice = await signUp(app);
});
after(async () => {
  await app.close();
  await openai.close();
  await ollama.close();
});

async function session(): Promise<string> {
  const r = await call(app, "POST", "/api/v1/sessions", {
    token: alice.token,
    body: { title: "t" },
  });
  sessions.push(r.body.session.id);
  return r.body.session.id;
}

const execute = (id: string, text: string) =>
  call(app, "POST", `/api/v1/sessions/${id}/execute`, {
    token: alice.token,
    body: { input: { text }, policy },
    headers: KEY,
  });

const metrics = () => scrape(app.handler);

/** Runs `act` between two scrapes and hands both over. */
async function around(act: () => Promise<void>): Promise<[Scrape, Scrape]> {
  const before = await metrics();
  await act();
  return [before, await metrics()];
}

describe("GET /metrics", () => {
  test("a buffered turn counts its request, turn, routing decision, call, tokens and cost", async () => {
    const id = await session();
    const [b, a] = await around(async () => {
      await openai.enqueueFixture("openai", "plain_buffered");
      const r = await execute(id, "CANARY_PROMPT_buffered say hello");
      assert.equal(r.status, 200);
      assert.equal(r.body.status, "completed");
    });
    const requests = { route: EXECUTE, method: "POST", status: "200" };
    assert.equal(delta(b, a, "switchyard_http_requests_total", requests), 1);
    assert.equal(
      delta(
        b,
        a,
        "switchyard_http_request_duration_seconds",
        { route: EXECUTE, method: "POST" },
        true,
      ),
      1,
    );
    assert.equal(delta(b, a, "switchyard_turns_total", { outcome: "completed" }), 1);
    assert.equal(delta(b, a, "switchyard_routing_decisions_total", { rule_kind: "default" }), 1);
    assert.equal(delta(b, a, "switchyard_run_claims_total", { operation: "execute" }), 1);
    assert.equal(
      delta(b, a, "switchyard_provider_calls_total", { ...GPT, outcome: "ok" }),
      1,
    );
    assert.equal(
      delta(b, a, "switchyard_provider_call_duration_seconds", GPT, true),
      1,
    );
    const usage = { ...GPT, task_type: "chat" };
    assert.equal(delta(b, a, "switchyard_tokens_total", { ...usage, token_type: "input" }), 24);
    assert.equal(delta(b, a, "switchyard_tokens_total", { ...usage, token_type: "output" }), 7);
    // 24 × 0.15 / 10^6 + 7 × 0.6 / 10^6 = 0.0000078, a float only at this edge.
    const cost = delta(b, a, "switchyard_cost_usd_total", usage);
    assert.ok(Math.abs(cost - 0.0000078) < 1e-15, String(cost));
    assert.equal(a.value("switchyard_runs_live"), 0);
    // The turn's statements were timed (which kinds depends on how the store batches them).
    const statements = ["select", "insert", "update", "delete", "with", "other", "transaction"]
      .reduce(
        (n, kind) =>
          n + delta(b, a, "switchyard_db_query_duration_seconds", { driver: "pglite", kind }, true),
        0,
      );
    assert.ok(statements > 0, String(statements));
    assert.equal(a.value("switchyard_db_connections_in_use", { driver: "pglite" }), 0);
    assert.equal(a.value("switchyard_db_pool_max", { driver: "pglite" }), 1);
  });

  test("a streamed turn counts its time to first token and closes its stream gauge", async () => {
    const id = await session();
    const [b, a] = await around(async () => {
      openai.enqueue(openAiStream(["one ", "two ", "three"]));
      const r = await callStream(app, `/api/v1/sessions/${id}/execute`, alice.token, {
        input: { text: "stream please" },
        policy,
      }, KEY);
      assert.equal(r.status, 200);
      assert.equal(r.events.at(-1).type, "turn_end");
    });
    assert.equal(delta(b, a, "switchyard_turns_total", { outcome: "completed" }), 1);
    assert.equal(
      delta(b, a, "switchyard_provider_time_to_first_token_seconds", GPT, true),
      1,
    );
    const usage = { ...GPT, task_type: "chat" };
    assert.equal(delta(b, a, "switchyard_tokens_total", { ...usage, token_type: "output" }), 3);
    assert.equal(a.value("switchyard_sse_streams_live"), 0);
    assert.equal(a.value("switchyard_runs_live"), 0);
  });

  test("a failing call and a fallback count by outcome and by hop reason", async () => {
    const id = await session();
    const [b, a] = await around(async () => {
      await openai.enqueueFixture("openai", "error_401");
      const failed = await execute(id, "fail please");
      assert.equal(failed.status, 503);
      assert.equal(failed.body.error.code, "invalid_provider_credentials");
      await openai.enqueueFixture("openai", "error_503");
      await ollama.enqueueFixture("ollama", "plain_buffered");
      const fell = await execute(id, "fall back please");
      assert.equal(fell.status, 200);
      assert.equal(fell.body.data.routing.provider, "ollama");
    });
    const calls = "switchyard_provider_calls_total";
    assert.equal(delta(b, a, calls, { ...GPT, outcome: "invalid_credentials" }), 1);
    assert.equal(delta(b, a, calls, { ...GPT, outcome: "provider_unavailable" }), 1);
    assert.equal(delta(b, a, calls, { provider: "ollama", model: "qwen3:8b", outcome: "ok" }), 1);
    assert.equal(delta(b, a, calls, { ...GPT, outcome: "ok" }), 0);
    assert.equal(
      delta(b, a, "switchyard_fallback_hops_total", { reason: "provider_unavailable" }),
      1,
    );
    assert.equal(delta(b, a, "switchyard_turns_total", { outcome: "failed" }), 1);
    assert.equal(delta(b, a, "switchyard_turns_total", { outcome: "completed" }), 1);
    // One decision per call: the fallback decides again without the failed model.
    assert.equal(delta(b, a, "switchyard_routing_decisions_total", { rule_kind: "default" }), 3);
    assert.equal(
      delta(b, a, "switchyard_http_requests_total", {
        route: EXECUTE,
        method: "POST",
        status: "503",
      }),
      1,
    );
    assert.equal(
      delta(b, a, "switchyard_http_errors_total", { code: "invalid_provider_credentials" }),
      1,
    );
  });

  test("a second execute while a turn streams is refused and counted; live gauges follow the stream", async () => {
    const id = await session();
    openai.enqueue(openAiStream(["slow ", "stream ", "of ", "words"], 150));
    const b = await metrics();
    const stream = await openStream(app, `/api/v1/sessions/${id}/execute`, alice.token, {
      input: { text: "take your time" },
      policy,
    }, { ...KEY, "content-type": "application/json" });
    await stream.until("text_delta");
    const during = await metrics();
    assert.equal(during.value("switchyard_sse_streams_live"), 1);
    assert.equal(during.value("switchyard_runs_live"), 1);
    const refused = await execute(id, "me too");
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, "run_in_flight");
    const events = await stream.until("turn_end");
    assert.equal(events.at(-1).type, "turn_end");
    const a = await metrics();
    assert.equal(delta(b, a, "switchyard_run_in_flight_refusals_total"), 1);
    assert.equal(delta(b, a, "switchyard_http_errors_total", { code: "run_in_flight" }), 1);
    assert.equal(
      delta(b, a, "switchyard_http_requests_total", {
        route: EXECUTE,
        method: "POST",
        status: "409",
      }),
      1,
    );
    assert.equal(a.value("switchyard_sse_streams_live"), 0);
    assert.equal(a.value("switchyard_runs_live"), 0);
  });

  test("a tool call paused and continued, then a break, count claims and supersedes", async () => {
    const id = await session();
    const [b, a] = await around(async () => {
      openai.enqueue(openAiReply({ calls: [{ name: "read_file", arguments: { path: "a.ts" } }] }));
      const paused = await execute(id, "read it");
      assert.equal(paused.body.status, "awaiting_tool");
      const callId = paused.body.data.tool_requests[0].call_id;
      openai.enqueue(openAiReply({ calls: [{ name: "read_file", arguments: { path: "b.ts" } }] }));
      const cont = (body: unknown) =>
        call(app, "POST", `/api/v1/sessions/${id}/continue`, {
          token: alice.token,
          body,
          headers: KEY,
        });
      const again = await cont({
        type: "tool_results",
        data: { results: [{ call_id: callId, content: "CANARY_FILE_content", is_error: false }] },
      });
      assert.equal(again.body.status, "awaiting_tool");
      const broken = await cont({ type: "break" });
      assert.equal(broken.status, 200);
      assert.equal(broken.body.status, "idle");
    });
    assert.equal(delta(b, a, "switchyard_turns_total", { outcome: "awaiting_tool" }), 2);
    assert.equal(delta(b, a, "switchyard_turns_total", { outcome: "idle" }), 1);
    assert.equal(delta(b, a, "switchyard_run_claims_total", { operation: "execute" }), 1);
    assert.equal(delta(b, a, "switchyard_run_claims_total", { operation: "continue" }), 1);
    assert.equal(delta(b, a, "switchyard_run_claims_total", { operation: "break" }), 1);
    assert.equal(delta(b, a, "switchyard_run_supersedes_total", { operation: "break" }), 1);
    assert.equal(delta(b, a, "switchyard_run_supersedes_total", { operation: "execute" }), 0);
  });

  test("unknown paths and invented methods share bounded label values", async () => {
    const [b, a] = await around(async () => {
      for (
        const path of ["/wp-login.php", "/api/v1/sessions/x/y/z", `/CANARY_PATH_${"a".repeat(40)}`]
      ) {
        const r = await app.handler(new Request(`http://127.0.0.1${path}`));
        assert.equal(r.status, 404);
      }
      const brew = await app.handler(
        new Request("http://127.0.0.1/status", { method: "PROPFIND" }),
      );
      assert.equal(brew.status, 405);
    });
    const unmatched = { route: "unmatched", method: "GET", status: "404" };
    assert.equal(delta(b, a, "switchyard_http_requests_total", unmatched), 3);
    assert.equal(
      delta(b, a, "switchyard_http_requests_total", {
        route: "/status",
        method: "other",
        status: "405",
      }),
      1,
    );
    assert.ok(!a.text.includes("wp-login") && !a.text.includes("PROPFIND"));
  });

  test("a rate limiter's refusals are counted by limit, invented limit names by one value", async () => {
    const b = await metrics();
    telemetry.rateLimitRefused("requests");
    telemetry.rateLimitRefused("requests");
    telemetry.rateLimitRefused("Per User /x");
    const a = await metrics();
    assert.equal(delta(b, a, "switchyard_rate_limit_refusals_total", { limit: "requests" }), 2);
    assert.equal(delta(b, a, "switchyard_rate_limit_refusals_total", { limit: "other" }), 1);
  });

  test("the process's memory is read at each scrape, without labels", async () => {
    const { value, families } = await metrics();
    const rss = value("process_resident_memory_bytes");
    const used = value("nodejs_heap_size_used_bytes");
    // More than the runtime's binary alone, less than this machine could hold.
    assert.ok(rss > 10e6 && rss < 64e9, `resident ${rss}`);
    // The heap's two figures are the engine's own: under Bun, JavaScriptCore's "used" may exceed
    // its "total", so only their presence is checked.
    assert.ok(used > 1e6 && value("nodejs_heap_size_total_bytes") > 1e6, `heap used ${used}`);
    assert.ok(value("nodejs_external_memory_bytes") >= 0);
    for (const name of ["process_resident_memory_bytes", "nodejs_heap_size_used_bytes"]) {
      assert.deepEqual(families.get(name)!.metrics.map((m) => m.labels ?? {}), [{}]);
    }
  });

  test("no label carries a session id, a prompt, file content or a credential", async () => {
    const { text } = await metrics();
    assert.ok(sessions.length >= 5);
    for (const canary of [...sessions, alice.token, KEY_VALUE, "CANARY"]) {
      assert.equal(text.includes(canary), false, `${canary} appears in /metrics`);
    }
  });
});

describe("closing /metrics", () => {
  test("a metrics token is required as a bearer token once configured", async () => {
    const token = "metrics-token-0123456789";
    const closed = await createEngineApp({
      openai: openai.url,
      ollama: ollama.url,
      db: app.db,
      telemetry: await createTelemetry({ metrics: true }),
      configure: (c) => void (c.telemetry.metricsToken = token),
    });
    try {
      const get = (headers: HeadersInit) =>
        call(closed, "GET", "/metrics", {
          headers: headers as Record<string, string>,
          unchecked: true,
        });
      const none = await get({});
      assert.equal(none.status, 401);
      assert.equal(none.body.error.code, "missing_credentials");
      const wrong = await get({ authorization: "Bearer metrics-token-0123456780" });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.error.code, "invalid_token");
      assert.ok(!JSON.stringify(wrong.body).includes(token));
      const right = await scrape(closed.handler, { authorization: `Bearer ${token}` });
      assert.ok(right.families.has("switchyard_http_requests_total"));
    } finally {
      await closed.close();
    }
  });

  test("with a metrics address the API's listener answers 404, as it does with metrics off", async () => {
    const moved = await createEngineApp({
      openai: openai.url,
      ollama: ollama.url,
      db: app.db,
      telemetry: await createTelemetry({ metrics: true }),
      configure: (c) => void (c.telemetry.metricsListen = { host: "127.0.0.1", port: 0 }),
    });
    const off = await createEngineApp({ openai: openai.url, ollama: ollama.url, db: app.db });
    try {
      for (const app of [moved, off]) {
        const r = await call(app, "GET", "/metrics", { unchecked: true });
        assert.equal(r.status, 404);
        assert.equal(r.body.error.code, "not_found");
      }
    } finally {
      await moved.close();
      await off.close();
    }
  });
});
