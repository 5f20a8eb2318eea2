/**
 * A budget's refusal (decisions.md §13) on the compatible surfaces, as the
 * official clients meet it: 429 in each API's own error shape, with
 * `Retry-After`, and no request to the provider.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { call } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import { engineHarness, openAiReply } from "../support/engine_app.ts";
import { setUserBudget } from "../../src/store/budgets.ts";

const h = engineHarness();
const PROVIDER_KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const POLICY = {
  routing: {
    default: { model: "openai/gpt-4o-mini", fallbacks: [] },
    rules: [],
  },
  privacy: { remote: { mode: "allow" } },
};

function openai(): OpenAI {
  return new OpenAI({
    apiKey: h.alice.apiKey,
    baseURL: "http://switchyard.test/v1",
    defaultHeaders: PROVIDER_KEY,
    maxRetries: 0,
    fetch: checkedFetch(() => h.app),
  });
}

function anthropic(): Anthropic {
  return new Anthropic({
    apiKey: h.alice.apiKey,
    baseURL: "http://switchyard.test",
    defaultHeaders: PROVIDER_KEY,
    maxRetries: 0,
    fetch: checkedFetch(() => h.app),
  });
}

describe("a budget on the compatible surfaces", () => {
  test("admits within the budget, then refuses in OpenAI's and Anthropic's shapes, before any provider request", async () => {
    const stored = await call(h.app, "PUT", "/api/v1/policies/default", {
      token: h.alice.token,
      body: POLICY,
    });
    assert.ok(
      stored.status === 200 || stored.status === 201,
      JSON.stringify(stored.body),
    );
    // 1000 input and 1000 output tokens of gpt-4o-mini cost 0.00075: the whole day's budget.
    await setUserBudget(h.app.db, h.alice.userId, {
      daily: "0.00075",
      monthly: null,
    }, h.app.clock.now());
    h.openai.enqueue(openAiReply({ text: "hello", input: 1000, output: 1000 }));
    const first = await openai().chat.completions.create({
      model: "switchyard",
      messages: [{ role: "user", content: "Say hello" }],
    });
    assert.equal(first.choices[0].message.content, "hello");
    assert.equal(h.openai.requests.length, 1);

    await assert.rejects(
      openai().chat.completions.create({
        model: "switchyard",
        messages: [{ role: "user", content: "Say hello again" }],
      }),
      (e: unknown) => {
        assert.ok(e instanceof OpenAI.RateLimitError, String(e));
        assert.equal(e.status, 429);
        const error = e.error as {
          type: string;
          code: string;
          message: string;
        };
        assert.equal(error.type, "rate_limit_error");
        assert.equal(error.code, "budget_exceeded");
        assert.match(error.message, /budget exceeded/);
        const retry = Number(e.headers?.get("retry-after"));
        assert.ok(retry >= 1 && retry <= 86_400, String(retry));
        return true;
      },
    );
    await assert.rejects(
      anthropic().messages.create({
        model: "switchyard",
        max_tokens: 64,
        messages: [{ role: "user", content: "Say hello again" }],
      }),
      (e: unknown) => {
        assert.ok(e instanceof Anthropic.RateLimitError, String(e));
        assert.equal(e.status, 429);
        const body = e.error as {
          type: string;
          error: { type: string; message: string };
        };
        assert.equal(body.type, "error");
        assert.equal(body.error.type, "rate_limit_error");
        assert.match(body.error.message, /budget exceeded/);
        assert.ok(Number(e.headers?.get("retry-after")) >= 1);
        return true;
      },
    );
    await assert.rejects(
      (async () => {
        const stream = await openai().chat.completions.create({
          model: "switchyard",
          messages: [{ role: "user", content: "Stream it" }],
          stream: true,
        });
        for await (const _ of stream) { /* refused before the stream */ }
      })(),
      (e: unknown) => e instanceof OpenAI.RateLimitError,
    );
    // Refused before they were made: the provider saw the first call only.
    assert.equal(h.openai.requests.length, 1);
  });
});
