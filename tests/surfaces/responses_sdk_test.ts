/**
 * OpenAI's Responses API surface as the official `openai` npm client meets
 * it: `responses.create` and `responses.stream` buffered and streamed, a
 * function-tool round trip, a freeform custom tool, `previous_response_id`
 * chains, `store: false`, retrieval, deletion, input items, input tokens and
 * another user's id. Every answer and stream event is held against OpenAI's
 * published OpenAPI document on the way (responsesFetch), and the SDK's own
 * stream accumulator checks the events' order and identities.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { call, signUp } from "../support/app.ts";
import {
  engineHarness,
  ollamaReply,
  openAiReply,
  openAiStream,
  openAiToolCallStream,
} from "../support/engine_app.ts";
import {
  assertOpenAiSchema,
  assertOpenAiStream,
  checked,
  responsesFetch,
} from "../support/openai_responses_schema.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const h = engineHarness();
const PROVIDER_KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };

function client(
  apiKey = h.alice.apiKey,
  headers: Record<string, string> = PROVIDER_KEY,
) {
  return new OpenAI({
    apiKey,
    baseURL: "http://switchyard.test/v1",
    defaultHeaders: headers,
    maxRetries: 0,
    fetch: responsesFetch(() => h.app),
  });
}

async function storePolicy(policy: unknown) {
  const r = await call(h.app, "PUT", "/api/v1/policies/default", {
    token: h.alice.token,
    body: policy,
  });
  assert.ok(r.status < 300, JSON.stringify(r.body));
}

const POLICY = {
  routing: {
    default: { model: "openai/gpt-4o-mini", fallbacks: [] },
    rules: [],
  },
  privacy: { remote: { mode: "allow" } },
};

const READ_FILE = {
  type: "function" as const,
  name: "read_file",
  description: "Read a file",
  parameters: {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
  },
  strict: false,
};

/** What the fake provider was sent, request by request. */
const sent = (i: number) => JSON.parse(h.openai.requests[i].body);

describe("the openai client on /v1/responses", () => {
  test("a buffered response: OpenAI's shape, ids, usage, and a recorded turn", async () => {
    await storePolicy(POLICY);
    h.openai.enqueue(
      openAiReply({ text: "Hello from the fake.", input: 12, output: 5 }),
    );
    const { data, response } = await client().responses.create({
      model: "switchyard",
      instructions: "Be brief.",
      input: "Say hello",
    }).withResponse();
    assert.equal(data.object, "response");
    assert.equal(data.status, "completed");
    assert.match(data.id, /^resp_[0-9a-f]{32}$/);
    assert.equal(data.model, "openai/gpt-4o-mini");
    assert.equal(data.output_text, "Hello from the fake.");
    assert.equal(data.output.length, 1);
    assert.equal(data.output[0].type, "message");
    assert.match(data.output[0].id!, /^msg_/);
    assert.deepEqual(data.usage, {
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 17,
    });
    assert.deepEqual(sent(0).messages, [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Say hello" },
    ]);
    const sessionId = response.headers.get("x-router-session-id")!;
    const traceId = response.headers.get("x-router-trace-id")!;
    assert.equal(data.id, `resp_${traceId.replaceAll("-", "")}`);
    const detail = await call(h.app, "GET", `/api/v1/sessions/${sessionId}`, {
      token: h.alice.token,
    });
    assert.deepEqual(detail.body.session.metadata, { surface: "responses" });
    assert.deepEqual(
      detail.body.session.messages.map((m: { role: string }) => m.role),
      ["user", "assistant"],
    );
    // Stored by default: its owner retrieves it as it was answered.
    const again = await client().responses.retrieve(data.id);
    assert.deepEqual(again, data);
    assert.ok(checked.bodies >= 2);
  });

  test("a streamed response: OpenAI's semantic events, numbered from 0, ending completed", async () => {
    await storePolicy(POLICY);
    h.openai.enqueue(openAiStream(["Hel", "lo", "!"]));
    const before = checked.events;
    const stream = client().responses.stream({
      model: "switchyard",
      input: "Say hello",
    });
    const types: string[] = [];
    let deltas = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") deltas += event.delta;
    }
    const final = await stream.finalResponse();
    assert.equal(deltas, "Hello!");
    assert.equal(final.output_text, "Hello!");
    assert.equal(final.status, "completed");
    assert.equal(final.usage?.output_tokens, 3);
    assert.deepEqual(types, [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    assert.equal(checked.events - before, types.length);
    // The stored response is the one the stream completed with.
    const stored = await client().responses.retrieve(final.id);
    assert.deepEqual(
      stored.output,
      JSON.parse(JSON.stringify(final.output)).map(
        (item: { content: Record<string, unknown>[] }) => ({
          ...item,
          content: item.content.map(({ parsed: _, ...part }) => part),
        }),
      ),
    );
    assert.deepEqual(stored.usage, final.usage);
    assert.equal(stored.id, final.id);
  });

  test("a function-tool round trip: the call, its output, and the answer", async () => {
    await storePolicy(POLICY);
    h.openai.enqueue(openAiToolCallStream("read_file", { path: "src/app.ts" }));
    const first = await client().responses.stream({
      model: "switchyard",
      input: "Read src/app.ts",
      tools: [READ_FILE],
    }).finalResponse();
    const fc = first.output.find((i) => i.type === "function_call");
    assert.ok(fc !== undefined && fc.type === "function_call");
    assert.equal(fc.name, "read_file");
    assert.deepEqual(JSON.parse(fc.arguments), { path: "src/app.ts" });
    assert.match(fc.id!, /^fc_/);
    assert.equal(fc.call_id, "call_0");
    assert.deepEqual(
      sent(0).tools.map((t: { function: { name: string } }) => t.function.name),
      [
        "read_file",
      ],
    );
    h.openai.enqueue(openAiReply({ text: "It exports main." }));
    const second = await client().responses.create({
      model: "switchyard",
      previous_response_id: first.id,
      input: [{
        type: "function_call_output",
        call_id: fc.call_id,
        output: "export main",
      }],
      tools: [READ_FILE],
    });
    assert.equal(second.output_text, "It exports main.");
    assert.equal(second.previous_response_id, first.id);
    // The service supplied the chain: the user message and the call before the result.
    const messages = sent(1).messages;
    assert.deepEqual(messages.map((m: { role: string }) => m.role), [
      "user",
      "assistant",
      "tool",
    ]);
    assert.equal(messages[1].tool_calls[0].id, "call_0");
    assert.equal(messages[2].tool_call_id, "call_0");
  });

  test("a freeform custom tool is offered as a function of one string and answers as custom_tool_call", async () => {
    await storePolicy(POLICY);
    const patch = "*** Begin Patch\n*** End Patch";
    h.openai.enqueue(openAiToolCallStream("apply_patch", { input: patch }));
    const final = await client().responses.stream({
      model: "switchyard",
      input: "Fix it",
      tools: [{
        type: "custom",
        name: "apply_patch",
        description: "Apply a patch",
      }],
    }).finalResponse();
    const offered = sent(0).tools[0].function;
    assert.equal(offered.name, "apply_patch");
    assert.deepEqual(offered.parameters.required, ["input"]);
    assert.equal(offered.parameters.properties.input.type, "string");
    const item = final.output.find((i) => i.type === "custom_tool_call");
    assert.ok(item !== undefined && item.type === "custom_tool_call");
    assert.equal(item.input, patch);
    assert.equal(item.name, "apply_patch");
    // Its output goes back as the tool's result.
    h.openai.enqueue(openAiReply({ text: "Done." }));
    await client().responses.create({
      model: "switchyard",
      input: [
        { role: "user", content: "Fix it" },
        {
          type: "custom_tool_call",
          call_id: item.call_id,
          name: "apply_patch",
          input: patch,
        },
        {
          type: "custom_tool_call_output",
          call_id: item.call_id,
          output: "applied",
        },
      ],
      tools: [{ type: "custom", name: "apply_patch" }],
      store: false,
    });
    const messages = sent(1).messages;
    assert.deepEqual(JSON.parse(messages[1].tool_calls[0].function.arguments), {
      input: patch,
    });
    assert.deepEqual(messages[2], {
      role: "tool",
      tool_call_id: item.call_id,
      content: "applied",
    });
  });

  test("a chain of three previous_response_ids: the model sees the whole conversation, one session", async () => {
    await storePolicy(POLICY);
    h.openai.enqueue(openAiReply({ text: "one" }));
    const r1 = await client().responses.create({
      model: "switchyard",
      input: "first",
    })
      .withResponse();
    h.openai.enqueue(openAiReply({ text: "two" }));
    const r2 = await client().responses.create({
      model: "switchyard",
      input: "second",
      previous_response_id: r1.data.id,
    }).withResponse();
    h.openai.enqueue(openAiReply({ text: "three" }));
    const r3 = await client().responses.create({
      model: "switchyard",
      input: [{
        role: "user",
        content: [{ type: "input_text", text: "third" }],
      }],
      previous_response_id: r2.data.id,
    }).withResponse();
    assert.equal(r3.data.output_text, "three");
    assert.deepEqual(sent(2).messages, [
      { role: "user", content: "first" },
      { role: "assistant", content: "one" },
      { role: "user", content: "second" },
      { role: "assistant", content: "two" },
      { role: "user", content: "third" },
    ]);
    const session = r1.response.headers.get("x-router-session-id");
    assert.equal(r2.response.headers.get("x-router-session-id"), session);
    assert.equal(r3.response.headers.get("x-router-session-id"), session);
  });

  test("store: false is retrievable by no one, yet recorded; prompt_cache_key keeps its session", async () => {
    await storePolicy(POLICY);
    h.openai.enqueue(openAiReply({ text: "a" }));
    const first = await client().responses.create({
      model: "switchyard",
      input: "one",
      store: false,
      prompt_cache_key: "codex-conversation-1",
    }).withResponse();
    await assert.rejects(
      client().responses.retrieve(first.data.id),
      (e) => e instanceof OpenAI.NotFoundError,
    );
    const sessionId = first.response.headers.get("x-router-session-id")!;
    const traces = await call(
      h.app,
      "GET",
      `/api/v1/sessions/${sessionId}/traces`,
      {
        token: h.alice.token,
      },
    );
    assert.equal(traces.status, 200);
    const events = traces.body.trace.events as { event_type: string }[];
    assert.ok(events.some((e) => e.event_type === "routing_decision"));
    // Another request with a different conversation but the same key continues the session.
    h.openai.enqueue(openAiReply({ text: "b" }));
    const second = await client().responses.create({
      model: "switchyard",
      input: "something else entirely",
      store: false,
      prompt_cache_key: "codex-conversation-1",
    }).withResponse();
    assert.equal(second.response.headers.get("x-router-session-id"), sessionId);
  });

  test("deletion, input items and input tokens; another user's id is 404", async () => {
    await storePolicy(POLICY);
    h.openai.enqueue(openAiReply({ text: "ok" }));
    const r = await client().responses.create({
      model: "switchyard",
      input: [
        { role: "developer", content: "Answer in English." },
        { role: "user", content: "hi" },
      ],
    });
    const items = await client().responses.inputItems.list(r.id, {
      order: "asc",
    });
    assert.deepEqual(
      items.data.map((i) => i.type === "message" ? i.role : i.type),
      [
        "developer",
        "user",
      ],
    );
    for (const item of items.data) {
      assert.ok(typeof item.id === "string" && item.id !== "");
    }
    const counted = await client().responses.inputTokens.count({
      model: "switchyard",
      input: "hello there",
      instructions: "Be brief.",
    });
    assert.equal(counted.object, "response.input_tokens");
    assert.ok(counted.input_tokens > 0);
    // Another user cannot see, list or delete it.
    const bob = await signUp(h.app);
    await assert.rejects(
      client(bob.apiKey).responses.retrieve(r.id),
      OpenAI.NotFoundError,
    );
    await assert.rejects(
      client(bob.apiKey).responses.inputItems.list(r.id),
      OpenAI.NotFoundError,
    );
    await assert.rejects(
      client(bob.apiKey).responses.delete(r.id),
      OpenAI.NotFoundError,
    );
    await assert.rejects(
      client(bob.apiKey).responses.create({
        model: "switchyard",
        input: "x",
        previous_response_id: r.id,
      }),
      OpenAI.NotFoundError,
    );
    await client().responses.delete(r.id);
    await assert.rejects(
      client().responses.retrieve(r.id),
      OpenAI.NotFoundError,
    );
  });

  test("item_reference quotes an item of a stored response; input items page by cursor", async () => {
    await storePolicy(POLICY);
    h.openai.enqueue(openAiReply({ text: "The answer is 42." }));
    const first = await client().responses.create({
      model: "switchyard",
      input: [
        { role: "user", content: "one" },
        { role: "assistant", content: "two" },
        { role: "user", content: "three" },
      ],
    });
    const answer = first.output[0].id!;
    h.openai.enqueue(openAiReply({ text: "quoted" }));
    const second = await client().responses.create({
      model: "switchyard",
      input: [
        { type: "item_reference", id: answer },
        { role: "user", content: "Explain that." },
      ],
    });
    assert.equal(second.output_text, "quoted");
    assert.deepEqual(sent(1).messages, [
      { role: "assistant", content: "The answer is 42." },
      { role: "user", content: "Explain that." },
    ]);
    // Nobody else's items resolve.
    const bob = await signUp(h.app);
    await assert.rejects(
      client(bob.apiKey).responses.create({
        model: "switchyard",
        input: [{ type: "item_reference", id: answer }, {
          role: "user",
          content: "x",
        }],
      }),
      OpenAI.NotFoundError,
    );
    // The SDK pages through the input items one by one, newest first by default.
    const texts: string[] = [];
    for await (
      const item of client().responses.inputItems.list(first.id, { limit: 1 })
    ) {
      assert.ok(item.type === "message");
      const part = item.content[0] as { text: string };
      texts.push(part.text);
    }
    assert.deepEqual(texts, ["three", "two", "one"]);
  });

  test("refusals in OpenAI's shape: conversation, a hosted tool_choice, untrimmable input", async () => {
    await storePolicy(POLICY);
    const refused = async (body: Record<string, unknown>, param: string) => {
      const e = await client().responses.create({
        model: "switchyard",
        input: "hi",
        ...body,
      })
        .then(() => null, (e) => e);
      assert.ok(e instanceof OpenAI.BadRequestError, String(e));
      assert.equal(e.status, 400);
      assert.equal(e.param, param);
      return e;
    };
    await refused({ conversation: "conv_1" }, "conversation");
    await refused({
      tools: [{ type: "web_search" }],
      tool_choice: { type: "web_search_preview" },
    }, "tool_choice");
    await refused({ temperature: 3 }, "temperature");
    assert.equal(h.openai.requests.length, 0);
  });

  test("truncation: 'disabled' (the default) refuses a conversation that would be trimmed; 'auto' trims", async () => {
    await storePolicy({
      routing: {
        default: { model: "ollama/qwen3:8b", fallbacks: [] },
        rules: [],
      },
      privacy: { remote: { mode: "allow" } },
    });
    const long = "word ".repeat(12_000);
    const input = [
      { role: "user" as const, content: long },
      { role: "assistant" as const, content: long },
      { role: "user" as const, content: long },
      { role: "assistant" as const, content: "ok" },
      { role: "user" as const, content: "and now?" },
    ];
    const e = await client().responses.create({ model: "switchyard", input })
      .then(
        () => null,
        (e) => e,
      );
    assert.ok(e instanceof OpenAI.BadRequestError, String(e));
    assert.equal(e.code, "context_window_exceeded");
    assert.equal(e.param, "truncation");
    assert.equal(h.ollama.requests.length, 0);
    h.ollama.enqueue(ollamaReply({ text: "trimmed" }));
    const r = await client().responses.create({
      model: "switchyard",
      input,
      truncation: "auto",
    });
    assert.equal(r.output_text, "trimmed");
    assert.ok(
      JSON.parse(h.ollama.requests[0].body).messages.length < input.length,
    );
  });

  test("hosted tools are not offered and the trace lists them as not offered", async () => {
    await storePolicy(POLICY);
    h.openai.enqueue(openAiReply({ text: "no search here" }));
    const { data, response } = await client().responses.create({
      model: "switchyard",
      input: "look it up",
      tools: [{ type: "web_search" }, READ_FILE],
    }).withResponse();
    assert.equal(data.output_text, "no search here");
    assert.deepEqual(
      sent(0).tools.map((t: { function: { name: string } }) => t.function.name),
      [
        "read_file",
      ],
    );
    const sessionId = response.headers.get("x-router-session-id")!;
    const trace = await call(
      h.app,
      "GET",
      `/api/v1/sessions/${sessionId}/traces`,
      {
        token: h.alice.token,
      },
    );
    const denied = trace.body.trace.events.filter((
      e: { event_type: string; payload: Json },
    ) =>
      e.event_type === "tool_call" && e.payload.plaintext.status === "denied"
    );
    assert.deepEqual(denied.map((e: Json) => e.payload.plaintext.tool_name), [
      "web_search",
    ]);
  });

  test("a failure after output began ends the stream with response.failed, never a clean end", async () => {
    await storePolicy(POLICY);
    await h.openai.enqueueFixture("openai", "stream_cut");
    const response = await responsesFetch(() => h.app)(
      "http://switchyard.test/v1/responses",
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${h.alice.apiKey}`,
          "content-type": "application/json",
          ...PROVIDER_KEY,
        },
        body: JSON.stringify({
          model: "switchyard",
          input: "Say hello",
          stream: true,
        }),
      },
    );
    assert.equal(response.status, 200);
    const events = assertOpenAiStream(await response.text());
    const types = events.map((e) => e.type);
    assert.ok(types.includes("response.output_text.delta"));
    assert.equal(types.at(-1), "response.failed");
    assert.ok(!types.includes("response.completed"));
    const failed = events.at(-1)!.response as Json;
    assert.equal(failed.status, "failed");
    assert.equal(failed.error.code, "server_error");
    assert.match(failed.error.message, /^provider_/);
    // The SDK's accumulator ends with the failed response, its error intact.
    await h.openai.enqueueFixture("openai", "stream_cut");
    const final = await client().responses.stream({
      model: "switchyard",
      input: "Say hello",
    })
      .finalResponse();
    assert.equal(final.status, "failed");
    assert.equal(final.error?.code, "server_error");
  });

  test("a fallback before the first content shows nothing of the failed candidate", async () => {
    await storePolicy({
      routing: {
        default: {
          model: "openai/gpt-4o-mini",
          fallbacks: ["ollama/qwen3:8b"],
        },
        rules: [],
      },
      privacy: { remote: { mode: "allow" } },
    });
    h.openai.enqueue({
      status: 500,
      body: { error: { message: "boom", type: "server_error" } },
    });
    h.ollama.enqueue(ollamaReply({ text: "from the fallback" }));
    const stream = client().responses.stream({
      model: "switchyard",
      input: "hi",
    });
    const types: string[] = [];
    for await (const e of stream) types.push(e.type);
    const final = await stream.finalResponse();
    assert.equal(final.output_text, "from the fallback");
    assert.equal(final.model, "ollama/qwen3:8b");
    assert.equal(types.filter((t) => t === "response.created").length, 1);
    assert.equal(types.at(-1), "response.completed");
  });

  test("max_output_tokens reached: status incomplete with its reason", async () => {
    await storePolicy(POLICY);
    await h.openai.enqueueFixture("openai", "max_tokens_buffered");
    const r = await client().responses.create({
      model: "switchyard",
      input: "Write a long story",
      max_output_tokens: 16,
    });
    assert.equal(r.status, "incomplete");
    assert.deepEqual(r.incomplete_details, { reason: "max_output_tokens" });
    assert.equal(sent(0).max_completion_tokens ?? sent(0).max_tokens, 16);
  });
});

describe("the check against OpenAI's document can fail (negative controls)", () => {
  test("mutated answers and events are rejected", async () => {
    await storePolicy(POLICY);
    h.openai.enqueue(openAiStream(["Hi"]));
    const response = await h.app.handler(
      new Request("http://switchyard.test/v1/responses", {
        method: "POST",
        headers: { authorization: `Bearer ${h.alice.apiKey}`, ...PROVIDER_KEY },
        body: JSON.stringify({
          model: "switchyard",
          input: "hi",
          stream: true,
        }),
      }),
    );
    const text = await response.text();
    const events = assertOpenAiStream(text);
    const completed = events.at(-1)!.response as Json;
    assertOpenAiSchema("Response", completed);
    const mutants: [string, (r: Json) => void][] = [
      ["no id", (r) => delete r.id],
      ["an unknown status", (r) => r.status = "done"],
      ["usage tokens as a string", (r) => r.usage.input_tokens = "12"],
      [
        "usage without its details",
        (r) => delete r.usage.output_tokens_details,
      ],
      [
        "an output item of an unknown type",
        (r) => r.output[0].type = "assistant_message",
      ],
      [
        "output text without annotations",
        (r) => delete r.output[0].content[0].annotations,
      ],
      [
        "an error code OpenAI does not define",
        (r) => r.error = { code: "boom", message: "x" },
      ],
    ];
    for (const [what, mutate] of mutants) {
      const copy = structuredClone(completed);
      mutate(copy);
      assert.throws(
        () => assertOpenAiSchema("Response", copy),
        `a response with ${what} passed`,
      );
    }
    const frames = text.trim().split("\n\n");
    const withEvent = (i: number, change: (e: Json) => void) =>
      frames.map((f, k) => {
        if (k !== i) return f;
        const e = JSON.parse(
          f.split("\n").find((l) => l.startsWith("data: "))!.slice(6),
        );
        change(e);
        return `data: ${JSON.stringify(e)}`;
      }).join("\n\n");
    const delta = events.findIndex((e) =>
      e.type === "response.output_text.delta"
    );
    assert.throws(() =>
      assertOpenAiStream(withEvent(delta, (e) => delete e.sequence_number))
    );
    assert.throws(() =>
      assertOpenAiStream(withEvent(delta, (e) => e.sequence_number += 1))
    );
    assert.throws(() =>
      assertOpenAiStream(withEvent(delta, (e) => delete e.item_id))
    );
    assert.throws(() =>
      assertOpenAiStream(
        withEvent(delta, (e) => e.type = "response.text.delta"),
      )
    );
    assert.throws(() =>
      assertOpenAiStream(withEvent(0, (e) => e.response.object = "chat"))
    );
    const added = events.findIndex((e) =>
      e.type === "response.output_item.added"
    );
    assert.throws(() =>
      assertOpenAiStream(withEvent(added, (e) => delete e.output_index))
    );
    // The unmutated stream passes.
    assert.equal(assertOpenAiStream(text).length, events.length);
  });
});
