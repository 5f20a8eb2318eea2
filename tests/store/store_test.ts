import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Db, Queryable } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import {
  deleteSession,
  findOwnedSession,
  insertSession,
  listMessages,
  listSessions,
  updateSession,
} from "../../src/store/sessions.ts";
import { findToken, insertToken, revokeToken } from "../../src/store/tokens.ts";
import { findUsableKeys } from "../../src/store/api_keys.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { storesUnderTest } from "../support/databases.ts";

const at = (iso: string) => new Date(iso);
/** The digest of the user's one usable key, null when it has none. */
const keyHash = async (db: Queryable, userId: string) =>
  (await findUsableKeys(db, userId))[0]?.secret_hash ?? null;

// One conformance suite, run against every store driver.
for (const store of storesUnderTest(process.env)) {
  describe(`store on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      await migrate(db);
    });
    after(() => opened.dispose());

    test("migrations are recorded and applied once", async () => {
      assert.deepEqual(await migrate(db), []);
      const rows = await db.query<{ version: number; name: string }>(
        "SELECT version, name FROM schema_migrations ORDER BY version",
      );
      assert.deepEqual(rows, MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    });

    test("a failing migration leaves nothing half-applied", async () => {
      const broken = [...MIGRATIONS, {
        version: 9999,
        name: "9999_broken",
        sql: "CREATE TABLE half_done (x int); SELECT no_such_function();",
      }];
      await assert.rejects(migrate(db, broken));
      const tables = await db.query("SELECT 1 FROM pg_tables WHERE tablename = 'half_done'");
      assert.equal(tables.length, 0);
      const versions = await db.query("SELECT 1 FROM schema_migrations WHERE version = 9999");
      assert.equal(versions.length, 0);
    });

    test("users, keys and tokens round-trip", async () => {
      const userId = uuidv7();
      await insertUserWithKey(db, {
        id: userId,
        keyHash: "a".repeat(64),
        now: at("2026-01-01T00:00:00Z"),
      });
      assert.equal(await keyHash(db, userId), "a".repeat(64));
      assert.equal(await keyHash(db, uuidv7()), null);

      const tokenId = uuidv7();
      await insertToken(db, {
        id: tokenId,
        userId,
        secretHash: "b".repeat(64),
        now: at("2026-01-01T00:00:00Z"),
        expiresAt: at("2026-01-02T00:00:00.123Z"),
      });
      const token = await findToken(db, tokenId);
      assert.equal(token?.user_id, userId);
      assert.equal(token?.expires_at.toISOString(), "2026-01-02T00:00:00.123Z");
      assert.equal(token?.revoked_at, null);
      await revokeToken(db, tokenId, at("2026-01-01T01:00:00Z"));
      await revokeToken(db, tokenId, at("2026-01-01T02:00:00Z"));
      assert.equal(
        (await findToken(db, tokenId))?.revoked_at?.toISOString(),
        "2026-01-01T01:00:00.000Z",
      );
    });

    test("a user id is unique", async () => {
      const userId = uuidv7();
      await insertUserWithKey(db, { id: userId, keyHash: "c", now: new Date() });
      await assert.rejects(insertUserWithKey(db, { id: userId, keyHash: "d", now: new Date() }));
      assert.equal(await keyHash(db, userId), "c", "the first key is untouched");
    });

    test("sessions: insert, filter, order, update, archive and delete", async () => {
      const userId = uuidv7();
      await insertUserWithKey(db, { id: userId, keyHash: "e", now: new Date() });
      const listed = async (filter: { scope?: string; title?: string }) =>
        (JSON.parse(await listSessions(db, userId, filter)) as { id: string }[]).map((s) => s.id);
      const a = await insertSession(db, {
        id: uuidv7(),
        userId,
        title: "Alpha Plan",
        scope: "x",
        now: at("2026-01-01T00:00:01Z"),
      });
      const b = await insertSession(db, {
        id: uuidv7(),
        userId,
        title: "beta",
        keyId: "k1",
        now: at("2026-01-01T00:00:02Z"),
      });
      assert.equal(a.scope, "x");
      assert.equal(a.key_id, null);
      assert.equal(b.key_id, "k1");
      assert.deepEqual(a.metadata, {});
      assert.deepEqual(await listed({}), [b.id, a.id]);
      assert.deepEqual(await listed({ title: "PLAN" }), [a.id]);
      assert.deepEqual(await listed({ scope: "x", title: "beta" }), []);

      const updated = await updateSession(db, userId, a.id, {
        title: "Alpha",
        now: at("2026-01-01T00:00:03Z"),
      });
      assert.equal(updated?.title, "Alpha");
      assert.deepEqual(await listed({}), [a.id, b.id]);

      await updateSession(db, userId, a.id, { archived: true, now: at("2026-01-01T00:00:04Z") });
      assert.equal(await updateSession(db, userId, a.id, { title: "no", now: new Date() }), null);
      assert.equal(await deleteSession(db, userId, a.id), false);
      assert.equal((await findOwnedSession(db, userId, a.id))?.archived, true);
      await updateSession(db, userId, a.id, { archived: false, now: at("2026-01-01T00:00:05Z") });
      assert.equal(await deleteSession(db, userId, a.id), true);
      assert.equal(await findOwnedSession(db, userId, a.id), null);
      assert.equal(
        await findOwnedSession(db, uuidv7(), b.id),
        null,
        "ownership is part of the lookup",
      );
      assert.deepEqual(await listMessages(db, b.id), []);
    });

    test("a transaction rolls back as a whole", async () => {
      const userId = uuidv7();
      await assert.rejects(db.transaction(async (tx) => {
        await insertUserWithKey(tx, { id: userId, keyHash: "f", now: new Date() });
        throw new Error("abort");
      }));
      assert.equal(await keyHash(db, userId), null);
    });

    test("JSON and numeric values come back alike on every driver", async () => {
      const userId = uuidv7();
      await insertUserWithKey(db, { id: userId, keyHash: "g", now: new Date() });
      const s = await insertSession(db, { id: uuidv7(), userId, title: "t", now: new Date() });
      const traceId = uuidv7();
      await db.query(
        `INSERT INTO usage_events (session_id, trace_id, provider, model, task_type, input_tokens, cost, created_at)
         VALUES ($1, $2, 'p', 'm', 'chat', 12, 0.000123456789012345678, now())`,
        [s.id, traceId],
      );
      const rows = await db.query<
        { cost: string; input_tokens: number; output_tokens: number | null }
      >(
        "SELECT cost::text AS cost, input_tokens, output_tokens FROM usage_events WHERE trace_id = $1",
        [traceId],
      );
      assert.deepEqual(rows, [{
        cost: "0.000123456789012345678",
        input_tokens: 12,
        output_tokens: null,
      }]);
      const json = await db.query<{ v: unknown }>("SELECT $1::jsonb AS v", [
        JSON.stringify({ a: [1, "ü"], b: null }),
      ]);
      assert.deepEqual(json[0].v, { a: [1, "ü"], b: null });
    });

    test("one live run per session is enforced by the database", async () => {
      const userId = uuidv7();
      await insertUserWithKey(db, { id: userId, keyHash: "h", now: new Date() });
      const s = await insertSession(db, { id: uuidv7(), userId, title: "runs", now: new Date() });
      const insertRun = (state: string) =>
        db.query(
          "INSERT INTO runs (id, session_id, state, created_at, updated_at) VALUES ($1, $2, $3, now(), now())",
          [uuidv7(), s.id, state],
        );
      await insertRun("running");
      await assert.rejects(insertRun("awaiting_client"));
      await insertRun("idle");
      await insertRun("idle");
    });

    test("deleting a session cascades to everything tied to it", async () => {
      const userId = uuidv7();
      await insertUserWithKey(db, { id: userId, keyHash: "i", now: new Date() });
      const s = await insertSession(db, {
        id: uuidv7(),
        userId,
        title: "cascade",
        now: new Date(),
      });
      const runId = uuidv7();
      await db.query(
        "INSERT INTO runs (id, session_id, state, created_at, updated_at) VALUES ($1, $2, 'idle', now(), now())",
        [runId, s.id],
      );
      await db.query(
        `INSERT INTO messages (id, session_id, run_id, seq, role, content, created_at) VALUES ($1, $2, $3, 1, 'user', '{"plaintext":"x"}', now())`,
        [uuidv7(), s.id, runId],
      );
      await db.query(
        `INSERT INTO trace_events (session_id, trace_id, event_type, payload, created_at) VALUES ($1, $2, 'message', '{}', now())`,
        [s.id, uuidv7()],
      );
      await db.query(
        `INSERT INTO usage_events (session_id, trace_id, provider, model, task_type, created_at) VALUES ($1, $2, 'p', 'm', 'chat', now())`,
        [s.id, uuidv7()],
      );
      await db.query(
        `INSERT INTO memories (id, user_id, session_id, key, value, created_at, updated_at) VALUES ($1, $2, $3, 'k', '{}', now(), now())`,
        [uuidv7(), userId, s.id],
      );
      await db.query(
        `INSERT INTO memories (id, user_id, session_id, key, value, created_at, updated_at) VALUES ($1, $2, NULL, 'k', '{}', now(), now())`,
        [uuidv7(), userId],
      );
      await db.query(
        `INSERT INTO sealed_content (session_id, ref, envelope, created_at) VALUES ($1, 'message:1', '{}', now())`,
        [s.id],
      );
      await db.query(
        `INSERT INTO approvals (id, session_id, target_type, target_id, decision, created_at) VALUES ($1, $2, 'tool_call', 'c1', 'approved', now())`,
        [uuidv7(), s.id],
      );
      assert.equal(await deleteSession(db, userId, s.id), true);
      for (
        const table of [
          "runs",
          "messages",
          "trace_events",
          "usage_events",
          "sealed_content",
          "approvals",
        ]
      ) {
        const rows = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} WHERE session_id = $1`,
          [s.id],
        );
        assert.equal(rows[0].n, 0, table);
      }
      const memories = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM memories WHERE user_id = $1",
        [userId],
      );
      assert.equal(memories[0].n, 1, "user memory survives the session");
    });

    if (store.name === "PostgreSQL") {
      test("concurrent instances migrate one at a time", async () => {
        const other = await opened.reopen!();
        const third = await opened.reopen!();
        const results = await Promise.all([migrate(other), migrate(third)]);
        assert.deepEqual(results, [[], []]);
      });
    }
  });
}
