/**
 * The Anthropic-compatible surface as the official `@anthropic-ai/sdk` client
 * meets it: buffered and streamed messages with usage in `message_start` and
 * `message_delta`, a tool_use round trip, count_tokens, models in Anthropic's
 * list shape, and errors in Anthropic's shape. The fake providers answer in
 * their recorded wire formats (here OpenAI's, translated to Anthropic's).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { call } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import {
  engineHarness,
  openAiReply,
  openAiStream,
  openAiToolCallStream,
} from "../support/engine_app.ts";

const h = engineHarness();

function client(options: { apiKey?: string } = {}): Anthropic {
  return new Anthropic({
    apiKey: options.apiKey ?? h.alice.apiKey,
    baseURL: "http://switchyard.test",
    defaultHeaders: { "x-router-provider-openai-api-key": "sk-test-openai" },
    maxRetries: 0,
    fetch: checkedFetch(() => h.app),
  });
}

const POLICY = {
  routing: { default: { model: "openai/gpt-4o-mini", fallbacks: [] }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};

const READ_FILE = {
  name: "read_file",
  description: "Read a file",
  input_schema: { type: "object" as const, properties: { path: { type: "string" } } },
};

describe("the anthropic client on /v1/messages", () => {
  test("a buffered message answers in Anthropic's shape, priced and recorded", async () => {
    const stored = await call(h.app, "PUT", "/api/v1/policies/demo", {
      token: h.alice.token,
      body: POLICY,
    });
    assert.ok(stored.status < 300);
    h.openai.enqueue(openAiReply({ text: "Hello.", input: 10, output: 3 }));
    const { data, response } = await client().messages.create({
      model: "switchyard/demo",
      max_tokens: 256,
      system: [{ type: "text", text: "Be brief." }],
      messages: [{ role: "user", content: "Say hello" }],
    }).withResponse();
    assert.equal(data.type, "message");
    assert.equal(data.model, "openai/gpt-4o-mini");
    assert.deepEqual(data.content, [{ type: "text", text: "Hello." }]);
    assert.equal(data.stop_reason, "end_turn");
    assert.equal(data.usage.input_tokens, 10);
    assert.equal(data.usage.output_tokens, 3);
    assert.ok(response.headers.get("x-router-session-id"));
    const sent = JSON.parse(h.openai.requests[0].body);
    assert.equal(sent.max_completion_tokens, 256);
    assert.deepEqual(sent.messages[0], { role: "system", content: "Be brief." });
  });

  test("a streamed message: message_start with input usage, deltas, message_delta with output usage", async () => {
    h.openai.enqueue(openAiStream(["Hel", "lo"]));
    const stream = client().messages.stream({
      model: "switchyard/demo",
      max_tokens: 256,
      messages: [{ role: "user", content: "Say hello" }],
    });
    const types: string[] = [];
    stream.on("streamEvent", (e) => types.push(e.type));
    const final = await stream.finalMessage();
    assert.equal(final.content.length, 1);
    assert.ok(final.content[0].type === "text" && final.content[0].text === "Hello");
    assert.equal(types[0], "message_start");
    assert.equal(types.at(-1), "message_stop");
    assert.ok(types.includes("message_delta"));
    assert.equal(final.usage.output_tokens, 2);
    assert.equal(final.stop_reason, "end_turn");
  });

  test("a tool_use round trip with a tool_result continues the same session", async () => {
    const anthropic = client();
    h.openai.enqueue(openAiToolCallStream("read_file", { path: "README.md" }));
    const first = await anthropic.messages.stream({
      model: "switchyard/demo",
      max_tokens: 256,
      tools: [READ_FILE],
      messages: [{ role: "user", content: "What is in README.md?" }],
    }).finalMessage();
    assert.equal(first.stop_reason, "tool_use");
    const use = first.content.find((b) => b.type === "tool_use");
    assert.ok(use !== undefined && use.type === "tool_use");
    assert.equal(use.name, "read_file");
    assert.deepEqual(use.input, { path: "README.md" });

    h.openai.enqueue(openAiReply({ text: "A README." }));
    const second = await anthropic.messages.create({
      model: "switchyard/demo",
      max_tokens: 256,
      tools: [READ_FILE],
      messages: [
        { role: "user", content: "What is in README.md?" },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "# Hi" }] },
      ],
    });
    assert.deepEqual(second.content.map((b) => b.type), ["text"]);
    const sent = JSON.parse(h.openai.requests[1].body);
    assert.equal(sent.messages.at(-1).role, "tool");
    assert.equal(sent.messages.at(-1).content, "# Hi");
  });

  test("a failure after output began ends the stream with an error event", async () => {
    await h.openai.enqueueFixture("openai", "stream_cut");
    const stream = client().messages.stream({
      model: "switchyard/demo",
      max_tokens: 256,
      messages: [{ role: "user", content: "Say hello" }],
    });
    let text = "";
    stream.on("text", (delta) => text += delta);
    await assert.rejects(stream.finalMessage(), (e: unknown) => e instanceof Anthropic.APIError);
    assert.ok(text.length > 0, "some output arrived before the failure");
  });

  test("an agent's <system-reminder> notes reach the model but neither classify nor title the turn", async () => {
    const stored = await call(h.app, "PUT", "/api/v1/policies/reminders", {
      token: h.alice.token,
      body: {
        classification: { rules: [{ intent: "review", priority: 1, keywords: ["review"] }] },
        routing: {
          default: { model: "openai/gpt-4o-mini", fallbacks: [] },
          rules: [{
            name: "reviews",
            priority: 1,
            intent: "review",
            model: "openai/gpt-4o",
            fallbacks: [],
          }],
        },
        privacy: { remote: { mode: "allow" } },
      },
    });
    assert.ok(stored.status < 300);
    h.openai.enqueue(openAiReply({ text: "hi" }));
    const reminder = "<system-reminder>Remember to review the todo list.</system-reminder>";
    const { data, response } = await client().messages.create({
      model: "switchyard/reminders",
      max_tokens: 64,
      messages: [{
        role: "user",
        content: [{ type: "text", text: reminder }, { type: "text", text: "hello there" }],
      }],
    }).withResponse();
    assert.equal(data.model, "openai/gpt-4o-mini");
    const sent = JSON.parse(h.openai.requests[0].body);
    assert.ok(sent.messages.at(-1).content.includes(reminder));
    const session = await call(
      h.app,
      "GET",
      `/api/v1/sessions/${response.headers.get("x-router-session-id")}`,
      {
        token: h.alice.token,
      },
    );
    assert.equal(session.body.session.title, "hello there");
  });

  test("count_tokens estimates the input; models list in Anthropic's shape", async () => {
    const counted = await client().messages.countTokens({
      model: "switchyard/demo",
      messages: [{ role: "user", content: "12345678" }],
    });
    // Two tokens of text (8 code points / 4) and the message's framing of four.
    assert.equal(counted.input_tokens, 2 + 4);
    const ids: string[] = [];
    for await (const m of client().models.list()) {
      assert.equal(m.type, "model");
      ids.push(m.id);
    }
    assert.equal(ids[0], "switchyard");
    assert.ok(ids.includes("switchyard/demo"));
  });

  test("errors in Anthropic's shape: unknown model, wrong key, malformed body", async () => {
    await assert.rejects(
      client().messages.create({
        model: "switchyard/none",
        max_tokens: 10,
        messages: [{ role: "user", content: "x" }],
      }),
      (e: unknown) => {
        assert.ok(e instanceof Anthropic.NotFoundError);
        assert.equal((e.error as { error: { type: string } }).error.type, "not_found_error");
        return true;
      },
    );
    await assert.rejects(
      client({ apiKey: `${h.alice.apiKey.slice(0, -4)}zzzz` }).messages.create({
        model: "switchyard/demo",
        max_tokens: 10,
        messages: [{ role: "user", content: "x" }],
      }),
      (e: unknown) => e instanceof Anthropic.AuthenticationError,
    );
    await assert.rejects(
      client().messages.create({
        model: "switchyard/demo",
        max_tokens: 0,
        messages: [{ role: "user", content: "x" }],
      }),
      (e: unknown) => {
        assert.ok(e instanceof Anthropic.BadRequestError);
        assert.match((e.error as { error: { message: string } }).error.message, /max_tokens/);
        return true;
      },
    );
  });
});
