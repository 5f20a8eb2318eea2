/**
 * Structured output and images through the official `openai` client
 * (decisions.md §12): a `json_object` or `json_schema` request skips a
 * candidate without `json_output`, an image in the last user message one
 * without image input, each with its reason in the trace; an image earlier in
 * the conversation reaches a model without image input as a note, never a 400.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import OpenAI from "openai";
import { call } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import { engineHarness, ollamaReply, openAiReply } from "../support/engine_app.ts";

const h = engineHarness();
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

function client(): OpenAI {
  return new OpenAI({
    apiKey: h.alice.apiKey,
    baseURL: "http://switchyard.test/v1",
    defaultHeaders: { "x-router-provider-openai-api-key": "sk-test-openai" },
    maxRetries: 0,
    fetch: checkedFetch(() => h.app),
  });
}

async function usePolicy(route: { model: string; fallbacks: string[] }) {
  const r = await call(h.app, "PUT", "/api/v1/policies/default", {
    token: h.alice.token,
    body: {
      routing: { default: route },
      privacy: { remote: { mode: "allow" } },
    },
  });
  assert.ok(r.status < 300, JSON.stringify(r.body));
}

async function routedReason(response: Response): Promise<string> {
  const session = response.headers.get("x-router-session-id")!;
  const traceId = response.headers.get("x-router-trace-id")!;
  const trace = await call(h.app, "GET", `/api/v1/sessions/${session}/traces`, {
    token: h.alice.token,
  });
  return trace.body.trace.events.find((
    e: { trace_id: string; event_type: string },
  ) => e.trace_id === traceId && e.event_type === "routing_decision").payload
    .plaintext.reason;
}

describe("content gates on /v1/chat/completions", () => {
  for (
    const format of [
      { type: "json_object" as const },
      {
        type: "json_schema" as const,
        json_schema: {
          name: "answer",
          schema: { type: "object", properties: {} },
        },
      },
    ]
  ) {
    test(`response_format ${format.type} skips a model without json_output`, async () => {
      await usePolicy({
        model: "ollama/qwen3:8b",
        fallbacks: ["openai/gpt-4o-mini"],
      });
      h.openai.enqueue(openAiReply({ text: "{}" }));
      const { data, response } = await client().chat.completions.create({
        model: "switchyard",
        messages: [{ role: "user", content: "give me JSON" }],
        response_format: format,
      }).withResponse();
      assert.equal(data.model, "openai/gpt-4o-mini");
      assert.equal(
        h.ollama.requests.filter((r) => r.path === "/api/chat").length,
        0,
      );
      assert.equal(
        await routedReason(response),
        "no rule matched; using the default route to 'ollama/qwen3:8b' (fallback 1: " +
          `ollama/qwen3:8b unavailable: missing capability 'json_output' (response format '${format.type}'))`,
      );
    });
  }

  test("an image in the last user message skips a model without image input", async () => {
    await usePolicy({
      model: "ollama/qwen3:8b",
      fallbacks: ["openai/gpt-4o-mini"],
    });
    h.openai.enqueue(openAiReply({ text: "a pixel" }));
    const { data, response } = await client().chat.completions.create({
      model: "switchyard",
      messages: [{
        role: "user",
        content: [{ type: "text", text: "what is this?" }, {
          type: "image_url",
          image_url: { url: `data:image/png;base64,${PNG}` },
        }],
      }],
    }).withResponse();
    assert.equal(data.model, "openai/gpt-4o-mini");
    assert.match(
      await routedReason(response),
      /missing capability 'images' \(the last user message has images\)\)$/,
    );
  });

  test("an image earlier in the conversation reaches a model without image input as a note", async () => {
    await usePolicy({ model: "ollama/qwen3:8b", fallbacks: [] });
    h.ollama.enqueue(ollamaReply({ text: "noted" }));
    const { data } = await client().chat.completions.create({
      model: "switchyard",
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "look" }, {
            type: "image_url",
            image_url: { url: `data:image/png;base64,${PNG}` },
          }],
        },
        { role: "assistant", content: "I see a pixel." },
        { role: "user", content: "and now?" },
      ],
    }).withResponse();
    assert.equal(data.model, "ollama/qwen3:8b");
    const sent = h.ollama.requests.find((r) => r.path === "/api/chat")!;
    const messages = (sent.json as { messages: { content: string; images?: unknown }[] })
      .messages;
    assert.equal(
      messages[0].content,
      "look\n[image omitted: image/png, 70 bytes]",
    );
    assert.ok(messages.every((m) => m.images === undefined));
  });
});
