/**
 * OpenTelemetry traces exported over OTLP/HTTP to a test receiver: a
 * multi-turn run with a tool call (an incoming `traceparent` honoured), a
 * streamed turn and an encrypted session. Checks the span tree (HTTP request →
 * turn → routing decision and model call), the GenAI attributes, and that no
 * span carries the canaries planted in prompts, tool arguments, file contents
 * and keys; an encrypted session's spans carry only readable metadata.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { callStream, createEngineApp, openAiReply, openAiStream } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from "../support/otlp_receiver.ts";
import { type SealingClient, sealingClient } from "../support/sealing_client.ts";
import { createTelemetry, type Telemetry } from "../../src/telemetry/telemetry.ts";

const CANARIES = {
  key: "sk-CANARY-trace-key-5521",
  prompt: "CANARY_PROMPT_9173",
  argument: "CANARY_ARG_2846",
  file: "CANARY_FILE_6604",
  answer: "CANARY_ANSWER_3307",
  sealed: "CANARY_SEALED_PROMPT_4410",
};
const KEY = { "x-router-provider-openai-api-key": CANARIES.key };
const policy = {
  routing: {
    default: { model: "openai/gpt-4o-mini" },
    rules: [{ name: "every-turn", model: "openai/gpt-4o-mini" }],
  },
  tools: { permissions: { file_read: "allow" } },
  privacy: { remote: { mode: "allow" } },
};
const INCOMING_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const INCOMING_SPAN = "00f067aa0ba902b7";
const EXECUTE = "POST /api/v1/sessions/:session_id/execute";
/** What a buffered call to the policy's model says of itself whatever the session. */
const CALL_METADATA = {
  "gen_ai.operation.name": "chat",
  "gen_ai.provider.name": "openai",
  "gen_ai.request.model": "gpt-4o-mini",
  "switchyard.streamed": false,
  "gen_ai.response.model": "gpt-4o-mini",
};
const CONTINUE = "POST /api/v1/sessions/:session_id/continue";

/** Every attribute a span may carry: readable metadata only. */
const ALLOWED_ATTRIBUTES = new Set([
  "http.request.method",
  "http.route",
  "http.response.status_code",
  "switchyard.error_code",
  "switchyard.trace_id",
  "switchyard.streamed",
  "switchyard.outcome",
  "switchyard.task_type",
  "switchyard.rule_kind",
  "switchyard.matched_rule",
  "switchyard.fallback_used",
  "switchyard.interrupted",
  "gen_ai.operation.name",
  "gen_ai.provider.name",
  "gen_ai.request.model",
  "gen_ai.response.model",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "gen_ai.response.finish_reasons",
  "error.type",
]);

let openai: FakeProvider;
let receiver: OtlpReceiver;
let telemetry: Telemetry;
let app: TestApp;
let alice: Account;

before(async () => {
  openai = await startFakeProvider();
  receiver = await startOtlpReceiver();
  telemetry = await createTelemetry({
    metrics: true,
    tracing: { endpoint: receiver.url, serviceName: "switchyard-test", batchDelayMs: 20 },
  });
  app = await createEngineApp({ openai: openai.url, ollama: "http://127.0.0.1:9", telemetry });
  alice = await signUp(app);
});
after(async () => {
  await telemetry.close();
  await app.close();
  await openai.close();
  await receiver.close();
});

async function session(body: Record<string, unknown> = { title: "t" }): Promise<string> {
  const r = await call(app, "POST", "/api/v1/sessions", { token: alice.token, body });
  return r.body.session.id;
}

const post = (id: string, what: string, body: unknown, headers: Record<string, string> = {}) =>
  call(app, "POST", `/api/v1/sessions/${id}/${what}`, {
    token: alice.token,
    body,
    headers: { ...KEY, ...headers },
    unchecked: true,
  });

/** The spans exported so far, after a flush. */
async function exported(): Promise<ReceivedSpan[]> {
  await telemetry.flush();
  return receiver.spans;
}

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId && s.traceId === parent.traceId);

/** The one turn under a request span, with its routing decisions and model calls. */
function turnTree(spans: ReceivedSpan[], request: ReceivedSpan) {
  const turns = childrenOf(spans, request).filter((s) => s.name === "switchyard.turn");
  assert.equal(turns.length, 1, `one turn under ${request.name}`);
  const below = childrenOf(spans, turns[0]);
  return {
    turn: turns[0],
    routing: below.filter((s) => s.name === "switchyard.routing"),
    calls: below.filter((s) => s.name.startsWith("chat ")),
  };
}

function requestSpan(spans: ReceivedSpan[], traceId: string, name: string): ReceivedSpan {
  const found = spans.filter((s) => s.traceId === traceId && s.name === name && s.kind === 2);
  assert.equal(found.length, 1, `one ${name} span in trace ${traceId}`);
  return found[0];
}

function assertReadableOnly(spans: ReceivedSpan[]): void {
  for (const span of spans) {
    for (const key of Object.keys(span.attributes)) {
      assert.ok(ALLOWED_ATTRIBUTES.has(key), `${span.name} carries ${key}`);
    }
  }
  const raw = receiver.bodies.join("\n");
  for (const canary of Object.values(CANARIES)) {
    assert.equal(raw.includes(canary), false, `${canary} was exported`);
  }
}

describe("OpenTelemetry traces", () => {
  test("a run with a tool call exports request → turn → routing and model call spans", async () => {
    const id = await session();
    openai.enqueue(openAiReply({
      calls: [{ name: "read_file", arguments: { path: `src/${CANARIES.argument}.ts` } }],
    }));
    const paused = await post(id, "execute", {
      input: { text: `${CANARIES.prompt} read the file` },
      policy,
    }, { traceparent: `00-${INCOMING_TRACE}-${INCOMING_SPAN}-01` });
    assert.equal(paused.status, 200);
    assert.equal(paused.body.status, "awaiting_tool");
    const callId = paused.body.data.tool_requests[0].call_id;
    openai.enqueue(openAiReply({ text: CANARIES.answer }));
    const done = await post(id, "continue", {
      type: "tool_results",
      data: { results: [{ call_id: callId, content: CANARIES.file, is_error: false }] },
    });
    assert.equal(done.status, 200);
    assert.equal(done.body.status, "completed");
    // The canaries did travel: to the provider, never into a span.
    const sent = openai.requests.map((r) => `${r.body} ${r.headers.authorization}`).join("\n");
    for (const canary of [CANARIES.key, CANARIES.prompt, CANARIES.argument, CANARIES.file]) {
      assert.ok(sent.includes(canary), `the provider received ${canary}`);
    }

    const spans = await exported();
    const first = requestSpan(spans, INCOMING_TRACE, EXECUTE);
    assert.equal(first.parentSpanId, INCOMING_SPAN, "the incoming traceparent is the parent");
    assert.deepEqual(first.attributes, {
      "http.request.method": "POST",
      "http.route": "/api/v1/sessions/:session_id/execute",
      "http.response.status_code": 200,
    });
    assert.equal(first.resource["service.name"], "switchyard-test");
    const tree = turnTree(spans, first);
    assert.equal(tree.turn.attributes["switchyard.outcome"], "awaiting_tool");
    assert.equal(tree.turn.attributes["switchyard.matched_rule"], "every-turn");
    assert.equal(tree.routing.length, 1);
    assert.deepEqual(tree.routing[0].attributes, {
      "switchyard.task_type": "chat",
      "switchyard.rule_kind": "rule",
      "switchyard.matched_rule": "every-turn",
      "switchyard.fallback_used": false,
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
    });
    assert.equal(tree.calls.length, 1);
    assert.equal(tree.calls[0].name, "chat gpt-4o-mini");
    assert.equal(tree.calls[0].kind, 3, "a model call is a client span");
    assert.deepEqual(tree.calls[0].attributes, {
      ...CALL_METADATA,
      "gen_ai.usage.input_tokens": 24,
      "gen_ai.usage.output_tokens": 7,
      "gen_ai.response.finish_reasons": ["tool_calls"],
    });
    // Each span pins its clock to Date.now() when it starts, so two spans' times may disagree by
    // up to a millisecond: the routing span ends before the call starts, within that.
    assert.ok(
      tree.routing[0].end <= tree.calls[0].start + 1_000_000n,
      "routing decides before the call",
    );

    const continued = spans.filter((s) => s.name === CONTINUE);
    assert.equal(continued.length, 1);
    assert.equal(continued[0].parentSpanId, undefined, "no traceparent: a new trace");
    const second = turnTree(spans, continued[0]);
    assert.equal(second.turn.attributes["switchyard.trace_id"], done.body.data.trace_id);
    assert.equal(second.turn.attributes["switchyard.outcome"], "completed");
    assert.equal(second.calls.length, 1);
    assert.deepEqual(second.calls[0].attributes["gen_ai.response.finish_reasons"], ["stop"]);
    assertReadableOnly(spans);
  });

  test("a streamed request's span lasts until its stream ends", async () => {
    const id = await session();
    openai.enqueue(openAiStream(["a ", "streamed ", "answer"], 30));
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const r = await callStream(app, `/api/v1/sessions/${id}/execute`, alice.token, {
      input: { text: `${CANARIES.prompt} stream` },
      policy,
    }, { ...KEY, traceparent: `00-${traceId}-b7ad6b7169203331-01` });
    assert.equal(r.events.at(-1).type, "turn_end");
    const spans = await exported();
    const request = requestSpan(spans, traceId, EXECUTE);
    const tree = turnTree(spans, request);
    assert.equal(tree.turn.attributes["switchyard.streamed"], true);
    assert.equal(tree.calls[0].attributes["switchyard.streamed"], true);
    // The provider's chunks come 30 ms apart: a span ended with the headers would be far shorter.
    assert.ok(request.end - request.start >= 100_000_000n, "the request span covers the stream");
    // Each span anchors its clock at its start (to the millisecond): allow that much skew.
    assert.ok(request.end + 2_000_000n >= tree.turn.end, "the request span ends after the turn");
    assertReadableOnly(spans);
  });

  test("a failed call marks its span with the error type and the request span as failed", async () => {
    const id = await session();
    await openai.enqueueFixture("openai", "error_401");
    const traceId = "11112222333344445555666677778888";
    const r = await post(id, "execute", { input: { text: "fail" }, policy }, {
      traceparent: `00-${traceId}-1111222233334444-01`,
    });
    assert.equal(r.status, 503);
    const spans = await exported();
    const request = requestSpan(spans, traceId, EXECUTE);
    assert.equal(request.attributes["switchyard.error_code"], "invalid_provider_credentials");
    assert.equal(request.status.code, 2);
    const tree = turnTree(spans, request);
    assert.equal(tree.turn.attributes["switchyard.outcome"], "failed");
    assert.equal(tree.calls[0].attributes["error.type"], "invalid_provider_credentials");
    assert.equal(tree.calls[0].status.code, 2);
  });

  test("an encrypted session's spans carry routing metadata but no token figures", async () => {
    const client: SealingClient = await sealingClient("key-trace-1");
    const id = await session({ title: "sealed", key_id: client.keyId });
    openai.enqueue(openAiReply({ text: CANARIES.answer }));
    const traceId = "aaaabbbbccccddddeeeeffff00001111";
    const r = await post(id, "execute", {
      input: { text: CANARIES.sealed, ciphertext: await client.seal(CANARIES.sealed) },
      policy,
    }, { traceparent: `00-${traceId}-aaaabbbbccccdddd-01` });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.status, "completed");
    const spans = await exported();
    const tree = turnTree(spans, requestSpan(spans, traceId, EXECUTE));
    assert.equal(tree.routing[0].attributes["gen_ai.request.model"], "gpt-4o-mini");
    assert.deepEqual(tree.calls[0].attributes, CALL_METADATA);
    assertReadableOnly(spans);
  });
});
