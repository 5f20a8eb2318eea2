import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";

let app: TestApp;
let alice: Account;
let bob: Account;
before(async () => {
  app = await createTestApp();
  alice = await signUp(app);
  bob = await signUp(app);
});
after(() => app.close());

const JSON_TYPE = "application/json";

/** A policy as a client sends it: defaults left out. */
const POLICY = {
  classification: { rules: [{ intent: "edit", keywords: ["fix"] }] },
  routing: {
    default: { model: "openai/gpt-4o-mini" },
    rules: [{
      name: "edits",
      intent: "edit",
      model: "anthropic/claude-sonnet-4",
    }],
  },
  tools: { permissions: { shell: "ask", edit: "allow" } },
};

async function put(account: Account, name: string, body: unknown) {
  app.clock.advance(1000); // distinct timestamps per version
  return await call(app, "PUT", `/api/v1/policies/${name}`, {
    token: account.token,
    body,
  });
}

async function stored(account: Account, name: string, body: unknown = POLICY) {
  const r = await put(account, name, body);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

describe("PUT /api/v1/policies/{name}", () => {
  test("stores versions numbered from 1, answering 201 with the normalised policy", async () => {
    const r = await put(alice, "work", POLICY);
    assert.equal(r.status, 201);
    assert.equal(r.headers.get("content-type"), JSON_TYPE);
    assert.equal(r.body.name, "work");
    assert.equal(r.body.version, 1);
    assert.equal(r.body.created_at, app.clock.now().toISOString());
    // Defaults are filled in, as a turn would route with them.
    assert.equal(r.body.policy.classification.default_intent, "chat");
    assert.equal(r.body.policy.classification.rules[0].priority, 1000);
    assert.equal(r.body.policy.routing.rules[0].effort, "medium");
    assert.deepEqual(r.body.policy.routing.rules[0].fallbacks, []);
    assert.deepEqual(r.body.policy.privacy, {
      restricted_paths: [],
      remote: { mode: "ask", blocked_paths: [] },
      local: { mode: "allow" },
    });
    const second = await stored(alice, "work", { routing: { rules: [] } });
    const third = await stored(alice, "work");
    assert.deepEqual([second.version, third.version], [2, 3]);
  });

  test("drops unknown fields and keeps the order of keys", async () => {
    const body = await stored(bob, "ordered", {
      colour: "blue",
      tools: { permissions: { zsh: "deny", awk: "allow", mid: "ask" } },
    });
    assert.equal("colour" in body.policy, false);
    assert.deepEqual(Object.keys(body.policy.tools.permissions), [
      "zsh",
      "awk",
      "mid",
    ]);
    const read = await call(app, "GET", "/api/v1/policies/ordered", {
      token: bob.token,
    });
    assert.deepEqual(Object.keys(read.body.policy.tools.permissions), [
      "zsh",
      "awk",
      "mid",
    ]);
  });

  test("a version read back can be stored again unchanged", async () => {
    const first = await stored(bob, "again");
    const second = await stored(bob, "again", first.policy);
    assert.deepEqual(second.policy, first.policy);
  });

  test("names other than [a-z0-9][a-z0-9_.-]{0,63} are 422 invalid_request naming name", async () => {
    for (
      const name of [
        "Work",
        "-work",
        "_x",
        ".x",
        "a b",
        "a/b",
        "é",
        "x".repeat(65),
      ]
    ) {
      const r = await put(alice, encodeURIComponent(name), POLICY);
      assert.equal(r.status, 422, name);
      assert.equal(r.headers.get("content-type"), JSON_TYPE);
      assert.equal(r.body.error.code, "invalid_request");
      assert.deepEqual(r.body.error.details, { path: "name" });
    }
    for (const name of ["a", "0", "a.b-c_d", "x".repeat(64)]) {
      assert.equal((await put(alice, name, POLICY)).status, 201, name);
    }
  });

  test("a body that is not a JSON object is 400 invalid_request", async () => {
    for (const rawBody of ["[]", "not json", "7"]) {
      const r = await call(app, "PUT", "/api/v1/policies/bad", {
        token: alice.token,
        rawBody,
      });
      assert.equal(r.status, 400, rawBody);
      assert.equal(r.headers.get("content-type"), JSON_TYPE);
      assert.equal(r.body.error.code, "invalid_request");
    }
  });

  test("a body over the limit is 413", async () => {
    const limit = app.config.limits.maxRequestBodyBytes;
    const r = await call(app, "PUT", "/api/v1/policies/big", {
      token: alice.token,
      rawBody: JSON.stringify({ source: "x".repeat(limit) }),
    });
    assert.equal(r.status, 413);
    assert.equal(r.body.error.code, "payload_too_large");
  });

  test("needs a token", async () => {
    const r = await call(app, "PUT", "/api/v1/policies/work", { body: POLICY });
    assert.equal(r.status, 401);
  });
});

describe("a policy that fails validation", () => {
  let sessionId: string;
  before(async () => {
    const s = await call(app, "POST", "/api/v1/sessions", {
      token: alice.token,
      body: { title: "validation" },
    });
    sessionId = s.body.session.id;
  });

  /** Each policy fails as the `policy` of an execute body fails: same status, code and details. */
  const cases: [string, Record<string, unknown>, string, string][] = [
    [
      "an unknown effort",
      {
        routing: {
          rules: [{ name: "a", model: "openai/gpt-4o", effort: "huge" }],
        },
      },
      "unknown_effort",
      "policy.routing.rules[0].effort",
    ],
    [
      "an unknown effort in the third rule",
      {
        routing: {
          rules: [
            { name: "a", model: "openai/gpt-4o" },
            { name: "b", model: "openai/gpt-4o" },
            { name: "c", model: "openai/gpt-4o", effort: "max" },
          ],
        },
      },
      "unknown_effort",
      "policy.routing.rules[2].effort",
    ],
    [
      "an unknown intent",
      { classification: { default_intent: "dream" } },
      "unknown_intent",
      "policy.classification.default_intent",
    ],
    [
      "a model that is no reference",
      { routing: { default: { model: "gpt-4o" } } },
      "invalid_model_reference",
      "policy.routing.default.model",
    ],
    [
      "a bad provider name",
      { routing: { default: { model: "Open AI/gpt-4o" } } },
      "invalid_provider_name",
      "policy.routing.default.model",
    ],
    [
      "a mistyped field",
      { privacy: { restricted_paths: "secrets/**" } },
      "invalid_request",
      "policy.privacy.restricted_paths",
    ],
    [
      "a missing rule name",
      { routing: { rules: [{ model: "openai/gpt-4o" }] } },
      "invalid_request",
      "policy.routing.rules[0].name",
    ],
    [
      "a loosening rule",
      {
        tools: { permissions: { shell: "deny" } },
        routing: {
          rules: [{
            name: "a",
            model: "openai/gpt-4o",
            required_permissions: { permissions: { shell: "allow" } },
          }],
        },
      },
      "permission_expansion",
      "policy.routing.rules[0].required_permissions.permissions.shell",
    ],
  ];
  for (const [what, policy, code, path] of cases) {
    test(`${what} is 422 ${code} naming ${path}, as in an execute body`, async () => {
      const r = await put(alice, "invalid", policy);
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.equal(r.headers.get("content-type"), JSON_TYPE);
      assert.equal(r.body.error.code, code);
      assert.equal(r.body.error.details.path, path);
      const execute = await call(
        app,
        "POST",
        `/api/v1/sessions/${sessionId}/execute`,
        {
          token: alice.token,
          body: { input: { text: "hi" }, policy },
        },
      );
      assert.equal(execute.status, 422);
      assert.deepEqual(r.body, execute.body);
    });
  }

  test("stores nothing", async () => {
    const r = await call(app, "GET", "/api/v1/policies/invalid", {
      token: alice.token,
    });
    assert.equal(r.status, 404);
  });
});

describe("reading, listing and deleting", () => {
  let carol: Account;
  before(async () => {
    carol = await signUp(app);
    await stored(carol, "zeta", {
      routing: { default: { model: "openai/gpt-4o" } },
    });
    await stored(carol, "alpha", {
      routing: { default: { model: "openai/gpt-4o-mini" } },
    });
    await stored(carol, "alpha", {
      routing: { default: { model: "anthropic/claude-opus-4" } },
    });
    await stored(carol, "a-b");
    await stored(carol, "ab");
  });

  test("GET /api/v1/policies/{name} returns the latest version", async () => {
    const r = await call(app, "GET", "/api/v1/policies/alpha", {
      token: carol.token,
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), JSON_TYPE);
    assert.equal(r.body.name, "alpha");
    assert.equal(r.body.version, 2);
    assert.equal(
      r.body.policy.routing.default.model,
      "anthropic/claude-opus-4",
    );
    assert.deepEqual(Object.keys(r.body).sort(), [
      "created_at",
      "name",
      "policy",
      "version",
    ]);
  });

  test("…/versions/{n} returns that version, unchanged by later ones", async () => {
    const r = await call(app, "GET", "/api/v1/policies/alpha/versions/1", {
      token: carol.token,
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), JSON_TYPE);
    assert.equal(r.body.version, 1);
    assert.equal(r.body.policy.routing.default.model, "openai/gpt-4o-mini");
    const latest = await call(app, "GET", "/api/v1/policies/alpha", {
      token: carol.token,
    });
    assert.ok(r.body.created_at < latest.body.created_at);
  });

  test("an unknown version is 404 not_found; one that is no whole number from 1 is 422", async () => {
    for (const v of ["3", "2147483647", "99999999999"]) {
      const r = await call(app, "GET", `/api/v1/policies/alpha/versions/${v}`, {
        token: carol.token,
      });
      assert.equal(r.status, v === "99999999999" ? 422 : 404, v);
      assert.equal(
        r.body.error.code,
        v === "99999999999" ? "invalid_request" : "not_found",
      );
    }
    for (const v of ["0", "-1", "1.5", "01", "x"]) {
      const r = await call(app, "GET", `/api/v1/policies/alpha/versions/${v}`, {
        token: carol.token,
      });
      assert.equal(r.status, 422, v);
      assert.equal(r.headers.get("content-type"), JSON_TYPE);
      assert.equal(r.body.error.code, "invalid_request");
      assert.deepEqual(r.body.error.details, { path: "version" });
    }
  });

  test("GET /api/v1/policies lists the names with their latest version, sorted by name", async () => {
    const r = await call(app, "GET", "/api/v1/policies", {
      token: carol.token,
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), JSON_TYPE);
    assert.deepEqual(r.body.policies.map((p: { name: string }) => p.name), [
      "a-b",
      "ab",
      "alpha",
      "zeta",
    ]);
    const alpha = r.body.policies[2];
    const latest = await call(app, "GET", "/api/v1/policies/alpha", {
      token: carol.token,
    });
    assert.deepEqual(alpha, {
      name: "alpha",
      version: 2,
      created_at: latest.body.created_at,
    });
  });

  test("a user without policies lists none", async () => {
    const dave = await signUp(app);
    const r = await call(app, "GET", "/api/v1/policies", { token: dave.token });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { policies: [] });
  });

  test("another user's policies are 404 not_found, to read and to delete", async () => {
    for (
      const [method, path] of [
        ["GET", "/api/v1/policies/alpha"],
        ["GET", "/api/v1/policies/alpha/versions/1"],
        ["DELETE", "/api/v1/policies/alpha"],
      ]
    ) {
      const r = await call(app, method, path, { token: bob.token });
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.headers.get("content-type"), JSON_TYPE);
      assert.equal(r.body.error.code, "not_found");
    }
    const list = await call(app, "GET", "/api/v1/policies", {
      token: bob.token,
    });
    assert.equal(
      list.body.policies.some((p: { name: string }) => p.name === "alpha"),
      false,
    );
    // Bob's own "alpha" starts at 1, whatever Carol has.
    assert.equal((await stored(bob, "alpha")).version, 1);
  });

  test("DELETE removes the name and all its versions; a new store starts again at 1", async () => {
    const r = await call(app, "DELETE", "/api/v1/policies/zeta", {
      token: carol.token,
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), JSON_TYPE);
    assert.deepEqual(r.body, { deleted: true });
    for (
      const path of [
        "/api/v1/policies/zeta",
        "/api/v1/policies/zeta/versions/1",
      ]
    ) {
      const gone = await call(app, "GET", path, { token: carol.token });
      assert.equal(gone.status, 404, path);
      assert.equal(gone.body.error.code, "not_found");
    }
    const again = await call(app, "DELETE", "/api/v1/policies/zeta", {
      token: carol.token,
    });
    assert.equal(again.status, 404);
    const list = await call(app, "GET", "/api/v1/policies", {
      token: carol.token,
    });
    assert.equal(
      list.body.policies.some((p: { name: string }) => p.name === "zeta"),
      false,
    );
    assert.equal((await stored(carol, "zeta")).version, 1);
  });

  test("an unknown name is 404 not_found", async () => {
    const r = await call(app, "GET", "/api/v1/policies/nothing", {
      token: carol.token,
    });
    assert.equal(r.status, 404);
    assert.equal(r.headers.get("content-type"), JSON_TYPE);
    assert.equal(r.body.error.code, "not_found");
  });

  test("a wrong method is 405 with Allow", async () => {
    const r = await call(app, "POST", "/api/v1/policies/alpha", {
      token: carol.token,
    });
    assert.equal(r.status, 405);
    assert.equal(r.headers.get("allow"), "PUT, GET, DELETE");
  });
});
