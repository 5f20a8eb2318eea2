/**
 * Every provider kind answers on the Responses API surface in its own shape:
 * for each recorded exchange of OpenAI, Anthropic, Gemini and Ollama (plain,
 * streamed, a tool call, parallel tool calls, a reply cut at max tokens), what
 * the provider's adapter itself reads from the bytes (text, tool calls in
 * order, usage, why it stopped) is what the official `openai` client's
 * `responses.create` and `responses.stream` receive, every answer and event
 * held against OpenAI's published document on the way.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import OpenAI from "openai";
import { responsesFetch } from "../support/openai_responses_schema.ts";

import { EXCHANGES, headers, KINDS, providerKinds } from "../support/provider_kinds.ts";

const served = providerKinds();

const TOOLS = [{
  type: "function" as const,
  name: "read_file",
  parameters: { type: "object", properties: {} },
  strict: false,
}];

for (const k of KINDS) {
  describe(`${k.provider} answers on /v1/responses`, () => {
    for (const { fixture, stream } of EXCHANGES) {
      test(`${fixture} through responses.${stream ? "stream" : "create"}`, async () => {
        const expected = await served.adapterReads(k, fixture, stream);
        await served.usePolicy(k);
        await served.fake(k).enqueueFixture(k.provider, fixture);
        const openai = new OpenAI({
          apiKey: served.alice().apiKey,
          baseURL: "http://switchyard.test/v1",
          defaultHeaders: headers(k),
          maxRetries: 0,
          fetch: responsesFetch(served.app),
        });
        const request = { model: "switchyard", input: "hi", tools: TOOLS };
        let deltas = "";
        const response = stream
          ? await (async () => {
            const s = openai.responses.stream(request);
            s.on("response.output_text.delta", (e) => deltas += e.delta);
            return await s.finalResponse();
          })()
          : await openai.responses.create(request);
        if (stream) assert.equal(deltas, expected.text);
        assert.equal(response.output_text, expected.text);
        assert.deepEqual(
          response.output.flatMap((i) =>
            i.type === "function_call" ? [{ name: i.name, arguments: JSON.parse(i.arguments) }] : []
          ),
          expected.calls,
        );
        assert.equal(
          response.status,
          expected.stop === "max_tokens" ? "incomplete" : "completed",
        );
        assert.equal(response.usage?.input_tokens, expected.input);
        assert.equal(response.usage?.output_tokens, expected.output);
        assert.equal(response.model, `${k.provider}/${k.model}`);
      });
    }
  });
}
