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
import { createEngineApp, openAiReply } from "../support/engine_app.ts";
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
  });
}
