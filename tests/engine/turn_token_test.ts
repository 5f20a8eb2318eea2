/**
 * A turn's token checked by its claim: with a token the instance authenticated
 * before, execute reads nothing before the claim, and a token revoked, signed
 * in with a revoked key, of a disabled user or expired is refused with the
 * code a request authenticated first gets, recording nothing. On PGlite, and
 * on PostgreSQL when DATABASE_URL is set.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Db, Queryable } from "../../src/store/db.ts";
import { openPostgres } from "../../src/store/postgres_driver.ts";
import { openPglite } from "../../src/store/pglite_driver.ts";
import { type Account, call, signUp, type TestApp } from "../support/app.ts";
import { createScratchDatabase } from "../support/databases.ts";
import { createEngineApp, openAiReply, twoInstances } from "../support/engine_app.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";

const OPERATOR = "operator-token-for-turn-tests";
const KEY = { "x-router-provider-openai-api-key": "sk-test-openai" };
const policy = {
  routing: { default: { model: "openai/gpt-4o-mini" }, rules: [] },
  privacy: { remote: { mode: "allow" } },
};
const turn = (text: string) => ({ input: { text }, policy });

/** The store, with the text of every statement sent to it since `seen` was last emptied. */
function recording(db: Db): { db: Db; seen: string[] } {
  const seen: string[] = [];
  const watch = (q: Queryable): Queryable => ({
    query: (text, params) => {
      seen.push(text);
      return q.query(text, params);
    },
    exec: (text) => q.exec(text),
  });
  const watched: Db = {
    ...watch(db),
    driver: db.driver,
    flushesUnsyncedCommits: db.flushesUnsyncedCommits,
    transaction: (fn) => db.transaction((tx) => fn(watch(tx))),
    close: () => db.close(),
  } as Db;
  return { db: watched, seen };
}

/** What a session holds: runs, messages and trace events. */
async function recorded(db: Queryable, sessionId: string): Promise<number[]> {
  const rows = await db.query<{ runs: number; messages: number; events: number }>(
    `SELECT (SELECT count(*)::int FROM runs WHERE session_id = $1) AS runs,
            (SELECT count(*)::int FROM messages WHERE session_id = $1) AS messages,
            (SELECT count(*)::int FROM trace_events WHERE session_id = $1) AS events`,
    [sessionId],
  );
  return [rows[0].runs, rows[0].messages, rows[0].events];
}

interface Store {
  name: string;
  open(): Promise<{ db: Db; dispose(): Promise<void> }>;
}

const STORES: Store[] = [{
  name: "PGlite",
  async open() {
    const db = await openPglite("memory://");
    return { db, dispose: () => db.close() };
  },
}];
const adminUrl = process.env.DATABASE_URL;
if (adminUrl) {
  STORES.push({
    name: "PostgreSQL",
    async open() {
      const scratch = await createScratchDatabase(adminUrl);
      const db = openPostgres(scratch.url, { maxConnections: 4 });
      return {
        db,
        dispose: async () => {
          await db.close();
          await scratch.drop();
        },
      };
    },
  });
}

for (const store of STORES) {
  describe(`a turn's token checked by its claim (${store.name})`, () => {
    let openai: FakeProvider;
    let app: TestApp;
    let seen: string[];
    let dispose: () => Promise<void>;
    before(async () => {
      openai = await startFakeProvider();
      const opened = await store.open();
      dispose = opened.dispose;
      const watched = recording(opened.db);
      seen = watched.seen;
      app = await createEngineApp({
        openai: openai.url,
        ollama: "http://127.0.0.1:9",
        db: watched.db,
        configure: (c) => void (c.auth.operatorToken = OPERATOR),
      });
    });
    after(async () => {
      await app.close();
      await dispose();
      await openai.close();
    });

    const execute = (token: string, sessionId: string, body: unknown = turn("hello")) =>
      call(app, "POST", `/api/v1/sessions/${sessionId}/execute`, { token, body, headers: KEY });
    const session = async (token: string) =>
      (await call(app, "POST", "/api/v1/sessions", { token, body: { title: "t" } })).body.session
        .id as string;
    const answer = () => openai.enqueue(openAiReply({ text: "hi" }));

    /** A user with a session, its token known to the instance (it made the session). */
    async function userWithSession(): Promise<Account & { sessionId: string }> {
      const account = await signUp(app);
      return { ...account, sessionId: await session(account.token) };
    }

    /**
     * A turn with `token` on `sessionId` refused as `code`, with nothing
     * recorded; `byClaim`: the claim was what refused it (the token not read first).
     */
    async function refused(
      token: string,
      sessionId: string,
      code: string,
      options: { body?: unknown; byClaim?: boolean } = {},
    ) {
      const before = await recorded(app.db, sessionId);
      seen.length = 0;
      const r = await execute(token, sessionId, options.body);
      if (options.byClaim) assert.match(seen[0] ?? "", /switchyard_claim_execute/);
      assert.equal(r.status, code === "session_not_found" ? 404 : 401);
      assert.equal(r.body.error.code, code);
      assert.deepEqual(await recorded(app.db, sessionId), before, "nothing recorded");
      return r;
    }

    test("a turn with a token the instance knows reads nothing before its claim", async () => {
      const alice = await userWithSession();
      answer();
      seen.length = 0;
      const r = await execute(alice.token, alice.sessionId);
      assert.equal(r.status, 200);
      assert.equal(r.body.data.message.content, "hi");
      assert.ok(seen.length > 0);
      assert.match(seen[0], /switchyard_claim_execute/, "the claim is the turn's first statement");
      assert.equal(seen.filter((s) => /FROM tokens/.test(s)).length, 0, "no token read");
      const [runs, messages] = await recorded(app.db, alice.sessionId);
      assert.deepEqual([runs, messages], [1, 2]);
      const server = r.headers.get("server-timing") ?? "";
      assert.match(server, /claim;dur=/);
    });

    test("a signed-out token is refused token_revoked, recording nothing", async () => {
      const alice = await userWithSession();
      const out = await call(app, "POST", "/api/v1/auth/sign-out", { token: alice.token });
      assert.equal(out.status, 200);
      const r = await refused(alice.token, alice.sessionId, "token_revoked", { byClaim: true });
      assert.equal(r.body.error.message, "token revoked: sign in again");
      // A bad body does not change it: the token's failure comes first.
      await refused(alice.token, alice.sessionId, "token_revoked", { body: { input: 3 } });
    });

    test("a token of a revoked key is refused at once, recording nothing", async () => {
      const alice = await userWithSession();
      const created = await call(app, "POST", "/api/v1/auth/keys", {
        token: alice.token,
        body: { name: "ci" },
      });
      const ci = (await call(app, "POST", "/api/v1/auth/sign-in", {
        headers: { "x-router-api-key": created.body.api_key },
      })).body.token as string;
      answer();
      assert.equal((await execute(ci, alice.sessionId)).status, 200);
      const revoked = await call(app, "DELETE", `/api/v1/auth/keys/${created.body.key_id}`, {
        token: alice.token,
      });
      assert.equal(revoked.status, 200);
      await refused(ci, alice.sessionId, "token_revoked", { byClaim: true });
      answer();
      assert.equal((await execute(alice.token, alice.sessionId)).status, 200, "the other lives");
    });

    test("a disabled user's token is refused until it is enabled again", async () => {
      const bob = await userWithSession();
      answer();
      assert.equal((await execute(bob.token, bob.sessionId)).status, 200);
      const put = (disabled: boolean) =>
        call(app, "PUT", `/api/v1/admin/users/${bob.userId}`, {
          token: OPERATOR,
          body: { disabled },
        });
      assert.equal((await put(true)).status, 200);
      await refused(bob.token, bob.sessionId, "token_revoked", { byClaim: true });
      await refused(bob.token, bob.sessionId, "token_revoked");
      assert.equal((await put(false)).status, 200);
      answer();
      assert.equal((await execute(bob.token, bob.sessionId)).status, 200);
    });

    test("an expired token is token_expired, a wrong secret invalid_token", async () => {
      const carol = await userWithSession();
      const wrong = `${carol.token.slice(0, -1)}${carol.token.endsWith("a") ? "b" : "a"}`;
      await refused(wrong, carol.sessionId, "invalid_token");
      app.clock.advance(app.config.auth.tokenTtlSeconds * 1000);
      await refused(carol.token, carol.sessionId, "token_expired");
      app.clock.advance(-app.config.auth.tokenTtlSeconds * 1000);
    });

    test("another user's, an archived and an unknown session are 404 as before", async () => {
      const alice = await userWithSession();
      const mallory = await userWithSession();
      await refused(mallory.token, alice.sessionId, "session_not_found", { byClaim: true });
      const archived = await call(app, "PUT", `/api/v1/sessions/${alice.sessionId}`, {
        token: alice.token,
        body: { archived: true },
      });
      assert.equal(archived.status, 200);
      await refused(alice.token, alice.sessionId, "session_not_found", { byClaim: true });
      await refused(alice.token, crypto.randomUUID(), "session_not_found", { byClaim: true });
      // A bad body on someone else's session is still that session's 404.
      await refused(mallory.token, alice.sessionId, "session_not_found", { body: { input: 3 } });
    });

    const toolPolicy = { ...policy, tools: { permissions: { file_read: "allow" } } };
    const cont = (token: string, sessionId: string, body: unknown) =>
      call(app, "POST", `/api/v1/sessions/${sessionId}/continue`, { token, body, headers: KEY });

    /** A user whose session's run awaits the result of one `read_file` call. */
    async function awaitingTool(o: { afterATurn?: boolean } = {}) {
      const user = await userWithSession();
      if (o.afterATurn) {
        openai.enqueue(openAiReply({ text: "first answer" }));
        await execute(user.token, user.sessionId, turn("first question zeta"));
      }
      openai.enqueue(openAiReply({ calls: [{ name: "read_file", arguments: { path: "a.ts" } }] }));
      const look = { input: { text: "look around omega" }, policy: toolPolicy };
      const r = await execute(user.token, user.sessionId, look);
      assert.equal(r.body.status, "awaiting_tool");
      const callId = r.body.data.tool_requests[0].call_id as string;
      const results = {
        type: "tool_results",
        data: { results: [{ call_id: callId, content: "file a", is_error: false }] },
      };
      return { ...user, look, results };
    }

    /** How many times each text went to the model in its latest request. */
    function timesSent(texts: string[]): number[] {
      const sent = JSON.stringify(openai.requests.at(-1)!.json);
      return texts.map((text) => sent.split(text).length - 1);
    }

    /** The session's live run's state, and how many runs, messages and trace events it holds. */
    async function runState(sessionId: string) {
      const live = await app.db.query<{ state: string }>(
        "SELECT state FROM runs WHERE session_id = $1 AND state <> 'idle'",
        [sessionId],
      );
      return { live: live.map((r) => r.state), held: await recorded(app.db, sessionId) };
    }

    test("a continue with a token the instance knows is its claim and its write", async () => {
      const alice = await awaitingTool();
      answer();
      seen.length = 0;
      const r = await cont(alice.token, alice.sessionId, alice.results);
      assert.equal(r.status, 200);
      assert.equal(r.body.status, "completed");
      assert.match(seen[0], /UPDATE runs[\s\S]*switchyard_token_refusal/, "the claim checks it");
      // Where the store flushes such commits by itself (a server; not this test's PGlite, on the
      // request's own thread) the claim commits without waiting for the disk: the write's synced
      // commit covers it before the turn is answered.
      const async = /set_config\('synchronous_commit', 'off', true\)/.test(seen[0]);
      assert.equal(async, store.name === "PostgreSQL");
      // The claim read the history and memory; the answer's trace events went with the write.
      assert.equal(seen.length, 2, seen.join("\n---\n"));
      assert.match(seen[1], /switchyard_write_turn/);
      const trace = await call(app, "GET", `/api/v1/sessions/${alice.sessionId}/traces?limit=500`, {
        token: alice.token,
      });
      const calls = trace.body.trace.events.filter((e: { event_type: string }) =>
        e.event_type === "tool_call"
      ).map((e: { payload: { plaintext: { status: string } } }) => e.payload.plaintext.status);
      assert.deepEqual(calls, ["requested", "completed"]);
      assert.match(r.headers.get("server-timing") ?? "", /claim;dur=/);
    });

    test("a continued turn's claim reads history and memory, its own run's messages once", async () => {
      const alice = await awaitingTool({ afterATurn: true });
      // A preview reads the paused run's prompt into what this instance holds of the session.
      const preview = await call(app, "POST", `/api/v1/sessions/${alice.sessionId}/preview`, {
        token: alice.token,
        body: alice.look,
        headers: KEY,
      });
      assert.equal(preview.status, 200);
      answer();
      seen.length = 0;
      const r = await cont(alice.token, alice.sessionId, alice.results);
      assert.equal(r.body.status, "completed");
      assert.deepEqual(seen.filter((s) => /FROM (messages|memories) /.test(s)), [], "no read");
      const texts = ["first question zeta", "first answer", "look around omega", "file a"];
      assert.deepEqual(timesSent(texts), [1, 1, 1, 1]);
    });

    test("an inject's turn reads history and memory in one statement, its run's once", async () => {
      const alice = await awaitingTool({ afterATurn: true });
      answer();
      seen.length = 0;
      const r = await cont(alice.token, alice.sessionId, {
        type: "inject",
        data: { messages: [{ text: "inject kappa" }] },
      });
      assert.equal(r.body.status, "completed");
      assert.deepEqual(seen.filter((s) => /FROM (messages|memories) /.test(s)), [], "no read");
      assert.equal(seen.filter((s) => /switchyard_history/.test(s)).length, 1);
      const texts = ["first question zeta", "first answer", "look around omega", "inject kappa"];
      assert.deepEqual(timesSent(texts), [1, 1, 1, 1]);
    });

    test("a continue whose token or session does not hold is refused, its run untouched", async () => {
      const alice = await awaitingTool();
      const mallory = await userWithSession();
      const before = await runState(alice.sessionId);
      assert.deepEqual(before.live, ["awaiting_client"]);
      const refusedContinue = async (
        token: string,
        code: string,
        body: unknown = alice.results,
      ) => {
        seen.length = 0;
        const r = await cont(token, alice.sessionId, body);
        assert.equal(r.status, code === "session_not_found" ? 404 : 401, JSON.stringify(r.body));
        assert.equal(r.body.error.code, code);
        assert.deepEqual(await runState(alice.sessionId), before, "nothing changed");
        return [...seen];
      };
      // Another user's token: the claim takes nothing, and the request is then read as any other.
      const statements = await refusedContinue(mallory.token, "session_not_found");
      assert.match(statements[0], /UPDATE runs[\s\S]*switchyard_token_refusal/);
      // A bad body on someone else's session is still that session's 404.
      await refusedContinue(mallory.token, "session_not_found", { type: "nonsense" });
      const wrong = `${alice.token.slice(0, -1)}${alice.token.endsWith("a") ? "b" : "a"}`;
      await refusedContinue(wrong, "invalid_token");
      app.clock.advance(app.config.auth.tokenTtlSeconds * 1000);
      await refusedContinue(alice.token, "token_expired");
      app.clock.advance(-app.config.auth.tokenTtlSeconds * 1000);
      // What the run refuses is told once the token holds.
      const mismatch = await cont(alice.token, alice.sessionId, {
        type: "approval_decisions",
        data: { decisions: [{ approval_id: "x", decision: "approved" }] },
      });
      assert.equal(mismatch.body.error.code, "continuation_mismatch");
      assert.deepEqual(await runState(alice.sessionId), before);
      const out = await call(app, "POST", "/api/v1/auth/sign-out", { token: alice.token });
      assert.equal(out.status, 200);
      await refusedContinue(alice.token, "token_revoked");
    });

    test("a break with a token the instance knows is read first, then supersedes", async () => {
      const alice = await awaitingTool();
      const r = await cont(alice.token, alice.sessionId, { type: "break" });
      assert.equal(r.status, 200);
      assert.equal(r.body.status, "idle");
      assert.deepEqual((await runState(alice.sessionId)).live, []);
      const again = await cont(alice.token, alice.sessionId, { type: "break" });
      assert.equal(again.body.error.code, "no_active_run");
    });

    /** A compatible turn (Chat Completions, the stored default policy) sent with `apiKey`. */
    const compat = (apiKey: string, text = "hello") =>
      call(app, "POST", "/v1/chat/completions", {
        token: apiKey,
        body: { model: "switchyard", messages: [{ role: "user", content: text }] },
        headers: KEY,
        unchecked: true,
      });

    /** What a user holds: sessions, runs and messages. */
    async function userRecords(userId: string): Promise<number[]> {
      const rows = await app.db.query<{ s: number; r: number; m: number }>(
        `SELECT (SELECT count(*)::int FROM sessions WHERE user_id = $1) AS s,
                (SELECT count(*)::int FROM runs r JOIN sessions x ON x.id = r.session_id
                 WHERE x.user_id = $1) AS r,
                (SELECT count(*)::int FROM messages m JOIN sessions x ON x.id = m.session_id
                 WHERE x.user_id = $1) AS m`,
        [userId],
      );
      return [rows[0].s, rows[0].r, rows[0].m];
    }

    /** A user with the default policy stored and a compatible turn answered with its key. */
    async function compatUser(): Promise<Account> {
      const account = await signUp(app);
      const put = await call(app, "PUT", "/api/v1/policies/default", {
        token: account.token,
        body: policy,
      });
      assert.ok(put.status === 200 || put.status === 201);
      answer();
      assert.equal((await compat(account.apiKey)).status, 200);
      return account;
    }

    /** A compatible turn with `apiKey` refused as `invalid_api_key` by its read, recording nothing. */
    async function keyRefused(apiKey: string, userId: string) {
      const before = await userRecords(userId);
      seen.length = 0;
      const r = await compat(apiKey, "another question");
      assert.match(seen[0] ?? "", /FROM api_keys k JOIN users u/, "the read checked the key");
      assert.equal(r.status, 401);
      assert.deepEqual(r.body.error.code, "invalid_api_key");
      assert.equal(r.body.error.message, "invalid API key");
      assert.deepEqual(await userRecords(userId), before, "nothing recorded");
    }

    test("a compatible turn with a key the instance knows checks it in its one read", async () => {
      const dave = await compatUser();
      answer();
      seen.length = 0;
      const r = await compat(dave.apiKey, "more");
      assert.equal(r.status, 200);
      assert.match(seen[0], /FROM api_keys k JOIN users u/, "the key is read with the request");
      assert.equal(seen.filter((q) => /api_keys/.test(q)).length, 1, "and only there");
    });

    test("a revoked, an expired and a disabled user's key are refused by the read", async () => {
      const erin = await compatUser();
      const created = await call(app, "POST", "/api/v1/auth/keys", {
        token: erin.token,
        body: { name: "ci", expires_at: "2026-01-01T01:00:00.000Z" },
      });
      const ci = created.body.api_key as string;
      answer();
      assert.equal((await compat(ci)).status, 200);
      app.clock.advance(60 * 60 * 1000);
      await keyRefused(ci, erin.userId);
      app.clock.advance(-60 * 60 * 1000);

      const second = await call(app, "POST", "/api/v1/auth/keys", {
        token: erin.token,
        body: { name: "second" },
      });
      answer();
      assert.equal((await compat(second.body.api_key)).status, 200);
      await call(app, "DELETE", `/api/v1/auth/keys/${second.body.key_id}`, { token: erin.token });
      await keyRefused(second.body.api_key, erin.userId);

      const disable = (disabled: boolean) =>
        call(app, "PUT", `/api/v1/admin/users/${erin.userId}`, {
          token: OPERATOR,
          body: { disabled },
        });
      await disable(true);
      await keyRefused(erin.apiKey, erin.userId);
      await disable(false);
      answer();
      assert.equal((await compat(erin.apiKey)).status, 200, "enabled again");
    });
  });
}

if (adminUrl) {
  describe("a turn's token checked by its claim, on two instances over one PostgreSQL", () => {
    const h = twoInstances(adminUrl);

    test("a key revoked on one instance fails its tokens' turns on the other at once", async () => {
      const created = await call(h.one, "POST", "/api/v1/auth/keys", {
        token: h.alice.token,
        body: { name: "shared" },
      });
      const token = (await call(h.two, "POST", "/api/v1/auth/sign-in", {
        headers: { "x-router-api-key": created.body.api_key },
      })).body.token as string;
      const made = await call(h.two, "POST", "/api/v1/sessions", { token, body: { title: "t" } });
      const path = `/api/v1/sessions/${made.body.session.id}/execute`;
      const execute = () => call(h.two, "POST", path, { token, body: turn("hi"), headers: KEY });
      h.openai.enqueue(openAiReply({ text: "hi" }));
      assert.equal((await execute()).status, 200);
      const revoked = await call(h.one, "DELETE", `/api/v1/auth/keys/${created.body.key_id}`, {
        token: h.alice.token,
      });
      assert.equal(revoked.status, 200);
      const r = await execute();
      assert.equal(r.status, 401);
      assert.equal(r.body.error.code, "token_revoked");
      const [runs] = await recorded(h.db, made.body.session.id);
      assert.equal(runs, 1, "the refused turn claimed nothing");
    });
  });
}
