import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { type Account, call, createTestApp, signUp, type TestApp } from "../support/app.ts";
import { openAiReply } from "../support/engine_app.ts";
import { dumpDatabase } from "../support/db_dump.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";

const OPENAI_KEY = "sk-openai-preview-test-0123456789";
const KEY_HEADER = { "X-Router-Provider-OpenAI-Api-Key": OPENAI_KEY };

let app: TestApp;
let alice: Account;
let bob: Account;
let openai: FakeProvider;
let ollama: FakeProvider;

const json = { "content-type": "application/json" };

/** Queues the listings a preview asks for: OpenAI only when its key is sent. */
function queueListings(withOpenAi: boolean) {
  if (withOpenAi) {
    openai.enqueue({
      status: 200,
      headers: json,
      body: { object: "list", data: [{ id: "gpt-5.4-mini" }, { id: "gpt-4o" }] },
    });
  }
  ollama.enqueue({ status: 200, headers: json, body: { models: [{ name: "qwen3:8b" }] } });
}

before(async () => {
  openai = await startFakeProvider();
  ollama = await startFakeProvider();
  app = await createTestApp({
    providers: {
      openai: { base_url: `${openai.url}/v1` },
      ollama: { base_url: ollama.url },
      "openai-compat:box": {
        base_url: "http://127.0.0.1:9/v1",
        local: true,
        models: ["box-model"],
      },
    },
  });
  alice = await signUp(app);
  bob = await signUp(app);
});

after(async () => {
  await app.close();
  await openai.close();
  await ollama.close();
});

beforeEach(() => app.listingCache.clear());

async function session(account: Account, body: Record<string, unknown> = { title: "p" }) {
  const r = await call(app, "POST", "/api/v1/sessions", { token: account.token, body });
  assert.equal(r.status, 201);
  return r.body.session.id as string;
}

const policy = {
  classification: { rules: [{ intent: "edit", keywords: ["fix"] }] },
  routing: {
    default: { model: "openai/gpt-5.4-mini", fallbacks: ["ollama/qwen3:8b"] },
    rules: [{ name: "edits", intent: "edit", model: "openai/gpt-4o" }],
  },
  tools: { permissions: { shell: "ask" } },
  privacy: { restricted_paths: ["secrets/**"], remote: { mode: "allow" } },
};
const body = {
  input: { text: "please fix the parser" },
  workspace: { root: "/w", active_file: "/w/src/parser.ts" },
  policy,
  attachments: {
    files: [
      { path: "src/parser.ts", content: "export const parse = () => 1;", required: true },
      { path: "secrets/token.txt", content: "hunter2" },
    ],
    instructions: [{ source: "AGENTS.md", content: "Be brief." }],
  },
};

const path = (id: string) => `/api/v1/sessions/${id}/preview`;

describe("POST /api/v1/sessions/{id}/preview", () => {
  test("answers the routing decision of the turn", async () => {
    const id = await session(alice);
    queueListings(true);
    const res = await call(app, "POST", path(id), {
      token: alice.token,
      body,
      headers: KEY_HEADER,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.deepEqual(res.body, {
      classification: {
        intent: "edit",
        source: "inferred",
        reason: "keyword 'fix' matched rule 0",
        matched_rule: 0,
        confidence: "medium",
      },
      routing: {
        intent: "edit",
        provider: "openai",
        model: "gpt-4o",
        matched_rule: "edits",
        fallback_used: false,
        override_used: false,
        reason: "rule 'edits' matched on intent",
      },
      included_context: ["instruction AGENTS.md", "file src/parser.ts"],
      excluded_context: ["file secrets/token.txt (restricted)"],
      // prompt 6 + instruction 3 + file 8 = 17 tokens, and the 889 the service sends itself (its
      // system prompt, tool definitions, the prompt message's framing): 906 at 2.5/10 USD;
      // reserve 16384 output tokens
      estimated_cost: { min: "0.002265", max: "0.166105", currency: "USD" },
      required_permissions: [{ permission: "shell", mode: "ask" }],
    });
    assert.ok(!JSON.stringify(res.body).includes(OPENAI_KEY));
  });

  test("is deterministic: the same request gives the same bytes", async () => {
    const id = await session(alice);
    const send = async () => {
      app.listingCache.clear();
      queueListings(true);
      const r = await app.handler(
        new Request(`http://127.0.0.1${path(id)}`, {
          method: "POST",
          headers: { authorization: `Bearer ${alice.token}`, ...KEY_HEADER },
          body: JSON.stringify(body),
        }),
      );
      return await r.text();
    };
    assert.equal(await send(), await send());
  });

  test("reuses cached listings: a second preview asks no provider", async () => {
    const id = await session(alice);
    queueListings(true);
    const first = await call(app, "POST", path(id), {
      token: alice.token,
      body,
      headers: KEY_HEADER,
    });
    const asked = openai.requests.length + ollama.requests.length;
    const second = await call(app, "POST", path(id), {
      token: alice.token,
      body,
      headers: KEY_HEADER,
    });
    assert.deepEqual(second.body, first.body);
    assert.equal(openai.requests.length + ollama.requests.length, asked);
  });

  test("takes the body as JSON whatever the content type", async () => {
    const id = await session(alice);
    queueListings(true);
    const res = await call(app, "POST", path(id), {
      token: alice.token,
      rawBody: JSON.stringify(body),
      headers: { ...KEY_HEADER, "content-type": "text/plain" },
    });
    assert.equal(res.status, 200);
  });

  test("changes nothing in the database, on success and on refusal", async () => {
    const id = await session(alice);
    const before = await dumpDatabase(app.db);
    queueListings(true);
    const okRes = await call(app, "POST", path(id), {
      token: alice.token,
      body,
      headers: KEY_HEADER,
    });
    assert.equal(okRes.status, 200);
    queueListings(false);
    const refused = await call(app, "POST", path(id), {
      token: alice.token,
      body: { ...body, input: { text: "x", explicit_model: "openai/gpt-9" } },
    });
    assert.equal(refused.status, 422);
    assert.equal(await dumpDatabase(app.db), before);
  });

  test("works on an encrypted session, with no history", async () => {
    const id = await session(alice, { title: "sealed", key_id: "key-1" });
    queueListings(true);
    const res = await call(app, "POST", path(id), {
      token: alice.token,
      body,
      headers: KEY_HEADER,
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.routing.model, "gpt-4o");
  });

  test("weighs the session's stored history, as the next execute would", async () => {
    const id = await session(alice);
    const turn = {
      input: { text: "where does the parser live?" },
      policy: {
        routing: { default: { model: "openai/gpt-4o" } },
        privacy: { remote: { mode: "allow" } },
      },
    };
    // History items are labelled by their place in the session, newest first.
    const historyOf = (preview: { included_context: string[] }) =>
      preview.included_context.filter((item) => item.startsWith("message "));

    queueListings(true);
    const fresh = await call(app, "POST", path(id), {
      token: alice.token,
      body: turn,
      headers: KEY_HEADER,
    });
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    assert.deepEqual(historyOf(fresh.body), []);

    openai.enqueue(openAiReply({ text: "It lives in src/parser.ts." }));
    const ran = await call(app, "POST", `/api/v1/sessions/${id}/execute`, {
      token: alice.token,
      body: turn,
      headers: KEY_HEADER,
    });
    assert.equal(ran.status, 200, JSON.stringify(ran.body));
    assert.equal(ran.body.status, "completed");

    const res = await call(app, "POST", path(id), {
      token: alice.token,
      body: turn,
      headers: KEY_HEADER,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(historyOf(res.body), ["message 2", "message 1"]);
  });

  test("a configured local compatible model serves a local-only turn", async () => {
    const id = await session(alice);
    queueListings(false);
    const res = await call(app, "POST", path(id), {
      token: alice.token,
      body: {
        input: { text: "hello" },
        local_preferences: { local_only: true },
        policy: { routing: { default: { model: "openai-compat:box/box-model" } } },
      },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.routing.provider, "openai-compat:box");
  });
});

describe("POST …/preview refusals", () => {
  test("401 without a token or with a bad one", async () => {
    const id = await session(alice);
    const none = await call(app, "POST", path(id), { body });
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, "missing_credentials");
    const bad = await call(app, "POST", path(id), { body, token: "0".repeat(32) + "-x" });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.error.code, "invalid_token");
  });

  test("400 for a session id that is not a UUID", async () => {
    const res = await call(app, "POST", path("not-a-uuid"), { token: alice.token, body });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "invalid_session_id");
  });

  test("404 for an unknown, another user's, or an archived session, before the body", async () => {
    const unknown = await call(app, "POST", path("0190f0f0-0000-7000-8000-000000000000"), {
      token: alice.token,
      body,
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, "session_not_found");
    const bobs = await session(bob);
    const other = await call(app, "POST", path(bobs), {
      token: alice.token,
      body: { input: { command: "nonsense" } },
    });
    assert.equal(other.status, 404);
    assert.equal(other.body.error.code, "session_not_found");
    const archived = await session(alice);
    const put = await call(app, "PUT", `/api/v1/sessions/${archived}`, {
      token: alice.token,
      body: { archived: true },
    });
    assert.equal(put.status, 200);
    const res = await call(app, "POST", path(archived), { token: alice.token, body });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, "session_not_found");
  });

  test("400 for a body that is not JSON or not an object", async () => {
    const id = await session(alice);
    const broken = await call(app, "POST", path(id), { token: alice.token, rawBody: "{nope" });
    assert.equal(broken.status, 400);
    assert.equal(broken.body.error.code, "invalid_request");
    const array = await call(app, "POST", path(id), { token: alice.token, body: [body] });
    assert.equal(array.status, 400);
    assert.equal(array.body.error.code, "invalid_request");
  });

  test("413 for a body over the configured limit", async () => {
    const small = await createTestApp({
      configure: (config) => void (config.limits.maxRequestBodyBytes = 512),
    });
    try {
      const account = await signUp(small);
      const created = await call(small, "POST", "/api/v1/sessions", {
        token: account.token,
        body: { title: "t" },
      });
      const res = await call(small, "POST", path(created.body.session.id), {
        token: account.token,
        body: { input: { text: "x".repeat(2000) } },
      });
      assert.equal(res.status, 413);
      assert.equal(res.body.error.code, "payload_too_large");
    } finally {
      await small.close();
    }
  });

  test("422 for a body failing validation, naming the field", async () => {
    const id = await session(alice);
    const res = await call(app, "POST", path(id), {
      token: alice.token,
      body: {
        ...body,
        policy: {
          ...policy,
          routing: { rules: [{ name: "r", effort: "max", model: "openai/gpt-4o" }] },
        },
      },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "unknown_effort");
    assert.equal(res.body.error.details.path, "policy.routing.rules[0].effort");
  });

  test("422 no_route when nothing routes", async () => {
    const id = await session(alice);
    queueListings(false);
    const res = await call(app, "POST", path(id), {
      token: alice.token,
      body: { input: { text: "hello" } },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.code, "no_route");
  });

  for (const endpoint of ["preview", "execute"]) {
    test(`${endpoint}: 422 unknown_provider naming the policy field of an unknown provider`, async () => {
      const id = await session(alice);
      queueListings(false);
      const res = await call(app, "POST", `/api/v1/sessions/${id}/${endpoint}`, {
        token: alice.token,
        body: {
          input: { text: "hello" },
          policy: {
            routing: { default: { model: "nosuch/model", fallbacks: ["ollama/qwen3:8b"] } },
          },
        },
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.code, "unknown_provider");
      assert.deepEqual(res.body.error.details, {
        path: "policy.routing.default.model",
        provider: "nosuch",
      });
    });

    test(`${endpoint}: 422 invalid_provider_name for a malformed provider id in a rule`, async () => {
      const id = await session(alice);
      const res = await call(app, "POST", `/api/v1/sessions/${id}/${endpoint}`, {
        token: alice.token,
        body: {
          input: { text: "hello" },
          policy: { routing: { rules: [{ name: "r", model: "openai-compat:Bad Name!/m" }] } },
        },
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.code, "invalid_provider_name");
      assert.equal(res.body.error.details.path, "policy.routing.rules[0].model");
    });
  }

  test("503 fallback_exhausted when no candidate has its credentials", async () => {
    const id = await session(alice);
    queueListings(false);
    const res = await call(app, "POST", path(id), {
      token: alice.token,
      body: {
        input: { text: "hello" },
        policy: { routing: { default: { model: "openai/gpt-4o", fallbacks: ["openai/gpt-5.4"] } } },
      },
    });
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, "fallback_exhausted");
  });

  test("503 missing_provider_credentials for an override without its key", async () => {
    const id = await session(alice);
    queueListings(false);
    const res = await call(app, "POST", path(id), {
      token: alice.token,
      body: { input: { text: "hello", explicit_model: "openai/gpt-4o" } },
    });
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, "missing_provider_credentials");
  });

  test("403 override_not_allowed for a remote override on a local-only turn", async () => {
    const id = await session(alice);
    queueListings(true);
    const res = await call(app, "POST", path(id), {
      token: alice.token,
      headers: KEY_HEADER,
      body: {
        input: { text: "hello", explicit_model: "openai/gpt-4o" },
        local_preferences: { no_network: true },
      },
    });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, "override_not_allowed");
    assert.ok(!JSON.stringify(res.body).includes(OPENAI_KEY));
  });

  test("405 with Allow for another method", async () => {
    const id = await session(alice);
    const res = await call(app, "GET", path(id), { token: alice.token });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST");
  });
});
