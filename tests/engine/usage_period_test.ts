/**
 * Usage across sessions (decisions.md §13): `GET /api/v1/usage` sums the
 * user's sessions' usage reports to the last decimal, by day and by model,
 * with the budget and what is left of it; `GET /api/v1/admin/usage` answers
 * the same per user, to the operator only; bad dates are 400 naming the
 * parameter.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import Big from "big.js";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { createEngineApp, openAiReply } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { setUserBudget } from "../../src/store/budgets.ts";
import { createTelemetry, type Telemetry } from "../../src/telemetry/telemetry.ts";

const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const OPERATOR = "operator-token-0123456789";
const policy = (model: string) => ({
  routing: { default: { model }, rules: [] },
  privacy: { remote: { mode: "allow" } },
});

describe("usage across sessions", () => {
  let openai: FakeProvider;
  let ollama: FakeProvider;
  let app: TestApp;
  let alice: Account;
  let bob: Account;
  let telemetry: Telemetry;
  before(async () => {
    openai = await startFakeProvider();
    ollama = await startFakeProvider();
    telemetry = await createTelemetry({ metrics: true });
    app = await createEngineApp({
      openai: openai.url,
      ollama: ollama.url,
      telemetry,
      configure: (c) => void (c.auth.operatorToken = OPERATOR),
    });
    alice = await signUp(app);
    bob = await signUp(app);
  });
  after(async () => {
    await app.close();
    await openai.close();
    await ollama.close();
  });
  beforeEach(() => {
    openai.requests.length = 0;
  });

  const session = async (who: Account) =>
    (await call(app, "POST", "/api/v1/sessions", {
      token: who.token,
      body: { title: "u" },
    }))
      .body.session.id as string;
  const execute = (who: Account, id: string, model = "openai/gpt-4o-mini") =>
    call(app, "POST", `/api/v1/sessions/${id}/execute`, {
      token: who.token,
      headers: KEY,
      body: { input: { text: "hello" }, policy: policy(model) },
    });

  test("equals the sum of the sessions' usage reports, by day and by model, with the budget left", async () => {
    await setUserBudget(
      app.db,
      alice.userId,
      { daily: "1", monthly: "10.5" },
      app.clock.now(),
    );
    const ids = [await session(alice), await session(alice)];
    // Odd token counts, so the sums carry many decimals.
    openai.enqueue(openAiReply({ text: "a", input: 1237, output: 311 }));
    assert.equal((await execute(alice, ids[0])).status, 200);
    openai.enqueue(openAiReply({ text: "b", input: 7, output: 3 }));
    assert.equal((await execute(alice, ids[1], "openai/gpt-4o")).status, 200);
    app.clock.advance(86_400_000); // the next UTC day
    alice = { ...alice, token: (await signIn(alice)).token };
    bob = { ...bob, token: (await signIn(bob)).token };
    openai.enqueue(openAiReply({ text: "c", input: 99_999, output: 12_345 }));
    assert.equal((await execute(alice, ids[0])).status, 200);
    // Bob's usage is his own.
    openai.enqueue(openAiReply({ text: "d", input: 5, output: 5 }));
    assert.equal((await execute(bob, await session(bob))).status, 200);

    const reports = await Promise.all(
      ids.map(async (id) =>
        (await call(app, "GET", `/api/v1/sessions/${id}/usage`, {
          token: alice.token,
        })).body
      ),
    );
    const sum = reports.reduce(
      (s, r) => s.plus(r.total.estimated_cost),
      new Big(0),
    ).toFixed();
    const r = await call(app, "GET", "/api/v1/usage", { token: alice.token });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const usage = r.body;
    assert.equal(usage.from, "2026-01-01");
    assert.equal(usage.to, "2026-01-31");
    assert.equal(usage.total.estimated_cost, sum);
    assert.equal(
      usage.total.input_tokens,
      reports.reduce((s, x) => s + x.total.input_tokens, 0),
    );
    assert.equal(usage.total.request_count, 3);
    assert.equal(usage.by_day.length, 31);
    const [jan1, jan2] = usage.by_day;
    assert.equal(jan1.date, "2026-01-01");
    assert.equal(jan1.request_count, 2);
    assert.equal(jan2.request_count, 1);
    // 99999 × 0.15 / 10^6 + 12345 × 0.6 / 10^6
    assert.equal(jan2.estimated_cost, "0.02240685");
    assert.equal(
      usage.by_day.reduce(
        (s: Big, d: { estimated_cost: string }) => s.plus(d.estimated_cost),
        new Big(0),
      )
        .toFixed(),
      sum,
    );
    assert.deepEqual(
      usage.by_model.map((
        m: { provider: string; model: string; request_count: number },
      ) => `${m.provider}/${m.model}×${m.request_count}`),
      ["openai/gpt-4o-mini×2", "openai/gpt-4o×1"],
    );
    // The budget: the day's window counts today's call, the month's all three.
    assert.equal(usage.budget.daily.spent, "0.02240685");
    assert.equal(
      usage.budget.daily.left,
      new Big(1).minus("0.02240685").toFixed(),
    );
    assert.equal(usage.budget.daily.resets_at, "2026-01-03T00:00:00.000Z");
    assert.equal(usage.budget.monthly.spent, sum);
    assert.equal(
      usage.budget.monthly.left,
      new Big("10.5").minus(sum).toFixed(),
    );
    assert.equal(usage.budget.monthly.reserved, "0");
    const bobs = await call(app, "GET", "/api/v1/usage", { token: bob.token });
    assert.equal(bobs.body.total.request_count, 1);
    assert.equal(bobs.body.budget, null);

    // One day of the period, explicitly.
    const day = await call(
      app,
      "GET",
      "/api/v1/usage?from=2026-01-02&to=2026-01-02",
      {
        token: alice.token,
      },
    );
    assert.equal(day.body.total.estimated_cost, "0.02240685");
    assert.equal(day.body.by_day.length, 1);

    // The operator sees the same per user.
    const admin = await call(app, "GET", "/api/v1/admin/usage", {
      headers: { authorization: `Bearer ${OPERATOR}` },
    });
    assert.equal(admin.status, 200, JSON.stringify(admin.body));
    const mine = admin.body.users.find((u: { user_id: string }) => u.user_id === alice.userId);
    const { from: _f, to: _t, ...rest } = usage;
    assert.deepEqual({ ...mine, user_id: undefined, name: undefined }, {
      ...rest,
      user_id: undefined,
      name: undefined,
    });
    const his = admin.body.users.find((u: { user_id: string }) => u.user_id === bob.userId);
    assert.equal(his.total.request_count, 1);
    const denied = await call(app, "GET", "/api/v1/admin/usage", {
      token: alice.token,
    });
    assert.equal(denied.status, 401);
  });

  test("a refusal counts in switchyard_budget_refusals_total by window, with no user label", async () => {
    const carol = await signUp(app);
    await setUserBudget(app.db, carol.userId, { daily: null, monthly: "0" }, app.clock.now());
    const refused = await execute(carol, await session(carol));
    assert.equal(refused.status, 429);
    const text = (await telemetry.metricsText()) ?? "";
    assert.match(text, /^switchyard_budget_refusals_total\{window="monthly"\} 1$/m);
    assert.equal(text.includes(carol.userId), false);
  });

  test("bad dates are 400 invalid_request naming the parameter", async () => {
    for (
      const [query, parameter] of [
        ["from=2026-02-30", "from"],
        ["from=yesterday", "from"],
        ["to=2026-1-5", "to"],
        ["from=2026-03-02&to=2026-03-01", "to"],
        ["from=2024-01-01&to=2026-01-01", "to"],
      ]
    ) {
      const r = await call(app, "GET", `/api/v1/usage?${query}`, {
        token: alice.token,
      });
      assert.equal(r.status, 400, query);
      assert.equal(r.body.error.code, "invalid_request");
      assert.equal(r.body.error.details.parameter, parameter, query);
    }
  });

  async function signIn(who: Account) {
    return (await call(app, "POST", "/api/v1/auth/sign-in", {
      headers: { "x-router-api-key": who.apiKey },
    })).body as { token: string };
  }
});
