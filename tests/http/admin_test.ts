/**
 * The operator (decisions.md §13): `/api/v1/admin/*` exists only while
 * `router.auth.operator_token` is set, answers to that token alone (wrong ones
 * count against the client address's limit), and adds, lists, renames,
 * disables, enables and budgets users. A disabled user's keys and tokens are
 * refused until it is enabled again.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { uuidv7 } from "../../src/platform/ids.ts";
import { call, type CallResult, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { assertMatchesOpenApi } from "../support/openapi.ts";

const OPERATOR = "operator-token-0123456789";
const users = "/api/v1/admin/users";

const signIn = (app: TestApp, apiKey: string) =>
  call(app, "POST", "/api/v1/auth/sign-in", {
    headers: { "x-router-api-key": apiKey },
  });
const me = (app: TestApp, token: string) => call(app, "GET", "/api/v1/auth/me", { token });
const admin = (app: TestApp, method: string, path: string, body?: unknown) =>
  call(app, method, path, { token: OPERATOR, body });

describe("operator configuration", () => {
  test("router.auth.operator_token is unset by default and read from ROUTER_AUTH_OPERATOR_TOKEN", async () => {
    assert.equal((await loadConfig([], {})).auth.operatorToken, undefined);
    const config = await loadConfig([], {
      ROUTER_AUTH_OPERATOR_TOKEN: OPERATOR,
    });
    assert.equal(config.auth.operatorToken, OPERATOR);
  });

  test("an operator token under 16 characters stops start-up without quoting it", async () => {
    await assert.rejects(
      loadConfig([], { ROUTER_AUTH_OPERATOR_TOKEN: "short-secret" }),
      (e: Error) =>
        e instanceof ConfigError && e.key === "router.auth.operator_token" &&
        !e.message.includes("short-secret"),
    );
  });
});

describe("admin paths without an operator token", () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp();
  });
  after(() => app.close());

  test("answer 404 not_found as an unknown path, whatever the method or credentials", async () => {
    const alice = await signUp(app);
    for (
      const [method, path, token] of [
        ["GET", users, undefined],
        ["POST", users, OPERATOR],
        ["PUT", `${users}/${alice.userId}`, alice.token],
        ["DELETE", users, OPERATOR],
        ["GET", "/api/v1/admin/nothing", OPERATOR],
      ] as const
    ) {
      const body = method === "GET" ? undefined : {};
      const r = await call(app, method, path, { token, body, unchecked: true });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body.error.code, "not_found");
      assert.equal(r.body.error.message, `no such endpoint: ${path}`);
    }
  });
});

describe("the operator", () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp({
      configure: (c) => void (c.auth.operatorToken = OPERATOR),
    });
  });
  after(() => app.close());

  test("no token is 401 missing_credentials, a wrong one 401 invalid_token, a user's token too", async () => {
    const alice = await signUp(app);
    const none = await call(app, "GET", users);
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, "missing_credentials");
    for (
      const token of [
        `${OPERATOR}x`,
        OPERATOR.slice(0, -1),
        alice.token,
        alice.apiKey,
      ]
    ) {
      const r = await call(app, "GET", users, { token });
      assert.equal(r.status, 401);
      assert.equal(r.body.error.code, "invalid_token");
    }
    const basic = await call(app, "GET", users, {
      headers: { authorization: `Basic ${OPERATOR}` },
    });
    assert.equal(basic.body.error.code, "invalid_token");
  });

  test("adds a user whose key signs in, lists it, renames it", async () => {
    const added = await admin(app, "POST", users, { name: "Ada" });
    assert.equal(added.status, 201);
    assert.equal(added.headers.get("content-type"), "application/json");
    assert.equal(added.body.name, "Ada");
    const signed = await signIn(app, added.body.api_key);
    assert.equal(signed.status, 200);
    assert.equal(
      (await me(app, signed.body.token)).body.user_id,
      added.body.user_id,
    );
    const keys = await call(app, "GET", "/api/v1/auth/keys", {
      token: signed.body.token,
    });
    assert.deepEqual(keys.body.keys.map((k: { name: string }) => k.name), [
      "initial",
    ]);

    const list = await admin(app, "GET", users);
    assert.equal(list.status, 200);
    const ada = list.body.users.find((u: { user_id: string }) => u.user_id === added.body.user_id);
    assert.deepEqual(ada, {
      user_id: added.body.user_id,
      name: "Ada",
      created_at: "2026-01-01T00:00:00.000Z",
      last_seen_at: "2026-01-01T00:00:00.000Z",
      disabled: false,
      budget: null,
      spend: { day: "0", month: "0" },
    });

    const renamed = await admin(app, "PUT", `${users}/${added.body.user_id}`, {
      name: "Ada L.",
    });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.user.name, "Ada L.");
    assert.equal(renamed.body.user.disabled, false);
  });

  test("a bootstrap user has no name until the operator gives one, and was never seen without a sign-in", async () => {
    const boot = await call(app, "POST", "/api/v1/auth/bootstrap");
    const list = await admin(app, "GET", users);
    const row = list.body.users.find((u: { user_id: string }) => u.user_id === boot.body.user_id);
    assert.equal(row.name, null);
    assert.equal(row.last_seen_at, null);
  });

  test("disabling a user refuses its keys and tokens until it is enabled again", async () => {
    const bob = await signUp(app);
    const extra = await call(app, "POST", "/api/v1/auth/keys", {
      token: bob.token,
      body: { name: "second" },
    });
    const off = await admin(app, "PUT", `${users}/${bob.userId}`, {
      disabled: true,
    });
    assert.equal(off.body.user.disabled, true);

    assert.equal((await me(app, bob.token)).body.error.code, "token_revoked");
    for (const key of [bob.apiKey, extra.body.api_key]) {
      const r = await signIn(app, key);
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, {
        error: { code: "invalid_api_key", message: "invalid API key" },
      });
      const compat = await call(app, "GET", "/v1/models", { token: key });
      assert.equal(compat.body.error.code, "invalid_api_key");
    }
    const session = await call(app, "POST", "/api/v1/sessions", {
      token: bob.token,
      body: { title: "t" },
    });
    assert.equal(session.status, 401);

    const on = await admin(app, "PUT", `${users}/${bob.userId}`, {
      disabled: false,
    });
    assert.equal(on.body.user.disabled, false);
    assert.equal(
      (await me(app, bob.token)).status,
      200,
      "the token comes back",
    );
    assert.equal((await signIn(app, bob.apiKey)).status, 200);
    assert.equal((await signIn(app, extra.body.api_key)).status, 200);
  });

  test("sets, keeps and removes a budget; amounts are decimal strings", async () => {
    const carol = await signUp(app);
    const put = (body: unknown) => admin(app, "PUT", `${users}/${carol.userId}`, body);
    let r = await put({ budget: { daily: "5", monthly: "100.50" } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.user.budget, { daily: "5", monthly: "100.5" });
    r = await put({ budget: { daily: "0.0000000001" } });
    assert.deepEqual(r.body.user.budget, {
      daily: "0.0000000001",
      monthly: "100.5",
    }, "kept");
    r = await put({ budget: { monthly: null } });
    assert.deepEqual(r.body.user.budget, {
      daily: "0.0000000001",
      monthly: null,
    });
    r = await put({ name: "Carol" });
    assert.deepEqual(r.body.user.budget, {
      daily: "0.0000000001",
      monthly: null,
    });
    r = await put({ budget: null });
    assert.equal(r.body.user.budget, null);

    const bad: [unknown, string][] = [
      [{ budget: { daily: 5 } }, "budget.daily"],
      [{ budget: { monthly: "-1" } }, "budget.monthly"],
      [{ budget: { daily: "1e3" } }, "budget.daily"],
      [{ budget: { daily: "1234567890123" } }, "budget.daily"],
      [{ budget: { daily: "1.12345678901" } }, "budget.daily"],
      [{ budget: { daily: "" } }, "budget.daily"],
      [{ budget: "5" }, "budget"],
      [{ disabled: "yes" }, "disabled"],
      [{ name: "" }, "name"],
    ];
    for (const [body, path] of bad) {
      const b = await put(body);
      assert.equal(b.status, 422, JSON.stringify(body));
      assert.equal(b.body.error.code, "invalid_request");
      assert.equal(b.body.error.details.path, path, JSON.stringify(body));
    }
    const number = await put({ budget: { daily: 5 } });
    assert.match(
      number.body.error.message,
      /budget\.daily must be a decimal string/,
    );
    const widest = await put({ budget: { daily: "123456789012.1234567890" } });
    assert.deepEqual(widest.body.user.budget, {
      daily: "123456789012.123456789",
      monthly: null,
    });
  });

  test("an unknown user is 404; a body that is not a user's name is 422", async () => {
    for (const id of [uuidv7(), "nope"]) {
      const r = await admin(app, "PUT", `${users}/${id}`, { name: "x" });
      assert.equal(r.status, 404);
      assert.equal(r.body.error.code, "not_found");
    }
    const r = await admin(app, "POST", users, { name: 5 });
    assert.equal(r.status, 422);
    assert.equal(r.body.error.details.path, "name");
  });

  test("spend is the user's usage cost since the start of the UTC day and month", async () => {
    const clocked = await createTestApp({
      configure: (c) => void (c.auth.operatorToken = OPERATOR),
    });
    try {
      const dave = await signUp(clocked);
      const session = await call(clocked, "POST", "/api/v1/sessions", {
        token: dave.token,
        body: { title: "spend" },
      });
      const at = async (iso: string, cost: string | null) =>
        await clocked.db.query(
          `INSERT INTO usage_events (session_id, trace_id, provider, model, task_type, cost,
                                     created_at)
           VALUES ($1, $2, 'openai', 'gpt-4o', 'chat', $3::numeric, $4)`,
          [session.body.session.id, uuidv7(), cost, new Date(iso)],
        );
      await at("2025-12-31T23:59:59.999Z", "7");
      await at("2026-01-01T00:00:00.000Z", "0.10");
      await at("2026-01-14T23:59:59.999Z", "0.000000000000000001");
      await at("2026-01-15T00:00:00.000Z", "1.25");
      await at("2026-01-15T11:00:00.000Z", null);
      await at("2026-01-15T11:30:00.000Z", "2");
      clocked.clock.advance(
        Date.parse("2026-01-15T12:00:00Z") - clocked.clock.now().getTime(),
      );
      const list = await admin(clocked, "GET", users);
      const row = list.body.users.find((u: { user_id: string }) => u.user_id === dave.userId);
      assert.deepEqual(row.spend, {
        day: "3.25",
        month: "3.350000000000000001",
      });
      // With a budget, spend is what the budget counts: deleting the session refunds nothing.
      const budgeted = await admin(clocked, "PUT", `${users}/${dave.userId}`, {
        budget: { monthly: "100" },
      });
      assert.equal(budgeted.status, 200, JSON.stringify(budgeted.body));
      await call(clocked, "DELETE", `/api/v1/sessions/${session.body.session.id}`, {
        token: dave.token,
      });
      const after = await admin(clocked, "GET", users);
      const kept = after.body.users.find((u: { user_id: string }) => u.user_id === dave.userId);
      assert.deepEqual(kept.spend, { day: "3.25", month: "3.350000000000000001" });
      assert.deepEqual(kept.budget, { daily: null, monthly: "100" });
    } finally {
      await clocked.close();
    }
  });
});

describe("wrong operator tokens and the address limit", () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp({
      configure: (c) => {
        c.auth.operatorToken = OPERATOR;
        Object.assign(c.limits.rate, {
          anonymousBurst: 3,
          anonymousPerMinute: 1,
        });
      },
    });
  });
  after(() => app.close());

  async function from(address: string, token: string): Promise<CallResult> {
    const response = await app.handler(
      new Request(`http://127.0.0.1${users}`, {
        headers: { authorization: `Bearer ${token}` },
      }),
      { remoteAddress: address },
    );
    const body = await response.json();
    assertMatchesOpenApi("GET", users, {
      status: response.status,
      headers: response.headers,
      body,
    });
    return { status: response.status, headers: response.headers, body };
  }

  test("a burst of wrong tokens from one address gets 429; the right token and other addresses do not", async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await from("203.0.113.7", `wrong-${i}`)).status);
    }
    assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
    const limited = await from("203.0.113.7", "wrong-again");
    assert.equal(limited.body.error.code, "rate_limited");
    assert.ok(Number(limited.headers.get("retry-after")) >= 1);
    assert.equal(
      (await from("203.0.113.8", "wrong")).status,
      401,
      "another address",
    );
    for (let i = 0; i < 5; i++) {
      assert.equal(
        (await from("203.0.113.9", OPERATOR)).status,
        200,
        "right tokens cost nothing",
      );
    }
  });
});
