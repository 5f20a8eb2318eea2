import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createClient } from "../../clients/typescript/src/client.ts";

/** A service that knows one key and answers `/auth/me` only with the token it issued. */
function fakeService(calls: string[]): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    calls.push(`${init?.method ?? "GET"} ${url.pathname}`);
    const json = (status: number, body: unknown) =>
      Promise.resolve(
        new Response(JSON.stringify(body), {
          status,
          headers: { "content-type": "application/json" },
        }),
      );
    if (url.pathname === "/api/v1/auth/sign-in") {
      return headers.get("x-router-api-key") === "sk-key"
        ? json(200, { token: "t-1", expires_at: "2030-01-01T00:00:00.000Z" })
        : json(401, { error: { code: "invalid_api_key", message: "invalid API key" } });
    }
    if (headers.get("authorization") !== "Bearer t-1") {
      return json(401, { error: { code: "missing_credentials", message: "no token" } });
    }
    return json(200, { user_id: "u-1" });
  };
}

describe("client sign-in", () => {
  test("a client holding only an API key signs in before its first request", async () => {
    const calls: string[] = [];
    const saved: string[] = [];
    const client = createClient({
      baseUrl: "http://service.test",
      apiKey: "sk-key",
      fetch: fakeService(calls),
      onToken: (signed) => void saved.push(signed.token),
    });
    assert.deepEqual(await client.auth.me(), { user_id: "u-1" });
    assert.deepEqual(calls, ["POST /api/v1/auth/sign-in", "GET /api/v1/auth/me"]);
    assert.deepEqual(saved, ["t-1"]);
    await client.auth.me();
    assert.equal(calls.length, 3, "the token is kept: one sign-in only");
  });

  test("a client with neither key nor token says it is not signed in", async () => {
    const calls: string[] = [];
    const client = createClient({ baseUrl: "http://service.test", fetch: fakeService(calls) });
    await assert.rejects(() => client.auth.me(), { code: "missing_credentials" });
    assert.deepEqual(calls, []);
  });
});
