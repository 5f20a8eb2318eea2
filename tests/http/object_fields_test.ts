/**
 * Hostile shapes: an array where a body has an object. arktype's object types
 * accept arrays (an array is an object), so `"required_permissions": []` once
 * passed validation and a preview answered 503, and `"workspace": []` was
 * taken silently. Every object of every valid body below, at every depth, is
 * replaced by `[]` in turn: each must be refused with 422 `invalid_request`
 * naming its path. The table covers every route that takes a JSON body.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ROUTES } from "../../src/http/routes.ts";
import { formatPath } from "../../src/http/validation.ts";
import { appWithSession, call, createTestApp, signUp, type TestApp } from "../support/app.ts";

const envelope = {
  version: 1,
  algorithm: "x25519-xsalsa20-poly1305",
  key_id: "k",
  nonce: "n",
  ciphertext: "c",
};

/** A turn request holding every object the schema has. */
const TURN = {
  input: { text: "please fix it", command: null, explicit_model: null },
  workspace: { root: "/w", referenced_paths: ["a.ts"] },
  policy: {
    classification: { default_intent: "chat", rules: [{ intent: "edit", keywords: ["fix"] }] },
    routing: {
      default: { model: "openai/gpt-4o-mini" },
      rules: [{
        name: "r",
        model: "openai/gpt-4o",
        requires_capabilities: { tools: true },
        required_permissions: { permissions: { edit: "ask" } },
      }],
    },
    tools: { permissions: { shell: "ask" } },
    privacy: { remote: { mode: "allow" }, local: { mode: "allow" } },
  },
  local_preferences: { auto_apply: false },
  attachments: {
    files: [{ path: "a.ts", content: "x" }],
    instructions: [{ source: "AGENTS.md", content: "be brief" }],
    invoked_skills: [{ name: "s", content: "c" }],
    available_skills: [{ name: "t", content: "d" }],
  },
};

/** Valid bodies per route; a route without objects below its top has none to replace. */
const BODIES: Record<string, "no JSON body" | Record<string, unknown>[]> = {
  "POST /api/v1/auth/bootstrap": "no JSON body",
  "POST /api/v1/auth/sign-in": "no JSON body",
  "POST /api/v1/auth/sign-out": "no JSON body",
  "POST /api/v1/auth/keys": [{ name: "k", expires_at: "2027-01-01T00:00:00Z" }],
  "DELETE /api/v1/auth/keys/:key_id": "no JSON body",
  "POST /api/v1/admin/users": [{ name: "n" }],
  "PUT /api/v1/admin/users/:user_id": [{ name: "n", disabled: false, budget: { daily: "1" } }],
  "DELETE /api/v1/sessions/:session_id": "no JSON body",
  "POST /api/v1/sessions": [{ title: "t", scope: "s" }],
  "PUT /api/v1/sessions/:session_id": [{ title: "t", archived: false }],
  "POST /api/v1/sessions/:session_id/execute": [TURN],
  "POST /api/v1/sessions/:session_id/preview": [TURN],
  "PUT /api/v1/policies/:name": [TURN.policy],
  "DELETE /api/v1/policies/:name": "no JSON body",
  "POST /api/v1/sessions/:session_id/continue": [
    {
      type: "tool_results",
      data: { results: [{ call_id: "c", content: "ok" }], encrypted: { c: envelope } },
    },
    {
      type: "approval_decisions",
      data: { decisions: [{ approval_id: "a", decision: "approved" }], encrypted: {} },
    },
    { type: "decrypted", data: { plaintext: { c: "text" }, encrypted: { c: envelope } } },
    { type: "sealed", data: { encrypted: { c: envelope } } },
    { type: "inject", data: { messages: [{ text: "more" }, { ciphertext: envelope }] } },
  ],
};

/** A stored policy's paths read as in a turn body, under `policy`. */
const PATH_PREFIX: Record<string, string> = { "PUT /api/v1/policies/:name": "policy." };

/** The path of every object below the top of `value`. */
function objectPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => objectPaths(v, [...path, i]));
  if (typeof value !== "object" || value === null) return [];
  return [
    ...(path.length > 0 ? [path] : []),
    ...Object.entries(value).flatMap(([k, v]) => objectPaths(v, [...path, k])),
  ];
}

/** `body` with the value at `path` replaced by `[]`. */
function withArrayAt(body: unknown, path: (string | number)[]): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path.at(-1)!] = [];
  return copy;
}

const OPERATOR_TOKEN = "operator-token-for-body-shapes";

describe("an array where a request body has an object", () => {
  const suite = appWithSession("shapes");
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

  const send = (route: string, body: unknown) => {
    const [method, path] = route.split(" ");
    const admin = path.startsWith("/api/v1/admin/");
    const url = path.replace(":session_id", suite.sessionId).replace(":name", "p")
      .replace(":user_id", admin ? userId : "");
    return call(admin ? operated : suite.app, method, url, {
      token: admin ? OPERATOR_TOKEN : suite.alice.token,
      body,
    });
  };

  test("the table names every native route that can carry a body", () => {
    // The compatible APIs' bodies are covered by tests/surfaces/compat_shapes_test.ts.
    const withBody = ROUTES.filter((r) => r.method !== "GET" && !r.path.startsWith("/v1/"))
      .map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(Object.keys(BODIES).sort(), withBody.sort());
  });

  test("the bodies reach every object-typed field of the turn request", () => {
    // Each top-level field, and the deepest: a routing rule's permissions.
    const paths = objectPaths(TURN).map((p) => formatPath(p));
    for (const field of Object.keys(TURN)) assert.ok(paths.includes(field), field);
    assert.ok(paths.includes("policy.routing.rules[0].required_permissions.permissions"));
  });

  for (const [route, bodies] of Object.entries(BODIES)) {
    if (bodies === "no JSON body") continue;
    bodies.forEach((body, n) => {
      test(`${route}: valid body ${n + 1} is not refused as a shape`, async () => {
        // Whatever the route then makes of it: no run to continue, no provider to answer.
        const r = await send(route, body);
        assert.notEqual(r.body.error?.code, "invalid_request", JSON.stringify(r.body));
        assert.ok(r.status < 500 || r.status === 503, `${r.status} ${JSON.stringify(r.body)}`);
      });
      for (const path of objectPaths(body)) {
        const at = (PATH_PREFIX[route] ?? "") + formatPath(path);
        test(`${route}: [] for ${at} (body ${n + 1}) is 422 naming ${at}`, async () => {
          const r = await send(route, withArrayAt(body, path));
          assert.equal(r.status, 422, JSON.stringify(r.body));
          assert.equal(r.headers.get("content-type"), "application/json");
          assert.equal(r.body.error.code, "invalid_request");
          assert.equal(r.body.error.details.path, at);
          assert.match(
            r.body.error.message,
            new RegExp(`${at.replace(/[[\].]/g, "\\$&")} must be an object`),
          );
        });
      }
    });
  }
});
