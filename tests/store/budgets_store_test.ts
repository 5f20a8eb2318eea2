import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import { findUserBudgets, setUserBudget } from "../../src/store/budgets.ts";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
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
      assert.deepEqual(budgets.get(bob), { daily: "0", monthly: "12345678901234567890.0001" });
      assert.equal(budgets.has(carol), false);
      await setUserBudget(db, alice, { daily: null, monthly: "30" }, at(2));
      await setUserBudget(db, bob, { daily: null, monthly: null }, at(2));
      budgets = await findUserBudgets(db, [alice, bob]);
      assert.deepEqual(budgets.get(alice), { daily: null, monthly: "30" });
      assert.equal(budgets.has(bob), false);
      assert.equal((await findUserBudgets(db, [])).size, 0);
    });
  });
}
