import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import { budgetWindows } from "../../src/engine/budget_gate.ts";
import { admitCall, findUserBudgets, settleCall, setUserBudget } from "../../src/store/budgets.ts";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { writeTurn } from "../../src/store/turn_writes.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { storesUnderTest } from "../support/databases.ts";

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

for (const store of storesUnderTest(process.env)) {
  describe(`budgets on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    const user = async () => {
      const id = uuidv7();
      await insertUserWithKey(db, { id, keyHash: "a".repeat(64), now: at(0) });
      return id;
    };
    before(async () => {
      opened = await store.open();
      db = opened.db;
      await migrate(db);
    });
    after(() => opened.dispose());

    test("set, replace, read in the plain notation, and remove a budget", async () => {
      const alice = await user();
      const bob = await user();
      const carol = await user();
      await setUserBudget(db, alice, { daily: "1.50", monthly: null }, at(1));
      await setUserBudget(
        db,
        bob,
        { daily: "0.000", monthly: "12345678901234567890.0001000" },
        at(1),
      );
      let budgets = await findUserBudgets(db, [alice, bob, carol]);
      assert.deepEqual(budgets.get(alice), { daily: "1.5", monthly: null });
      assert.deepEqual(budgets.get(bob), {
        daily: "0",
        monthly: "12345678901234567890.0001",
      });
      assert.equal(budgets.has(carol), false);
      await setUserBudget(db, alice, { daily: null, monthly: "30" }, at(2));
      await setUserBudget(db, bob, { daily: null, monthly: null }, at(2));
      budgets = await findUserBudgets(db, [alice, bob]);
      assert.deepEqual(budgets.get(alice), { daily: null, monthly: "30" });
      assert.equal(budgets.has(bob), false);
      assert.equal((await findUserBudgets(db, [])).size, 0);
    });

    test("an admission counts the UTC day's and month's spend, whichever way the ledger was written", async () => {
      const alice = await user();
      const bob = await user();
      for (const u of [alice, bob]) {
        await setUserBudget(
          db,
          u,
          { daily: "10", monthly: "100" },
          new Date("2026-01-01T00:00:00Z"),
        );
      }
      const spend = (userId: string, cost: string, now: string) =>
        settleCall(db, { id: uuidv7(), userId, cost, now: new Date(now) });
      await spend(alice, "7", "2025-12-31T23:59:59.999Z"); // the month before
      await spend(alice, "1.25", "2026-01-15T23:59:59.999Z"); // the day before
      await spend(alice, "2.5", "2026-01-16T00:00:00.000Z");
      const now = new Date("2026-01-16T12:00:00Z");
      const admit = (userId: string, id = uuidv7(), amount = "0.01") =>
        admitCall(db, {
          id,
          userId,
          amount,
          outputPrice: "1",
          maxOutput: 1000,
          floor: 1,
          instance: "i1",
          runId: uuidv7(),
          turnId: uuidv7(),
          now,
          ...budgetWindows(now),
        });
      // A reservation settled at its real cost, then settled again at another.
      const reserved = uuidv7();
      await admit(alice, reserved, "0.5");
      await settleCall(db, { id: reserved, userId: alice, cost: "0.5", now });
      await settleCall(db, { id: reserved, userId: alice, cost: "0.75", now });
      // Settled with a turn's write, two users in one statement.
      await writeTurn(db, null, {
        messages: [],
        trace: [],
        usage: [],
        settlements: [
          { id: uuidv7(), userId: bob, cost: "0.125", now },
          { id: uuidv7(), userId: alice, cost: "0.0000001", now },
          {
            id: uuidv7(),
            userId: bob,
            cost: "3",
            now: new Date("2026-01-02T00:00:00Z"),
          },
        ],
      });
      const a = await admit(alice);
      assert.equal(a.budget && a.daySpent, "3.2500001");
      assert.equal(a.budget && a.monthSpent, "4.5000001");
      const b = await admit(bob);
      assert.equal(b.budget && b.daySpent, "0.125");
      assert.equal(b.budget && b.monthSpent, "3.125");
      // The days hold exactly the ledger's settled rows, summed.
      const [kept, summed] = await Promise.all([
        db.query<{ user_id: string; day: string; spent: string }>(
          `SELECT user_id, day::text, spent::text FROM budget_days
           WHERE user_id IN ($1, $2) AND spent <> 0 ORDER BY 1, 2`,
          [alice, bob],
        ),
        db.query<{ user_id: string; day: string; spent: string }>(
          `SELECT user_id, (at AT TIME ZONE 'UTC')::date::text AS day, sum(amount)::text AS spent
           FROM budget_ledger WHERE spent AND user_id IN ($1, $2) GROUP BY 1, 2 ORDER BY 1, 2`,
          [alice, bob],
        ),
      ]);
      assert.equal(kept.length, 5);
      assert.deepEqual(kept, summed);
    });

    test("a store of the version before the days gets them from its ledger as it migrates", async () => {
      const older = await store.open();
      try {
        await migrate(older.db, MIGRATIONS.filter((m) => m.version < 22), []);
        const id = uuidv7();
        await insertUserWithKey(older.db, {
          id,
          keyHash: "a".repeat(64),
          now: at(0),
        });
        await older.db.query(
          `INSERT INTO budget_ledger (id, user_id, spent, amount, at) VALUES
             (gen_random_uuid(), $1, true, 1.5, '2026-01-01T23:59:59Z'),
             (gen_random_uuid(), $1, true, 0.25, '2026-01-01T00:00:00Z'),
             (gen_random_uuid(), $1, true, 2, '2026-01-02T00:00:00Z'),
             (gen_random_uuid(), $1, false, 9, '2026-01-02T00:00:00Z')`,
          [id],
        );
        await migrate(older.db);
        const days = await older.db.query<{ day: string; spent: string }>(
          "SELECT day::text, spent::text FROM budget_days WHERE user_id = $1 ORDER BY day",
          [id],
        );
        assert.deepEqual(days, [
          { day: "2026-01-01", spent: "1.75" },
          { day: "2026-01-02", spent: "2" },
        ]);
      } finally {
        await older.dispose();
      }
    });
  });
}
