/**
 * One estimate (decisions.md §15) on a Claude Code–like request through the
 * official Anthropic client: `count_tokens`, the input `message_start`
 * reports and the budget's reservation are the same figure, of everything
 * sent (system, tools, messages), and it is within 10 % of what the provider
 * reported for that request.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import Anthropic from "@anthropic-ai/sdk";
import Big from "big.js";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { checkedFetch } from "../support/compat_fetch.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { setUserBudget } from "../../src/store/budgets.ts";

const REQUESTS = new URL("../../fixtures/requests/", import.meta.url);
const json = async (name: string) => JSON.parse(await readFile(new URL(name, REQUESTS), "utf8"));

let fake: FakeProvider;
let app: TestApp;
let alice: Account;

before(async () => {
  fake = await startFakeProvider();
  app = await createTestApp({
    providers: {
      anthropic: { base_url: fake.url, models: ["claude-sonnet-4-5"] },
    },
  });
  alice = await signUp(app);
  const r = await call(app, "PUT", "/api/v1/policies/default", {
    token: alice.token,
    body: {
      routing: {
        default: { model: "anthropic/claude-sonnet-4-5", fallbacks: [] },
        rules: [],
      },
      privacy: { remote: { mode: "allow" } },
    },
  });
  assert.ok(r.status < 300, JSON.stringify(r.body));
});

after(async () => {
  await app.close();
  await fake.close();
});

function client(): Anthropic {
  return new Anthropic({
    apiKey: alice.apiKey,
    baseURL: "http://switchyard.test",
    defaultHeaders: { "x-router-provider-anthropic-api-key": "sk-ant-test" },
    maxRetries: 0,
    fetch: checkedFetch(() => app),
  });
}

describe("one estimate of a Claude Code–like request", () => {
  test("count_tokens, message_start and the reservation agree, within 10 % of the provider's count", async () => {
    const body: Anthropic.MessageCreateParamsNonStreaming = {
      ...(await json("claude_code_messages.json")),
      model: "switchyard",
      stream: false,
    };
    const answer = await json("claude_code_answer.json");
    const reported = 5695;

    const counted = (await client().messages.countTokens({
      model: body.model,
      system: body.system,
      tools: body.tools,
      messages: body.messages,
    })).input_tokens;
    assert.ok(
      Math.abs(counted - reported) <= reported * 0.1,
      `estimate ${counted} against the provider's ${reported}`,
    );

    // A budget, so the call reserves: its input at 3 USD and its output at 15 USD a million.
    await setUserBudget(
      app.db,
      alice.userId,
      { daily: "100", monthly: null },
      app.clock.now(),
    );
    fake.enqueue({ ...answer.response, delay_ms: 300 });
    const streaming = client().messages.create({
      ...body,
      stream: true as const,
    });
    // While the provider has not answered, the call's reservation is in the ledger.
    let reserved: string | null = null;
    for (let i = 0; i < 100 && reserved === null; i++) {
      const rows = await app.db.query<{ amount: string }>(
        "SELECT amount::text AS amount FROM budget_ledger WHERE user_id = $1 AND NOT spent",
        [alice.userId],
      );
      reserved = rows[0]?.amount ?? null;
      if (reserved === null) await new Promise((r) => setTimeout(r, 10));
    }
    assert.notEqual(reserved, null);
    let started: number | null = null;
    let final: number | null = null;
    for await (const event of await streaming) {
      if (event.type === "message_start") {
        started = event.message.usage.input_tokens;
      }
      if (event.type === "message_delta") {
        final = event.usage.input_tokens ?? null;
      }
    }
    assert.equal(started, counted);
    // The provider was sent the client's max_tokens; the reservation is the same input estimate
    // at the highest of the model's input and cache prices (a prompt written to the cache costs
    // 3.75 where input costs 3), plus that limit priced as output.
    const sent = JSON.parse(fake.requests.at(-1)!.body);
    assert.equal(sent.max_tokens, body.max_tokens);
    const perMillion = (tokens: number, price: string) =>
      new Big(tokens).times(price).div(1_000_000);
    assert.equal(
      new Big(reserved!).toFixed(),
      perMillion(counted, "3.75").plus(perMillion(body.max_tokens, "15"))
        .toFixed(),
    );
    // What the provider reported is what the end of the stream says.
    assert.equal(final, reported);
  });
});
