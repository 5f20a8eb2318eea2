/**
 * Budgets before every model call (decisions.md §13): a call reserves the
 * most it can cost (input and output limit), near a limit is made with a
 * smaller output limit, is refused below 256 output tokens, exact at the
 * boundary; atomic under concurrency (one store, and two instances on
 * PostgreSQL); the day's window resetting at UTC midnight; a refused call
 * never reaching the provider; a running call never cut; a reservation
 * counting until its instance is proven gone; a budget given again counting
 * the spend in between.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import Big from "big.js";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { engineHarness, openAiReply, twoInstances } from "../support/engine_app.ts";
import { setUserBudget } from "../../src/store/budgets.ts";
import type { FakeProvider } from "../support/fake_provider.ts";
import type { TracePayload } from "../../src/core/trace_view.ts";

const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const policy = {
  routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] },
  tools: { permissions: { file_read: "allow" } },
  privacy: { remote: { mode: "allow" } },
};
const PROMPT = "Say hello in five words.";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function newSession(app: TestApp, account: Account): Promise<string> {
  const r = await call(app, "POST", "/api/v1/sessions", {
    token: account.token,
    body: { title: "s" },
  });
  return r.body.session.id;
}

const execute = (app: TestApp, account: Account, id: string, text = PROMPT) =>
  call(app, "POST", `/api/v1/sessions/${id}/execute`, {
    token: account.token,
    headers: KEY,
    body: { input: { text }, policy },
  });

/** gpt-4o-mini's output price per token, and its output limit (the catalog's). */
const OUTPUT_PER_TOKEN = new Big("0.6").div(1_000_000);
const MODEL_OUTPUT = 16_384;

/**
 * What a first turn of PROMPT in a new session costs at most: its preview's
 * `min` (the input) and `max` (the input and the model's output limit).
 */
async function callCosts(app: TestApp, account: Account): Promise<{ input: string; max: string }> {
  const id = await newSession(app, account);
  const r = await call(app, "POST", `/api/v1/sessions/${id}/preview`, {
    token: account.token,
    headers: KEY,
    body: { input: { text: PROMPT }, policy },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const { min, max } = r.body.estimated_cost as { min: string; max: string };
  assert.ok(new Big(min).gt(0));
  assert.equal(new Big(max).minus(min).toFixed(), OUTPUT_PER_TOKEN.times(MODEL_OUTPUT).toFixed());
  return { input: min, max };
}

/** The input cost a first turn of PROMPT in a new session is admitted with (its preview's min). */
async function inputCost(app: TestApp, account: Account): Promise<string> {
  return (await callCosts(app, account)).input;
}

/** The least a call of PROMPT must be able to pay for: its input and 256 output tokens. */
const leastCost = (input: string) => new Big(input).plus(OUTPUT_PER_TOKEN.times(256)).toFixed();

/** The user's spend and live reservations by the ledger. */
async function ledger(app: TestApp, userId: string) {
  const rows = await app.db.query<{ spent: string; reserved: string; n: number }>(
    `SELECT coalesce(sum(amount) FILTER (WHERE spent), 0)::text AS spent,
            coalesce(sum(amount) FILTER (WHERE NOT spent), 0)::text AS reserved,
            count(*) FILTER (WHERE spent)::int AS n
     FROM budget_ledger WHERE user_id = $1`,
    [userId],
  );
  const { spent, reserved, n } = rows[0];
  return { spent: new Big(spent).toFixed(), reserved: new Big(reserved).toFixed(), n };
}

const userIdOf = (account: Account) => account.userId;

/** A new token for `account`, once the test clock has passed its old one's lifetime. */
async function signIn(app: TestApp, account: Account): Promise<Account> {
  const r = await call(app, "POST", "/api/v1/auth/sign-in", {
    headers: { "x-router-api-key": account.apiKey },
  });
  return { ...account, token: r.body.token };
}

describe("budgets on one instance", () => {
  const h = engineHarness();

  test("a call that can pay for exactly 256 output tokens is made with that limit; the smallest unit less is refused, before any provider request", async () => {
    const cost = await inputCost(h.app, h.alice);
    const least = leastCost(cost);
    const bob = await signUp(h.app);
    await setUserBudget(
      h.app.db,
      userIdOf(bob),
      { daily: least, monthly: null },
      h.app.clock.now(),
    );
    h.openai.enqueue(openAiReply({ text: "hi", input: 0, output: 0 }));
    const before = h.openai.requests.length;
    const bobSession = await newSession(h.app, bob);
    const passed = await execute(h.app, bob, bobSession);
    assert.equal(passed.status, 200, JSON.stringify(passed.body));
    assert.equal(h.openai.requests.length, before + 1);
    // The provider was asked for no more than the budget pays for, and the trace says why.
    const sent = JSON.parse(h.openai.requests.at(-1)!.body);
    assert.equal(sent.max_completion_tokens, 256);
    const trace = await call(h.app, "GET", `/api/v1/sessions/${bobSession}/traces`, {
      token: bob.token,
    });
    const notes = (trace.body.trace.events as { event_type: string; payload: TracePayload }[])
      .filter((e) => e.event_type === "routing_decision")
      .map((e) => "plaintext" in e.payload ? e.payload.plaintext.reason : undefined);
    assert.ok(
      notes.includes("output limited to 256 tokens by the daily budget"),
      JSON.stringify(notes),
    );

    const carol = await signUp(h.app);
    // The smallest unit: one in the 30th decimal place.
    const less = new Big(least).minus("1e-30").toFixed();
    await setUserBudget(h.app.db, userIdOf(carol), {
      daily: less,
      monthly: null,
    }, h.app.clock.now());
    const refused = await execute(h.app, carol, await newSession(h.app, carol));
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "budget_exceeded");
    assert.deepEqual(refused.body.error.details, {
      window: "daily",
      limit: less,
      spent: "0",
      reserved: "0",
      estimated_cost: least,
      resets_at: "2026-01-02T00:00:00.000Z",
    });
    const seconds = (Date.parse("2026-01-02T00:00:00.000Z") - h.app.clock.now().getTime()) /
      1000;
    assert.equal(
      refused.headers.get("retry-after"),
      String(Math.ceil(seconds)),
    );
    // Refused before it was made: the provider saw nothing more.
    assert.equal(h.openai.requests.length, before + 1);
  });

  test("a call with room for its whole output reserves it all and is sent the model's own limit", async () => {
    const ivy = await signUp(h.app);
    const { max } = await callCosts(h.app, ivy);
    await setUserBudget(h.app.db, userIdOf(ivy), { daily: "1", monthly: null }, h.app.clock.now());
    h.openai.enqueue({ ...openAiReply({ text: "slow", input: 10, output: 10 }), delay_ms: 400 });
    const running = execute(h.app, ivy, await newSession(h.app, ivy));
    await sleep(200);
    // While it runs, the ledger holds its most possible cost.
    assert.equal((await ledger(h.app, userIdOf(ivy))).reserved, max);
    assert.equal((await running).status, 200);
    assert.equal(JSON.parse(h.openai.requests.at(-1)!.body).max_completion_tokens, MODEL_OUTPUT);
    // Then its real cost: 10 input and 10 output tokens.
    const after = await ledger(h.app, userIdOf(ivy));
    assert.equal(after.reserved, "0");
    assert.equal(after.spent, "0.0000075");
  });

  test("the spend counts the real cost; a monthly limit refuses too; the day's window resets at UTC midnight", async () => {
    let dave = await signUp(h.app);
    const cost = await inputCost(h.app, dave);
    // 1000 input + 1000 output tokens of gpt-4o-mini: 0.00015 + 0.0006.
    await setUserBudget(h.app.db, userIdOf(dave), {
      daily: "0.00075",
      monthly: "0.0015",
    }, h.app.clock.now());
    h.openai.enqueue(openAiReply({ text: "one", input: 1000, output: 1000 }));
    const id = await newSession(h.app, dave);
    assert.equal((await execute(h.app, dave, id)).status, 200);
    const refused = await execute(h.app, dave, await newSession(h.app, dave));
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.details.window, "daily");
    assert.equal(refused.body.error.details.spent, "0.00075");
    assert.equal(refused.body.error.details.estimated_cost, leastCost(cost));
    // The next UTC day: the daily window is new, the month still counts.
    const now = h.app.clock.now();
    const midnight = Date.UTC(
      now.getUTCFullYear(),
      now.getUTCMonth(),
      now.getUTCDate() + 1,
    );
    h.app.clock.advance(midnight - now.getTime() - 1);
    assert.equal(
      (await execute(h.app, dave, await newSession(h.app, dave))).status,
      429,
    );
    h.app.clock.advance(1);
    dave = await signIn(h.app, dave);
    h.openai.enqueue(openAiReply({ text: "two", input: 1000, output: 1000 }));
    assert.equal(
      (await execute(h.app, dave, await newSession(h.app, dave))).status,
      200,
    );
    // The next day again: the daily window admits, the month (0.0015 spent) does not.
    h.app.clock.advance(86_400_000);
    dave = await signIn(h.app, dave);
    const monthly = await execute(h.app, dave, await newSession(h.app, dave));
    assert.equal(monthly.status, 429);
    assert.equal(monthly.body.error.details.window, "monthly");
    assert.equal(monthly.body.error.details.spent, "0.0015");
    assert.equal(
      monthly.body.error.details.resets_at,
      "2026-02-01T00:00:00.000Z",
    );
  });

  test("16 concurrent calls against a limit of 3 most possible costs admit exactly 3", async () => {
    await concurrentCalls(h.app, h.app, h.openai);
  });

  test("a running call is never cut; its reservation counts until it ends", async () => {
    const erin = await signUp(h.app);
    const { input, max } = await callCosts(h.app, erin);
    // Room for one call's most possible cost and all but the smallest unit of a second call's least.
    const limit = new Big(max).plus(leastCost(input)).minus("1e-30").toFixed();
    await setUserBudget(h.app.db, userIdOf(erin), {
      daily: limit,
      monthly: null,
    }, h.app.clock.now());
    h.openai.enqueue({
      ...openAiReply({ text: "slow", input: 800, output: 2000 }),
      delay_ms: 400,
    });
    const slow = execute(h.app, erin, await newSession(h.app, erin));
    await sleep(150);
    // While it runs, its reservation counts: a second call is refused.
    const second = await execute(h.app, erin, await newSession(h.app, erin));
    assert.equal(second.status, 429);
    assert.equal(second.body.error.details.reserved, max);
    assert.equal(second.body.error.details.spent, "0");
    const done = await slow;
    assert.equal(done.status, 200);
    assert.equal(done.body.status, "completed");
    assert.equal(done.body.data.message.content, "slow");
    // Ended, it counts its real cost (800 input and 2000 output tokens): a call fits again.
    assert.equal((await ledger(h.app, userIdOf(erin))).spent, "0.00132");
    h.openai.enqueue(openAiReply({ text: "fast", input: 10, output: 10 }));
    assert.equal((await execute(h.app, erin, await newSession(h.app, erin))).status, 200);
    const { spent } = await ledger(h.app, userIdOf(erin));
    assert.ok(new Big(spent).lte(limit), `${spent} > ${limit}`);
  });

  test("a reservation counts until its instance is proven gone, not while it is only slow", async () => {
    const fay = await signUp(h.app);
    const cost = await inputCost(h.app, fay);
    await setUserBudget(h.app.db, userIdOf(fay), {
      daily: leastCost(cost),
      monthly: null,
    }, h.app.clock.now());
    const id = await newSession(h.app, fay);
    const now = h.app.clock.now().getTime();
    const at = (ms: number) => new Date(now + ms);
    // A reservation held by a turn of another instance, whose claim's lease already ran out
    // (the instance is slow: it beats, but has not renewed its claim).
    const runId = crypto.randomUUID();
    const turnId = crypto.randomUUID();
    await h.app.db.query(
      `INSERT INTO runs (id, session_id, state, run_input, current_turn, claimed_by, claim_expires,
                         created_at, updated_at)
       VALUES ($1, $2, 'running', '{}'::jsonb, $3, 'elsewhere', $4, $5, $5)`,
      [runId, id, turnId, at(-1), at(0)],
    );
    await h.app.db.query("INSERT INTO instances (id, heartbeat_at) VALUES ('elsewhere', $1)", [
      at(0),
    ]);
    await h.app.db.query(
      `INSERT INTO budget_ledger (id, user_id, spent, amount, instance, run_id, turn_id, at)
       VALUES ($1, $2, false, $3::numeric, 'elsewhere', $4, $5, $6)`,
      [crypto.randomUUID(), userIdOf(fay), cost, runId, turnId, at(0)],
    );
    const held = await execute(h.app, fay, await newSession(h.app, fay));
    assert.equal(held.status, 429);
    assert.equal(held.body.error.details.reserved, cost);
    // The instance (without a liveness lock: the embedded store's kind) stopped beating: gone.
    await h.app.db.query("UPDATE instances SET heartbeat_at = $1 WHERE id = 'elsewhere'", [
      at(-10_000),
    ]);
    h.openai.enqueue(openAiReply({ text: "ok", input: 0, output: 0 }));
    const admitted = await execute(h.app, fay, await newSession(h.app, fay));
    assert.equal(admitted.status, 200, JSON.stringify(admitted.body));
  });

  test("a budget given mid-month counts the month's spend before it", async () => {
    const hal = await signUp(h.app);
    h.openai.enqueue(openAiReply({ text: "before", input: 1000, output: 1000 }));
    assert.equal((await execute(h.app, hal, await newSession(h.app, hal))).status, 200);
    // 0.00075 spent without a budget; a monthly budget of 0.00075 has nothing left.
    await setUserBudget(
      h.app.db,
      userIdOf(hal),
      { daily: null, monthly: "0.00075" },
      h.app.clock.now(),
    );
    const refused = await execute(h.app, hal, await newSession(h.app, hal));
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.details.spent, "0.00075");
    // Changing the limit counts the spend once, not again.
    await setUserBudget(h.app.db, userIdOf(hal), { daily: null, monthly: "1" }, h.app.clock.now());
    h.openai.enqueue(openAiReply({ text: "after", input: 0, output: 0 }));
    assert.equal((await execute(h.app, hal, await newSession(h.app, hal))).status, 200);
    const usage = await call(h.app, "GET", "/api/v1/usage", { token: hal.token });
    assert.equal(usage.body.budget.monthly.spent, "0.00075");
  });

  test("a budget given, removed and given again counts the spend made in between", async () => {
    const ike = await signUp(h.app);
    await setUserBudget(h.app.db, userIdOf(ike), { daily: "1", monthly: null }, h.app.clock.now());
    h.openai.enqueue(openAiReply({ text: "with", input: 1000, output: 1000 }));
    assert.equal((await execute(h.app, ike, await newSession(h.app, ike))).status, 200);
    h.app.clock.advance(1000);
    await setUserBudget(h.app.db, userIdOf(ike), { daily: null, monthly: null }, h.app.clock.now());
    h.app.clock.advance(1000);
    h.openai.enqueue(openAiReply({ text: "without", input: 1000, output: 1000 }));
    assert.equal((await execute(h.app, ike, await newSession(h.app, ike))).status, 200);
    h.app.clock.advance(1000);
    // Given again: the day's window holds both calls, each counted once.
    await setUserBudget(h.app.db, userIdOf(ike), {
      daily: "0.0015",
      monthly: null,
    }, h.app.clock.now());
    const refused = await execute(h.app, ike, await newSession(h.app, ike));
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.details.spent, "0.0015");
    await setUserBudget(h.app.db, userIdOf(ike), { daily: "1", monthly: null }, h.app.clock.now());
    assert.equal((await ledger(h.app, userIdOf(ike))).spent, "0.0015");
  });

  test("a model without prices is never refused", async () => {
    const gil = await signUp(h.app);
    await setUserBudget(
      h.app.db,
      userIdOf(gil),
      { daily: "0", monthly: "0" },
      h.app.clock.now(),
    );
    h.ollama.enqueue({
      status: 200,
      headers: { "content-type": "application/json" },
      body: {
        model: "qwen3:8b",
        created_at: "2026-01-01T00:00:00Z",
        message: { role: "assistant", content: "local" },
        done: true,
        done_reason: "stop",
        prompt_eval_count: 10,
        eval_count: 3,
      },
    });
    const r = await call(
      h.app,
      "POST",
      `/api/v1/sessions/${await newSession(h.app, gil)}/execute`,
      {
        token: gil.token,
        body: {
          input: { text: PROMPT },
          policy: {
            ...policy,
            routing: { default: { model: "ollama/qwen3:8b" }, rules: [] },
          },
        },
      },
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });
});

/**
 * 16 calls at once of one user, alternating between two apps, against a limit
 * of 3 most possible costs: exactly 3 are made, and the spend stays within it.
 */
async function concurrentCalls(
  one: TestApp,
  two: TestApp,
  openai: FakeProvider,
) {
  const user = await signUp(one);
  const { max } = await callCosts(one, user);
  const limit = new Big(max).times(3).toFixed();
  await setUserBudget(
    one.db,
    userIdOf(user),
    { daily: null, monthly: limit },
    one.clock.now(),
  );
  const sessions = await Promise.all(
    Array.from(
      { length: 16 },
      (_, i) => newSession(i % 2 === 0 ? one : two, user),
    ),
  );
  const before = openai.requests.length;
  // Each admitted call runs long: admitted are the calls that fit while the first three are in
  // flight, none after.
  for (let i = 0; i < 3; i++) {
    openai.enqueue({
      ...openAiReply({ text: "ok", input: 800, output: 3000 }),
      delay_ms: 1500,
    });
  }
  const answers = await Promise.all(
    sessions.map((id, i) => execute(i % 2 === 0 ? one : two, user, id)),
  );
  const statuses = answers.map((a) => a.status).sort();
  assert.deepEqual(statuses, [...Array(3).fill(200), ...Array(13).fill(429)]);
  assert.equal(openai.requests.length - before, 3);
  const { spent, reserved, n } = await ledger(one, userIdOf(user));
  assert.equal(n, 3);
  assert.equal(reserved, "0");
  assert.ok(new Big(spent).lte(limit), `${spent} > ${limit}`);
}

const adminUrl = process.env.DATABASE_URL;
if (adminUrl) {
  describe("budgets on two instances sharing PostgreSQL", () => {
    const h = twoInstances(adminUrl);
    test("16 concurrent calls on one instance on PostgreSQL admit exactly 3", async () => {
      await concurrentCalls(h.one, h.one, h.openai);
    });
    test("16 concurrent calls across two instances against a limit of 3 input costs admit exactly 3", async () => {
      await concurrentCalls(h.one, h.two, h.openai);
    });
  });
}
