/**
 * The compatible surfaces' translations as plain data, in both directions:
 * an OpenAI or Anthropic request to the neutral turn (messages, tools, tool
 * choice, sampling, what is refused), and a turn's answer and events to the
 * surface's body, stream frames and error shapes. No server, no network.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ERROR_CODES, type ErrorCode, failure } from "../../src/core/errors.ts";
import { textDelta, type TurnEvent } from "../../src/core/turn_stream_events.ts";
import type { ModelAnswer, TurnResult } from "../../src/engine/turn_context.ts";
import { HTTP_STATUS, SURFACE_HTTP_STATUS, surfaceError } from "../../src/http/error_response.ts";
import { anthropicError, anthropicSurface } from "../../src/surfaces/anthropic_answer.ts";
import { anthropicMessagesRequest } from "../../src/surfaces/anthropic_request.ts";
import { modelChoice } from "../../src/surfaces/compat_turn.ts";
import { conversationDigest } from "../../src/surfaces/conversation_digest.ts";
import { openAiError, openAiSurface } from "../../src/surfaces/openai_answer.ts";
import { openAiChatRequest } from "../../src/surfaces/openai_request.ts";
import { ServiceError } from "../../src/core/errors.ts";

function refusal(run: () => unknown): { code: string; path: unknown; unsupported: boolean } {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    return {
      code: error.failure.code,
      path: error.failure.details?.path,
      unsupported: error.failure.details?.unsupported === true,
    };
  }
  throw new Error("not refused");
}

describe("the model field", () => {
  const cases: [string, ReturnType<typeof modelChoice>][] = [
    ["switchyard", { kind: "policy", name: "default", version: null }],
    ["switchyard/review", { kind: "policy", name: "review", version: null }],
    ["switchyard/review@3", { kind: "policy", name: "review", version: 3 }],
    ["openai/gpt-4o", { kind: "model", ref: "openai/gpt-4o" }],
    ["openai-compat:lab/coder", { kind: "model", ref: "openai-compat:lab/coder" }],
    ["switchyard/Bad Name", null],
    ["switchyard/review@0", null],
    ["gpt-4o", null],
  ];
  for (const [model, expected] of cases) {
    test(`'${model}'`, () => assert.deepEqual(modelChoice(model), expected));
  }
});

describe("an OpenAI request to the neutral turn", () => {
  test("roles, parts, tool calls and results, tools, choice and sampling", () => {
    const r = openAiChatRequest({
      model: "switchyard",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: [{ type: "text", text: "Use tools." }] },
        {
          role: "user",
          content: [
            { type: "text", text: "look at " },
            { type: "text", text: "this" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
            { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
          ],
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"a.ts"}' },
          }],
        },
        { role: "tool", tool_call_id: "call_1", content: "export {}" },
      ],
      tools: [{
        type: "function",
        function: { name: "read_file", description: "Read", parameters: { type: "object" } },
      }],
      tool_choice: { type: "function", function: { name: "read_file" } },
      temperature: 0.2,
      top_p: 0.9,
      stop: "END",
      seed: 7,
      max_tokens: 100,
      max_completion_tokens: 200,
      response_format: {
        type: "json_schema",
        json_schema: { name: "out", schema: { type: "object" }, strict: true },
      },
      stream: true,
      stream_options: { include_usage: true },
      user: "ignored",
      metadata: { ignored: true },
    });
    assert.equal(r.system, "Be brief.\n\nUse tools.");
    assert.deepEqual(r.messages, [
      {
        role: "user",
        content: "look at this",
        images: [{ mediaType: "image/png", data: "AAAA" }, { url: "https://example.com/a.png" }],
      },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ callId: "call_1", name: "read_file", arguments: { path: "a.ts" } }],
      },
      { role: "tool", callId: "call_1", content: "export {}", isError: false },
    ]);
    assert.deepEqual(r.tools, [{
      name: "read_file",
      description: "Read",
      parameters: { type: "object" },
    }]);
    assert.deepEqual(r.toolChoice, { name: "read_file" });
    assert.deepEqual(r.sampling, {
      temperature: 0.2,
      topP: 0.9,
      stop: ["END"],
      seed: 7,
      responseFormat: {
        type: "json_schema",
        name: "out",
        schema: { type: "object" },
        strict: true,
      },
    });
    // max_completion_tokens wins over the older max_tokens.
    assert.equal(r.maxOutputTokens, 200);
    assert.equal(r.stream, true);
    assert.equal(r.includeUsage, true);
    assert.equal(r.fieldOf("stop"), "stop");
  });

  const refused: [
    string,
    Record<string, unknown>,
    { code: string; path: unknown; unsupported: boolean },
  ][] = [
    ["n > 1", { n: 2 }, { code: "invalid_request", path: "n", unsupported: true }],
    ["logprobs", { logprobs: true }, {
      code: "invalid_request",
      path: "logprobs",
      unsupported: true,
    }],
    ["a penalty", { presence_penalty: 0.5 }, {
      code: "invalid_request",
      path: "presence_penalty",
      unsupported: true,
    }],
    ["audio output", { modalities: ["text", "audio"] }, {
      code: "invalid_request",
      path: "modalities",
      unsupported: true,
    }],
    ["an audio part", { messages: [{ role: "user", content: [{ type: "input_audio" }] }] }, {
      code: "invalid_request",
      path: "messages[0].content[0].type",
      unsupported: true,
    }],
    ["no messages", { messages: [] }, {
      code: "invalid_request",
      path: "messages",
      unsupported: false,
    }],
    ["an unknown role", { messages: [{ role: "function", content: "x" }] }, {
      code: "invalid_request",
      path: "messages[0].role",
      unsupported: false,
    }],
    ["arguments that are not JSON", {
      messages: [{
        role: "assistant",
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{" } }],
      }],
    }, {
      code: "invalid_request",
      path: "messages[0].tool_calls[0].function.arguments",
      unsupported: false,
    }],
    ["max_tokens 0", { max_tokens: 0 }, {
      code: "invalid_request",
      path: "max_tokens",
      unsupported: false,
    }],
    ["a bad tool_choice", { tool_choice: "any" }, {
      code: "invalid_request",
      path: "tool_choice",
      unsupported: false,
    }],
  ];
  for (const [name, change, expected] of refused) {
    test(`refuses ${name}`, () => {
      const body = { model: "switchyard", messages: [{ role: "user", content: "x" }], ...change };
      assert.deepEqual(refusal(() => openAiChatRequest(body)), expected);
    });
  }
  test("harmless defaults of refused fields pass", () => {
    assert.doesNotThrow(() =>
      openAiChatRequest({
        model: "switchyard",
        messages: [{ role: "user", content: "x" }],
        n: 1,
        logprobs: false,
        presence_penalty: 0,
        frequency_penalty: 0,
        logit_bias: {},
        modalities: ["text"],
      })
    );
  });
});

describe("an Anthropic request to the neutral turn", () => {
  test("system blocks, tool results before the user's text, tool_use, choice, sampling", () => {
    const r = anthropicMessagesRequest({
      model: "switchyard/demo",
      max_tokens: 64,
      system: [{ type: "text", text: "Be brief." }, {
        type: "text",
        text: " Really.",
        cache_control: { type: "ephemeral" },
      }],
      messages: [
        { role: "user", content: "read a.ts" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "…", signature: "s" },
            { type: "text", text: "Reading." },
            { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: [{ type: "text", text: "export {}" }],
              is_error: false,
            },
            { type: "text", text: "and now?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
          ],
        },
      ],
      tools: [{ name: "read_file", description: "Read", input_schema: { type: "object" } }],
      tool_choice: { type: "any" },
      stop_sequences: ["END"],
      temperature: 0.5,
      top_p: 0.8,
      thinking: { type: "enabled", budget_tokens: 1024 },
      metadata: { user_id: "u" },
    });
    assert.equal(r.system, "Be brief. Really.");
    assert.deepEqual(r.systemCache, {});
    assert.deepEqual(r.messages, [
      { role: "user", content: "read a.ts" },
      {
        role: "assistant",
        content: "Reading.",
        toolCalls: [{ callId: "toolu_1", name: "read_file", arguments: { path: "a.ts" } }],
      },
      { role: "tool", callId: "toolu_1", content: "export {}", isError: false },
      { role: "user", content: "and now?", images: [{ data: "AAAA", mediaType: "image/png" }] },
    ]);
    assert.deepEqual(r.toolChoice, "required");
    assert.deepEqual(r.sampling, { temperature: 0.5, topP: 0.8, stop: ["END"] });
    assert.equal(r.maxOutputTokens, 64);
    assert.equal(r.fieldOf("stop"), "stop_sequences");
  });

  test("cache_control marks reach the neutral turn where the client put them", () => {
    const r = anthropicMessagesRequest({
      model: "switchyard/demo",
      max_tokens: 64,
      system: [{
        type: "text",
        text: "Rules.",
        cache_control: { type: "ephemeral", ttl: "1h" },
      }],
      tools: [{
        name: "read_file",
        input_schema: { type: "object" },
        cache_control: { type: "ephemeral" },
      }],
      messages: [
        {
          role: "user",
          content: [{
            type: "text",
            text: "read a.ts",
            cache_control: { type: "ephemeral" },
          }],
        },
        {
          role: "assistant",
          content: [{
            type: "tool_use",
            id: "toolu_1",
            name: "read_file",
            input: { path: "a.ts" },
            cache_control: { type: "ephemeral" },
          }],
        },
        {
          role: "user",
          content: [{
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: "export {}",
            cache_control: { type: "ephemeral", ttl: "5m" },
          }, { type: "text", text: "and now?" }],
        },
      ],
    });
    assert.deepEqual(r.systemCache, { ttl: "1h" });
    assert.deepEqual(r.tools.map((t) => t.cache), [{}]);
    assert.deepEqual(r.messages.map((m) => m.cache), [
      {},
      {},
      { ttl: "5m" },
      undefined,
    ]);
    // A mark is not part of the conversation: the digest that finds a session ignores it.
    const unmarked = anthropicMessagesRequest({
      model: "switchyard/demo",
      max_tokens: 64,
      system: "Rules.",
      tools: [{ name: "read_file", input_schema: { type: "object" } }],
      messages: [
        { role: "user", content: "read a.ts" },
        {
          role: "assistant",
          content: [{
            type: "tool_use",
            id: "toolu_1",
            name: "read_file",
            input: { path: "a.ts" },
          }],
        },
        {
          role: "user",
          content: [{
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: "export {}",
          }, {
            type: "text",
            text: "and now?",
          }],
        },
      ],
    });
    assert.equal(
      conversationDigest(r.system, r.messages),
      conversationDigest(unmarked.system, unmarked.messages),
    );
    assert.throws(
      () =>
        anthropicMessagesRequest({
          model: "switchyard/demo",
          max_tokens: 64,
          messages: [{
            role: "user",
            content: [{
              type: "text",
              text: "x",
              cache_control: { type: "persistent" },
            }],
          }],
        }),
      (e: unknown) =>
        e instanceof ServiceError &&
        e.failure.details?.path === "messages[0].content[0].cache_control",
    );
  });

  const refused: [
    string,
    Record<string, unknown>,
    { code: string; path: unknown; unsupported: boolean },
  ][] = [
    ["top_k", { top_k: 5 }, { code: "invalid_request", path: "top_k", unsupported: true }],
    ["a server tool", { tools: [{ type: "web_search_20250305", name: "web_search" }] }, {
      code: "invalid_request",
      path: "tools[0].type",
      unsupported: true,
    }],
    ["a document block", { messages: [{ role: "user", content: [{ type: "document" }] }] }, {
      code: "invalid_request",
      path: "messages[0].content[0].type",
      unsupported: true,
    }],
    ["no max_tokens", { max_tokens: undefined }, {
      code: "invalid_request",
      path: "max_tokens",
      unsupported: false,
    }],
    // A `system` message joins the system prompt (anthropic_system_messages_test.ts).
    ["a tool role in messages", { messages: [{ role: "tool", content: "x" }] }, {
      code: "invalid_request",
      path: "messages[0].role",
      unsupported: false,
    }],
  ];
  for (const [name, change, expected] of refused) {
    test(`refuses ${name}`, () => {
      const body = {
        model: "switchyard",
        max_tokens: 5,
        messages: [{ role: "user", content: "x" }],
        ...change,
      };
      assert.deepEqual(refusal(() => anthropicMessagesRequest(body)), expected);
    });
  }
});

const ANSWER: ModelAnswer = {
  provider: "openai",
  model: "gpt-4o-mini",
  text: "Reading it.",
  toolCalls: [
    { callId: "call_a", name: "read_file", arguments: { path: "a.ts" } },
    { callId: "call_b", name: "read_file", arguments: { path: "b.ts" } },
  ],
  stopReason: "tool_calls",
  inputTokens: 12,
  outputTokens: 5,
};
const TURN = "0190a5b8-7c1e-7a3b-8c2d-1234567890ab";
const SESSION = "0190a5b8-7c1e-7a3b-8c2d-0000000000aa";
const answered: TurnResult = { kind: "answer", answer: ANSWER };
const EVENTS: TurnEvent[] = [
  { type: "call_started", provider: "openai", model: "gpt-4o-mini", input_tokens: 10 },
  textDelta("Reading "),
  textDelta("it."),
  {
    type: "call_tool",
    index: 0,
    call_id: "call_a",
    name: "read_file",
    arguments: { path: "a.ts" },
  },
  {
    type: "call_tool",
    index: 1,
    call_id: "call_b",
    name: "read_file",
    arguments: { path: "b.ts" },
  },
];
const decoder = new TextDecoder();

function frames(
  surface: ReturnType<typeof openAiSurface>,
  events: TurnEvent[],
  result: TurnResult,
) {
  const framing = surface.framing(TURN);
  const parts = events.map((e) => framing.frame(e)).filter((b) => b !== null).map((b) =>
    decoder.decode(b!)
  );
  return [...parts, decoder.decode(framing.last(result, TURN))].join("");
}

describe("an answer to OpenAI's shapes", () => {
  const surface = openAiSurface({ sessionId: SESSION, created: 1700000000, includeUsage: true });

  test("the buffered completion", async () => {
    const r = surface.answer(answered, TURN);
    assert.equal(r.headers.get("x-router-session-id"), SESSION);
    assert.equal(r.headers.get("x-router-trace-id"), TURN);
    assert.deepEqual(await r.json(), {
      id: `chatcmpl-${TURN}`,
      object: "chat.completion",
      created: 1700000000,
      model: "openai/gpt-4o-mini",
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: "Reading it.",
          refusal: null,
          tool_calls: [
            {
              id: "call_a",
              type: "function",
              function: { name: "read_file", arguments: '{"path":"a.ts"}' },
            },
            {
              id: "call_b",
              type: "function",
              function: { name: "read_file", arguments: '{"path":"b.ts"}' },
            },
          ],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      }],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 5,
        total_tokens: 17,
        prompt_tokens_details: { cached_tokens: 0 },
      },
    });
  });

  test("the stream: role first, deltas, indexed tool calls, the finish, usage, done", () => {
    const text = frames(surface, EVENTS, answered);
    const datas = text.split("\n\n").filter((f) => f !== "").map((f) => f.replace(/^data: /, ""));
    assert.equal(datas.at(-1), "[DONE]");
    const chunks = datas.slice(0, -1).map((d) => JSON.parse(d));
    assert.ok(chunks.every((c) => c.id === `chatcmpl-${TURN}` && c.model === "openai/gpt-4o-mini"));
    assert.deepEqual(chunks.map((c) => c.choices[0]?.delta ?? null), [
      { role: "assistant", content: "" },
      { content: "Reading " },
      { content: "it." },
      {
        tool_calls: [{
          index: 0,
          id: "call_a",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"a.ts"}' },
        }],
      },
      {
        tool_calls: [{
          index: 1,
          id: "call_b",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"b.ts"}' },
        }],
      },
      {},
      null,
    ]);
    assert.deepEqual(chunks.map((c) => c.choices[0]?.finish_reason ?? null), [
      null,
      null,
      null,
      null,
      null,
      "tool_calls",
      null,
    ]);
    assert.deepEqual(chunks.at(-1).choices, []);
    assert.deepEqual(chunks.at(-1).usage, {
      prompt_tokens: 12,
      completion_tokens: 5,
      total_tokens: 17,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  test("cache reads in OpenAI's own field, prompt_tokens counting them", async () => {
    const cached: TurnResult = {
      kind: "answer",
      answer: { ...ANSWER, inputTokens: 2006, cacheReadTokens: 1920 },
    };
    assert.deepEqual((await surface.answer(cached, TURN).json()).usage, {
      prompt_tokens: 2006,
      completion_tokens: 5,
      total_tokens: 2011,
      prompt_tokens_details: { cached_tokens: 1920 },
    });
  });

  test("a failure after output began is an error chunk and no [DONE]", () => {
    const failed: TurnResult = {
      kind: "failure",
      failure: failure("provider_unavailable", "down"),
    };
    const text = frames(surface, EVENTS.slice(0, 2), failed);
    assert.ok(!text.includes("[DONE]"));
    const last = JSON.parse(text.trim().split("\n\n").at(-1)!.replace(/^data: /, ""));
    assert.equal(last.error.code, "provider_unavailable");
    assert.equal(last.error.message, "down");
  });
});

describe("an answer to Anthropic's shapes", () => {
  const surface = anthropicSurface({ sessionId: SESSION });

  test("the buffered message", async () => {
    assert.deepEqual(await surface.answer(answered, TURN).json(), {
      id: `msg_${TURN}`,
      type: "message",
      role: "assistant",
      model: "openai/gpt-4o-mini",
      content: [
        { type: "text", text: "Reading it." },
        { type: "tool_use", id: "call_a", name: "read_file", input: { path: "a.ts" } },
        { type: "tool_use", id: "call_b", name: "read_file", input: { path: "b.ts" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: {
        input_tokens: 12,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 5,
      },
    });
  });

  test("the stream: message_start with input usage, blocks, message_delta with output usage, message_stop", () => {
    const text = frames(surface, EVENTS, answered);
    const events = text.split("\n\n").filter((f) => f !== "").map((f) => {
      const [event, data] = f.split("\n");
      const parsed = JSON.parse(data.replace(/^data: /, ""));
      assert.equal(event, `event: ${parsed.type}`);
      return parsed;
    });
    assert.deepEqual(events.map((e) => e.type), [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    assert.deepEqual(events[0].message.usage, {
      input_tokens: 10,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 0,
    });
    assert.equal(events[0].message.model, "openai/gpt-4o-mini");
    assert.deepEqual(events.filter((e) => e.type === "content_block_start").map((e) => e.index), [
      0,
      1,
      2,
    ]);
    assert.deepEqual(events[6].delta, {
      type: "input_json_delta",
      partial_json: '{"path":"a.ts"}',
    });
    assert.deepEqual(events.at(-2).delta, { stop_reason: "tool_use", stop_sequence: null });
    assert.deepEqual(events.at(-2).usage, {
      input_tokens: 12,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 5,
    });
  });

  test("cache reads and writes in Anthropic's own fields; input_tokens is the uncached rest", async () => {
    const cached: TurnResult = {
      kind: "answer",
      answer: {
        ...ANSWER,
        inputTokens: 2060,
        cacheReadTokens: 1500,
        cacheWriteTokens: 500,
      },
    };
    const usage = {
      input_tokens: 60,
      cache_creation_input_tokens: 500,
      cache_read_input_tokens: 1500,
      output_tokens: 5,
    };
    assert.deepEqual((await surface.answer(cached, TURN).json()).usage, usage);
    const text = frames(surface, EVENTS, cached);
    const delta = text.split("\n\n").find((f) => f.startsWith("event: message_delta"))!;
    assert.deepEqual(
      JSON.parse(delta.split("\n")[1].replace(/^data: /, "")).usage,
      usage,
    );
  });

  test("a failure after output began is an error event and no message_stop", () => {
    const failed: TurnResult = { kind: "failure", failure: failure("request_timeout", "slow") };
    const text = frames(surface, EVENTS.slice(0, 2), failed);
    assert.ok(!text.includes("message_stop"));
    assert.ok(
      text.trim().endsWith('data: {"type":"error","error":{"type":"api_error","message":"slow"}}'),
    );
  });
});

describe("errors in each surface's shape, with each API's own status", () => {
  // code → [OpenAI's status and type, Anthropic's status and type], as each API documents them.
  const expected: [ErrorCode, number, string, number, string][] = [
    ["invalid_request", 400, "invalid_request_error", 400, "invalid_request_error"],
    ["no_route", 400, "invalid_request_error", 400, "invalid_request_error"],
    ["context_window_exceeded", 400, "invalid_request_error", 400, "invalid_request_error"],
    ["invalid_api_key", 401, "authentication_error", 401, "authentication_error"],
    ["approval_required", 403, "permission_error", 403, "permission_error"],
    ["model_not_found", 404, "not_found_error", 404, "not_found_error"],
    ["not_found", 404, "not_found_error", 404, "not_found_error"],
    ["method_not_allowed", 405, "invalid_request_error", 405, "invalid_request_error"],
    ["payload_too_large", 413, "invalid_request_error", 413, "request_too_large"],
    ["rate_limited", 429, "rate_limit_error", 429, "rate_limit_error"],
    ["budget_exceeded", 429, "rate_limit_error", 429, "rate_limit_error"],
    ["internal_error", 500, "server_error", 500, "api_error"],
    ["storage_error", 500, "server_error", 500, "api_error"],
    ["provider_error", 500, "server_error", 500, "api_error"],
    ["fallback_exhausted", 503, "server_error", 529, "overloaded_error"],
    ["provider_unavailable", 503, "server_error", 529, "overloaded_error"],
    ["shutting_down", 503, "server_error", 529, "overloaded_error"],
    ["request_timeout", 504, "server_error", 504, "api_error"],
  ];
  for (const [code, oStatus, oType, aStatus, aType] of expected) {
    test(`${code}: OpenAI ${oStatus} ${oType}, Anthropic ${aStatus} ${aType}`, async () => {
      const f = failure(code, `${code} happened`, { path: "messages" });
      const o = openAiError(f);
      assert.equal(o.status, oStatus);
      assert.deepEqual(await o.json(), {
        error: { message: `${code} happened`, type: oType, param: "messages", code },
      });
      const a = anthropicError(f, HTTP_STATUS[code], "req_1");
      assert.equal(a.status, aStatus);
      assert.deepEqual(await a.json(), {
        type: "error",
        error: { type: aType, message: `${code} happened` },
        request_id: "req_1",
      });
    });
  }
  test("no code answers 422 or 409 on a compatible surface, and every 5xx overload is 529 on Anthropic's", () => {
    for (const code of ERROR_CODES) {
      const [openai, anthropic] = SURFACE_HTTP_STATUS[code];
      assert.notEqual(openai, 422, code);
      assert.notEqual(anthropic, 422, code);
      // Both SDKs retry a 409; a compatible request never answers one (decisions.md §12).
      assert.notEqual(openai, 409, code);
      assert.notEqual(anthropic, 409, code);
      assert.notEqual(anthropic, 503, code);
      assert.equal(surfaceError("anthropic", code).status, anthropic);
    }
  });
  test("what cannot be honoured is 400 on both", () => {
    const f = failure("invalid_request", "unsupported", { path: "seed", unsupported: true });
    assert.equal(openAiError(f).status, 400);
    assert.equal(anthropicError(f).status, 400);
  });
});

describe("the conversation digest", () => {
  test("the same conversation digests alike from either surface; a changed answer does not", () => {
    const fromOpenAi = openAiChatRequest({
      model: "switchyard",
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "read a.ts" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "t1",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"a.ts"}' },
          }],
        },
      ],
    });
    const fromAnthropic = anthropicMessagesRequest({
      model: "switchyard",
      max_tokens: 5,
      system: "s",
      messages: [
        { role: "user", content: "read a.ts" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "t1", name: "read_file", input: { path: "a.ts" } }],
        },
      ],
    });
    const a = conversationDigest(fromOpenAi.system, fromOpenAi.messages);
    assert.equal(a, conversationDigest(fromAnthropic.system, fromAnthropic.messages));
    assert.match(a, /^[0-9a-f]{64}$/);
    const other = [...fromOpenAi.messages.slice(0, -1), {
      role: "assistant" as const,
      content: "no",
    }];
    assert.notEqual(a, conversationDigest(fromOpenAi.system, other));
  });
});
