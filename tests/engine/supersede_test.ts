/**
 * Supersede and disconnect on streamed turns: `break` stops a stream within a
 * second and keeps the partial reply marked interrupted; a client that goes
 * away does not lose the turn. With DATABASE_URL set, two service instances
 * share one PostgreSQL: of parallel continues exactly one proceeds, and an
 * `inject` sent to one instance stops a stream served by the other.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import {
  createEngineApp,
  openAiReply,
  openAiStream,
  openStream as openStreamOf,
  twoInstances,
} from "../support/engine_app.ts";
import { listHistory } from "../../src/store/messages.ts";

const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const policy = {
  routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] },
  tools: { permissions: { file_read: "allow" } },
  privacy: { remote: { mode: "allow" } },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const openStream = (app: TestApp, path: string, token: string, body: unknown) =>
  openStreamOf(app, path, token, body, KEY);

async function newSession(app: TestApp, account: Account): Promise<string> {
  const r = await call(app, "POST", "/api/v1/sessions", {
    token: account.token,
    body: { title: "s" },
  });
  return r.body.session.id;
}

async function waitFor(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await sleep(25);
  }
}

describe("supersede on one instance", () => {
  let openai: FakeProvider;
  let app: TestApp;
  let alice: Account;
  before(async () => {
    openai = await startFakeProvider();
    app = await createEngineApp({ openai: openai.url, ollama: "http://127.0.0.1:9" });
    alice = await signUp(app);
  });
  after(async () => {
    await app.close();
    await openai.close();
  });

  test("break stops a running stream within a second and keeps the partial reply", async () => {
    const id = await newSession(app, alice);
    openai.enqueue(openAiStream(["one ", "two ", "three ", "four ", "five ", "six "], 400));
    const stream = await openStream(app, `/api/v1/sessions/${id}/execute`, alice.token, {
      input: { text: "count" },
      policy,
    });
    await stream.until("text_delta");
    const started = Date.now();
    const broke = await call(app, "POST", `/api/v1/sessions/${id}/continue`, {
      token: alice.token,
      body: { type: "break" },
    });
    assert.equal(broke.status, 200);
    assert.equal(broke.body.status, "idle");
    const events = await stream.until("turn_end");
    assert.ok(Date.now() - started < 1000, "the stream stopped within a second");
    assert.equal(events.filter((e) => e.type === "turn_end").length, 1);
    assert.equal(events.at(-1)!.status, "idle");
    await waitFor(async () => (await listHistory(app.db, id)).length === 2);
    const history = await listHistory(app.db, id);
    assert.equal(history[1].interrupted, true);
    assert.ok((history[1].content.plaintext as string).startsWith("one "));
    assert.notEqual(history[1].content.plaintext, "one two three four five six ");
  });

  test("a continued turn broken mid-stream keeps the tool results' trace events", async () => {
    const id = await newSession(app, alice);
    openai.enqueue(openAiReply({ calls: [{ name: "read_file", arguments: { path: "a.ts" } }] }));
    const paused = await call(app, "POST", `/api/v1/sessions/${id}/execute`, {
      token: alice.token,
      body: { input: { text: "look" }, policy },
      headers: KEY,
    });
    assert.equal(paused.body.status, "awaiting_tool");
    const callId = paused.body.data.tool_requests[0].call_id;
    openai.enqueue(openAiStream(["one ", "two ", "three ", "four "], 400));
    const stream = await openStream(app, `/api/v1/sessions/${id}/continue`, alice.token, {
      type: "tool_results",
      data: { results: [{ call_id: callId, content: "file a", is_error: false }] },
    });
    await stream.until("text_delta");
    const broke = await call(app, "POST", `/api/v1/sessions/${id}/continue`, {
      token: alice.token,
      body: { type: "break" },
    });
    assert.equal(broke.body.status, "idle");
    assert.equal((await stream.until("turn_end")).at(-1)!.status, "idle");
    const statuses = async () => {
      const trace = await call(app, "GET", `/api/v1/sessions/${id}/traces?limit=500`, {
        token: alice.token,
      });
      return trace.body.trace.events
        .filter((e: { event_type: string }) => e.event_type === "tool_call")
        .map((e: { payload: { plaintext: { status: string } } }) => e.payload.plaintext.status);
    };
    await waitFor(async () => (await statuses()).length === 2);
    assert.deepEqual(await statuses(), ["requested", "completed"]);
  });

  test("a client that disconnects does not stop the turn: it completes and is persisted", async () => {
    const id = await newSession(app, alice);
    openai.enqueue(openAiStream(["slow ", "but ", "sure"], 150));
    const stream = await openStream(app, `/api/v1/sessions/${id}/execute`, alice.token, {
      input: { text: "go" },
      policy,
    });
    await stream.until("text_delta");
    await stream.cancel();
    await waitFor(async () => (await listHistory(app.db, id)).length === 2);
    const history = await listHistory(app.db, id);
    assert.equal(history[1].content.plaintext, "slow but sure");
    assert.equal(history[1].interrupted, false);
    const usage = await call(app, "GET", `/api/v1/sessions/${id}/usage`, { token: alice.token });
    assert.equal(usage.body.by_model[0].request_count, 1);
  });
});

const adminUrl = process.env.DATABASE_URL;
if (adminUrl) {
  describe("two instances on one PostgreSQL", () => {
    const h = twoInstances(adminUrl);

    test("of parallel continues exactly one proceeds; the rest get 409", async () => {
      const { one, two, openai, alice } = h;
      const id = await newSession(one, alice);
      openai.enqueue(openAiReply({ calls: [{ name: "read_file", arguments: { path: "a" } }] }));
      const paused = await call(one, "POST", `/api/v1/sessions/${id}/execute`, {
        token: alice.token,
        headers: KEY,
        body: { input: { text: "read" }, policy },
      });
      const callId = paused.body.data.tool_requests[0].call_id;
      openai.enqueue({ ...openAiReply({ text: "done" }), delay_ms: 300 });
      const body = {
        type: "tool_results",
        data: { results: [{ call_id: callId, content: "x" }] },
      };
      const answers = await Promise.all(
        [one, two, one, two, one, two].map((app) =>
          call(app, "POST", `/api/v1/sessions/${id}/continue`, {
            token: alice.token,
            headers: KEY,
            body,
          })
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409]);
      for (const a of answers.filter((a) => a.status === 409)) {
        assert.equal(a.body.error.code, "run_in_flight");
      }
    });

    test("an inject sent to one instance stops a stream served by the other within a second", async () => {
      const { one, two, openai, alice } = h;
      const id = await newSession(one, alice);
      openai.enqueue(openAiStream(["a ", "b ", "c ", "d ", "e ", "f "], 400));
      const stream = await openStream(one, `/api/v1/sessions/${id}/execute`, alice.token, {
        input: { text: "stream" },
        policy,
      });
      await stream.until("text_delta");
      openai.enqueue(openAiReply({ text: "injected answer" }));
      const started = Date.now();
      const injected = call(two, "POST", `/api/v1/sessions/${id}/continue`, {
        token: alice.token,
        headers: KEY,
        body: { type: "inject", data: { messages: [{ text: "stop and do this" }] } },
      });
      const events = await stream.until("turn_end");
      assert.ok(Date.now() - started < 1000, "the stream stopped within a second");
      assert.equal(events.at(-1)!.type, "turn_end");
      const r = await injected;
      assert.equal(r.status, 200);
      assert.equal(r.body.status, "completed");
      assert.equal(r.body.data.message.content, "injected answer");
      await waitFor(async () =>
        (await listHistory(h.db, id)).some((m) => m.interrupted && m.role === "assistant")
      );
    });
  });
}
