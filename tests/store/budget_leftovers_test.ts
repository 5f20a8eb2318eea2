import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Db } from "../../src/store/db.ts";
import { joinInstances } from "../../src/store/instances.ts";
import { migrate } from "../../src/store/migrate.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { storesUnderTest } from "../support/databases.ts";

const now = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));
const later = (ms: number) => new Date(now.getTime() + ms);

for (const store of storesUnderTest(process.env)) {
  describe(`budget reservations left by a stopped instance on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      await migrate(db);
    });
    after(() => opened.dispose());

    /** A session with a run in `state`, held by `instance` until `leaseUntil`, and a reservation of its turn. */
    async function reservedTurn(
      user: string,
      o: { state: string; instance: string | null; leaseUntil: Date | null },
    ) {
      const session = uuidv7();
      await insertSession(db, { id: session, userId: user, title: "t", now });
      const run = uuidv7();
      const turn = uuidv7();
      await db.query(
        `INSERT INTO runs (id, session_id, state, run_input, current_turn, claimed_by, claim_expires,
                           created_at, updated_at)
         VALUES ($1, $2, $3, '{}', $4, $5, $6, $7, $7)`,
        [run, session, o.state, turn, o.instance, o.leaseUntil, now],
      );
      const reservation = uuidv7();
      await db.query(
        `INSERT INTO budget_ledger (id, user_id, spent, amount, instance, run_id, turn_id, at)
         VALUES ($1, $2, false, 0.5, $3, $4, $5, $6)`,
        [reservation, user, o.instance, run, turn, now],
      );
      return reservation;
    }

    test("a starting instance deletes the reservations that no longer count and keeps the rest", async () => {
      const user = uuidv7();
      await insertUserWithKey(db, { id: user, keyHash: "a".repeat(64), now });
      // A live instance (it beat a moment ago) holding a turn with a long lease.
      await db.query("INSERT INTO instances (id, heartbeat_at) VALUES ('alive', $1)", [now]);
      const held = await reservedTurn(user, {
        state: "running",
        instance: "alive",
        leaseUntil: later(60_000),
      });
      // An instance that stopped: no row, its lease already ran out.
      const lapsed = await reservedTurn(user, {
        state: "running",
        instance: "stopped",
        leaseUntil: later(-1),
      });
      // A turn whose run went idle without settling its reservation.
      const idle = await reservedTurn(user, { state: "idle", instance: null, leaseUntil: null });
      const spent = uuidv7();
      await db.query(
        `INSERT INTO budget_ledger (id, user_id, spent, amount, at) VALUES ($1, $2, true, 2, $3)`,
        [spent, user, now],
      );

      await joinInstances(db, { instance: "starting", now: later(500), sole: false });

      const left = await db.query<{ id: string }>(
        "SELECT id FROM budget_ledger WHERE user_id = $1 ORDER BY id",
        [user],
      );
      assert.deepEqual(left.map((r) => r.id).sort(), [held, spent].sort());
      assert.notEqual(lapsed, idle);
    });
  });
}
