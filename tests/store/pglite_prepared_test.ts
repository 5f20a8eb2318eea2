/**
 * The embedded store's prepared statements (preparedQueries in
 * src/store/pglite_driver.ts): the same answers and errors as PGlite's own
 * `query`, each text prepared once, and a bounded number of them.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { PGlite } from "@electric-sql/pglite";
import { createPglite, preparedQueries } from "../../src/store/pglite_driver.ts";
import { isUniqueViolation } from "../../src/store/transaction.ts";

describe("PGlite prepared statements", () => {
  let pg: PGlite;
  before(async () => {
    pg = await createPglite("memory://");
    await pg.exec(
      "CREATE TABLE t (n int PRIMARY KEY, at timestamptz, doc jsonb, ok boolean, note text)",
    );
  });
  after(() => pg.close());

  const preparedNames = async () =>
    (await pg.query<{ name: string; statement: string }>(
      "SELECT name, statement FROM pg_prepared_statements ORDER BY name",
    )).rows;

  test("answers as PGlite's own query does, for every kind of value and none", async () => {
    const query = preparedQueries(pg);
    const insert = "INSERT INTO t (n, at, doc, ok, note) VALUES ($1, $2, $3, $4, $5) RETURNING *";
    const cases: unknown[][] = [
      [1, new Date("2026-03-01T10:00:00.000Z"), JSON.stringify({ a: [1, "x"] }), true, "é ✓"],
      [2, null, null, false, undefined],
      [3, "2026-03-02T00:00:00Z", { nested: { b: null } }, null, ""],
    ];
    for (const params of cases) {
      const mine = await query(insert, params);
      await pg.query("DELETE FROM t WHERE n = $1", [params[0]]);
      const theirs = await pg.query(insert, params);
      assert.deepEqual(mine.rows, theirs.rows);
      assert.deepEqual(
        mine.fields.map((f) => [f.name, f.dataTypeID]),
        theirs.fields.map((f) => [f.name, f.dataTypeID]),
      );
    }
    const select = "SELECT n, doc FROM t WHERE n > $1 ORDER BY n";
    assert.deepEqual((await query(select, [0])).rows, (await pg.query(select, [0])).rows);
    assert.deepEqual((await query("SELECT 1 AS one")).rows, [{ one: 1 }]);
    assert.equal((await query("UPDATE t SET note = 'x' WHERE n < $1", [3])).affectedRows, 2);
    await pg.exec("DELETE FROM t");
  });

  test("each text is prepared once and used again", async () => {
    const query = preparedQueries(pg);
    const before = (await preparedNames()).length;
    for (let n = 1; n <= 3; n++) await query("INSERT INTO t (n) VALUES ($1)", [n]);
    assert.deepEqual((await query("SELECT count(*)::int AS c FROM t")).rows, [{ c: 3 }]);
    const added = (await preparedNames()).slice(before);
    assert.deepEqual(added.map((s) => s.statement).sort(), [
      "INSERT INTO t (n) VALUES ($1)",
      "SELECT count(*)::int AS c FROM t",
    ]);
    await pg.exec("DELETE FROM t");
  });

  test("past its limit a text is still answered, without a statement kept for it", async () => {
    const query = preparedQueries(pg, 2);
    const before = (await preparedNames()).length;
    for (let i = 0; i < 5; i++) {
      assert.deepEqual((await query(`SELECT $1::int + ${i} AS v`, [10])).rows, [{ v: 10 + i }]);
      assert.deepEqual((await query(`SELECT $1::int + ${i} AS v`, [20])).rows, [{ v: 20 + i }]);
    }
    assert.equal((await preparedNames()).length - before, 2);
  });

  test("a failing statement throws the driver's error and leaves the next one unharmed", async () => {
    const query = preparedQueries(pg);
    const insert = "INSERT INTO t (n) VALUES ($1)";
    await query(insert, [1]);
    const duplicate = await query(insert, [1]).catch((e) => e);
    assert.ok(isUniqueViolation(duplicate), String((duplicate as { code?: unknown }).code));
    await assert.rejects(query("SELECT n FROM t WHERE at = $1", ["not a time"]), /timestamp/);
    await assert.rejects(query("SELEC nothing"), /syntax error/);
    await assert.rejects(query("SELEC nothing"), /syntax error/, "a text that failed to parse");
    assert.deepEqual((await query("SELECT n FROM t")).rows, [{ n: 1 }]);
    await pg.exec("DELETE FROM t");
  });

  test("a statement still answers after the table under it is replaced", async () => {
    const query = preparedQueries(pg);
    await pg.exec("CREATE TABLE r (k int); INSERT INTO r VALUES (1)");
    const select = "SELECT k FROM r";
    assert.deepEqual((await query(select)).rows, [{ k: 1 }]);
    await pg.exec(
      "DROP TABLE r; CREATE TABLE r (k int, extra text); INSERT INTO r VALUES (2, 'x')",
    );
    assert.deepEqual((await query(select)).rows, [{ k: 2 }]);
    await pg.exec("DROP TABLE r");
  });
});
