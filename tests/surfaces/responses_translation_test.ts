/**
 * The Responses API request as the neutral turn, field by field, with plain
 * data (src/surfaces/responses_request.ts): items to messages, instructions
 * and system/developer messages to the system prompt, tools and tool_choice,
 * text.format, the chain of a previous response, and what is refused (400
 * naming the field) or malformed (naming its path).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ServiceError } from "../../src/core/errors.ts";
import type { StoredResponse } from "../../src/store/responses.ts";
import {
  responsesReferences,
  responsesRequest,
} from "../../src/surfaces/responses_request.ts";

type Refs = Parameters<typeof responsesRequest>[1];
const NO_REFS: Refs = { previous: null, items: new Map() };
const translate = (body: Record<string, unknown>, refs: Refs = NO_REFS) =>
  responsesRequest({ model: "switchyard", ...body }, refs);

function refused(
  body: Record<string, unknown>,
  path: string,
  unsupported: boolean,
) {
  assert.throws(() => translate(body), (e: unknown) => {
    assert.ok(e instanceof ServiceError, String(e));
    assert.equal(e.failure.details?.path, path, e.failure.message);
    assert.equal(
      e.failure.details?.unsupported === true,
      unsupported,
      e.failure.message,
    );
    return true;
  });
}

describe("a Responses request as the neutral turn", () => {
  test("a string input is one user message; instructions and developer messages the system prompt", () => {
    const r = translate({
      instructions: "Be brief.",
      input: [
        { role: "developer", content: "Use English." },
        {
          role: "user",
          content: [{ type: "input_text", text: "hi " }, {
            type: "input_text",
            text: "there",
          }],
        },
      ],
    });
    assert.equal(r.system, "Be brief.\n\nUse English.");
    assert.deepEqual(r.messages, [{ role: "user", content: "hi there" }]);
    assert.equal(translate({ input: "hello" }).system, null);
    assert.deepEqual(translate({ input: "hello" }).messages, [{
      role: "user",
      content: "hello",
    }]);
  });

  test("calls join the assistant message before them; outputs are tool results; reasoning is dropped", () => {
    const r = translate({
      input: [
        { role: "user", content: "read both" },
        { type: "reasoning", id: "rs_1", summary: [] },
        {
          role: "assistant",
          content: [{ type: "output_text", text: "Reading." }],
        },
        {
          type: "function_call",
          call_id: "c1",
          name: "read_file",
          arguments: '{"path":"a"}',
        },
        {
          type: "custom_tool_call",
          call_id: "c2",
          name: "apply_patch",
          input: "*** Begin",
        },
        { type: "function_call_output", call_id: "c1", output: "A" },
        {
          type: "custom_tool_call_output",
          call_id: "c2",
          output: [{ type: "input_text", text: "ok" }],
        },
      ],
    });
    assert.deepEqual(r.messages, [
      { role: "user", content: "read both" },
      {
        role: "assistant",
        content: "Reading.",
        toolCalls: [
          { callId: "c1", name: "read_file", arguments: { path: "a" } },
          {
            callId: "c2",
            name: "apply_patch",
            arguments: { input: "*** Begin" },
          },
        ],
      },
      { role: "tool", callId: "c1", content: "A", isError: false },
      { role: "tool", callId: "c2", content: "ok", isError: false },
    ]);
    // Stored input items: reasoning left out, string content as parts, each with a status.
    assert.deepEqual(r.inputItems.map((i) => i.type), [
      "message",
      "message",
      "function_call",
      "custom_tool_call",
      "function_call_output",
      "custom_tool_call_output",
    ]);
    assert.deepEqual(r.inputItems[0].content, [{
      type: "input_text",
      text: "read both",
    }]);
  });

  test("images: a data URL inline, a URL by reference", () => {
    const r = translate({
      input: [{
        role: "user",
        content: [
          { type: "input_text", text: "look" },
          { type: "input_image", image_url: "data:image/png;base64,AAAA" },
          { type: "input_image", image_url: "https://x/y.png" },
        ],
      }],
    });
    assert.deepEqual(r.messages[0], {
      role: "user",
      content: "look",
      images: [{ mediaType: "image/png", data: "AAAA" }, {
        url: "https://x/y.png",
      }],
    });
  });

  test("function and custom tools offered, hosted tools listed as not offered", () => {
    const r = translate({
      input: "x",
      tools: [
        { type: "function", name: "read_file", parameters: { type: "object" } },
        {
          type: "custom",
          name: "apply_patch",
          format: {
            type: "grammar",
            syntax: "lark",
            definition: "start: /.+/",
          },
        },
        { type: "web_search" },
        { type: "local_shell" },
      ],
      tool_choice: "required",
    });
    assert.deepEqual(r.tools.map((t) => t.name), ["read_file", "apply_patch"]);
    const custom = r.tools[1].parameters as {
      properties: { input: { description: string } };
    };
    assert.match(
      custom.properties.input.description,
      /lark grammar:\nstart: \/\.\+\//,
    );
    assert.deepEqual([...r.customTools], ["apply_patch"]);
    assert.deepEqual(r.notOffered, ["web_search", "local_shell"]);
    assert.equal(r.toolChoice, "required");
    const only = translate({
      input: "x",
      tools: [
        { type: "function", name: "a" },
        { type: "function", name: "b" },
      ],
      tool_choice: {
        type: "allowed_tools",
        mode: "auto",
        tools: [{ type: "function", name: "b" }],
      },
    });
    assert.deepEqual(only.tools.map((t) => t.name), ["b"]);
    assert.deepEqual(
      translate({
        input: "x",
        tools: [{ type: "custom", name: "apply_patch" }],
        tool_choice: { type: "custom", name: "apply_patch" },
      }).toolChoice,
      { name: "apply_patch" },
    );
  });

  test("text.format is the structured output; sampling, limits and the conversation key", () => {
    const r = translate({
      input: "x",
      text: {
        format: {
          type: "json_schema",
          name: "answer",
          schema: { type: "object" },
          strict: true,
        },
      },
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 256,
      prompt_cache_key: "conv-1",
      truncation: "auto",
    });
    assert.deepEqual(r.sampling, {
      temperature: 0.2,
      topP: 0.9,
      responseFormat: {
        type: "json_schema",
        name: "answer",
        schema: { type: "object" },
        strict: true,
      },
    });
    assert.equal(r.maxOutputTokens, 256);
    assert.equal(r.conversationKey, "conv-1");
    assert.equal(r.trimming, true);
    assert.equal(translate({ input: "x" }).trimming, false);
    assert.deepEqual(
      translate({ input: "x", text: { format: { type: "json_object" } } })
        .sampling,
      {
        responseFormat: { type: "json_object" },
      },
    );
  });

  test("a previous response's chain comes first and continues its session", () => {
    const previous: StoredResponse = {
      id: "resp_1",
      session_id: "0190a5b8-7c1e-7a3b-8c2d-1234567890ab",
      response: {},
      input_items: [],
      items: [
        {
          id: "msg_a",
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: "first" }],
        },
        {
          id: "msg_b",
          type: "message",
          role: "assistant",
          content: [{
            type: "output_text",
            text: "one",
            annotations: [],
            logprobs: [],
          }],
          status: "completed",
        },
      ],
    };
    const r = translate({ input: "second" }, { previous, items: new Map() });
    assert.deepEqual(r.messages.map((m) => m.content), [
      "first",
      "one",
      "second",
    ]);
    assert.equal(r.sessionId, previous.session_id);
    assert.equal(r.echo.previous_response_id, "resp_1");
    assert.equal(r.chainItems.length, 2);
  });

  test("item references resolve to stored items; what a request refers to is read first", () => {
    const body = {
      previous_response_id: "resp_9",
      input: [{ type: "item_reference", id: "msg_x" }, {
        role: "user",
        content: "and?",
      }],
    };
    assert.deepEqual(responsesReferences(body), {
      previous: "resp_9",
      itemIds: ["msg_x"],
    });
    const item = {
      id: "msg_x",
      type: "message",
      role: "user",
      content: "quoted",
    };
    const r = translate({ input: body.input }, {
      previous: null,
      items: new Map([["msg_x", item]]),
    });
    assert.deepEqual(r.messages.map((m) => m.content), ["quoted", "and?"]);
    assert.throws(
      () => translate({ input: body.input }),
      (e: unknown) =>
        e instanceof ServiceError && e.failure.code === "not_found" &&
        e.failure.details?.path === "input[0].id",
    );
  });

  test("refused by name: conversation, background, prompt, hosted tool_choice, files", () => {
    refused({ input: "x", conversation: "conv_1" }, "conversation", true);
    refused({ input: "x", background: true }, "background", true);
    refused({ input: "x", prompt: { id: "pmpt_1" } }, "prompt", true);
    refused({ input: "x", top_logprobs: 5 }, "top_logprobs", true);
    refused(
      { input: "x", tool_choice: { type: "file_search" } },
      "tool_choice",
      true,
    );
    refused(
      {
        input: [{
          role: "user",
          content: [{ type: "input_file", file_id: "f" }],
        }],
      },
      "input[0].content[0].type",
      true,
    );
    refused(
      {
        input: [{
          role: "user",
          content: [{ type: "input_image", file_id: "f" }],
        }],
      },
      "input[0].content[0].file_id",
      true,
    );
    refused(
      { input: [{ type: "web_search_call", id: "ws_1" }] },
      "input[0].type",
      true,
    );
    // Harmless values of those fields pass.
    translate({ input: "x", background: false, top_logprobs: 0 });
  });

  test("malformed fields name their path and the range", () => {
    refused({ input: "x", temperature: 2.5 }, "temperature", false);
    refused({ input: "x", top_p: -1 }, "top_p", false);
    refused({ input: "x", max_output_tokens: 8 }, "max_output_tokens", false);
    refused({ input: "x", truncation: "sometimes" }, "truncation", false);
    refused({ input: 5 }, "input", false);
    refused({ input: [] }, "input", false);
    refused(
      { input: [{ role: "tool", content: "x" }] },
      "input[0].role",
      false,
    );
    refused(
      {
        input: [{ role: "user", content: "x" }, {
          type: "function_call",
          name: "f",
          arguments: "{}",
        }],
      },
      "input[1].call_id",
      false,
    );
    refused(
      {
        input: [{
          type: "function_call",
          call_id: "c",
          name: "f",
          arguments: "[1]",
        }],
      },
      "input[0].arguments",
      false,
    );
    refused(
      { input: "x", tools: [{ type: "function" }] },
      "tools[0].name",
      false,
    );
    refused(
      { input: "x", tool_choice: { type: "function", name: "nope" } },
      "tool_choice.name",
      false,
    );
    refused(
      { input: "x", text: { format: { type: "xml" } } },
      "text.format.type",
      false,
    );
    refused({ input: "x", metadata: { a: 1 } }, "metadata.a", false);
    refused({ input: "x", store: "yes" }, "store", false);
    refused({ input: "x", model: "" }, "model", false);
  });
});
