/**
 * The stored responses of the Responses API surface on every store driver:
 * written with a turn's records (alone and in a group write), read, resolved
 * (a previous response with its whole chain, item references) and deleted by
 * their owner only; another user's id is absent; a deleted response that a
 * later one continues stays hidden as its context; deleting the session
 * forgets them.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Db } from "../../src/store/db.ts";
import { readCompatRequest } from "../../src/store/conversation_turns.ts";
import { migrate } from "../../src/store/migrate.ts";
import { deleteResponse, findResponse, readReferences } from "../../src/store/responses.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { turnWriter } from "../../src/store/turn_writer.ts";
import { type ResponseRecord, writeTurn } from "../../src/store/turn_writes.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { storesUnderTest } from "../support/databases.ts";

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
const ids = (items: Record<string, unknown>[] | undefined) => items?.map((i) => i.id);

for (const store of storesUnderTest(process.env)) {
  describe(`stored responses on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    const user = async () => {
      const id = uuidv7();
      await insertUserWithKey(db, { id, keyHash: "b".repeat(64), now: at(0) });
      return id;
    };
    const session = async (userId: string) =>
      (await insertSession(db, {
        id: uuidv7(),
        userId,
        title: "t",
        metadata: { surface: "responses" },
        now: at(1),
      })).id;
    const record = (
      id: string,
      userId: string,
      sessionId: string,
      previousId: string | null = null,
    ): ResponseRecord => ({
      id,
      userId,
      sessionId,
      response: {
        id,
        object: "response",
        output: [{ id: `msg_${id}`, type: "message", role: "assistant", content: [] }],
      },
      inputItems: [{ id: `msg_${id}_in0`, type: "message", role: "user", content: [] }],
      previousId,
      now: at(2),
    });
    const write = (...responses: ResponseRecord[]) =>
      writeTurn(db, null, { messages: [], trace: [], usage: [], responses });
    before(async () => {
      opened = await store.open();
      db = opened.db;
      await migrate(db);
    });
    after(() => opened.dispose());

    test("written with the turn, found and resolved by its owner only, deleted", async () => {
      const alice = await user();
      const bob = await user();
      const s = await session(alice);
      await write(record("resp_a", alice, s));
      const found = await findResponse(db, alice, "resp_a");
      assert.equal(found?.session_id, s);
      assert.equal(found?.response.id, "resp_a");
      assert.deepEqual(ids(found?.input_items), ["msg_resp_a_in0"]);
      assert.equal(await findResponse(db, bob, "resp_a"), null);

      const refs = await readReferences(db, {
        userId: alice,
        previous: "resp_a",
        itemIds: ["msg_resp_a", "msg_nowhere"],
      });
      assert.equal(refs.previous?.id, "resp_a");
      assert.equal(refs.previous?.session_id, s);
      assert.deepEqual(ids(refs.previous?.items), ["msg_resp_a_in0", "msg_resp_a"]);
      assert.deepEqual([...refs.items.keys()], ["msg_resp_a"]);
      const theirs = await readReferences(db, {
        userId: bob,
        previous: "resp_a",
        itemIds: ["msg_resp_a"],
      });
      assert.equal(theirs.previous, null);
      assert.equal(theirs.items.size, 0);
      const none = await readReferences(db, { userId: alice, previous: null, itemIds: [] });
      assert.equal(none.previous, null);

      assert.equal(await deleteResponse(db, bob, "resp_a"), false);
      assert.equal(await deleteResponse(db, alice, "resp_a"), true);
      assert.equal(await findResponse(db, alice, "resp_a"), null);
      assert.equal(await deleteResponse(db, alice, "resp_a"), false);
    });

    test("a chain is read whole from its last response; a deleted link stays hidden as context", async () => {
      const alice = await user();
      const s = await session(alice);
      await write(record("resp_1", alice, s));
      await write(record("resp_2", alice, s, "resp_1"));
      await write(record("resp_3", alice, s, "resp_2"));
      const chain = await readReferences(db, { userId: alice, previous: "resp_3", itemIds: [] });
      assert.deepEqual(ids(chain.previous?.items), [
        "msg_resp_1_in0",
        "msg_resp_1",
        "msg_resp_2_in0",
        "msg_resp_2",
        "msg_resp_3_in0",
        "msg_resp_3",
      ]);
      assert.equal(chain.previous?.response.id, "resp_3");
      // Deleting the middle one hides it: gone for its owner, still the chain's context.
      assert.equal(await deleteResponse(db, alice, "resp_2"), true);
      assert.equal(await findResponse(db, alice, "resp_2"), null);
      assert.equal(await deleteResponse(db, alice, "resp_2"), false);
      const gone = await readReferences(db, {
        userId: alice,
        previous: "resp_2",
        itemIds: ["msg_resp_2"],
      });
      assert.equal(gone.previous, null);
      assert.equal(gone.items.size, 0);
      const still = await readReferences(db, { userId: alice, previous: "resp_3", itemIds: [] });
      assert.equal(still.previous?.items.length, 6);
      // The last one, which nothing continues, is removed.
      assert.equal(await deleteResponse(db, alice, "resp_3"), true);
      const left = await db.query<{ id: string; deleted: boolean }>(
        "SELECT id, deleted FROM responses WHERE session_id = $1 ORDER BY id",
        [s],
      );
      assert.deepEqual(left.map((r) => [r.id, r.deleted]), [["resp_1", false], ["resp_2", true]]);
    });

    test("a request's reading carries its references, the previous response's session first", async () => {
      const alice = await user();
      const bob = await user();
      const s = await session(alice);
      const other = await session(alice);
      await write(record("resp_x", alice, s));
      await write(record("resp_y", alice, s, "resp_x"));
      const ask = (userId: string, previous: string | null, itemIds: string[] = []) =>
        readCompatRequest(db, {
          userId,
          policy: "default",
          version: null,
          sessionId: other,
          keyDigest: null,
          digest: null,
          references: { previous, itemIds },
        });
      const reading = await ask(alice, "resp_y", ["msg_resp_x"]);
      assert.equal(reading.session?.id, s, "the previous response's session, not the header's");
      assert.deepEqual(ids(reading.references?.previous?.items), [
        "msg_resp_x_in0",
        "msg_resp_x",
        "msg_resp_y_in0",
        "msg_resp_y",
      ]);
      assert.deepEqual([...reading.references!.items.keys()], ["msg_resp_x"]);
      const theirs = await ask(bob, "resp_y", ["msg_resp_x"]);
      assert.equal(theirs.references?.previous, null);
      assert.equal(theirs.references?.items.size, 0);
      // Without references the reading is as it always was.
      const plain = await readCompatRequest(db, {
        userId: alice,
        policy: "default",
        version: null,
        sessionId: other,
        keyDigest: null,
        digest: null,
      });
      assert.equal(plain.session?.id, other);
      assert.equal(plain.references, undefined);
    });

    test("a group write stores each turn's response; deleting the session forgets them", async () => {
      const alice = await user();
      const s = await session(alice);
      const writer = turnWriter(db);
      const turn = (id: string) =>
        writer.write(null, {
          messages: [],
          trace: [],
          usage: [],
          responses: [record(id, alice, s)],
        });
      await Promise.all([turn("resp_b"), turn("resp_c"), turn("resp_d")]);
      for (const id of ["resp_b", "resp_c", "resp_d"]) {
        assert.equal((await findResponse(db, alice, id))?.id, id);
      }
      await db.query("DELETE FROM sessions WHERE id = $1", [s]);
      assert.equal(await findResponse(db, alice, "resp_b"), null);
    });
  });
}
