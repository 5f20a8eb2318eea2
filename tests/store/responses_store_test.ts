/**
 * The stored responses of the Responses API surface on every store driver:
 * written with a turn's records (alone and in a group write), read, resolved
 * (previous response and item references) and deleted by their owner only;
 * another user's id is absent; deleting the session forgets them.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import {
  deleteResponse,
  findResponse,
  readReferences,
} from "../../src/store/responses.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { turnWriter } from "../../src/store/turn_writer.ts";
import { type ResponseRecord, writeTurn } from "../../src/store/turn_writes.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { storesUnderTest } from "../support/databases.ts";

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

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
    ): ResponseRecord => ({
      id,
      userId,
      sessionId,
      response: { id, object: "response", output_text: `answer of ${id}` },
      inputItems: [{
        id: `msg_${id}_in0`,
        type: "message",
        role: "user",
        content: [],
      }],
      items: [
        { id: `msg_${id}_in0`, type: "message", role: "user", content: [] },
        { id: `msg_${id}`, type: "message", role: "assistant", content: [] },
      ],
      now: at(2),
    });
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
      await writeTurn(db, null, {
        messages: [],
        trace: [],
        usage: [],
        responses: [record("resp_a", alice, s)],
      });
      const found = await findResponse(db, alice, "resp_a");
      assert.equal(found?.session_id, s);
      assert.deepEqual(found?.response, {
        id: "resp_a",
        object: "response",
        output_text: "answer of resp_a",
      });
      assert.equal(found?.items.length, 2);
      assert.equal(await findResponse(db, bob, "resp_a"), null);

      const refs = await readReferences(db, {
        userId: alice,
        previous: "resp_a",
        itemIds: ["msg_resp_a", "msg_nowhere"],
      });
      assert.equal(refs.previous?.id, "resp_a");
      assert.deepEqual([...refs.items.keys()], ["msg_resp_a"]);
      const theirs = await readReferences(db, {
        userId: bob,
        previous: "resp_a",
        itemIds: ["msg_resp_a"],
      });
      assert.equal(theirs.previous, null);
      assert.equal(theirs.items.size, 0);
      const none = await readReferences(db, {
        userId: alice,
        previous: null,
        itemIds: [],
      });
      assert.equal(none.previous, null);

      assert.equal(await deleteResponse(db, bob, "resp_a"), false);
      assert.equal(await deleteResponse(db, alice, "resp_a"), true);
      assert.equal(await findResponse(db, alice, "resp_a"), null);
      assert.equal(await deleteResponse(db, alice, "resp_a"), false);
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
