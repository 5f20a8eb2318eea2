/**
 * Statuses, shapes and ids on every `/v1/` path as the official clients meet
 * them (decisions.md §12): malformed or out-of-range input is 400 and each SDK
 * raises `BadRequestError`; a stream that fails before its first content byte
 * answers the error status (503 on OpenAI's, 529 `overloaded_error` on
 * Anthropic's) and never 200; every answer carries its API's request id, and
 * one that recorded a turn (a refusal) names its session and trace; unknown
 * paths and methods answer in the asked API's shape; Anthropic's model list
 * pages; `count_tokens` knows the models `/v1/messages` knows.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { call } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import { engineHarness, openAiReply, openAiStream } from "../support/engine_app.ts";

const h = engineHarness();
const PROVIDER_KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const REQUEST_ID = /^req_[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function openai(apiKey = h.alice.apiKey): OpenAI {
  return new OpenAI({
    apiKey,
    baseURL: "http://switchyard.test/v1",
    defaultHeaders: PROVIDER_KEY,
    maxRetries: 0,
    fetch: checkedFetch(() => h.app),
  });
}

function anthropic(apiKey = h.alice.apiKey): Anthropic {
  return new Anthropic({
    apiKey,
    baseURL: "http://switchyard.test",
    defaultHeaders: PROVIDER_KEY,
    maxRetries: 0,
    fetch: checkedFetch(() => h.app),
  });
}

/** One remote model and no fallback: its failure is the turn's. */
const POLICY = {
  routing: { default: { model: "openai/gpt-4o-mini", fallbacks: [] }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};

async function storePolicy(name: string, policy: unknown) {
  const r = await call(h.app, "PUT", `/api/v1/policies/${name}`, {
    token: h.alice.token,
    body: policy,
  });
  assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
}

const DOWN = {
  status: 503,
  headers: { "content-type": "application/json" },
  body: { error: { message: "down" } },
};

// deno-lint-ignore no-explicit-any
type Body = any;

const CALL = {
  id: "call_1",
  type: "function" as const,
  function: { name: "read_file", arguments: "{}" },
};

/** The id the `openai` client reads off an answer's `x-request-id` (not in its types). */
const requestIdOf = (answer: object) => (answer as { _request_id?: string | null })._request_id;

/** Requests OpenAI's API itself refuses, each with the field its 400 names. */
const OPENAI_MALFORMED: [string, Body, string][] = [
  ["no messages", { messages: [] }, "messages"],
  ["a user message without content", { messages: [{ role: "user" }] }, "messages[0].content"],
  [
    "a user message of no parts",
    { messages: [{ role: "user", content: [] }] },
    "messages[0].content",
  ],
  [
    "a tool result no earlier call made",
    {
      messages: [
        { role: "user", content: "read it" },
        { role: "assistant", content: null, tool_calls: [CALL] },
        { role: "tool", tool_call_id: "call_2", content: "x" },
      ],
    },
    "messages[2].tool_call_id",
  ],
  ["temperature 2.5", { temperature: 2.5 }, "temperature"],
  ["temperature -0.1", { temperature: -0.1 }, "temperature"],
  ["top_p 1.5", { top_p: 1.5 }, "top_p"],
  ["presence_penalty 3", { presence_penalty: 3 }, "presence_penalty"],
  ["n 0", { n: 0 }, "n"],
  ["n 2 (cannot be honoured)", { n: 2 }, "n"],
  ["max_tokens 0", { max_tokens: 0 }, "max_tokens"],
  ["an unknown role", { messages: [{ role: "robot", content: "x" }] }, "messages[0].role"],
  ["stream not a boolean", { stream: "yes" }, "stream"],
  ["an array where tool_choice takes an object", { tool_choice: [] }, "tool_choice"],
];

/** Requests Anthropic's API itself refuses, each with the text its 400 says. */
const ANTHROPIC_MALFORMED: [string, Body, RegExp][] = [
  ["max_tokens 0", { max_tokens: 0 }, /max_tokens/],
  ["temperature 1.5", { temperature: 1.5 }, /temperature: 1\.5 is out of range.*0 to 1/],
  ["top_p 2", { top_p: 2 }, /top_p.*0 to 1/],
  ["top_k -1", { top_k: -1 }, /top_k.*at least 0/],
  ["no messages", { messages: [] }, /messages/],
  ["a user message of empty text", { messages: [{ role: "user", content: "" }] }, /content/],
  ["a user message of no blocks", { messages: [{ role: "user", content: [] }] }, /content/],
  ["a user message without content", { messages: [{ role: "user" }] }, /content/],
  [
    "a tool result no earlier tool_use made",
    {
      messages: [
        { role: "user", content: "read it" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: {} }],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "x" }],
        },
      ],
    },
    /messages\[2\]\.content\[0\]\.tool_use_id.*toolu_9/,
  ],
];

describe("malformed requests are 400 and each SDK raises BadRequestError", () => {
  for (const [what, change, param] of OPENAI_MALFORMED) {
    test(`openai: ${what}`, async () => {
      await storePolicy("default", POLICY);
      const body = { model: "switchyard", messages: [{ role: "user", content: "hi" }], ...change };
      await assert.rejects(
        openai().chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming),
        (e: unknown) => {
          assert.ok(e instanceof OpenAI.BadRequestError, String(e));
          assert.equal(e.status, 400);
          assert.equal((e.error as Body).type, "invalid_request_error");
          assert.equal((e.error as Body).param, param);
          assert.match(e.requestID ?? "", REQUEST_ID);
          return true;
        },
      );
      assert.equal(h.openai.requests.length, 0);
    });
  }
  for (const [what, change, says] of ANTHROPIC_MALFORMED) {
    test(`anthropic: ${what}`, async () => {
      const body = {
        model: "switchyard",
        max_tokens: 16,
        messages: [{ role: "user", content: "hi" }],
        ...change,
      };
      await assert.rejects(
        anthropic().messages.create(body as Anthropic.MessageCreateParamsNonStreaming),
        (e: unknown) => {
          assert.ok(e instanceof Anthropic.BadRequestError, String(e));
          assert.equal(e.status, 400);
          const error = e.error as Body;
          assert.equal(error.type, "error");
          assert.equal(error.error.type, "invalid_request_error");
          assert.match(error.error.message, says);
          assert.match(e.requestID ?? "", REQUEST_ID);
          assert.equal(error.request_id, e.requestID);
          return true;
        },
      );
      assert.equal(h.openai.requests.length, 0);
    });
  }
  test("a value in range and a tool result answering an earlier call are taken", async () => {
    await storePolicy("default", POLICY);
    h.openai.enqueue(openAiReply({ text: "fine" }));
    const r = await openai().chat.completions.create({
      model: "switchyard",
      temperature: 2,
      top_p: 1,
      messages: [
        { role: "user", content: "read it" },
        { role: "assistant", content: null, tool_calls: [CALL] },
        { role: "tool", tool_call_id: "call_1", content: "x" },
      ],
    });
    assert.equal(r.choices[0].message.content, "fine");
    assert.equal(JSON.parse(h.openai.requests[0].body).temperature, 2);
  });
});

describe("request ids on every answer", () => {
  test("an OpenAI answer's _request_id, an Anthropic message's _request_id, each its own", async () => {
    await storePolicy("default", POLICY);
    h.openai.enqueue(openAiReply({ text: "one" }));
    h.openai.enqueue(openAiReply({ text: "two" }));
    const { data, response } = await openai().chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "hi" }],
    }).withResponse();
    assert.match(requestIdOf(data) ?? "", REQUEST_ID);
    assert.equal(response.headers.get("x-request-id"), requestIdOf(data));
    assert.equal(response.headers.get("request-id"), null);
    const message = await anthropic().messages.create({
      model: "switchyard",
      max_tokens: 16,
      messages: [{ role: "user", content: "hi" }],
    });
    assert.match(message._request_id ?? "", REQUEST_ID);
    assert.notEqual(message._request_id, requestIdOf(data));
    const models = await openai().models.list().withResponse();
    assert.match(models.response.headers.get("x-request-id") ?? "", REQUEST_ID);
  });
});

describe("a stream that fails before its first content byte answers the error status", () => {
  test("openai: the only candidate down is 503, an InternalServerError naming the turn", async () => {
    await storePolicy("default", POLICY);
    h.openai.enqueue(DOWN);
    await assert.rejects(
      (async () => {
        const stream = await openai().chat.completions.create({
          model: "switchyard",
          messages: [{ role: "user", content: "hello" }],
          stream: true,
        });
        for await (const _ of stream) { /* never reached */ }
      })(),
      (e: unknown) => {
        assert.ok(e instanceof OpenAI.InternalServerError, String(e));
        assert.equal(e.status, 503);
        assert.equal((e.error as Body).type, "server_error");
        assert.match(e.requestID ?? "", REQUEST_ID);
        assert.match(e.headers?.get("x-router-session-id") ?? "", UUID);
        assert.match(e.headers?.get("x-router-trace-id") ?? "", UUID);
        return true;
      },
    );
    assert.equal(h.openai.requests.length, 1);
  });

  test("anthropic: the only candidate down is 529 overloaded_error", async () => {
    await storePolicy("default", POLICY);
    h.openai.enqueue(DOWN);
    await assert.rejects(
      (async () => {
        const stream = anthropic().messages.stream({
          model: "switchyard",
          max_tokens: 16,
          messages: [{ role: "user", content: "hello" }],
        });
        await stream.finalMessage();
      })(),
      (e: unknown) => {
        assert.ok(e instanceof Anthropic.InternalServerError, String(e));
        assert.equal(e.status, 529);
        const error = e.error as Body;
        assert.equal(error.error.type, "overloaded_error");
        assert.equal(error.request_id, e.requestID);
        assert.match(e.headers?.get("x-router-trace-id") ?? "", UUID);
        return true;
      },
    );
  });

  test("buffered alike: 503 on OpenAI's, 529 on Anthropic's", async () => {
    await storePolicy("default", POLICY);
    h.openai.enqueue(DOWN);
    h.openai.enqueue(DOWN);
    await assert.rejects(
      openai().chat.completions.create({
        model: "switchyard",
        messages: [{ role: "user", content: "hello" }],
      }),
      (e: unknown) => e instanceof OpenAI.InternalServerError && e.status === 503,
    );
    await assert.rejects(
      anthropic().messages.create({
        model: "switchyard",
        max_tokens: 16,
        messages: [{ role: "user", content: "hello" }],
      }),
      (e: unknown) => e instanceof Anthropic.APIError && e.status === 529,
    );
  });

  test("output that began still streams with 200: a cut is an error event, never a clean end", async () => {
    await storePolicy("default", POLICY);
    await h.openai.enqueueFixture("openai", "stream_cut");
    const response = await checkedFetch(() => h.app)(
      "http://switchyard.test/v1/chat/completions",
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${h.alice.apiKey}`,
          "content-type": "application/json",
          ...PROVIDER_KEY,
        },
        body: JSON.stringify({
          model: "switchyard",
          stream: true,
          messages: [{ role: "user", content: "hello" }],
        }),
      },
    );
    assert.equal(response.status, 200);
    assert.match(response.headers.get("x-request-id") ?? "", REQUEST_ID);
    const text = await response.text();
    assert.ok(text.includes('"error"'), text);
    assert.ok(!text.includes("[DONE]"), text);
  });

  test("a stream's content still arrives as it is made", async () => {
    await storePolicy("default", POLICY);
    h.openai.enqueue(openAiStream(["Hel", "lo"]));
    const stream = await openai().chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "hello" }],
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    assert.equal(text, "Hello");
  });
});

describe("refusals that record a turn name its session and trace", () => {
  const ASKS = { ...POLICY, privacy: { remote: { mode: "ask" } } };
  const READ = {
    role: "assistant" as const,
    content: null,
    tool_calls: [{
      id: "c1",
      type: "function" as const,
      function: { name: "read_file", arguments: '{"path":"src/a.ts"}' },
    }],
  };

  for (const stream of [false, true]) {
    test(`approval_required${stream ? ", streamed," : ""} is 403 with the session and trace`, async () => {
      await storePolicy("asks", ASKS);
      await assert.rejects(
        (async () => {
          const r = await openai().chat.completions.create({
            model: "switchyard/asks",
            stream,
            messages: [
              { role: "user", content: "summarize" },
              READ,
              { role: "tool", tool_call_id: "c1", content: "export {}" },
            ],
          });
          if (stream) { for await (const _ of r as AsyncIterable<unknown>) { /* refused */ } }
        })(),
        (e: unknown) => {
          assert.ok(e instanceof OpenAI.PermissionDeniedError, String(e));
          assert.equal((e.error as Body).code, "approval_required");
          assert.match(e.requestID ?? "", REQUEST_ID);
          const session = e.headers?.get("x-router-session-id") ?? "";
          assert.match(session, UUID);
          assert.match(e.headers?.get("x-router-trace-id") ?? "", UUID);
          return true;
        },
      );
      assert.equal(h.openai.requests.length, 0);
    });
  }

  test("the refusal's session holds its trace; Anthropic's 403 names them too", async () => {
    await storePolicy("asks", ASKS);
    let headers: Headers | undefined;
    await assert.rejects(
      anthropic().messages.create({
        model: "switchyard/asks",
        max_tokens: 16,
        messages: [
          { role: "user", content: "summarize" },
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "t1", name: "read_file", input: { path: "a.ts" } }],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] },
        ],
      }),
      (e: unknown) => {
        assert.ok(e instanceof Anthropic.PermissionDeniedError, String(e));
        assert.equal((e.error as Body).error.type, "permission_error");
        headers = e.headers;
        return true;
      },
    );
    const session = headers?.get("x-router-session-id") ?? "";
    const trace = headers?.get("x-router-trace-id") ?? "";
    assert.match(session, UUID);
    const traces = await call(h.app, "GET", `/api/v1/sessions/${session}/traces`, {
      token: h.alice.token,
    });
    assert.equal(traces.status, 200, JSON.stringify(traces.body));
    assert.ok(JSON.stringify(traces.body).includes(trace), "the trace is the session's");
  });

  test("an explicit model no route can take is 400 and names the recorded turn", async () => {
    await storePolicy("default", POLICY);
    await assert.rejects(
      openai().chat.completions.create({
        model: "ollama/no-such-model",
        messages: [{ role: "user", content: "hi" }],
      }),
      (e: unknown) => {
        assert.ok(e instanceof OpenAI.BadRequestError, String(e));
        assert.ok(
          ["no_route", "unknown_model", "invalid_model_reference"].includes(
            (e.error as Body).code,
          ),
          (e.error as Body).code,
        );
        return true;
      },
    );
  });
});

describe("unknown paths and methods under /v1/ in the asked API's shape", () => {
  const fetch = checkedFetch(() => h.app);
  const AUTH = { authorization: "Bearer nothing" };

  test("POST /v1/completions is OpenAI's 404; the SDK raises NotFoundError", async () => {
    const r = await fetch("http://switchyard.test/v1/completions", {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(r.status, 404);
    assert.match(r.headers.get("x-request-id") ?? "", REQUEST_ID);
    const body = await r.json();
    assert.equal(body.error.type, "not_found_error");
    assert.equal(body.error.code, "not_found");
    await assert.rejects(
      openai().completions.create({ model: "switchyard", prompt: "x" }),
      (e: unknown) => e instanceof OpenAI.NotFoundError && REQUEST_ID.test(e.requestID ?? ""),
    );
  });

  test("with anthropic-version, Anthropic's 404 with the request's id in body and header", async () => {
    const r = await fetch("http://switchyard.test/v1/complete", {
      method: "POST",
      headers: { ...AUTH, "anthropic-version": "2023-06-01" },
      body: "{}",
    });
    assert.equal(r.status, 404);
    const body = await r.json();
    assert.equal(body.type, "error");
    assert.equal(body.error.type, "not_found_error");
    assert.match(body.request_id, REQUEST_ID);
    assert.equal(r.headers.get("request-id"), body.request_id);
  });

  test("GET /v1/chat/completions is 405 with Allow, in OpenAI's shape; GET /v1/messages in Anthropic's", async () => {
    const o = await fetch("http://switchyard.test/v1/chat/completions", { headers: AUTH });
    assert.equal(o.status, 405);
    assert.equal(o.headers.get("allow"), "POST");
    assert.equal((await o.json()).error.code, "method_not_allowed");
    const a = await fetch("http://switchyard.test/v1/messages", {
      headers: { ...AUTH, "anthropic-version": "2023-06-01" },
    });
    assert.equal(a.status, 405);
    assert.equal((await a.json()).error.type, "invalid_request_error");
  });

  test("/v1/models errors: Anthropic's shape with anthropic-version, OpenAI's without", async () => {
    const wrong = `${h.alice.apiKey.slice(0, -4)}zzzz`;
    await assert.rejects(
      anthropic(wrong).models.list(),
      (e: unknown) => {
        assert.ok(e instanceof Anthropic.AuthenticationError, String(e));
        assert.equal((e.error as Body).error.type, "authentication_error");
        assert.equal((e.error as Body).request_id, e.requestID);
        return true;
      },
    );
    await assert.rejects(
      openai(wrong).models.list(),
      (e: unknown) => e instanceof OpenAI.AuthenticationError && REQUEST_ID.test(e.requestID ?? ""),
    );
    await assert.rejects(
      anthropic().models.retrieve("switchyard/none"),
      (e: unknown) => e instanceof Anthropic.NotFoundError,
    );
  });
});

describe("Anthropic's model list pages", () => {
  test("limit, after_id and before_id page as the SDK's auto-pagination expects", async () => {
    for (const name of ["a1", "a2", "a3", "a4", "a5"]) await storePolicy(name, POLICY);
    const all = await anthropic().models.list({ limit: 1000 });
    const ids = all.data.map((m) => m.id);
    assert.ok(ids.length >= 7, ids.join(", "));
    assert.equal(all.has_more, false);
    const first = await anthropic().models.list({ limit: 2 });
    assert.deepEqual(first.data.map((m) => m.id), ids.slice(0, 2));
    assert.equal(first.has_more, true);
    assert.equal(first.first_id, ids[0]);
    assert.equal(first.last_id, ids[1]);
    const walked: string[] = [];
    let pages = 0;
    for await (const page of (await anthropic().models.list({ limit: 3 })).iterPages()) {
      pages++;
      walked.push(...page.data.map((m) => m.id));
    }
    assert.deepEqual(walked, ids);
    assert.equal(pages, Math.ceil(ids.length / 3));
    const after = await anthropic().models.list({ limit: 2, after_id: ids[1] });
    assert.deepEqual(after.data.map((m) => m.id), ids.slice(2, 4));
    const before = await anthropic().models.list({ limit: 2, before_id: ids[4] });
    assert.deepEqual(before.data.map((m) => m.id), ids.slice(2, 4));
    assert.equal(before.has_more, true);
    const start = await anthropic().models.list({ limit: 5, before_id: ids[2] });
    assert.deepEqual(start.data.map((m) => m.id), ids.slice(0, 2));
    assert.equal(start.has_more, false);
    const byDefault = await anthropic().models.list();
    assert.equal(byDefault.data.length, Math.min(20, ids.length));
  });

  for (const limit of [0, 1001, 2.5]) {
    test(`limit ${limit} is 400 in Anthropic's shape`, async () => {
      await assert.rejects(
        anthropic().models.list({ limit }),
        (e: unknown) => {
          assert.ok(e instanceof Anthropic.BadRequestError, String(e));
          assert.match((e.error as Body).error.message, /limit.*1 to 1000/);
          return true;
        },
      );
    });
  }

  test("an after_id not in the list is 400 naming it", async () => {
    await assert.rejects(
      anthropic().models.list({ after_id: "nobody/nothing" }),
      (e: unknown) => e instanceof Anthropic.BadRequestError && /after_id/.test(e.message),
    );
  });
});

describe("count_tokens knows the models /v1/messages knows", () => {
  test("an unknown model is 404 not_found_error; a known one counts", async () => {
    await storePolicy("default", POLICY);
    for (const model of ["switchyard/none", "claude-nothing", "switchyard/default@99"]) {
      await assert.rejects(
        anthropic().messages.countTokens({
          model,
          messages: [{ role: "user", content: "hi" }],
        }),
        (e: unknown) => {
          assert.ok(e instanceof Anthropic.NotFoundError, `${model}: ${e}`);
          assert.equal((e.error as Body).error.type, "not_found_error");
          return true;
        },
      );
    }
    const counted = await anthropic().messages.countTokens({
      model: "switchyard",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.ok(counted.input_tokens > 0);
    assert.match(counted._request_id ?? "", REQUEST_ID);
  });
});
