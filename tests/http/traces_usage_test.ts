import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import { appendTraceEvents, type NewTraceEvent } from "../../src/store/traces.ts";
import { appendUsageEvent, type NewUsageEvent } from "../../src/store/usage.ts";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";

const ENVELOPE = {
  version: 1,
  algorithm: "A256GCM",
  key_id: "k1",
  nonce: "bg==",
  ciphertext: "Yw==",
};

let app: TestApp;
let alice: Account;
let bob: Account;
before(async () => {
  app = await createTestApp();
  alice = await signUp(app);
  bob = await signUp(app);
});
after(() => app.close());

async function session(account: Account, body: Record<string, unknown> = { title: "t" }) {
  const r = await call(app, "POST", "/api/v1/sessions", { token: account.token, body });
  assert.equal(r.status, 201);
  return r.body.session.id as string;
}

const traces = (id: string, query = "", token = alice.token) =>
  call(app, "GET", `/api/v1/sessions/${id}/traces${query}`, { token });
const usage = (id: string, token = alice.token) =>
  call(app, "GET", `/api/v1/sessions/${id}/usage`, { token });

function costEvent(sessionId: string, over: Partial<NewUsageEvent>): NewUsageEvent {
  return {
    sessionId,
    traceId: uuidv7(),
    provider: "openai",
    model: "gpt-4o",
    taskType: "chat",
    now: app.clock.now(),
    ...over,
  };
}

describe("GET …/traces", () => {
  test("a session without events has an empty trace", async () => {
    const id = await session(alice);
    const r = await traces(id);
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type") ?? "", /application\/json/);
    assert.deepEqual(r.body, { trace: { session_id: id, events: [] } });
  });

  test("events come oldest first with trace_id, rule and typed payload", async () => {
    const id = await session(alice);
    const traceId = uuidv7();
    const base = { sessionId: id, traceId, now: app.clock.now() };
    await appendTraceEvents(app.db, [
      {
        ...base,
        eventType: "classification",
        taskType: "review",
        matchedRule: 0,
        payload: { plaintext: { intent: "review", source: "rule" } },
      },
      {
        ...base,
        eventType: "routing_decision",
        taskType: "review",
        provider: "openai",
        model: "gpt-4o",
        matchedRule: null,
        payload: {
          plaintext: {
            provider: "openai",
            model: "gpt-4o",
            fallback_used: false,
            override_used: false,
            reason: "no rule matched; using the default route to 'openai/gpt-4o'",
          },
        },
      },
      {
        ...base,
        eventType: "context_selection",
        payload: {
          plaintext: { path: "src/a.ts", kind: "file", included: true, reason: "required" },
        },
      },
    ]);
    const r = await traces(id);
    assert.equal(r.status, 200);
    const events = r.body.trace.events;
    assert.deepEqual(events.map((e: { event_type: string }) => e.event_type), [
      "classification",
      "routing_decision",
      "context_selection",
    ]);
    assert.ok(events.every((e: { trace_id: string }) => e.trace_id === traceId));
    assert.equal(events[0].matched_rule, 0);
    assert.equal(events[1].matched_rule, null);
    assert.equal("matched_rule" in events[2], false);
    assert.equal(events[0].payload.plaintext.type, "classification");
    assert.equal(events[2].payload.plaintext.path, "src/a.ts");
    assert.equal(events[2].provider, null);
    assert.equal(events[0].created_at, app.clock.now().toISOString());
  });

  test("limit defaults to 50; limit and offset select a window; past the end is empty", async () => {
    const id = await session(alice);
    const traceId = uuidv7();
    const events: NewTraceEvent[] = Array.from({ length: 55 }, (_, i) => ({
      sessionId: id,
      traceId,
      eventType: "tool_call",
      payload: { plaintext: { tool_name: `t${i}`, status: "requested" } },
      now: app.clock.now(),
    }));
    await appendTraceEvents(app.db, events);
    const names = (
      r: { body: { trace: { events: { payload: { plaintext: { tool_name: string } } }[] } } },
    ) => r.body.trace.events.map((e) => e.payload.plaintext.tool_name);

    const first = await traces(id);
    assert.equal(first.body.trace.events.length, 50);
    assert.equal(names(first)[0], "t0");
    assert.deepEqual(names(await traces(id, "?offset=50")), ["t50", "t51", "t52", "t53", "t54"]);
    assert.deepEqual(names(await traces(id, "?limit=2&offset=3")), ["t3", "t4"]);
    assert.deepEqual(names(await traces(id, "?limit=0")), []);
    assert.deepEqual(names(await traces(id, "?offset=55")), []);
    assert.deepEqual(names(await traces(id, "?offset=1000&limit=1000")), []);
    assert.equal((await traces(id, "?limit=100")).body.trace.events.length, 55);
  });

  test("a limit or offset that is not an integer >= 0 is 400 invalid_request", async () => {
    const id = await session(alice);
    for (const query of ["?limit=-1", "?limit=abc", "?offset=1.5", "?offset=", "?limit=1e2"]) {
      const r = await traces(id, query);
      assert.equal(r.status, 400, query);
      assert.equal(r.body.error.code, "invalid_request", query);
    }
  });

  test("an encrypted session shows sealed payloads as envelopes", async () => {
    const id = await session(alice, { title: "sealed", key_id: "k1" });
    await appendTraceEvents(app.db, [{
      sessionId: id,
      traceId: uuidv7(),
      eventType: "message",
      payload: { encrypted: ENVELOPE },
      now: app.clock.now(),
    }]);
    const r = await traces(id);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.trace.events[0].payload, { encrypted: ENVELOPE });
  });
});

describe("GET …/usage", () => {
  test("no recorded cost: zero totals and empty lists", async () => {
    const id = await session(alice);
    const r = await usage(id);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      total: {
        input_tokens: 0,
        output_tokens: 0,
        total_tokens: 0,
        estimated_cost: "0",
        currency: "USD",
      },
      by_model: [],
      by_task_type: [],
    });
  });

  test("sums exactly (0.1 + 0.2 = 0.3) and omits counts never reported", async () => {
    const id = await session(alice);
    await appendUsageEvent(
      app.db,
      costEvent(id, { inputTokens: 10, outputTokens: 5, cost: "0.1" }),
    );
    await appendUsageEvent(app.db, costEvent(id, { inputTokens: 20, cost: "0.2" }));
    await appendUsageEvent(
      app.db,
      costEvent(id, { provider: "ollama", model: "qwen3", taskType: "edit", cost: null }),
    );
    const r = await usage(id);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.total, {
      input_tokens: 30,
      output_tokens: 5,
      total_tokens: 35,
      estimated_cost: "0.3",
      currency: "USD",
    });
    assert.deepEqual(r.body.by_model, [
      {
        provider: "openai",
        model: "gpt-4o",
        input_tokens: 30,
        output_tokens: 5,
        total_tokens: 35,
        estimated_cost: "0.3",
        currency: "USD",
        request_count: 2,
      },
      {
        provider: "ollama",
        model: "qwen3",
        estimated_cost: "0",
        currency: "USD",
        request_count: 1,
      },
    ]);
    assert.deepEqual(r.body.by_task_type, [
      {
        task_type: "chat",
        input_tokens: 30,
        output_tokens: 5,
        estimated_cost: "0.3",
        request_count: 2,
      },
      { task_type: "edit", estimated_cost: "0", request_count: 1 },
    ]);
  });

  test("an encrypted session carries names and request counts only", async () => {
    const id = await session(alice, { title: "sealed", key_id: "k1" });
    await appendUsageEvent(app.db, costEvent(id, { inputTokens: 3, cost: "0.5", sealed: true }));
    await appendUsageEvent(app.db, costEvent(id, { taskType: "plan", sealed: true }));
    const r = await usage(id);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      total: { currency: "USD" },
      by_model: [{ provider: "openai", model: "gpt-4o", request_count: 2 }],
      by_task_type: [
        { task_type: "chat", request_count: 1 },
        { task_type: "plan", request_count: 1 },
      ],
    });
  });
});

describe("traces and usage answer like the other session endpoints", () => {
  test("400 for a malformed id, 401 without a token, 404 for another's, unknown or archived", async () => {
    const id = await session(alice);
    const archived = await session(alice);
    const put = await call(app, "PUT", `/api/v1/sessions/${archived}`, {
      token: alice.token,
      body: { archived: true },
    });
    assert.equal(put.status, 200);
    for (const path of ["traces", "usage"]) {
      const bad = await call(app, "GET", `/api/v1/sessions/not-a-uuid/${path}`, {
        token: alice.token,
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, "invalid_session_id");
      const anonymous = await call(app, "GET", `/api/v1/sessions/${id}/${path}`);
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.body.error.code, "missing_credentials");
      for (
        const [sessionId, token] of [[id, bob.token], [uuidv7(), alice.token], [
          archived,
          alice.token,
        ]]
      ) {
        const r = await call(app, "GET", `/api/v1/sessions/${sessionId}/${path}`, { token });
        assert.equal(r.status, 404);
        assert.equal(r.body.error.code, "session_not_found");
      }
      const wrongMethod = await call(app, "POST", `/api/v1/sessions/${id}/${path}`, {
        token: alice.token,
        unchecked: true,
      });
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.headers.get("allow"), "GET");
    }
  });
});
