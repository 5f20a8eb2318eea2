import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";

const LISTED = "https://console.example.com";
const OTHER = "https://evil.example.net";

let app: TestApp;
let closed: TestApp;
let account: Account;
before(async () => {
  app = await createTestApp({
    configure: (c) => void (c.http.corsOrigins = [LISTED, "http://localhost:5173"]),
  });
  closed = await createTestApp();
  account = await signUp(app);
});
after(async () => {
  await app.close();
  await closed.close();
});

const preflight = (target: TestApp, origin: string, path = "/api/v1/sessions") =>
  call(target, "OPTIONS", path, {
    unchecked: true,
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers":
        "authorization, content-type, x-router-provider-openai-api-key",
    },
  });

const corsHeaders = (headers: Headers) =>
  [...headers.keys()].filter((name) => name.startsWith("access-control-"));

describe("CORS for listed origins", () => {
  test("a preflight from a listed origin is 204 with the methods and the requested headers", async () => {
    const r = await preflight(app, LISTED);
    assert.equal(r.status, 204);
    assert.equal(r.body, undefined);
    assert.equal(r.headers.get("access-control-allow-origin"), LISTED);
    assert.equal(r.headers.get("access-control-allow-methods"), "GET, POST, PUT, DELETE");
    assert.equal(
      r.headers.get("access-control-allow-headers"),
      "authorization, content-type, x-router-provider-openai-api-key",
    );
    assert.equal(r.headers.get("access-control-max-age"), "600");
    assert.match(r.headers.get("vary") ?? "", /Origin/);
  });

  test("an answer to a listed origin names it and exposes the headers a client reads", async () => {
    const r = await call(app, "GET", "/api/v1/auth/me", {
      token: account.token,
      headers: { origin: LISTED },
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("access-control-allow-origin"), LISTED);
    assert.equal(
      r.headers.get("access-control-expose-headers"),
      "Retry-After, Allow, X-Router-Session-Id, X-Router-Trace-Id, X-Request-Id, Request-Id, Server-Timing",
    );
    assert.equal(r.headers.get("timing-allow-origin"), LISTED);
    // Its phases: authentication, a wait for the loop's time for starts if it had one, the answer.
    assert.match(
      r.headers.get("server-timing") ?? "",
      /^auth;dur=\d+\.\d\d(, queue;dur=\d+\.\d\d)?, answer;dur=\d+\.\d\d$/,
    );
    assert.match(r.headers.get("vary") ?? "", /Origin/);
    assert.deepEqual(r.body, { user_id: account.userId });
  });

  test("errors carry the headers too, so a browser client can read the error envelope", async () => {
    const r = await call(app, "GET", "/api/v1/auth/me", { headers: { origin: LISTED } });
    assert.equal(r.status, 401);
    assert.equal(r.body.error.code, "missing_credentials");
    assert.equal(r.headers.get("access-control-allow-origin"), LISTED);
  });

  test("another origin gets no preflight answer and no Access-Control header", async () => {
    const pre = await preflight(app, OTHER);
    assert.equal(pre.status, 405, "OPTIONS is no method of the API");
    assert.deepEqual(corsHeaders(pre.headers), []);
    const r = await call(app, "GET", "/api/v1/auth/me", {
      token: account.token,
      headers: { origin: OTHER },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(corsHeaders(r.headers), []);
    assert.match(r.headers.get("vary") ?? "", /Origin/, "caches keep answers per origin apart");
  });

  test("an origin differing only by scheme or port is another origin", async () => {
    for (const origin of ["http://console.example.com", "https://console.example.com:8443"]) {
      const r = await preflight(app, origin);
      assert.equal(r.status, 405, origin);
      assert.deepEqual(corsHeaders(r.headers), [], origin);
    }
  });
});

describe("CORS by default", () => {
  test("with no origins configured nothing opens, not even for a would-be origin", async () => {
    const pre = await preflight(closed, LISTED);
    assert.equal(pre.status, 405);
    assert.deepEqual(corsHeaders(pre.headers), []);
    const r = await call(closed, "GET", "/status", { headers: { origin: LISTED } });
    assert.equal(r.status, 200);
    assert.deepEqual(corsHeaders(r.headers), []);
    assert.equal(r.headers.get("vary"), null);
  });
});
