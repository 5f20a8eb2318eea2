import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { call, createTestApp, type TestApp } from "../support/app.ts";
import { dumpDatabase } from "../support/db_dump.ts";

let app: TestApp;
before(async () => {
  app = await createTestApp();
});
after(() => app.close());

describe("secrets at rest and in logs", () => {
  test("after a full auth flow no key, token or secret part appears in the database, the logs or an error body", async () => {
    const responses: string[] = [];
    const record = <T extends { body: unknown }>(
      r: T,
    ) => (responses.push(JSON.stringify(r.body)), r);

    const boot = record(await call(app, "POST", "/api/v1/auth/bootstrap"));
    const apiKey: string = boot.body.api_key;
    const signIn = record(
      await call(app, "POST", "/api/v1/auth/sign-in", { headers: { "x-router-api-key": apiKey } }),
    );
    const token: string = signIn.body.token;
    record(await call(app, "GET", "/api/v1/auth/me", { token }));
    const s = record(
      await call(app, "POST", "/api/v1/sessions", { token, body: { title: "t", key_id: "k" } }),
    );
    record(await call(app, "GET", `/api/v1/sessions/${s.body.session.id}`, { token }));
    // failures that involve the secrets
    record(
      await call(app, "POST", "/api/v1/auth/sign-in", {
        headers: { "x-router-api-key": `${apiKey}x` },
      }),
    );
    record(
      await call(app, "GET", "/api/v1/auth/me", { headers: { authorization: `Bearer ${token}x` } }),
    );
    record(await call(app, "GET", `/api/v1/sessions?api_key=${apiKey}`, { unchecked: true }));
    record(await call(app, "GET", `/api/v1/sessions?token=${token}`, { token, unchecked: true }));
    record(await call(app, "POST", "/api/v1/auth/sign-out", { token }));
    record(await call(app, "GET", "/api/v1/auth/me", { token }));

    const keySecret = apiKey.slice(apiKey.lastIndexOf("-") + 1);
    const tokenSecret = token.slice(33);
    const dump = await dumpDatabase(app.db);
    const logs = app.logLines.join("\n");
    const bodies = responses.slice(1, 2).concat(responses.slice(2)).join("\n"); // all but bootstrap's own answer
    for (
      const [name, secret] of [
        ["api key", apiKey],
        ["api key secret", keySecret],
        ["token", token],
        ["token secret", tokenSecret],
      ]
    ) {
      assert.equal(dump.includes(secret), false, `${name} in the database`);
      assert.equal(logs.includes(secret), false, `${name} in the logs`);
    }
    for (const [name, secret] of [["api key secret", keySecret], ["token secret", tokenSecret]]) {
      assert.equal(
        bodies.replace(signIn.body.token, "").includes(secret),
        false,
        `${name} in a response body`,
      );
    }
    // the digests are there instead
    const keyHash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(keySecret));
    const hex = Array.from(new Uint8Array(keyHash), (b) => b.toString(16).padStart(2, "0")).join(
      "",
    );
    assert.equal(dump.includes(hex), true, "the key is stored as its SHA-256 digest");
  });
});
