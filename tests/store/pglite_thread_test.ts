/**
 * The embedded store on its own thread (src/store/pglite_thread.ts): what the
 * Db interface promises on one thread holds across it too.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isStorageError } from "../../src/core/errors.ts";
import type { Db } from "../../src/store/db.ts";
import { checkpointDue } from "../../src/store/pglite_checkpoints.ts";
import { openPgliteThread } from "../../src/store/pglite_thread.ts";
import { isUniqueViolation } from "../../src/store/transaction.ts";
import { UNSYNCED_COMMIT } from "../../src/store/unsynced_commit.ts";

describe("PGlite on its own thread", () => {
  let db: Db;
  before(async () => {
    db = await openPgliteThread("memory://");
    await db.exec("CREATE TABLE t (n int PRIMARY KEY, at timestamptz, doc jsonb)");
  });
  after(() => db.close());

  test("a statement sent while a transaction is open waits for its end, outside it", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => release = resolve);
    const rolledBack = db.transaction(async (tx) => {
      await tx.query("INSERT INTO t (n) VALUES (1)");
      await gate;
      throw new Error("roll back");
    });
    // Sent while the transaction holds its insert: were it run inside, the rollback would take it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const outside = db.query("INSERT INTO t (n) VALUES (2) RETURNING n");
    release();
    await assert.rejects(rolledBack, /roll back/);
    assert.deepEqual(await outside, [{ n: 2 }]);
    assert.deepEqual(await db.query("SELECT n FROM t ORDER BY n"), [{ n: 2 }]);
    await db.exec("DELETE FROM t");
  });

  test("transactions begun together run one after the other", async () => {
    const pause = () => new Promise((resolve) => setTimeout(resolve, 10));
    const first = db.transaction(async (tx) => {
      await tx.query("INSERT INTO t (n) VALUES (1)");
      await pause();
      throw new Error("roll back");
    });
    const second = db.transaction(async (tx) => {
      await tx.query("INSERT INTO t (n) VALUES (2)");
      await pause();
      return await tx.query<{ n: number }>("SELECT n FROM t ORDER BY n");
    });
    await assert.rejects(first, /roll back/);
    assert.deepEqual(await second, [{ n: 2 }], "the second saw none of the first");
    assert.deepEqual(await db.query("SELECT n FROM t ORDER BY n"), [{ n: 2 }]);
    await db.exec("DELETE FROM t");
  });

  test("values and driver errors cross the thread as they are", async () => {
    const at = new Date("2026-03-01T10:00:00.000Z");
    const rows = await db.query<{ n: number; at: Date; doc: unknown }>(
      "INSERT INTO t (n, at, doc) VALUES ($1, $2, $3::jsonb) RETURNING n, at, doc",
      [7, at, JSON.stringify({ a: [1, "x"] })],
    );
    assert.deepEqual(rows, [{ n: 7, at, doc: { a: [1, "x"] } }]);
    assert.ok(rows[0].at instanceof Date);
    const duplicate = await db.query("INSERT INTO t (n) VALUES (7)").catch((e) => e);
    assert.ok(duplicate instanceof Error);
    assert.ok(isUniqueViolation(duplicate), String((duplicate as { code?: unknown }).code));
    await db.exec("DELETE FROM t");
  });

  for (const statement of ["crash", "throw"]) {
    test(`a store that dies under a statement (${statement}) answers it as a storage fault, never as the service's own error, and reopens`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "switchyard-crash-"));
      const crashing = await openPgliteThread(join(dir, "data"), {
        workerModule: new URL("../support/crashing_store_worker.ts", import.meta.url).href,
      });
      try {
        const error = await crashing.query(statement).catch((e) => e);
        assert.ok(
          isStorageError(error),
          `a statement whose store died must not answer 500: ${error?.failure?.code} ${error}`,
        );
        // The store starts again on its directory and serves statements as before.
        for (let i = 0; i < 100; i++) {
          if (await crashing.query("SELECT 1").then(() => true, () => false)) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.deepEqual(await crashing.query("SELECT 1"), []);
      } finally {
        await crashing.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  describe("a commit that did not wait for its WAL (src/store/unsynced_commit.ts)", () => {
    const unsynced = `WITH i AS (INSERT INTO t (n) VALUES ($1) RETURNING n)
                      SELECT ${UNSYNCED_COMMIT}, count(*)::int AS n FROM i`;
    const behind = async () =>
      (await db.query<{ behind: boolean }>(
        "SELECT pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn() AS behind",
      ))[0].behind;

    test("the store says it flushes such commits itself", () => {
      assert.equal(db.flushesUnsyncedCommits, true);
    });

    test("is flushed by the thread before the next statement runs", async () => {
      assert.deepEqual(await db.query(unsynced, [11]), [{ set_config: "off", n: 1 }]);
      assert.equal(await behind(), false, "the commit's WAL was left unflushed");
      await db.exec("DELETE FROM t");
    });

    test("in a transaction, is flushed once the transaction commits", async () => {
      await db.transaction(async (tx) => {
        await tx.query(unsynced, [12]);
        await tx.query("INSERT INTO t (n) VALUES (13)");
      });
      assert.equal(await behind(), false, "the commit's WAL was left unflushed");
      assert.deepEqual(await db.query("SELECT n FROM t ORDER BY n"), [{ n: 12 }, { n: 13 }]);
      await db.exec("DELETE FROM t");
    });
  });

  test("a thread that cannot start fails the open instead of hanging it", async () => {
    const missing = new URL("./no_such_worker.ts", import.meta.url).href;
    await assert.rejects(openPgliteThread("memory://", { workerModule: missing }), /thread failed/);
  });
});

describe("the embedded store's checkpoints (src/store/pglite_checkpoints.ts)", () => {
  const MB = 1024 * 1024;
  const fill = (db: Db) =>
    db.exec(
      "CREATE TABLE w (v text); INSERT INTO w SELECT repeat('x', 500) FROM generate_series(1, 8000)",
    );
  const waitFor = async (ok: () => Promise<boolean>) => {
    for (let i = 0; i < 100 && !await ok(); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return await ok();
  };

  test("PGlite makes none by itself: the WAL since the last one only grows", async () => {
    const db = await openPgliteThread("memory://", {
      checkpoints: { everyMs: 20, afterBytes: Number.MAX_SAFE_INTEGER },
    });
    try {
      await fill(db);
      assert.equal(await checkpointDue(db, MB), true);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(await checkpointDue(db, MB), true, "no checkpoint was made");
    } finally {
      await db.close();
    }
  });

  test("past the threshold the store makes one, and keeps its data", async () => {
    const db = await openPgliteThread("memory://", {
      checkpoints: { everyMs: 20, afterBytes: MB },
    });
    try {
      await fill(db);
      assert.equal(await waitFor(async () => !await checkpointDue(db, MB)), true);
      assert.deepEqual(await db.query("SELECT count(*)::int AS n FROM w"), [{ n: 8000 }]);
    } finally {
      await db.close();
    }
  });
});
