/**
 * Hostile shapes: a body nested deeper than `MAX_BODY_DEPTH` is refused with
 * 422 `invalid_request` naming the limit, on every route that reads a JSON
 * body, before validation walks it (at 10,000 levels validation overflowed
 * the call stack: a 500). The table covers every route that can carry a body,
 * so a new one must say what it does with a deep one.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { tooDeep } from "../../src/http/body.ts";
import { MAX_BODY_DEPTH, nestsDeeperThan } from "../../src/http/json_depth.ts";
import { ROUTES } from "../../src/http/routes.ts";
import { after, before } from "node:test";
import { appWithSession, call, createTestApp, signUp, type TestApp } from "../support/app.ts";

/** `n` arrays inside one another. */
const nested = (n: number) => "[".repeat(n) + "]".repeat(n);

describe("nestsDeeperThan", () => {
  const cases: [string, string, number, boolean][] = [
    ["a flat object", '{"a":1,"b":"x"}', 1, false],
    ["an object in an object, limit 1", '{"a":{}}', 1, true],
    ["exactly at the limit", nested(64), 64, false],
    ["one past the limit", nested(65), 64, true],
    ["brackets inside a string", '{"a":"[[[[{{{{"}', 1, false],
    ["an escaped quote inside a string", '{"a":"\\"[[[["}', 1, false],
    ["an escaped backslash closing a string", '{"a":"\\\\","b":[[]]}', 2, true],
    ["siblings do not add up", '{"a":[1],"b":[2],"c":[3]}', 2, false],
    ["a scalar", '"[[[["', 0, false],
    ["an unterminated string", '{"a":"[[[', 1, false],
  ];
  for (const [name, text, limit, deeper] of cases) {
    test(`nestsDeeperThan: ${name}`, () => {
      assert.equal(nestsDeeperThan(text, limit), deeper);
    });
  }
});

/** How each route that can carry a body takes a deep one. `DEEP` marks where the nesting goes. */
const BODY_ROUTES: Record<
  string,
  { json: true; template: string; surface?: "openai" | "anthropic" } | { json: false }
> = {
  "POST /api/v1/auth/bootstrap": { json: false },
  "POST /api/v1/auth/sign-in": { json: false },
  "POST /api/v1/auth/sign-out": { json: false },
  "POST /api/v1/auth/keys": { json: true, template: '{"name":"k","expires_at":DEEP}' },
  "DELETE /api/v1/auth/keys/:key_id": { json: false },
  "POST /api/v1/admin/users": { json: true, template: '{"name":DEEP}' },
  "PUT /api/v1/admin/users/:user_id": { json: true, template: '{"budget":{"daily":DEEP}}' },
  "POST /api/v1/sessions": {
    json: true,
    template: '{"title":"t","scope":DEEP}',
  },
  "PUT /api/v1/sessions/:session_id": {
    json: true,
    template: '{"title":DEEP}',
  },
  "DELETE /api/v1/sessions/:session_id": { json: false },
  "PUT /api/v1/policies/:name": {
    json: true,
    template:
      '{"routing":{"rules":[{"name":"r","model":"openai/gpt-4o","required_permissions":DEEP}]}}',
  },
  "DELETE /api/v1/policies/:name": { json: false },
  "POST /v1/chat/completions": {
    json: true,
    surface: "openai",
    template: '{"model":"switchyard","messages":[{"role":"user","content":"hi"}],"metadata":DEEP}',
  },
  "POST /v1/messages": {
    json: true,
    surface: "anthropic",
    template:
      '{"model":"switchyard","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"metadata":DEEP}',
  },
  "POST /v1/messages/count_tokens": {
    json: true,
    surface: "anthropic",
    template: '{"model":"switchyard","messages":[{"role":"user","content":"hi"}],"metadata":DEEP}',
  },
  "POST /v1/responses": {
    json: true,
    surface: "openai",
    template: '{"model":"switchyard","input":"hi","metadata":DEEP}',
  },
  "POST /v1/responses/input_tokens": {
    json: true,
    surface: "openai",
    template: '{"model":"switchyard","input":"hi","metadata":DEEP}',
  },
  "DELETE /v1/responses/:response_id": { json: false },
  "POST /api/v1/sessions/:session_id/execute": {
    json: true,
    template:
      '{"input":{"text":"hi"},"policy":{"routing":{"rules":[{"name":"r","model":"openai/gpt-4o",' +
      '"required_permissions":{"permissions":DEEP}}]}}}',
  },
  "POST /api/v1/sessions/:session_id/continue": {
    json: true,
    template: '{"type":"inject","data":{"messages":[{"text":DEEP}]}}',
  },
  "POST /api/v1/sessions/:session_id/preview": {
    json: true,
    template:
      '{"input":{"text":"hi"},"policy":{"routing":{"rules":[{"name":"r","model":"openai/gpt-4o",' +
      '"required_permissions":DEEP}]}}}',
  },
};

/** The template with `DEEP` replaced so that the whole body nests `depth` levels. */
function bodyOfDepth(template: string, depth: number): string {
  const before = template.slice(0, template.indexOf("DEEP"));
  const around = [...before].reduce(
    (d, c) => d + ("{[".includes(c) ? 1 : "}]".includes(c) ? -1 : 0),
    0,
  );
  return template.replace("DEEP", nested(depth - around));
}

const OPERATOR_TOKEN = "operator-token-for-deep-bodies";

describe("request bodies nested too deeply", () => {
  const suite = appWithSession("deep");
  // The operator's routes exist only with an operator token.
  let operated: TestApp;
  let userId: string;
  before(async () => {
    operated = await createTestApp({
      configure: (c) => void (c.auth.operatorToken = OPERATOR_TOKEN),
    });
    userId = (await signUp(operated)).userId;
  });
  after(() => operated.close());

  const send = (route: string, raw: string, account = suite.alice) => {
    const [method, path] = route.split(" ");
    const admin = path.startsWith("/api/v1/admin/");
    const url = path.replace(":session_id", suite.sessionId).replace(":name", "p")
      .replace(":key_id", suite.sessionId).replace(":user_id", admin ? userId : "");
    return call(admin ? operated : suite.app, method, url, {
      token: admin ? OPERATOR_TOKEN : account.token,
      rawBody: raw,
      headers: { "content-type": "application/json" },
    });
  };
  const refused = {
    error: {
      code: "invalid_request",
      message: tooDeep(MAX_BODY_DEPTH).message,
      details: { limit: MAX_BODY_DEPTH },
    },
  };
  /** The same refusal in a compatible API's own error shape. */
  const refusedIn = (surface?: "openai" | "anthropic") =>
    surface === "openai"
      ? {
        error: {
          message: refused.error.message,
          type: "invalid_request_error",
          param: null,
          code: "invalid_request",
        },
      }
      : surface === "anthropic"
      ? { type: "error", error: { type: "invalid_request_error", message: refused.error.message } }
      : refused;

  test("the table names every route that can carry a body", () => {
    const withBody = ROUTES.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(Object.keys(BODY_ROUTES).sort(), withBody.sort());
  });

  for (const [route, how] of Object.entries(BODY_ROUTES)) {
    if (how.json) {
      for (const depth of [MAX_BODY_DEPTH + 1, 10_000]) {
        test(`${route} refuses a body nested ${depth} levels naming the limit`, async () => {
          const r = await send(route, bodyOfDepth(how.template, depth));
          // The compatible APIs answer invalid input with 400 (decisions.md §12).
          assert.equal(r.status, how.surface === undefined ? 422 : 400, JSON.stringify(r.body));
          assert.equal(r.headers.get("content-type"), "application/json");
          const { request_id: requestId, ...body } = r.body;
          assert.deepEqual(body, refusedIn(how.surface));
          // Anthropic's body names the request as its `request-id` header does.
          assert.equal(
            requestId,
            how.surface === "anthropic" ? r.headers.get("request-id") : undefined,
          );
        });
      }
      test(`${route} reads a body nested exactly ${MAX_BODY_DEPTH} levels`, async () => {
        // Whatever the route then makes of it (a preview may find no usable model: 503).
        const r = await send(route, bodyOfDepth(how.template, MAX_BODY_DEPTH));
        assert.notEqual(r.status, 500, JSON.stringify(r.body));
        assert.notDeepEqual(r.body, refusedIn(how.surface));
      });
    } else {
      test(`${route} ignores its body, however deep`, async () => {
        // An account of its own: signing out revokes the token.
        const r = await send(route, nested(10_000), await signUp(suite.app));
        assert.ok(r.status < 500, `${r.status} ${JSON.stringify(r.body)}`);
        assert.notDeepEqual(r.body, refused);
      });
    }
  }
});
