import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Config } from "../../src/config.ts";
import { refillMs, takeToken } from "../../src/core/token_bucket.ts";
import type { Connection } from "../../src/http/client_address.ts";
import { createRateLimiter } from "../../src/http/rate_limiter.ts";
import { call, type CallResult, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { assertMatchesOpenApi } from "../support/openapi.ts";

/** One request through the handler as if it came from `address`, checked against the OpenAPI document. */
async function from(
  app: TestApp,
  address: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<CallResult> {
  const connection: Connection = { remoteAddress: address };
  const response = await app.handler(
    new Request(`http://127.0.0.1${path}`, { method, headers }),
    connection,
  );
  const text = await response.text();
  const body = text === "" ? undefined : JSON.parse(text);
  assertMatchesOpenApi(method, path, { status: response.status, headers: response.headers, body });
  return { status: response.status, headers: response.headers, body };
}

const bootstrapFrom = (app: TestApp, address: string, headers?: Record<string, string>) =>
  from(app, address, "POST", "/api/v1/auth/bootstrap", headers);

function limitedApp(rate: Partial<Config["limits"]["rate"]>): Promise<TestApp> {
  return createTestApp({ configure: (c) => Object.assign(c.limits.rate, rate) });
}

function assertLimited(result: CallResult, retryAfter: number) {
  assert.equal(result.status, 429);
  assert.equal(result.headers.get("retry-after"), String(retryAfter));
  assert.equal(result.body.error.code, "rate_limited");
  assert.equal(result.body.error.details.retry_after_seconds, retryAfter);
}

describe("token bucket", () => {
  const rate = { perMinute: 60, burst: 3 };

  test("a bucket gives its burst at once, then one token per refill interval", () => {
    const bucket = { tokens: rate.burst, at: 0 };
    assert.deepEqual([0, 0, 0].map(() => takeToken(bucket, rate, 0)), [0, 0, 0]);
    assert.equal(takeToken(bucket, rate, 0), 1000);
    assert.equal(takeToken(bucket, rate, 400), 600);
    assert.equal(takeToken(bucket, rate, 1000), 0);
    assert.equal(takeToken(bucket, rate, 1000), 1000);
  });

  test("a bucket never fills beyond its burst, however long it was idle", () => {
    const bucket = { tokens: 0, at: 0 };
    assert.equal(takeToken(bucket, rate, 3_600_000), 0);
    assert.equal(bucket.tokens, rate.burst - 1);
    assert.equal(refillMs(rate), 3000);
  });
});

describe("rate limiter memory", () => {
  test("buckets idle long enough to be full again are dropped", () => {
    const limiter = createRateLimiter({ perMinute: 60, burst: 2 });
    for (let i = 0; i < 50; i++) limiter.take(`10.0.0.${i}`, i);
    assert.equal(limiter.size, 50);
    // Each take after the refill time drops up to two idle buckets: the map drains as traffic flows.
    for (let i = 0; i < 25; i++) limiter.take("10.0.1.1", 10_000 + i);
    assert.equal(limiter.size, 1);
  });

  test("the number of buckets never exceeds its bound, even under a spray of addresses", () => {
    const limiter = createRateLimiter({ perMinute: 1, burst: 1 }, 100);
    for (let i = 0; i < 10_000; i++) limiter.take(`address ${i}`, 0);
    assert.ok(limiter.size <= 100, `size ${limiter.size}`);
    // The most recent keys are kept: the last address is still limited.
    assert.ok(limiter.take("address 9999", 0) > 0);
  });
});

describe("service-side rate limits", () => {
  test("bootstrap from one address beyond the burst answers 429 rate_limited with Retry-After", async () => {
    const app = await limitedApp({ anonymousBurst: 3, anonymousPerMinute: 6 });
    try {
      for (let i = 0; i < 3; i++) {
        assert.equal((await bootstrapFrom(app, "203.0.113.7")).status, 201);
      }
      assertLimited(await bootstrapFrom(app, "203.0.113.7"), 10);
      // Another address has its own bucket.
      assert.equal((await bootstrapFrom(app, "203.0.113.8")).status, 201);
      // One token comes back after 60/6 = 10 s.
      app.clock.advance(10_000);
      assert.equal((await bootstrapFrom(app, "203.0.113.7")).status, 201);
      assert.equal((await bootstrapFrom(app, "203.0.113.7")).status, 429);
    } finally {
      await app.close();
    }
  });

  test("sign-in shares the address bucket, so keys cannot be tried at full speed", async () => {
    const app = await limitedApp({ anonymousBurst: 2 });
    try {
      const boot = await bootstrapFrom(app, "198.51.100.1");
      const signIn = (key: string) =>
        from(app, "198.51.100.1", "POST", "/api/v1/auth/sign-in", { "x-router-api-key": key });
      // A different last character (a random key may already end in "x").
      const key: string = boot.body.api_key;
      assert.equal((await signIn(key.slice(0, -1) + (key.endsWith("x") ? "y" : "x"))).status, 401);
      assert.equal((await signIn(boot.body.api_key)).status, 429);
    } finally {
      await app.close();
    }
  });

  test("wrong bearer tokens cost their address, right ones do not", async () => {
    const app = await limitedApp({ anonymousBurst: 2 });
    try {
      const account = await signUp(app);
      const me = (token: string) =>
        from(app, "192.0.2.9", "GET", "/api/v1/auth/me", { authorization: `Bearer ${token}` });
      const wrong = account.token.slice(0, -1) + (account.token.endsWith("a") ? "b" : "a");
      for (let i = 0; i < 5; i++) assert.equal((await me(account.token)).status, 200);
      assert.equal((await me(wrong)).status, 401);
      assert.equal((await me(wrong)).status, 401);
      assert.equal((await me(wrong)).status, 429);
    } finally {
      await app.close();
    }
  });

  test("authenticated requests are limited per user, whatever the address", async () => {
    const app = await limitedApp({ userBurst: 3, userPerMinute: 60 });
    try {
      const alice = await signUp(app);
      const bob = await signUp(app);
      const list = (account: typeof alice, address: string) =>
        from(app, address, "GET", "/api/v1/sessions", { authorization: `Bearer ${account.token}` });
      assert.equal((await list(alice, "10.0.0.1")).status, 200);
      assert.equal((await list(alice, "10.0.0.2")).status, 200);
      assert.equal((await list(alice, "10.0.0.3")).status, 200);
      assertLimited(await list(alice, "10.0.0.4"), 1);
      assert.equal((await list(bob, "10.0.0.1")).status, 200);
      // In process (no address) the per-user limit holds too.
      const created = await call(app, "POST", "/api/v1/sessions", {
        token: alice.token,
        body: { title: "over the limit" },
      });
      assertLimited(created, 1);
    } finally {
      await app.close();
    }
  });

  test("X-Forwarded-For is ignored unless trusted, then its last entry is the address", async () => {
    const ignored = await limitedApp({ anonymousBurst: 1 });
    try {
      const spoofed = (n: number) => ({ "x-forwarded-for": `10.9.9.${n}` });
      assert.equal((await bootstrapFrom(ignored, "127.0.0.1", spoofed(1))).status, 201);
      assert.equal((await bootstrapFrom(ignored, "127.0.0.1", spoofed(2))).status, 429);
    } finally {
      await ignored.close();
    }
    const trusted = await limitedApp({ anonymousBurst: 1, trustForwardedFor: true });
    try {
      const via = (chain: string) =>
        bootstrapFrom(trusted, "127.0.0.1", { "x-forwarded-for": chain });
      assert.equal((await via("1.1.1.1, 203.0.113.1")).status, 201);
      // A client can prepend anything; the proxy's own entry decides.
      assert.equal((await via("1.1.1.2, 203.0.113.1")).status, 429);
      assert.equal((await via("203.0.113.2")).status, 201);
    } finally {
      await trusted.close();
    }
  });

  test("limits switched off never answer 429", async () => {
    const app = await limitedApp({ enabled: false, anonymousBurst: 1, userBurst: 1 });
    try {
      for (let i = 0; i < 5; i++) {
        assert.equal((await bootstrapFrom(app, "203.0.113.7")).status, 201);
      }
      const account = await signUp(app);
      for (let i = 0; i < 5; i++) {
        assert.equal(
          (await call(app, "GET", "/api/v1/sessions", { token: account.token })).status,
          200,
        );
      }
    } finally {
      await app.close();
    }
  });

  test("the default limits leave a normal client alone", async () => {
    const app = await createTestApp();
    try {
      const users = [];
      for (let i = 0; i < 10; i++) users.push(await signUp(app));
      for (let i = 0; i < 200; i++) {
        const r = await from(app, "127.0.0.1", "GET", "/api/v1/sessions", {
          authorization: `Bearer ${users[i % 10].token}`,
        });
        assert.equal(r.status, 200);
      }
    } finally {
      await app.close();
    }
  });
});
