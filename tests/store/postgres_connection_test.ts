/**
 * What a connection to PostgreSQL sends of its own accord: nothing. postgres.js
 * would ask for the server's array types as each connection opens, a query
 * nothing awaits, so a pool ended under it (a replaced pool, a closing
 * service) rejected it unhandled, which ends a Deno process (a black-hole run
 * in CI did). The pool, the supersede listener and the liveness lock each
 * open a connection through a proxy that records what they send. Array
 * parameters are serialized by the driver itself.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { memoryLogger } from "../../src/log.ts";
import { holdLivenessLock } from "../../src/store/liveness_lock.ts";
import { arrayLiteral, openPostgres } from "../../src/store/postgres_driver.ts";
import { openSupersedeSignals } from "../../src/store/supersede_signal.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/databases.ts";
import { startTcpProxyFor, type TcpProxy } from "../support/tcp_proxy.ts";

/** Text of the query postgres.js sends to learn the array types. */
const TYPES_QUERY = "pg_catalog.pg_type";

describe("array parameters", () => {
  test("are array literals with each element quoted, so no element can split into two", () => {
    assert.equal(arrayLiteral([]), "{}");
    assert.equal(
      arrayLiteral(["0192f1e0-0000-7000-8000-000000000001", 'a,b"c\\d', null, 7]),
      '{"0192f1e0-0000-7000-8000-000000000001","a,b\\"c\\\\d",NULL,"7"}',
    );
  });
});

const adminUrl = process.env.DATABASE_URL;
if (adminUrl) {
  describe("a connection to PostgreSQL", () => {
    let scratch: ScratchDatabase;
    let proxy: TcpProxy;
    before(async () => {
      scratch = await createScratchDatabase(adminUrl);
      proxy = await startTcpProxyFor(scratch.url);
    });
    after(async () => {
      await proxy?.close();
      await scratch?.drop();
    });

    test("of the pool sends only the service's statements, and array parameters reach the server whole", async () => {
      const db = openPostgres(proxy.proxied(scratch.url), { maxConnections: 2 });
      try {
        const ids = [
          "0192f1e0-0000-7000-8000-000000000001",
          "0192f1e0-0000-7000-8000-000000000002",
        ];
        const [row] = await db.query<{ n: number; second: string }>(
          "SELECT cardinality($1::uuid[]) AS n, ($1::uuid[])[2]::text AS second",
          [ids],
        );
        assert.deepEqual(row, { n: 2, second: ids[1] });
        const [none] = await db.query<{ n: number }>(
          "SELECT cardinality($1::uuid[]) AS n",
          [[]],
        );
        assert.equal(none.n, 0);
        // A quoted element stays one element, and is refused as the uuid it is not.
        await assert.rejects(db.query("SELECT $1::uuid[]", [["a,b"]]));
        const [texts] = await db.query<{ n: number; last: string }>(
          "SELECT cardinality($1::text[]) AS n, ($1::text[])[3] AS last",
          [["a,b", null, 'say "hi" \\ bye']],
        );
        assert.deepEqual(texts, { n: 3, last: 'say "hi" \\ bye' });
      } finally {
        await db.close();
      }
      assert.ok(proxy.sent().includes("cardinality"), "the proxy recorded nothing");
      assert.equal(proxy.sent().includes(TYPES_QUERY), false);
    });

    test("of the supersede listener and of the liveness lock sends only the service's statements", async () => {
      const url = proxy.proxied(scratch.url);
      const signals = await openSupersedeSignals(url);
      await signals.close();
      const lock = await holdLivenessLock(url, { logger: memoryLogger() });
      await lock.close();
      assert.ok(proxy.sent().includes("pg_try_advisory_lock"), "the proxy recorded nothing");
      assert.equal(proxy.sent().includes(TYPES_QUERY), false);
    });
  });
}
