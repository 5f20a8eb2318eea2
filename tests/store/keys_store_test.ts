/**
 * API keys in the store (migration 015): the key a user had before becomes
 * its first, named `bootstrap`, and keeps working with its tokens; a token
 * reads as revoked while its key is revoked or its user disabled, and comes
 * back when the user is enabled again.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import {
  findUsableKeys,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
} from "../../src/store/api_keys.ts";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { findToken, insertToken } from "../../src/store/tokens.ts";
import { insertUserWithKey, updateUser } from "../../src/store/users.ts";
import { storesUnderTest } from "../support/databases.ts";

const T0 = new Date("2026-01-01T00:00:00Z");
const later = (ms: number) => new Date(T0.getTime() + ms);

for (const store of storesUnderTest(process.env)) {
  describe(`keys on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    let oldUser: string;
    let oldToken: string;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      // A database as it was before keys: one key per user, keyed by the user.
      // (Without the functions: theirs are the latest schema's.)
      await migrate(db, MIGRATIONS.filter((m) => m.version < 15), []);
      oldUser = uuidv7();
      oldToken = uuidv7();
      await db.query("INSERT INTO users (id, created_at) VALUES ($1, $2)", [
        oldUser,
        T0,
      ]);
      await db.query(
        "INSERT INTO api_keys (user_id, secret_hash, created_at) VALUES ($1, $2, $3)",
        [oldUser, "a".repeat(64), T0],
      );
      await db.query(
        `INSERT INTO tokens (id, user_id, secret_hash, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5)`,
        [oldToken, oldUser, "b".repeat(64), T0, later(86_400_000)],
      );
      assert.deepEqual(
        (await migrate(db)).filter((name) => !name.startsWith("functions/")),
        MIGRATIONS.filter((m) => m.version >= 15).map((m) => m.name),
      );
    });
    after(() => opened.dispose());

    test("a user's key from before the migration is its first, named bootstrap, and works", async () => {
      const keys = await listApiKeys(db, oldUser);
      assert.equal(keys.length, 1);
      assert.equal(keys[0].id, oldUser);
      assert.equal(keys[0].name, "bootstrap");
      assert.equal(keys[0].revoked_at, null);
      const usable = await findUsableKeys(db, oldUser);
      assert.equal(usable[0].secret_hash, "a".repeat(64));
      assert.equal((await findToken(db, oldToken))?.revoked_at, null);
    });

    test("a token is revoked with its key, and while its user is disabled", async () => {
      const userId = uuidv7();
      const keyId = uuidv7();
      await insertUserWithKey(db, {
        id: userId,
        keyId,
        keyHash: "c".repeat(64),
        now: T0,
      });
      const second = uuidv7();
      assert.equal(
        await insertApiKey(db, {
          id: second,
          userId,
          name: "second",
          keyHash: "d".repeat(64),
          now: later(1),
          expiresAt: null,
        }),
        true,
      );
      const tokenId = uuidv7();
      await insertToken(db, {
        id: tokenId,
        userId,
        secretHash: "e".repeat(64),
        now: later(1000),
        expiresAt: later(86_400_000),
        apiKeyId: second,
      });
      const keys = await listApiKeys(db, userId);
      assert.deepEqual(keys.map((k) => k.name), ["bootstrap", "second"]);
      assert.equal(
        keys[1].last_used_at?.toISOString(),
        later(1000).toISOString(),
        "sign-in used it",
      );

      await updateUser(db, userId, { disabled: true }, later(2000));
      assert.equal(
        (await findToken(db, tokenId))?.revoked_at?.toISOString(),
        later(2000).toISOString(),
      );
      assert.deepEqual(await findUsableKeys(db, userId), []);
      await updateUser(db, userId, { disabled: false }, later(3000));
      assert.equal((await findToken(db, tokenId))?.revoked_at, null);
      assert.equal((await findUsableKeys(db, userId)).length, 2);

      assert.equal(await revokeApiKey(db, userId, second, later(4000)), true);
      assert.equal(
        await revokeApiKey(db, uuidv7(), second, later(5000)),
        false,
        "not another's",
      );
      assert.equal(
        (await findToken(db, tokenId))?.revoked_at?.toISOString(),
        later(4000).toISOString(),
      );
      assert.deepEqual((await findUsableKeys(db, userId)).map((k) => k.id), [
        keyId,
      ]);
    });
  });
}
