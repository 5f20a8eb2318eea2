/**
 * What a compatible request reads before its claim, in one round trip, on
 * every store driver: the named policy (latest or pinned), and the session
 * named by header or found by the conversation's digest; another user's
 * rows are absent; a turn's conversation row is written with its records.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { parsePolicy } from "../../src/http/policy_body.ts";
import { uuidv7 } from "../../src/platform/ids.ts";
import {
  conversationKeyDigest,
  insertKeyedSession,
  readCompatRequest,
} from "../../src/store/conversation_turns.ts";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { insertPolicyVersion } from "../../src/store/policies.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { writeTurn } from "../../src/store/turn_writes.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { storesUnderTest } from "../support/databases.ts";

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

for (const store of storesUnderTest(process.env)) {
  describe(`a compatible request's reading on ${store.name}`, () => {
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

    test("the policy, latest or pinned, and the session by id or by digest; nobody else's", async () => {
      const alice = await user();
      const bob = await user();
      for (const model of ["openai/gpt-4o", "ollama/qwen3:8b"]) {
        const parsed = parsePolicy({ routing: { default: { model } } });
        assert.ok(parsed.ok);
        await insertPolicyVersion(db, {
          userId: alice,
          name: "default",
          policy: parsed.value,
          now: at(1),
        });
      }
      const session = await insertSession(db, {
        id: uuidv7(),
        userId: alice,
        title: "t",
        metadata: { surface: "openai" },
        now: at(2),
      });
      const ask = (o: Partial<Parameters<typeof readCompatRequest>[1]>) =>
        readCompatRequest(db, {
          userId: alice,
          policy: "default",
          version: null,
          sessionId: null,
          keyDigest: null,
          digest: null,
          ...o,
        });

      const latest = await ask({ sessionId: session.id });
      assert.equal(latest.policy?.version, 2);
      assert.equal(latest.policy?.policy.routing.default?.model, "ollama/qwen3:8b");
      assert.deepEqual(latest.session, session);
      const pinned = await ask({ version: 1 });
      assert.equal(pinned.policy?.policy.routing.default?.model, "openai/gpt-4o");
      assert.equal(pinned.session, null);
      assert.deepEqual(await ask({ policy: "none", version: 3 }), { policy: null, session: null });
      assert.deepEqual(await ask({ userId: bob, sessionId: session.id }), {
        policy: null,
        session: null,
      });

      // A turn's conversation row is written with its records; a later one of the same digest wins.
      const digest = "d".repeat(64);
      assert.equal((await ask({ digest })).session, null);
      await writeTurn(db, null, {
        messages: [],
        trace: [],
        usage: [],
        conversations: [{ userId: alice, digest, sessionId: session.id, now: at(3) }],
      });
      assert.equal((await ask({ digest })).session?.id, session.id);
      assert.equal((await ask({ userId: bob, digest })).session, null);
    });

    test("a conversation key names one session per user; the digest is not read with a key", async () => {
      const alice = await user();
      const bob = await user();
      const keyDigest = conversationKeyDigest("codex-conversation-1");
      const ask = (userId: string, o: { keyDigest?: string | null; digest?: string | null }) =>
        readCompatRequest(db, {
          userId,
          policy: "default",
          version: null,
          sessionId: null,
          keyDigest: o.keyDigest ?? null,
          digest: o.digest ?? null,
        });
      assert.equal((await ask(alice, { keyDigest })).session, null);
      const keyed = (userId: string, second: number) =>
        insertKeyedSession(db, {
          id: uuidv7(),
          userId,
          title: "t",
          metadata: { surface: "openai" },
          keyDigest,
          now: at(second),
        });
      const first = await keyed(alice, 1);
      assert.equal((await ask(alice, { keyDigest })).session?.id, first.id);
      // Bob's key of the same text is his own.
      assert.equal((await ask(bob, { keyDigest })).session, null);
      const bobs = await keyed(bob, 1);
      assert.notEqual(bobs.id, first.id);
      assert.equal((await ask(bob, { keyDigest })).session?.id, bobs.id);
      // A second session made for a key that already names a live one stays unnamed.
      const second = await keyed(alice, 2);
      assert.notEqual(second.id, first.id);
      assert.equal((await ask(alice, { keyDigest })).session?.id, first.id);
      // A conversation recorded by digest is not found when a key is sent.
      const digest = "e".repeat(64);
      await writeTurn(db, null, {
        messages: [],
        trace: [],
        usage: [],
        conversations: [{ userId: alice, digest, sessionId: second.id, now: at(3) }],
      });
      assert.equal((await ask(alice, { digest })).session?.id, second.id);
      const other = conversationKeyDigest("another");
      assert.equal((await ask(alice, { keyDigest: other, digest })).session, null);
      // A key whose session was archived names the next one made for it.
      await db.query("UPDATE sessions SET archived = true WHERE id = $1", [first.id]);
      const third = await keyed(alice, 4);
      assert.equal((await ask(alice, { keyDigest })).session?.id, third.id);
      // Deleting the session forgets its key.
      await db.query("DELETE FROM sessions WHERE id = $1", [third.id]);
      assert.equal((await ask(alice, { keyDigest })).session, null);
    });
  });
}
