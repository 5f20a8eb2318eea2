import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { call, createTestApp, signUp, type TestApp } from "../support/app.ts";

let app: TestApp;
before(async () => {
  app = await createTestApp();
});
after(() => app.close());

function errorCode(result: { body: { error?: { code?: string } } }): string | undefined {
  return result.body.error?.code;
}

describe("bootstrap", () => {
  test("creates a new user with a UUIDv7 id and a key of the documented shape on every call", async () => {
    const a = await call(app, "POST", "/api/v1/auth/bootstrap");
    const b = await call(app, "POST", "/api/v1/auth/bootstrap");
    assert.equal(a.status, 201);
    assert.match(a.headers.get("content-type") ?? "", /application\/json/);
    assert.match(
      a.body.user_id,
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.equal(
      a.body.api_key.startsWith(`sk-router-api01-${a.body.user_id.replaceAll("-", "")}-`),
      true,
    );
    assert.match(a.body.api_key, /^sk-router-api01-[0-9a-f]{32}-[A-Za-z0-9]{64}$/);
    assert.notEqual(a.body.user_id, b.body.user_id);
    assert.notEqual(a.body.api_key, b.body.api_key);
  });

  test("answers 403 forbidden when bootstrap is disabled", async () => {
    const closed = await createTestApp({
      configure: (c) => void (c.auth.bootstrapEnabled = false),
    });
    try {
      const r = await call(closed, "POST", "/api/v1/auth/bootstrap");
      assert.equal(r.status, 403);
      assert.equal(errorCode(r), "forbidden");
    } finally {
      await closed.close();
    }
  });
});

describe("sign-in", () => {
  test("exchanges the API key for a token that expires after the configured lifetime", async () => {
    const boot = await call(app, "POST", "/api/v1/auth/bootstrap");
    const r = await call(app, "POST", "/api/v1/auth/sign-in", {
      headers: { "X-Router-Api-Key": boot.body.api_key },
    });
    assert.equal(r.status, 200);
    assert.match(r.body.token, /^[0-9a-f]{32}-[a-z0-9]{64}$/);
    const ttlMs = app.config.auth.tokenTtlSeconds * 1000;
    assert.equal(Date.parse(r.body.expires_at), app.clock.now().getTime() + ttlMs);
  });

  test("answers 401 missing_credentials without the key header", async () => {
    const r = await call(app, "POST", "/api/v1/auth/sign-in");
    assert.equal(r.status, 401);
    assert.equal(errorCode(r), "missing_credentials");
  });

  test("answers every bad key with the same 401 invalid_api_key", async () => {
    const { apiKey, userId } = await signUp(app);
    const other = "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee".replaceAll("-", "");
    const bad = [
      "nonsense",
      "sk-router-api01-",
      "sk-router-api01-nothex-secret",
      `sk-router-api01-${userId.replaceAll("-", "")}`,
      `sk-router-api01-${userId.replaceAll("-", "")}-`,
      `${apiKey.slice(0, -1)}${apiKey.endsWith("a") ? "b" : "a"}`,
      `sk-router-api01-${other}-${"x".repeat(64)}`,
      apiKey.replace("sk-router-api01-", "sk-router-api02-"),
    ];
    const bodies = new Set<string>();
    for (const key of bad) {
      const r = await call(app, "POST", "/api/v1/auth/sign-in", {
        headers: { "x-router-api-key": key },
      });
      assert.equal(r.status, 401, key);
      assert.equal(errorCode(r), "invalid_api_key", key);
      bodies.add(JSON.stringify(r.body));
    }
    assert.equal(bodies.size, 1, "every failure must look the same");
  });
});

describe("bearer tokens", () => {
  test("me answers the token's owner", async () => {
    const { token, userId } = await signUp(app);
    const r = await call(app, "GET", "/api/v1/auth/me", { token });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { user_id: userId });
  });

  test("a missing Authorization header is 401 missing_credentials", async () => {
    const r = await call(app, "GET", "/api/v1/auth/me");
    assert.equal(r.status, 401);
    assert.equal(errorCode(r), "missing_credentials");
  });

  test("malformed, unknown, wrong-secret and wrong-scheme tokens are 401 invalid_token", async () => {
    const { token, apiKey } = await signUp(app);
    const cases: Record<string, string> = {
      "another scheme": `Basic ${token}`,
      "no token": "Bearer ",
      "two spaces": `Bearer  ${token}`,
      "malformed": "Bearer abc",
      "the API key": `Bearer ${apiKey}`,
      "unknown id": `Bearer ${"0".repeat(32)}-${token.slice(33)}`,
      "wrong secret": `Bearer ${token.slice(0, 33)}${"z".repeat(64)}`,
    };
    for (const [name, header] of Object.entries(cases)) {
      const r = await call(app, "GET", "/api/v1/auth/me", { headers: { authorization: header } });
      assert.equal(r.status, 401, name);
      assert.equal(errorCode(r), "invalid_token", name);
    }
  });

  test("the scheme is case-insensitive", async () => {
    const { token } = await signUp(app);
    const r = await call(app, "GET", "/api/v1/auth/me", {
      headers: { authorization: `bEaReR ${token}` },
    });
    assert.equal(r.status, 200);
  });

  test("an expired token is 401 token_expired only for the genuine secret", async () => {
    const { token } = await signUp(app);
    app.clock.advance(app.config.auth.tokenTtlSeconds * 1000);
    try {
      const expired = await call(app, "GET", "/api/v1/auth/me", { token });
      assert.equal(expired.status, 401);
      assert.equal(errorCode(expired), "token_expired");
      const forged = await call(app, "GET", "/api/v1/auth/me", {
        token: `${token.slice(0, 33)}${"q".repeat(64)}`,
      });
      assert.equal(errorCode(forged), "invalid_token");
    } finally {
      app.clock.advance(-app.config.auth.tokenTtlSeconds * 1000);
    }
  });

  test("a token is valid until one millisecond before its expiry", async () => {
    const { token } = await signUp(app);
    app.clock.advance(app.config.auth.tokenTtlSeconds * 1000 - 1);
    try {
      assert.equal((await call(app, "GET", "/api/v1/auth/me", { token })).status, 200);
    } finally {
      app.clock.advance(-(app.config.auth.tokenTtlSeconds * 1000 - 1));
    }
  });
});

describe("sign-out", () => {
  test("revokes the token, which then answers token_revoked, and leaves the API key valid", async () => {
    const { token, apiKey } = await signUp(app);
    const out = await call(app, "POST", "/api/v1/auth/sign-out", { token });
    assert.equal(out.status, 200);
    assert.deepEqual(out.body, { revoked: true });

    const after = await call(app, "GET", "/api/v1/auth/me", { token });
    assert.equal(after.status, 401);
    assert.equal(errorCode(after), "token_revoked");
    const again = await call(app, "POST", "/api/v1/auth/sign-out", { token });
    assert.equal(errorCode(again), "token_revoked");

    const signIn = await call(app, "POST", "/api/v1/auth/sign-in", {
      headers: { "x-router-api-key": apiKey },
    });
    assert.equal(signIn.status, 200);
    assert.equal(
      (await call(app, "GET", "/api/v1/auth/me", { token: signIn.body.token })).status,
      200,
    );
  });

  test("revokes only the token it was sent with", async () => {
    const account = await signUp(app);
    const second = await call(app, "POST", "/api/v1/auth/sign-in", {
      headers: { "x-router-api-key": account.apiKey },
    });
    await call(app, "POST", "/api/v1/auth/sign-out", { token: account.token });
    assert.equal(
      (await call(app, "GET", "/api/v1/auth/me", { token: second.body.token })).status,
      200,
    );
  });

  test("requires a bearer token", async () => {
    const r = await call(app, "POST", "/api/v1/auth/sign-out");
    assert.equal(errorCode(r), "missing_credentials");
  });
});
