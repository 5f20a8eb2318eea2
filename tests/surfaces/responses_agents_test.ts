/**
 * OpenAI's Agents SDK for TypeScript (`@openai/agents`: its core and OpenAI packages, the parts
 * it bundles besides the realtime one) against the Responses
 * surface: an agent with one function tool runs to its final output, its
 * model an OpenAI client whose base URL is the service, tracing export off.
 * The SDK runs the tool itself and sends its output back, as it does against
 * OpenAI; every answer and event is held against OpenAI's document.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { Agent, Runner, setTracingDisabled, tool } from "@openai/agents-core";
import { OpenAIProvider } from "@openai/agents-openai";
import { z } from "zod";
import { call } from "../support/app.ts";
import {
  engineHarness,
  openAiReply,
  openAiStream,
  openAiToolCallStream,
} from "../support/engine_app.ts";
import { checked, responsesFetch } from "../support/openai_responses_schema.ts";

const h = engineHarness();

/** A runner whose models are the service's, through the given client; no trace export. */
const runner = (client: OpenAI) =>
  new Runner({
    modelProvider: new OpenAIProvider({
      openAIClient: client,
      useResponses: true,
    }),
    tracingDisabled: true,
  });

describe("the Agents SDK on /v1/responses", () => {
  test("an agent with one function tool runs to its final output", async () => {
    setTracingDisabled(true);
    const stored = await call(h.app, "PUT", "/api/v1/policies/default", {
      token: h.alice.token,
      body: {
        routing: {
          default: { model: "openai/gpt-4o-mini", fallbacks: [] },
          rules: [],
        },
        privacy: { remote: { mode: "allow" } },
      },
    });
    assert.ok(stored.status < 300, JSON.stringify(stored.body));
    const client = new OpenAI({
      apiKey: h.alice.apiKey,
      baseURL: "http://switchyard.test/v1",
      defaultHeaders: { "x-router-provider-openai-api-key": "sk-test-openai" },
      maxRetries: 0,
      fetch: responsesFetch(() => h.app),
    });
    const asked: string[] = [];
    const weather = tool({
      name: "get_weather",
      description: "The weather in a city",
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => {
        asked.push(city);
        return `Sunny in ${city}`;
      },
    });
    const agent = new Agent({
      name: "Forecaster",
      instructions: "Answer with the weather tool.",
      model: "switchyard",
      tools: [weather],
    });
    h.openai.enqueue(
      openAiReply({
        calls: [{ name: "get_weather", arguments: { city: "Oslo" } }],
      }),
    );
    h.openai.enqueue(openAiReply({ text: "It is sunny in Oslo." }));
    const before = checked.bodies;
    const result = await runner(client).run(
      agent,
      "What is the weather in Oslo?",
    );
    assert.equal(result.finalOutput, "It is sunny in Oslo.");
    assert.deepEqual(asked, ["Oslo"]);
    assert.ok(
      checked.bodies - before >= 2,
      "both model calls went through /v1/responses",
    );
    // The second model call saw the tool's output as the tool's result.
    const second = JSON.parse(h.openai.requests[1].body);
    const result_ = second.messages.at(-1);
    assert.equal(result_.role, "tool");
    assert.equal(result_.content, "Sunny in Oslo");
    assert.equal(second.messages[0].role, "system");
    assert.equal(second.messages[0].content, "Answer with the weather tool.");
  });

  test("streamed, the agent's run ends with the same output", async () => {
    setTracingDisabled(true);
    const client = new OpenAI({
      apiKey: h.alice.apiKey,
      baseURL: "http://switchyard.test/v1",
      defaultHeaders: { "x-router-provider-openai-api-key": "sk-test-openai" },
      maxRetries: 0,
      fetch: responsesFetch(() => h.app),
    });
    const weather = tool({
      name: "get_weather",
      description: "The weather in a city",
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => `Rainy in ${city}`,
    });
    const agent = new Agent({
      name: "Forecaster",
      model: "switchyard",
      tools: [weather],
    });
    h.openai.enqueue(openAiToolCallStream("get_weather", { city: "Bergen" }));
    h.openai.enqueue(openAiStream(["Rainy in ", "Bergen."]));
    const before = checked.events;
    const streamed = await runner(client).run(agent, "Weather in Bergen?", {
      stream: true,
    });
    for await (const _ of streamed) { /* drain */ }
    await streamed.completed;
    assert.equal(streamed.finalOutput, "Rainy in Bergen.");
    assert.ok(checked.events - before > 0, "the stream's events were checked");
  });
});
