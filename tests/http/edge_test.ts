import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";

let app: TestApp;
let account: Account;
before(async () => {
  app = await createTestApp({ configure: (c) => void (c.limits.maxRequestBodyBytes = 1024) });
  account = await signUp(app);
});
after(() => app.close());

describe("routing", () => {
  test("GET /status answers ok and the version without authentication", async () => {
    const r = await call(app, "GET", "/status");
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type") ?? "", /^application\/json/);
    assert.deepEqual(r.body, { status: "ok", version: "0.1.0-alpha.1" });
  });

  test("unknown paths are 404 not_found before authentication, /api/v1/status included", async () => {
    for (
      const path of ["/api/v1/status", "/nope", "/api/v1/sessions/a/b/c", "/api/v2/sessions", "/"]
    ) {
      const r = await call(app, "GET", path, { unchecked: true });
      assert.equal(r.status, 404, path);
      assert.equal(r.body.error.code, "not_found", path);
    }
  });

  test("a known path with the wrong method is 405 with an Allow header", async () => {
    const r = await call(app, "PATCH", "/api/v1/sessions/0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", {
      unchecked: true,
    });
    assert.equal(r.status, 405);
    assert.equal(r.body.error.code, "method_not_allowed");
    assert.equal(r.headers.get("allow"), "GET, PUT, DELETE");
    const list = await call(app, "DELETE", "/api/v1/sessions", { unchecked: true });
    assert.equal(list.headers.get("allow"), "POST, GET");
    const status = await call(app, "POST", "/status", { unchecked: true });
    assert.equal(status.headers.get("allow"), "GET");
  });

  test("serves the OpenAPI document without authentication", async () => {
    const r = await call(app, "GET", "/api/v1/openapi.json");
    assert.equal(r.status, 200);
    assert.equal(r.body.openapi, "3.1.0");
    assert.equal(r.body.info.version, "0.1.0-alpha.1");
  });
});

describe("credentials in the query", () => {
  test("any credential-like parameter is 400 credentials_in_query on every path, before anything else", async () => {
    const names = [
      "api_key",
      "API-KEY",
      "apikey",
      "access_token",
      "Authorization",
      "password",
      "client_secret",
      "x-router-api-key",
      "token",
    ];
    for (const name of names) {
      for (const path of ["/status", "/nope", "/api/v1/auth/me"]) {
        const r = await call(app, "GET", `${path}?${encodeURIComponent(name)}=abc`, {
          unchecked: true,
        });
        assert.equal(r.status, 400, `${path} ${name}`);
        assert.equal(r.body.error.code, "credentials_in_query", `${path} ${name}`);
        assert.equal(JSON.stringify(r.body).includes("abc"), false, "the value is never echoed");
      }
    }
  });

  test("ordinary parameters are fine", async () => {
    const r = await call(app, "GET", "/api/v1/sessions?scope=a&title=b", { token: account.token });
    assert.equal(r.status, 200);
  });
});

describe("bodies", () => {
  test("unparseable JSON and non-object JSON are 400 invalid_request", async () => {
    for (const raw of ["{", "not json", "[]", "42", '"text"', "null", ""]) {
      const r = await call(app, "POST", "/api/v1/sessions", { token: account.token, rawBody: raw });
      assert.equal(r.status, 400, raw);
      assert.equal(r.body.error.code, "invalid_request", raw);
    }
  });

  test("JSON is accepted whatever the content type", async () => {
    const r = await call(app, "POST", "/api/v1/sessions", {
      token: account.token,
      rawBody: JSON.stringify({ title: "typed as text" }),
      headers: { "content-type": "text/plain" },
    });
    assert.equal(r.status, 201);
  });

  test("a body over the limit is 413 payload_too_large, declared or streamed", async () => {
    const big = JSON.stringify({ title: "x".repeat(2000) });
    const declared = await call(app, "POST", "/api/v1/sessions", {
      token: account.token,
      rawBody: big,
    });
    assert.equal(declared.status, 413);
    assert.equal(declared.body.error.code, "payload_too_large");

    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 100) return controller.close(); // 100 KiB at most: the reader must stop long before
        sent++;
        controller.enqueue(new TextEncoder().encode("x".repeat(1024)));
      },
    });
    const streamed = await call(app, "POST", "/api/v1/sessions", {
      token: account.token,
      rawBody: stream,
    });
    assert.equal(streamed.status, 413);
    assert.ok(sent < 10, `read ${sent} KiB of a 1 KiB limit`);
  });

  test("a body exactly at the limit is read", async () => {
    // The filler is an unknown field (ignored): a title is bounded on its own.
    const filler = "y".repeat(1024 - JSON.stringify({ title: "t", padding: "" }).length);
    const r = await call(app, "POST", "/api/v1/sessions", {
      token: account.token,
      rawBody: JSON.stringify({ title: "t", padding: filler }),
    });
    assert.equal(r.status, 201);
  });
});

describe("request log", () => {
  test("one line per request with method, path, status and duration; no query string", async () => {
    const before = app.logLines.length;
    await call(app, "GET", "/api/v1/sessions?title=secretive", { token: account.token });
    await call(app, "GET", "/nope", { unchecked: true });
    const lines = app.logLines.slice(before).map((l) => JSON.parse(l));
    assert.equal(lines.length, 2);
    assert.equal(lines[0].msg, "request");
    assert.equal(lines[0].method, "GET");
    assert.equal(lines[0].path, "/api/v1/sessions");
    assert.equal(lines[0].status, 200);
    assert.equal(typeof lines[0].duration_ms, "number");
    assert.equal(lines[1].status, 404);
    assert.equal(app.logLines.slice(before).join("\n").includes("secretive"), false);
  });
});
