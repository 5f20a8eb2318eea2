/**
 * A native `break` that stops a running compatible turn (decisions.md §12:
 * never a `409`), as the official `openai` and `@anthropic-ai/sdk` clients
 * meet it with their default retries on: the waiting request answers 400
 * `turn_interrupted` in its API's own shape, with its request id and the
 * session and trace headers of the turn it recorded, and the SDK raises
 * `BadRequestError` without retrying; a stream that had already sent content
 * ends with its API's error event. The provider is a fake that answers slowly.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { call } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import {
  engineHarness,
  openAiReply,
  openAiStreamStalledAfterFirstContent,
} from "../support/engine_app.ts";
import type { FixtureResponse } from "../support/fake_provider.ts";

const h = engineHarness();
const PROVIDER_KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const REQUEST_ID = /^req_[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Far longer than any test: the break, not the provider, ends the turn. */
const SLOW: FixtureResponse = { ...openAiReply({ text: "too late" }), delay_ms: 5_000 };

// deno-lint-ignore no-explicit-any
type Body = any;

/**
 * The SDKs' fetch, counting each compatible request the service receives (a
 * retry would be a second). `checked`: every answer is read whole and held
 * against the OpenAPI document; otherwise it is passed on as it streams.
 */
function countingFetch(checked = true) {
  const seen: string[] = [];
  const checkedOne = checkedFetch(() => h.app);
  const fetch = (url: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(url, init);
    if (new URL(request.url).pathname.startsWith("/v1/")) seen.push(new URL(request.url).pathname);
    return checked ? checkedOne(url, init) : h.app.handler(request);
  };
  return { fetch, seen };
}

// No `maxRetries`: each SDK's default (2), so a retryable status would be sent again.
function openai(session: string, fetch: typeof globalThis.fetch): OpenAI {
  return new OpenAI({
    apiKey: h.alice.apiKey,
    baseURL: "http://switchyard.test/v1",
    defaultHeaders: { ...PROVIDER_KEY, "x-router-session-id": session },
    fetch,
  });
}

function anthropic(session: string, fetch: typeof globalThis.fetch): Anthropic {
  return new Anthropic({
    apiKey: h.alice.apiKey,
    baseURL: "http://switchyard.test",
    defaultHeaders: { ...PROVIDER_KEY, "x-router-session-id": session },
    fetch,
  });
}

const POLICY = {
  routing: { default: { model: "openai/gpt-4o-mini", fallbacks: [] }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};

async function storePolicy() {
  const r = await call(h.app, "PUT", "/api/v1/policies/default", {
    token: h.alice.token,
    body: POLICY,
  });
  assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Once the provider has the turn's call, the user breaks the session natively. */
async function breakWhenCalled(session: string): Promise<void> {
  for (let waited = 0; h.openai.requests.length === 0; waited += 5) {
    assert.ok(waited < 10_000, "the provider was never called");
    await sleep(5);
  }
  const cut = await call(h.app, "POST", `/api/v1/sessions/${session}/continue`, {
    token: h.alice.token,
    body: { type: "break" },
  });
  assert.equal(cut.status, 200, JSON.stringify(cut.body));
  assert.equal(cut.body.status, "idle");
}

/** The asserts every cut request's answer meets, whatever its API; its trace id. */
function assertInterrupted(
  e: unknown,
  session: string,
  o: { api: "openai" | "anthropic" },
): string {
  const Api = o.api === "openai" ? OpenAI : Anthropic;
  assert.ok(e instanceof Api.BadRequestError, String(e));
  assert.equal(e.status, 400);
  assert.match(e.requestID ?? "", REQUEST_ID);
  assert.equal(e.headers?.get("x-router-session-id"), session);
  assert.match(e.headers?.get("x-router-trace-id") ?? "", UUID);
  const body = e.error as Body;
  if (o.api === "openai") {
    assert.equal(body.code, "turn_interrupted");
    assert.equal(body.type, "invalid_request_error");
    assert.match(body.message, new RegExp(`stopped by a break on session ${session}`));
  } else {
    assert.equal(body.type, "error");
    assert.equal(body.error.type, "invalid_request_error");
    assert.match(body.error.message, new RegExp(`stopped by a break on session ${session}`));
    assert.equal(body.request_id, e.requestID);
  }
  return e.headers!.get("x-router-trace-id")!;
}

/** The session holds the one turn that was asked (one prompt), traced under the answer's trace id. */
async function assertOneTurn(session: string, traceId: string) {
  const detail = await call(h.app, "GET", `/api/v1/sessions/${session}`, {
    token: h.alice.token,
  });
  const users = detail.body.session.messages.filter((m: { role: string }) => m.role === "user");
  assert.equal(users.length, 1, JSON.stringify(detail.body.session.messages));
  const traces = await call(h.app, "GET", `/api/v1/sessions/${session}/traces`, {
    token: h.alice.token,
  });
  assert.equal(traces.status, 200);
  const ids = new Set(traces.body.trace.events.map((e: { trace_id: string }) => e.trace_id));
  assert.ok(ids.has(traceId), JSON.stringify([...ids]));
}

async function newSession(): Promise<string> {
  await storePolicy();
  const r = await call(h.app, "POST", "/api/v1/sessions", {
    token: h.alice.token,
    body: { title: "cut" },
  });
  return r.body.session.id;
}

/** Runs `ask` while the user breaks its turn; returns what it threw. */
async function cutWhileAsking(session: string, ask: () => Promise<unknown>): Promise<unknown> {
  const asked = ask().then(
    () => assert.fail("the cut turn answered"),
    (e: unknown) => e,
  );
  await breakWhenCalled(session);
  return await asked;
}

describe("a native break stops a running compatible turn: 400 turn_interrupted, never retried", () => {
  for (const stream of [false, true]) {
    const how = stream ? "streamed before any content" : "buffered";
    test(`chat completions, ${how}: BadRequestError with the session and trace`, async () => {
      const session = await newSession();
      h.openai.enqueue(SLOW);
      const { fetch, seen } = countingFetch();
      const e = await cutWhileAsking(session, async () => {
        const answer = await openai(session, fetch).chat.completions.create({
          model: "switchyard",
          messages: [{ role: "user", content: "take your time" }],
          stream,
        });
        if (stream) { for await (const _ of answer as AsyncIterable<unknown>) { /* none */ } }
      });
      const traceId = assertInterrupted(e, session, { api: "openai" });
      assert.deepEqual(seen, ["/v1/chat/completions"]);
      assert.equal(h.openai.requests.length, 1);
      await assertOneTurn(session, traceId);
    });

    test(`messages, ${how}: BadRequestError with the session and trace`, async () => {
      const session = await newSession();
      h.openai.enqueue(SLOW);
      const { fetch, seen } = countingFetch();
      const client = anthropic(session, fetch);
      const body = {
        model: "switchyard",
        max_tokens: 64,
        messages: [{ role: "user" as const, content: "take your time" }],
      };
      const e = await cutWhileAsking(
        session,
        () => stream ? client.messages.stream(body).finalMessage() : client.messages.create(body),
      );
      const traceId = assertInterrupted(e, session, { api: "anthropic" });
      assert.deepEqual(seen, ["/v1/messages"]);
      assert.equal(h.openai.requests.length, 1);
      await assertOneTurn(session, traceId);
    });

    test(`responses, ${how}: BadRequestError with the session and trace`, async () => {
      const session = await newSession();
      h.openai.enqueue(SLOW);
      const { fetch, seen } = countingFetch();
      const e = await cutWhileAsking(session, async () => {
        const answer = await openai(session, fetch).responses.create({
          model: "switchyard",
          input: "take your time",
          stream,
        });
        if (stream) { for await (const _ of answer as AsyncIterable<unknown>) { /* none */ } }
      });
      const traceId = assertInterrupted(e, session, { api: "openai" });
      assert.deepEqual(seen, ["/v1/responses"]);
      assert.equal(h.openai.requests.length, 1);
      await assertOneTurn(session, traceId);
    });
  }

  test("chat completions, after content: 200, then an error chunk naming the break, no [DONE]", async () => {
    const session = await newSession();
    h.openai.enqueue(openAiStreamStalledAfterFirstContent());
    const { fetch, seen } = countingFetch(false);
    const { data: stream, response } = await openai(session, fetch).chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "take your time" }],
      stream: true,
    }).withResponse();
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-router-session-id"), session);
    let text = "";
    const read = (async () => {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        if (text === "Hel") await breakWhenCalled(session);
      }
    })();
    await assert.rejects(read, (e: unknown) => {
      assert.ok(e instanceof OpenAI.APIError, String(e));
      assert.equal((e.error as Body).code, "turn_interrupted");
      assert.match(e.message, new RegExp(`stopped by a break on session ${session}`));
      return true;
    });
    assert.equal(text, "Hel");
    assert.deepEqual(seen, ["/v1/chat/completions"]);
  });

  test("messages, after content: 200, then an error event naming the break", async () => {
    const session = await newSession();
    h.openai.enqueue(openAiStreamStalledAfterFirstContent());
    const { fetch, seen } = countingFetch(false);
    const stream = anthropic(session, fetch).messages.stream({
      model: "switchyard",
      max_tokens: 64,
      messages: [{ role: "user", content: "take your time" }],
    });
    let text = "";
    stream.on("text", (delta) => {
      text += delta;
      if (text === "Hel") void breakWhenCalled(session);
    });
    await assert.rejects(stream.finalMessage(), (e: unknown) => {
      assert.ok(e instanceof Anthropic.APIError, String(e));
      assert.match(e.message, new RegExp(`stopped by a break on session ${session}`));
      assert.match(e.message, /invalid_request_error/);
      return true;
    });
    assert.equal(text, "Hel");
    assert.deepEqual(seen, ["/v1/messages"]);
  });
});
