/**
 * The embedded store's own vacuum (src/store/pglite_vacuum.ts): PostgreSQL in
 * single-user mode has no autovacuum, so without the store's dead rows stay,
 * tables grow and transaction ids are never frozen.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Db, Queryable } from "../../src/store/db.ts";
import { openPgliteThread } from "../../src/store/pglite_thread.ts";
import {
  maintain,
  type MaintenanceDone,
  maintenanceDue,
  VACUUMS,
} from "../../src/store/pglite_vacuum.ts";

const NEVER = { ...VACUUMS, everyMs: 3_600_000 };

async function stats(db: Queryable): Promise<{ dead: number; vacuums: number; bytes: number }> {
  const [row] = await db.query<{ dead: number; vacuums: number; bytes: number }>(
    `SELECT n_dead_tup::int AS dead, vacuum_count::int AS vacuums,
            pg_total_relation_size('w')::int AS bytes
     FROM pg_stat_user_tables WHERE relname = 'w'`,
  );
  return row;
}

/** Rows inserted then deleted, `rounds` times: what sessions deleted by their owners leave. */
async function churn(db: Db, rounds: number, between: () => Promise<unknown> = async () => {}) {
  for (let i = 0; i < rounds; i++) {
    await db.exec("INSERT INTO w (v) SELECT repeat('x', 200) FROM generate_series(1, 2000)");
    await db.exec("DELETE FROM w");
    await between();
  }
}

async function withStore(
  options: Parameters<typeof openPgliteThread>[1],
  fn: (db: Db) => Promise<void>,
): Promise<void> {
  const db = await openPgliteThread("memory://", options);
  try {
    await db.exec("CREATE TABLE w (id serial PRIMARY KEY, v text)");
    await fn(db);
  } finally {
    await db.close();
  }
}

describe("the embedded store's vacuum", () => {
  test("PGlite vacuums nothing by itself: deleted rows stay dead", async () => {
    await withStore({ vacuums: NEVER }, async (db) => {
      await churn(db, 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await db.query("SELECT pg_stat_force_next_flush()");
      const s = await stats(db);
      assert.equal(s.dead, 2000);
      assert.equal(s.vacuums, 0);
    });
  });

  test("past the threshold the store vacuums a table by itself, and says so", async () => {
    const seen: MaintenanceDone[] = [];
    await withStore(
      { vacuums: { ...VACUUMS, everyMs: 20 }, onMaintenance: (done) => seen.push(done) },
      async (db) => {
        await churn(db, 1);
        // A vacuum may also run between the insert and the delete (past the inserts' threshold):
        // wait for the one that reclaims the deleted rows.
        let s = await stats(db);
        for (let i = 0; i < 200 && (s.vacuums === 0 || s.dead > 0); i++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          s = await stats(db);
        }
        assert.equal(s.vacuums >= 1, true, "vacuumed");
        assert.equal(s.dead, 0, "dead rows reclaimed");
        const w = seen.find((d) => d.table === "public.w");
        assert.equal(w?.kind, "vacuum");
        assert.equal(w.ms >= 0, true);
      },
    );
  });

  test("below the threshold nothing is due", async () => {
    await withStore({ vacuums: NEVER }, async (db) => {
      await db.exec("INSERT INTO w (v) VALUES ('a'), ('b'); DELETE FROM w WHERE v = 'a'");
      assert.deepEqual(await maintenanceDue(db, VACUUMS), []);
    });
  });

  test("a table churned by inserts and deletes stops growing once vacuumed between rounds", async () => {
    let unvacuumed = 0;
    await withStore({ vacuums: NEVER }, async (db) => {
      await churn(db, 10);
      unvacuumed = (await stats(db)).bytes;
    });
    await withStore({ vacuums: NEVER }, async (db) => {
      const sizes: number[] = [];
      await churn(db, 10, async () => {
        await maintain(db, VACUUMS);
        sizes.push((await stats(db)).bytes);
      });
      assert.equal(sizes.at(-1), sizes[2], `flat after the first rounds: ${sizes.join(", ")}`);
      assert.equal(sizes.at(-1)! * 3 < unvacuumed, true, `${sizes.at(-1)} against ${unvacuumed}`);
    });
  });

  test("a table whose transaction ids grow old is frozen, and the database's age falls", async () => {
    await withStore({ vacuums: NEVER }, async (db) => {
      for (let i = 0; i < 30; i++) await db.exec("INSERT INTO w (v) VALUES ('x')");
      const age = async () =>
        (await db.query<{ rel: number; dat: number }>(
          `SELECT age(relfrozenxid) AS rel,
                  (SELECT age(datfrozenxid) FROM pg_database WHERE datname = current_database()) AS dat
           FROM pg_class WHERE relname = 'w'`,
        ))[0];
      const before = await age();
      assert.equal(before.rel >= 30, true, `${before.rel}`);
      const policy = { ...VACUUMS, freezeAge: 20 };
      const due = await maintenanceDue(db, policy);
      assert.deepEqual(due.find((m) => m.table === "public.w"), {
        table: "public.w",
        kind: "freeze",
      });
      assert.equal(due.some((m) => m.table === "pg_catalog.pg_class"), true, "catalogs too");
      await maintain(db, policy);
      const after = await age();
      assert.equal(after.rel < 5, true, `relfrozenxid age ${after.rel}`);
      assert.equal(after.dat < before.dat, true, `datfrozenxid age ${before.dat} → ${after.dat}`);
      assert.deepEqual(await maintenanceDue(db, policy), []);
    });
  });
});
