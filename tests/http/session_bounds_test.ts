import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { atMostCharacters, MAX_SESSION_TEXT } from "../../src/http/bounded_text.ts";
import { MAX_TRACE_LIMIT } from "../../src/core/trace_view.ts";
import { uuidv7 } from "../../src/platform/ids.ts";
import { appendTraceEvents } from "../../src/store/traces.ts";
import {
  type Account,
  call,
  type CallResult,
  createTestApp,
  signUp,
  type TestApp,
} from "../support/app.ts";

let app: TestApp;
let alice: Account;
before(async () => {
  app = await createTestApp();
  alice = await signUp(app);
});
after(() => app.close());

const create = (body: Record<string, unknown>) =>
  call(app, "POST", "/api/v1/sessions", { token: alice.token, body });
const update = (id: string, body: Record<string, unknown>) =>
  call(app, "PUT", `/api/v1/sessions/${id}`, { token: alice.token, body });

async function sessionId(): Promise<string> {
  const r = await create({ title: "t" });
  assert.equal(r.status, 201);
  return r.body.session.id;
}

/** A 422 naming `path` and the limit, in the message and in `details`. */
function assertTooLong(r: CallResult, path: string, count: number) {
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.equal(r.body.error.code, "invalid_request");
  assert.equal(
    r.body.error.message,
    `invalid request body: ${path}: ${path} must be ${
      atMostCharacters(MAX_SESSION_TEXT)
    } (was ${count})`,
  );
  assert.equal(r.body.error.details.path, path);
  assert.equal(r.body.error.details.limit, MAX_SESSION_TEXT);
}

const exactly = "a".repeat(MAX_SESSION_TEXT);
const over = "a".repeat(MAX_SESSION_TEXT + 1);

describe("session title and scope", () => {
  test("the bound is 1,000 characters", () => {
    assert.equal(MAX_SESSION_TEXT, 1000);
  });

  test("create accepts a title and a scope of exactly 1,000 characters and returns them whole", async () => {
    const r = await create({ title: exactly, scope: exactly });
    assert.equal(r.status, 201);
    assert.equal(r.body.session.title, exactly);
    assert.equal(r.body.session.scope, exactly);
  });

  test("create refuses a title of 1,001 characters naming the field and the limit", async () => {
    assertTooLong(await create({ title: over }), "title", MAX_SESSION_TEXT + 1);
  });

  test("create refuses a scope of 1,001 characters naming the field and the limit", async () => {
    assertTooLong(
      await create({ title: "t", scope: over }),
      "scope",
      MAX_SESSION_TEXT + 1,
    );
  });

  test("an encrypted session's key_id has the same bound: 1,000 characters pass and come back, 1,001 are refused", async () => {
    const ok = await create({ title: "t", key_id: exactly });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.session.key_id, exactly);
    assertTooLong(await create({ title: "t", key_id: over }), "key_id", MAX_SESSION_TEXT + 1);
  });

  test("a refused create stores nothing", async () => {
    const before = (await call(app, "GET", "/api/v1/sessions", { token: alice.token })).body;
    await create({ title: over });
    await create({ title: "t", scope: over });
    await create({ title: "t", key_id: over });
    const after = (await call(app, "GET", "/api/v1/sessions", { token: alice.token })).body;
    assert.equal(after.sessions.length, before.sessions.length);
  });

  test("update accepts a title of exactly 1,000 characters", async () => {
    const id = await sessionId();
    const r = await update(id, { title: exactly });
    assert.equal(r.status, 200);
    assert.equal(r.body.session.title, exactly);
  });

  test("update refuses a title of 1,001 characters and keeps the old one", async () => {
    const id = await sessionId();
    assertTooLong(
      await update(id, { title: over }),
      "title",
      MAX_SESSION_TEXT + 1,
    );
    const got = await call(app, "GET", `/api/v1/sessions/${id}`, {
      token: alice.token,
    });
    assert.equal(got.body.session.title, "t");
  });

  test("update ignores a scope of any length: scope is not updatable, like any unknown field", async () => {
    const created = await create({ title: "t", scope: "repo:a" });
    const r = await update(created.body.session.id, {
      scope: over,
      title: "renamed",
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.session.title, "renamed");
    assert.equal(r.body.session.scope, "repo:a");
  });

  test("characters are code points: 1,000 emoji (2,000 UTF-16 units) pass, 1,001 do not", async () => {
    const emoji = "\u{1F600}";
    const thousand = emoji.repeat(MAX_SESSION_TEXT);
    assert.equal(thousand.length, 2 * MAX_SESSION_TEXT);
    const ok = await create({ title: thousand, scope: thousand });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.session.title, thousand);
    assertTooLong(
      await create({ title: thousand + emoji }),
      "title",
      MAX_SESSION_TEXT + 1,
    );
    assertTooLong(
      await update(ok.body.session.id, { title: "x" + thousand }),
      "title",
      MAX_SESSION_TEXT + 1,
    );
    // Mixed: 999 emoji and two BMP characters are 1,001 code points in 2,000 units.
    assertTooLong(
      await create({ title: "t", scope: emoji.repeat(999) + "éé" }),
      "scope",
      MAX_SESSION_TEXT + 1,
    );
  });

  test("a body over the byte limit is 413 before any field is checked", async () => {
    const small = await createTestApp({
      configure: (config) => void (config.limits.maxRequestBodyBytes = 4096),
    });
    try {
      const account = await signUp(small);
      const r = await call(small, "POST", "/api/v1/sessions", {
        token: account.token,
        body: { title: "a".repeat(5000) },
      });
      assert.equal(r.status, 413);
      assert.equal(r.body.error.code, "payload_too_large");
    } finally {
      await small.close();
    }
  });
});

describe("trace pages", () => {
  test(`a limit above ${MAX_TRACE_LIMIT} is read as ${MAX_TRACE_LIMIT}, not refused`, async () => {
    assert.equal(MAX_TRACE_LIMIT, 1000);
    const id = await sessionId();
    const traceId = uuidv7();
    await appendTraceEvents(
      app.db,
      Array.from({ length: MAX_TRACE_LIMIT + 5 }, (_, i) => ({
        sessionId: id,
        traceId,
        eventType: "tool_call" as const,
        payload: { plaintext: { tool_name: `t${i}`, status: "requested" } },
        now: app.clock.now(),
      })),
    );
    const page = (query: string) =>
      call(app, "GET", `/api/v1/sessions/${id}/traces${query}`, {
        token: alice.token,
      });
    for (
      const limit of [
        MAX_TRACE_LIMIT,
        MAX_TRACE_LIMIT + 1,
        1_000_000,
        "99999999999999999999",
      ]
    ) {
      const r = await page(`?limit=${limit}`);
      assert.equal(r.status, 200, String(limit));
      assert.equal(r.body.trace.events.length, MAX_TRACE_LIMIT, String(limit));
    }
    const rest = await page(
      `?limit=${MAX_TRACE_LIMIT + 1}&offset=${MAX_TRACE_LIMIT}`,
    );
    assert.deepEqual(
      rest.body.trace.events.map((
        e: { payload: { plaintext: { tool_name: string } } },
      ) => e.payload.plaintext.tool_name),
      ["t1000", "t1001", "t1002", "t1003", "t1004"],
    );
  });
});
