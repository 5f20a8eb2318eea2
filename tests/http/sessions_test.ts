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

async function create(account: Account, body: Record<string, unknown>) {
  app.clock.advance(1000); // distinct timestamps make the ordering observable
  const r = await call(app, "POST", "/api/v1/sessions", { token: account.token, body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.session;
}

describe("create", () => {
  test("a plaintext session has encrypted false and no key_id at all", async () => {
    const s = await create(alice, { title: "Plain", scope: "repo:a" });
    assert.equal(s.title, "Plain");
    assert.equal(s.scope, "repo:a");
    assert.equal(s.encrypted, false);
    assert.equal("key_id" in s, false);
    assert.equal(s.archived, false);
    assert.equal(s.created_at, app.clock.now().toISOString());
    assert.equal(s.updated_at, s.created_at);
  });

  test("a session with key_id is encrypted and shows its key_id", async () => {
    const s = await create(alice, { title: "Sealed", key_id: "key-1" });
    assert.equal(s.encrypted, true);
    assert.equal(s.key_id, "key-1");
    assert.equal("scope" in s, false);
  });

  test("ignores unknown fields", async () => {
    const s = await create(alice, { title: "Extra", colour: "blue", encrypted: true });
    assert.equal(s.encrypted, false);
    assert.equal("colour" in s, false);
  });

  test("a missing or mistyped title is 422 invalid_request naming the field", async () => {
    for (
      const body of [{}, { title: 7 }, { title: null }, { title: "x", scope: 1 }, {
        title: "x",
        key_id: "",
      }]
    ) {
      const r = await call(app, "POST", "/api/v1/sessions", { token: alice.token, body });
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.equal(r.body.error.code, "invalid_request");
      assert.equal(typeof r.body.error.details.path, "string");
    }
    const r = await call(app, "POST", "/api/v1/sessions", {
      token: alice.token,
      body: { title: 7 },
    });
    assert.equal(r.body.error.details.path, "title");
  });

  test("needs a token", async () => {
    const r = await call(app, "POST", "/api/v1/sessions", { body: { title: "x" } });
    assert.equal(r.status, 401);
  });
});

describe("list", () => {
  test("returns only the caller's sessions, most recently updated first, archived included", async () => {
    const owner = await signUp(app);
    const first = await create(owner, { title: "First", scope: "s1" });
    const second = await create(owner, { title: "Second report", scope: "s2" });
    const third = await create(owner, { title: "third REPORT", scope: "s1" });
    await create(bob, { title: "Bob's report", scope: "s1" });
    app.clock.advance(1000);
    const archived = await call(app, "PUT", `/api/v1/sessions/${first.id}`, {
      token: owner.token,
      body: { archived: true },
    });
    assert.equal(archived.body.session.archived, true);

    const all = await call(app, "GET", "/api/v1/sessions", { token: owner.token });
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.sessions.map((s: { id: string }) => s.id), [
      first.id,
      third.id,
      second.id,
    ]);

    const byScope = await call(app, "GET", "/api/v1/sessions?scope=s1", { token: owner.token });
    assert.deepEqual(byScope.body.sessions.map((s: { id: string }) => s.id), [first.id, third.id]);

    const byTitle = await call(app, "GET", "/api/v1/sessions?title=rEpOrT", { token: owner.token });
    assert.deepEqual(byTitle.body.sessions.map((s: { id: string }) => s.id), [third.id, second.id]);

    const both = await call(app, "GET", "/api/v1/sessions?title=report&scope=s1", {
      token: owner.token,
    });
    assert.deepEqual(both.body.sessions.map((s: { id: string }) => s.id), [third.id]);

    const none = await call(app, "GET", "/api/v1/sessions?scope=S1", { token: owner.token });
    assert.deepEqual(none.body.sessions, [], "scope matches exactly");
  });

  test("title filter treats % and _ as ordinary characters", async () => {
    const owner = await signUp(app);
    const literal = await create(owner, { title: "100% done_now" });
    await create(owner, { title: "100 percent" });
    const r = await call(app, "GET", `/api/v1/sessions?title=${encodeURIComponent("0% done_")}`, {
      token: owner.token,
    });
    assert.deepEqual(r.body.sessions.map((s: { id: string }) => s.id), [literal.id]);
    const u = await call(app, "GET", "/api/v1/sessions?title=_", { token: owner.token });
    assert.deepEqual(u.body.sessions.map((s: { id: string }) => s.id), [literal.id]);
  });

  test("a new user has an empty list", async () => {
    const r = await call(app, "GET", "/api/v1/sessions", { token: (await signUp(app)).token });
    assert.deepEqual(r.body, { sessions: [] });
  });
});

describe("fetch", () => {
  test("returns the detail with empty messages and metadata", async () => {
    const s = await create(alice, { title: "Detail", scope: "x" });
    const r = await call(app, "GET", `/api/v1/sessions/${s.id}`, { token: alice.token });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.session, {
      id: s.id,
      title: "Detail",
      created_at: s.created_at,
      updated_at: s.updated_at,
      messages: [],
      metadata: {},
    });
  });

  test("an encrypted session's detail has key_id and no encrypted flag", async () => {
    const s = await create(alice, { title: "Sealed detail", key_id: "k-9" });
    const r = await call(app, "GET", `/api/v1/sessions/${s.id}`, { token: alice.token });
    assert.equal(r.body.session.key_id, "k-9");
    assert.equal("encrypted" in r.body.session, false);
  });

  test("unknown, foreign and archived sessions all answer 404 session_not_found", async () => {
    const mine = await create(alice, { title: "Mine" });
    const archived = await create(alice, { title: "Gone" });
    await call(app, "PUT", `/api/v1/sessions/${archived.id}`, {
      token: alice.token,
      body: { archived: true },
    });
    const ids = [mine.id, archived.id, "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"];
    const tokens = [bob.token, alice.token, alice.token];
    const bodies = new Set<string>();
    for (let i = 0; i < ids.length; i++) {
      const r = await call(app, "GET", `/api/v1/sessions/${ids[i]}`, { token: tokens[i] });
      assert.equal(r.status, 404);
      assert.equal(r.body.error.code, "session_not_found");
      bodies.add(JSON.stringify(r.body));
    }
    assert.equal(bodies.size, 1, "existence is never disclosed");
  });

  test("a non-UUID id is 400 invalid_session_id on every session path", async () => {
    for (const [method, body] of [["GET"], ["PUT", { title: "x" }], ["DELETE"]] as const) {
      const r = await call(app, method, "/api/v1/sessions/not-a-uuid", {
        token: alice.token,
        body,
      });
      assert.equal(r.status, 400, method);
      assert.equal(r.body.error.code, "invalid_session_id");
    }
  });

  test("accepts an upper-case UUID", async () => {
    const s = await create(alice, { title: "Case" });
    const r = await call(app, "GET", `/api/v1/sessions/${s.id.toUpperCase()}`, {
      token: alice.token,
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.session.id, s.id);
  });
});

describe("update", () => {
  test("is partial and refreshes updated_at", async () => {
    const s = await create(alice, { title: "Before", scope: "keep" });
    app.clock.advance(5000);
    const r = await call(app, "PUT", `/api/v1/sessions/${s.id}`, {
      token: alice.token,
      body: { title: "After" },
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.session.title, "After");
    assert.equal(r.body.session.scope, "keep");
    assert.equal(r.body.session.archived, false);
    assert.equal(r.body.session.created_at, s.created_at);
    assert.equal(r.body.session.updated_at, app.clock.now().toISOString());

    app.clock.advance(1000);
    const empty = await call(app, "PUT", `/api/v1/sessions/${s.id}`, {
      token: alice.token,
      body: {},
    });
    assert.equal(empty.body.session.title, "After");
    assert.equal(empty.body.session.updated_at, app.clock.now().toISOString());
  });

  test("archive then restore; an archived session accepts only the restoring update", async () => {
    const s = await create(alice, { title: "Cycle" });
    const archive = await call(app, "PUT", `/api/v1/sessions/${s.id}`, {
      token: alice.token,
      body: { archived: true },
    });
    assert.equal(archive.body.session.archived, true);

    const retitle = await call(app, "PUT", `/api/v1/sessions/${s.id}`, {
      token: alice.token,
      body: { title: "x" },
    });
    assert.equal(retitle.status, 404);
    const del = await call(app, "DELETE", `/api/v1/sessions/${s.id}`, { token: alice.token });
    assert.equal(del.status, 404);

    const restore = await call(app, "PUT", `/api/v1/sessions/${s.id}`, {
      token: alice.token,
      body: { archived: false, title: "Restored" },
    });
    assert.equal(restore.status, 200);
    assert.equal(restore.body.session.archived, false);
    assert.equal(restore.body.session.title, "Restored");
    assert.equal(
      (await call(app, "GET", `/api/v1/sessions/${s.id}`, { token: alice.token })).status,
      200,
    );
  });

  test("mistyped fields are 422 and change nothing", async () => {
    const s = await create(alice, { title: "Stable" });
    for (const body of [{ title: 5 }, { archived: "yes" }, { title: null }]) {
      const r = await call(app, "PUT", `/api/v1/sessions/${s.id}`, { token: alice.token, body });
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.equal(r.body.error.code, "invalid_request");
    }
    const after = await call(app, "GET", `/api/v1/sessions/${s.id}`, { token: alice.token });
    assert.equal(after.body.session.title, "Stable");
    assert.equal(after.body.session.updated_at, s.updated_at);
  });

  test("another user's session is 404 and stays unchanged", async () => {
    const s = await create(alice, { title: "Private" });
    const r = await call(app, "PUT", `/api/v1/sessions/${s.id}`, {
      token: bob.token,
      body: { title: "Mine now" },
    });
    assert.equal(r.status, 404);
    assert.equal(r.body.error.code, "session_not_found");
    const after = await call(app, "GET", `/api/v1/sessions/${s.id}`, { token: alice.token });
    assert.equal(after.body.session.title, "Private");
  });
});

describe("delete", () => {
  test("removes the session for good", async () => {
    const s = await create(alice, { title: "Doomed" });
    const r = await call(app, "DELETE", `/api/v1/sessions/${s.id}`, { token: alice.token });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { deleted: true });
    assert.equal(
      (await call(app, "GET", `/api/v1/sessions/${s.id}`, { token: alice.token })).status,
      404,
    );
    assert.equal(
      (await call(app, "DELETE", `/api/v1/sessions/${s.id}`, { token: alice.token })).status,
      404,
    );
  });

  test("cannot delete another user's session", async () => {
    const s = await create(alice, { title: "Kept" });
    const r = await call(app, "DELETE", `/api/v1/sessions/${s.id}`, { token: bob.token });
    assert.equal(r.status, 404);
    assert.equal(
      (await call(app, "GET", `/api/v1/sessions/${s.id}`, { token: alice.token })).status,
      200,
    );
  });

  test("takes the session's messages with it", async () => {
    const s = await create(alice, { title: "With history" });
    await app.db.query(
      `INSERT INTO messages (id, session_id, seq, role, content, created_at)
       VALUES ($1, $2, 1, 'user', '{"plaintext":"hi"}'::jsonb, now())`,
      ["0190aaaa-bbbb-7ccc-8ddd-000000000001", s.id],
    );
    const detail = await call(app, "GET", `/api/v1/sessions/${s.id}`, { token: alice.token });
    assert.deepEqual(detail.body.session.messages, [{
      role: "user",
      content: { plaintext: "hi" },
    }]);
    await call(app, "DELETE", `/api/v1/sessions/${s.id}`, { token: alice.token });
    const left = await app.db.query(
      "SELECT count(*)::int AS n FROM messages WHERE session_id = $1",
      [s.id],
    );
    assert.deepEqual(left, [{ n: 0 }]);
  });
});
