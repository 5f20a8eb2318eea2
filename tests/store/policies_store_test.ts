import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import type { Policy } from "../../src/core/turn_request_types.ts";
import { parsePolicy } from "../../src/http/policy_body.ts";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import {
  deletePolicy,
  findPolicy,
  insertPolicyVersion,
  listPolicyNames,
} from "../../src/store/policies.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { storesUnderTest } from "../support/databases.ts";

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

function policy(model: string, permissions: Record<string, string> = {}): Policy {
  const out = parsePolicy({ routing: { default: { model } }, tools: { permissions } });
  assert.ok(out.ok);
  return out.value;
}

// One conformance suite, run against every store driver.
for (const store of storesUnderTest(process.env)) {
  describe(`named policies on ${store.name}`, () => {
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

    test("versions count from 1 per user and name; findPolicy reads the latest or one", async () => {
      const alice = await user();
      const bob = await user();
      const v1 = await insertPolicyVersion(db, {
        userId: alice,
        name: "work",
        policy: policy("openai/gpt-4o"),
        now: at(1),
      });
      const v2 = await insertPolicyVersion(db, {
        userId: alice,
        name: "work",
        policy: policy("anthropic/claude-sonnet-4"),
        now: at(2),
      });
      const other = await insertPolicyVersion(db, {
        userId: bob,
        name: "work",
        policy: policy("openai/gpt-4o-mini"),
        now: at(3),
      });
      assert.deepEqual([v1.version, v2.version, other.version], [1, 2, 1]);
      assert.equal(v2.created_at.toISOString(), at(2).toISOString());

      const latest = await findPolicy(db, alice, "work", null);
      assert.equal(latest?.version, 2);
      assert.equal(latest?.policy.routing.default?.model, "anthropic/claude-sonnet-4");
      const first = await findPolicy(db, alice, "work", 1);
      assert.deepEqual(first, v1);
      assert.equal(first?.policy.routing.default?.model, "openai/gpt-4o");
      assert.equal(await findPolicy(db, alice, "work", 3), null);
      assert.equal(await findPolicy(db, alice, "work", 0), null);
      assert.equal(await findPolicy(db, alice, "work", 2 ** 40), null);
      assert.equal(await findPolicy(db, alice, "home", null), null);
      assert.equal(await findPolicy(db, uuidv7(), "work", null), null);
    });

    test("a policy reads back as stored, its keys in order", async () => {
      const alice = await user();
      // As a body parses: `__proto__` an own key.
      const permissions = JSON.parse('{"zsh":"deny","awk":"allow","__proto__":"ask"}');
      const p = policy("openai/gpt-4o", permissions);
      await insertPolicyVersion(db, { userId: alice, name: "keys", policy: p, now: at(1) });
      const read = await findPolicy(db, alice, "keys", null);
      assert.deepEqual(read?.policy, p);
      assert.deepEqual(Object.keys(read!.policy.tools.permissions), ["zsh", "awk", "__proto__"]);
    });

    test("concurrent stores of one name take distinct versions", async () => {
      const alice = await user();
      const stored = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          insertPolicyVersion(db, {
            userId: alice,
            name: "busy",
            policy: policy("openai/gpt-4o"),
            now: at(i),
          })),
      );
      assert.deepEqual(stored.map((s) => s.version).sort(), [1, 2, 3, 4, 5, 6]);
    });

    test("listPolicyNames: each name once with its latest version, by code unit", async () => {
      const alice = await user();
      for (
        const [name, second] of [["b", 1], ["a.b", 2], ["B", 3], ["a-b", 4], ["b", 5]] as const
      ) {
        await insertPolicyVersion(db, {
          userId: alice,
          name,
          policy: policy("openai/gpt-4o"),
          now: at(second),
        });
      }
      const rows = await listPolicyNames(db, alice);
      assert.deepEqual(
        rows.map((r) => [r.name, r.version, r.created_at.toISOString()]),
        [
          ["B", 1, at(3).toISOString()],
          ["a-b", 1, at(4).toISOString()],
          ["a.b", 1, at(2).toISOString()],
          ["b", 2, at(5).toISOString()],
        ],
      );
      assert.deepEqual(await listPolicyNames(db, await user()), []);
    });

    test("deletePolicy removes every version of the user's name only", async () => {
      const alice = await user();
      const bob = await user();
      for (const userId of [alice, alice, bob]) {
        await insertPolicyVersion(db, {
          userId,
          name: "gone",
          policy: policy("openai/gpt-4o"),
          now: at(1),
        });
      }
      assert.equal(await deletePolicy(db, alice, "gone"), true);
      assert.equal(await deletePolicy(db, alice, "gone"), false);
      assert.equal(await findPolicy(db, alice, "gone", 1), null);
      assert.equal((await findPolicy(db, bob, "gone", null))?.version, 1);
    });

    test("a user's policies go with the user", async () => {
      const alice = await user();
      await insertPolicyVersion(db, {
        userId: alice,
        name: "mine",
        policy: policy("openai/gpt-4o"),
        now: at(1),
      });
      await db.query("DELETE FROM users WHERE id = $1", [alice]);
      const left = await db.query("SELECT 1 FROM policies WHERE user_id = $1", [alice]);
      assert.equal(left.length, 0);
    });
  });
}
