/**
 * Every provider kind answers on both compatible surfaces in the surface's
 * own shape: for each recorded exchange of OpenAI, Anthropic, Gemini and
 * Ollama (plain, streamed, a tool call, parallel tool calls, a reply cut at
 * max tokens), what the provider's adapter itself reads from the bytes (text,
 * tool calls in order, usage, why it stopped) is what the official `openai`
 * and `@anthropic-ai/sdk` clients receive.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { checkedFetch } from "../support/compat_fetch.ts";

import { EXCHANGES, headers, KINDS, providerKinds } from "../support/provider_kinds.ts";

const served = providerKinds();

const OPENAI_FINISH: Record<string, string> = {
  stop: "stop",
  tool_calls: "tool_calls",
  max_tokens: "length",
};
const ANTHROPIC_STOP: Record<string, string> = {
  stop: "end_turn",
  tool_calls: "tool_use",
  max_tokens: "max_tokens",
};

const TOOLS = [{
  type: "function" as const,
  function: {
    name: "read_file",
    parameters: { type: "object", properties: {} },
  },
}];

for (const k of KINDS) {
  describe(`${k.provider} answers on the compatible surfaces`, () => {
    for (const { fixture, stream } of EXCHANGES) {
      test(`${fixture} through /v1/chat/completions`, async () => {
        const expected = await served.adapterReads(k, fixture, stream);
        await served.usePolicy(k);
        await served.fake(k).enqueueFixture(k.provider, fixture);
        const openai = new OpenAI({
          apiKey: served.alice().apiKey,
          baseURL: "http://switchyard.test/v1",
          defaultHeaders: headers(k),
          maxRetries: 0,
          fetch: checkedFetch(served.app),
        });
        const request = {
          model: "switchyard",
          messages: [{ role: "user" as const, content: "hi" }],
          tools: TOOLS,
        };
        let text = "";
        let finish: string | null = null;
        let usage: OpenAI.CompletionUsage | undefined;
        const calls = new Map<number, { name: string; args: string }>();
        if (stream) {
          const chunks = await openai.chat.completions.create({
            ...request,
            stream: true,
            stream_options: { include_usage: true },
          });
          for await (const chunk of chunks) {
            usage = chunk.usage ?? usage;
            for (const c of chunk.choices) {
              text += c.delta.content ?? "";
              finish = c.finish_reason ?? finish;
              for (const t of c.delta.tool_calls ?? []) {
                const seen = calls.get(t.index) ?? { name: "", args: "" };
                calls.set(t.index, {
                  name: seen.name + (t.function?.name ?? ""),
                  args: seen.args + (t.function?.arguments ?? ""),
                });
              }
            }
          }
        } else {
          const r = await openai.chat.completions.create(request);
          const m = r.choices[0].message;
          text = m.content ?? "";
          finish = r.choices[0].finish_reason;
          usage = r.usage;
          (m.tool_calls ?? []).forEach((t, i) => {
            if (t.type === "function") {
              calls.set(i, {
                name: t.function.name,
                args: t.function.arguments,
              });
            }
          });
        }
        assert.equal(text, expected.text);
        assert.deepEqual(
          [...calls.values()].map((c) => ({
            name: c.name,
            arguments: JSON.parse(c.args),
          })),
          expected.calls,
        );
        assert.equal(finish, OPENAI_FINISH[expected.stop]);
        assert.equal(usage?.prompt_tokens, expected.input);
        assert.equal(usage?.completion_tokens, expected.output);
      });

      test(`${fixture} through /v1/messages`, async () => {
        const expected = await served.adapterReads(k, fixture, stream);
        await served.usePolicy(k);
        await served.fake(k).enqueueFixture(k.provider, fixture);
        const anthropic = new Anthropic({
          apiKey: served.alice().apiKey,
          baseURL: "http://switchyard.test",
          defaultHeaders: headers(k),
          maxRetries: 0,
          fetch: checkedFetch(served.app),
        });
        const request = {
          model: "switchyard",
          max_tokens: 512,
          messages: [{ role: "user" as const, content: "hi" }],
          tools: [{
            name: "read_file",
            input_schema: { type: "object" as const, properties: {} },
          }],
        };
        const message = stream
          ? await anthropic.messages.stream(request).finalMessage()
          : await anthropic.messages.create(request);
        const text = message.content.flatMap((b) => b.type === "text" ? [b.text] : []).join("");
        const calls = message.content.flatMap((b) =>
          b.type === "tool_use" ? [{ name: b.name, arguments: b.input }] : []
        );
        assert.equal(text, expected.text);
        assert.deepEqual(calls, expected.calls);
        assert.equal(message.stop_reason, ANTHROPIC_STOP[expected.stop]);
        assert.equal(message.usage.input_tokens, expected.input);
        assert.equal(message.usage.output_tokens, expected.output);
      });
    }
  });
}
