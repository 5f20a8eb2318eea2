/**
 * API keys (decisions.md §13): several per user, created, listed and revoked;
 * a revoked key and every token it signed in fail at once, on every instance
 * over the same PostgreSQL; an expired key fails; sign-in answers one body for
 * every wrong, revoked or expired key; the secret is never stored or logged.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { call, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { dumpDatabase } from "../support/db_dump.ts";
import { twoInstances } from "../support/engine_app.ts";

const KEY = /^sk-router-api01-[0-9a-f]{32}-[A-Za-z0-9]{64}$/;
const INVALID_KEY = {
  error: { code: "invalid_api_key", message: "invalid API key" },
};

const signIn = (app: TestApp, apiKey: string) =>
  call(app, "POST", "/api/v1/auth/sign-in", {
    headers: { "x-router-api-key": apiKey },
  });
const me = (app: TestApp, token: string) => call(app, "GET", "/api/v1/auth/me", { token });
const secretOf = (apiKey: string) => apiKey.slice(apiKey.lastIndexOf("-") + 1);

interface KeyInfo {
  key_id: string;
  name: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** The caller's key `keyId` as the list shows it (keys made in one clock tick list in id order). */
async function listed(
  app: TestApp,
  token: string,
  keyId: string,
): Promise<KeyInfo> {
  const r = await call(app, "GET", "/api/v1/auth/keys", { token });
  return r.body.keys.find((k: KeyInfo) => k.key_id === keyId);
}

let app: TestApp;
before(async () => {
  app = await createTestApp();
});
after(() => app.close());

describe("API keys", () => {
  test("bootstrap's key is the user's first, named bootstrap, and lists without a secret", async () => {
    const alice = await signUp(app);
    const r = await call(app, "GET", "/api/v1/auth/keys", {
      token: alice.token,
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "application/json");
    assert.equal(r.body.keys.length, 1);
    const [key] = r.body.keys;
    assert.equal(key.name, "bootstrap");
    assert.equal(key.revoked_at, null);
    assert.equal(key.expires_at, null);
    assert.equal(
      key.last_used_at,
      "2026-01-01T00:00:00.000Z",
      "signUp signed in with it",
    );
    assert.equal(
      JSON.stringify(r.body).includes(secretOf(alice.apiKey)),
      false,
    );
  });

  test("a new key is answered once in plaintext, signs in, and lists beside the first", async () => {
    const alice = await signUp(app);
    const created = await call(app, "POST", "/api/v1/auth/keys", {
      token: alice.token,
      body: { name: "laptop", expires_at: "2026-06-01T00:00:00Z" },
    });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get("content-type"), "application/json");
    assert.match(created.body.api_key, KEY);
    assert.ok(
      created.body.api_key.includes(alice.userId.replaceAll("-", "")),
      "names its user",
    );
    assert.equal(created.body.name, "laptop");
    assert.equal(created.body.expires_at, "2026-06-01T00:00:00.000Z");
    assert.equal(created.body.created_at, "2026-01-01T00:00:00.000Z");

    const signed = await signIn(app, created.body.api_key);
    assert.equal(signed.status, 200);
    assert.equal((await me(app, signed.body.token)).body.user_id, alice.userId);
    // A token outlives neither its TTL nor its key: here the TTL ends first.
    assert.equal(signed.body.expires_at, "2026-01-02T00:00:00.000Z");

    const list = await call(app, "GET", "/api/v1/auth/keys", {
      token: alice.token,
    });
    assert.deepEqual(list.body.keys.map((k: KeyInfo) => k.name).sort(), [
      "bootstrap",
      "laptop",
    ]);
    const laptop = await listed(app, alice.token, created.body.key_id);
    assert.equal(laptop.name, "laptop");
    assert.equal(laptop.last_used_at, "2026-01-01T00:00:00.000Z");
    // The old key still works.
    assert.equal((await signIn(app, alice.apiKey)).status, 200);
  });

  test("revoking a key refuses it and every token it signed in, and nothing else", async () => {
    const alice = await signUp(app);
    const created = await call(app, "POST", "/api/v1/auth/keys", {
      token: alice.token,
      body: { name: "ci" },
    });
    const ciToken = (await signIn(app, created.body.api_key)).body.token;
    assert.equal((await me(app, ciToken)).status, 200);

    const revoked = await call(
      app,
      "DELETE",
      `/api/v1/auth/keys/${created.body.key_id}`,
      {
        token: alice.token,
      },
    );
    assert.equal(revoked.status, 200);
    assert.deepEqual(revoked.body, { revoked: true });

    const refused = await me(app, ciToken);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, "token_revoked");
    const again = await signIn(app, created.body.api_key);
    assert.equal(again.status, 401);
    assert.deepEqual(again.body, INVALID_KEY);
    // The API key on a compatible surface is refused alike.
    const compat = await call(app, "GET", "/v1/models", {
      token: created.body.api_key,
    });
    assert.equal(compat.status, 401);
    assert.equal(compat.body.error.code, "invalid_api_key");

    // The bootstrap key and its token are untouched.
    assert.equal((await me(app, alice.token)).status, 200);
    assert.equal((await signIn(app, alice.apiKey)).status, 200);
    const ci = await listed(app, alice.token, created.body.key_id);
    assert.equal(ci.revoked_at, "2026-01-01T00:00:00.000Z");
    const bootstrapKey = (await call(app, "GET", "/api/v1/auth/keys", { token: alice.token })).body
      .keys.find((k: KeyInfo) => k.name === "bootstrap");
    assert.equal(bootstrapKey.revoked_at, null);
    // Revoking again answers the same; another user's key is not found.
    const twice = await call(
      app,
      "DELETE",
      `/api/v1/auth/keys/${created.body.key_id}`,
      {
        token: alice.token,
      },
    );
    assert.deepEqual(twice.body, { revoked: true });
    const bob = await signUp(app);
    for (const id of [bootstrapKey.key_id, "not-a-uuid"]) {
      const other = await call(app, "DELETE", `/api/v1/auth/keys/${id}`, {
        token: bob.token,
      });
      assert.equal(other.status, 404);
      assert.equal(other.body.error.code, "not_found");
    }
    assert.equal(
      (await signIn(app, alice.apiKey)).status,
      200,
      "bob revoked nothing of alice's",
    );
  });

  test("an expired key fails, and a token never outlives its key", async () => {
    const clocked = await createTestApp();
    try {
      const alice = await signUp(clocked);
      const created = await call(clocked, "POST", "/api/v1/auth/keys", {
        token: alice.token,
        body: { name: "short", expires_at: "2026-01-01T01:00:00.000Z" },
      });
      const signed = await signIn(clocked, created.body.api_key);
      assert.equal(signed.body.expires_at, "2026-01-01T01:00:00.000Z");
      clocked.clock.advance(60 * 60 * 1000);
      const expired = await signIn(clocked, created.body.api_key);
      assert.equal(expired.status, 401);
      assert.deepEqual(expired.body, INVALID_KEY);
      assert.equal(
        (await me(clocked, signed.body.token)).body.error.code,
        "token_expired",
      );
      assert.equal(
        (await signIn(clocked, alice.apiKey)).status,
        200,
        "the other key lives on",
      );
    } finally {
      await clocked.close();
    }
  });

  test("sign-in answers one body for a wrong, a revoked, an expired and an unknown user's key", async () => {
    const alice = await signUp(app);
    const make = async (body: unknown) =>
      (await call(app, "POST", "/api/v1/auth/keys", {
        token: alice.token,
        body,
      })).body;
    const revoked = await make({ name: "r" });
    await call(app, "DELETE", `/api/v1/auth/keys/${revoked.key_id}`, {
      token: alice.token,
    });
    const wrong = alice.apiKey.slice(0, -1) +
      (alice.apiKey.endsWith("a") ? "b" : "a");
    const unknownUser = alice.apiKey.replace(/api01-[0-9a-f]{4}/, "api01-ffff");
    const answers = [];
    for (
      const key of [wrong, revoked.api_key, unknownUser, "sk-router-api01-nope"]
    ) {
      const r = await signIn(app, key);
      answers.push([r.status, JSON.stringify(r.body)]);
    }
    const clocked = await createTestApp();
    try {
      const bob = await signUp(clocked);
      const short = await call(clocked, "POST", "/api/v1/auth/keys", {
        token: bob.token,
        body: { name: "s", expires_at: "2026-01-01T00:00:01Z" },
      });
      clocked.clock.advance(1000);
      const r = await signIn(clocked, short.body.api_key);
      answers.push([r.status, JSON.stringify(r.body)]);
    } finally {
      await clocked.close();
    }
    for (const answer of answers) {
      assert.deepEqual(answer, [401, JSON.stringify(INVALID_KEY)]);
    }
  });

  test("a key's name and expiry are checked: 422 naming the field", async () => {
    const alice = await signUp(app);
    const cases: [unknown, string][] = [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "   " }, "name"],
      [{ name: "x".repeat(101) }, "name"],
      [{ name: 5 }, "name"],
      [{ name: "k", expires_at: "tomorrow" }, "expires_at"],
      [{ name: "k", expires_at: 1767225600 }, "expires_at"],
      [{ name: "k", expires_at: "2025-12-31T23:59:59Z" }, "expires_at"],
      [{ name: "k", expires_at: "2026-01-01T00:00:00Z" }, "expires_at"],
    ];
    for (const [body, path] of cases) {
      const r = await call(app, "POST", "/api/v1/auth/keys", {
        token: alice.token,
        body,
      });
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.equal(r.body.error.code, "invalid_request");
      assert.equal(r.body.error.details.path, path, JSON.stringify(body));
    }
    const ok = await call(app, "POST", "/api/v1/auth/keys", {
      token: alice.token,
      body: { name: "k", expires_at: null },
    });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.expires_at, null);
  });

  test("the keys endpoints want a session token", async () => {
    const alice = await signUp(app);
    assert.equal((await call(app, "GET", "/api/v1/auth/keys")).status, 401);
    const withKey = await call(app, "GET", "/api/v1/auth/keys", {
      token: alice.apiKey,
    });
    assert.equal(withKey.body.error.code, "invalid_token");
  });

  test("a key used on a compatible surface records its use, at most once a minute", async () => {
    const clocked = await createTestApp();
    try {
      const alice = await signUp(clocked);
      const created = await call(clocked, "POST", "/api/v1/auth/keys", {
        token: alice.token,
        body: { name: "sdk" },
      });
      const lastUsed = async () =>
        (await listed(clocked, alice.token, created.body.key_id)).last_used_at;
      assert.equal(await lastUsed(), null);
      const models = () => call(clocked, "GET", "/v1/models", { token: created.body.api_key });
      assert.equal((await models()).status, 200);
      assert.equal(await lastUsed(), "2026-01-01T00:00:00.000Z");
      clocked.clock.advance(30_000);
      await models();
      assert.equal(
        await lastUsed(),
        "2026-01-01T00:00:00.000Z",
        "not again within the minute",
      );
      clocked.clock.advance(30_000);
      await models();
      assert.equal(await lastUsed(), "2026-01-01T00:01:00.000Z");
    } finally {
      await clocked.close();
    }
  });

  test("no key secret reaches the database, the logs or any answer but its creation", async () => {
    const alice = await signUp(app);
    const created = await call(app, "POST", "/api/v1/auth/keys", {
      token: alice.token,
      body: { name: "secret" },
    });
    const apiKey: string = created.body.api_key;
    const bodies: string[] = [];
    const record = (r: { body: unknown }) => bodies.push(JSON.stringify(r.body));
    record(await signIn(app, apiKey));
    record(await signIn(app, `${apiKey}x`));
    record(await call(app, "GET", "/v1/models", { token: apiKey }));
    record(await call(app, "GET", "/api/v1/auth/keys", { token: alice.token }));
    record(
      await call(app, "DELETE", `/api/v1/auth/keys/${created.body.key_id}`, {
        token: alice.token,
      }),
    );
    record(await signIn(app, apiKey));
    record(await call(app, "GET", "/api/v1/auth/keys", { token: alice.token }));

    const secret = secretOf(apiKey);
    const dump = await dumpDatabase(app.db);
    const logs = app.logLines.join("\n");
    for (
      const [where, text] of [["database", dump], ["logs", logs], [
        "answers",
        bodies.join(),
      ]]
    ) {
      assert.equal(
        text.includes(secret),
        false,
        `the key's secret in the ${where}`,
      );
    }
    const digest = Array.from(
      new Uint8Array(
        await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret)),
      ),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    assert.equal(
      dump.includes(digest),
      true,
      "the key is stored as its SHA-256 digest",
    );
  });
});

const adminUrl = process.env.DATABASE_URL;
if (adminUrl) {
  describe("API keys on two instances over one PostgreSQL", () => {
    const h = twoInstances(adminUrl);

    test("a key revoked on one instance and its tokens fail at once on the other", async () => {
      const created = await call(h.one, "POST", "/api/v1/auth/keys", {
        token: h.alice.token,
        body: { name: "shared" },
      });
      const token = (await signIn(h.two, created.body.api_key)).body.token;
      assert.equal((await me(h.two, token)).status, 200);
      const compat = () => call(h.two, "GET", "/v1/models", { token: created.body.api_key });
      assert.equal((await compat()).status, 200);

      const revoked = await call(
        h.one,
        "DELETE",
        `/api/v1/auth/keys/${created.body.key_id}`,
        {
          token: h.alice.token,
        },
      );
      assert.equal(revoked.status, 200);

      assert.equal((await me(h.two, token)).body.error.code, "token_revoked");
      assert.deepEqual(
        (await signIn(h.two, created.body.api_key)).body,
        INVALID_KEY,
      );
      assert.equal((await compat()).body.error.code, "invalid_api_key");
      assert.equal(
        (await me(h.two, h.alice.token)).status,
        200,
        "the bootstrap token lives on",
      );
    });
  });
}
