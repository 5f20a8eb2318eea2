/**
 * Hand-off slots (migration 003): opened by a supersede that cuts a live
 * turn, filled once by that turn, read and closed by the superseding request.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { claimForExecute, supersede } from "../../src/store/run_admission.ts";
import {
  closeHandoffSlot,
  fillHandoffSlot,
  HANDOFF_ROW_TTL_MS,
  handoffRecipient,
  openHandoffSlot,
  readHandoffSlot,
} from "../../src/store/run_handoffs.ts";
import { CLAIM_LEASE_MS, pauseRun } from "../../src/store/runs.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { storesUnderTest } from "../support/databases.ts";

const T0 = new Date("2026-03-01T10:00:00.000Z");
const later = (ms: number) => new Date(T0.getTime() + ms);
const MESSAGE = { senderKey: "c2VuZGVy", iv: "aXY=", sealed: "c2VhbGVk" };

async function runningRun(db: Db): Promise<{ sessionId: string; runId: string; turnId: string }> {
  const userId = uuidv7();
  await insertUserWithKey(db, { id: userId, keyHash: "x", now: T0 });
  const sessionId = (await insertSession(db, { id: uuidv7(), userId, title: "h", now: T0 })).id;
  const runId = uuidv7();
  const turnId = uuidv7();
  const claim = await claimForExecute(db, { sessionId, runId, turnId, instance: "a", now: T0 });
  assert.equal(claim.kind, "claimed");
  return { sessionId, runId, turnId };
}

const cut = (db: Db, sessionId: string, now: Date, handoffKey?: string) =>
  supersede(db, { sessionId, turnId: uuidv7(), instance: "b", now, handoffKey });

for (const store of storesUnderTest(process.env)) {
  describe(`hand-off slots on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      await migrate(db);
    });
    after(() => opened.dispose());

    test("cutting a running turn with a key opens a slot at the new seq", async () => {
      const { sessionId, runId } = await runningRun(db);
      const taken = await cut(db, sessionId, later(1), "cmVjaXBpZW50");
      assert.deepEqual(taken?.handoff, { runId, seq: 1 });
      assert.equal(await handoffRecipient(db, { runId, seq: 1 }), "cmVjaXBpZW50");
      assert.equal(await handoffRecipient(db, { runId, seq: 2 }), null);
    });

    test("no slot without a key, for a waiting run, or for a turn whose claim lapsed", async () => {
      const plain = await runningRun(db);
      assert.equal((await cut(db, plain.sessionId, later(1)))?.handoff, null);

      const waiting = await runningRun(db);
      await pauseRun(db, {
        runId: waiting.runId,
        turnId: waiting.turnId,
        now: later(1),
        pause: { kind: "tool", order: [], calls: [], service_results: [], to_encrypt: [] },
      });
      assert.equal((await cut(db, waiting.sessionId, later(2), "a2V5"))?.handoff, null);

      const lapsed = await runningRun(db);
      assert.equal(
        (await cut(db, lapsed.sessionId, later(CLAIM_LEASE_MS + 1), "a2V5"))?.handoff,
        null,
      );
      const rows = await db.query("SELECT 1 FROM run_handoffs WHERE run_id IN ($1, $2, $3)", [
        plain.runId,
        waiting.runId,
        lapsed.runId,
      ]);
      assert.equal(rows.length, 0);
    });

    test("a slot is filled once, read back, and gone once closed", async () => {
      const { sessionId, runId } = await runningRun(db);
      const slot = (await cut(db, sessionId, later(1), "a2V5"))!.handoff!;
      assert.equal(await readHandoffSlot(db, slot), null);
      await fillHandoffSlot(db, slot, MESSAGE);
      await fillHandoffSlot(db, slot, { ...MESSAGE, sealed: "c2Vjb25k" });
      assert.deepEqual(await readHandoffSlot(db, slot), MESSAGE);
      assert.equal(
        await handoffRecipient(db, slot),
        null,
        "a filled slot takes no second hand-off",
      );
      await closeHandoffSlot(db, slot);
      assert.equal(await readHandoffSlot(db, slot), null);
      await fillHandoffSlot(db, slot, MESSAGE);
      assert.equal(await readHandoffSlot(db, slot), null, "a closed slot is not filled again");
      assert.equal(await handoffRecipient(db, { runId, seq: slot.seq }), null);
    });

    test("opening a slot sweeps slots abandoned longer than the time to live", async () => {
      const old = await runningRun(db);
      const stale = (await cut(db, old.sessionId, later(1), "b2xk"))!.handoff!;
      const fresh = await runningRun(db);
      await openHandoffSlot(db, {
        runId: fresh.runId,
        seq: 7,
        recipientKey: "bmV3",
        now: later(HANDOFF_ROW_TTL_MS + 2),
      });
      assert.equal(await handoffRecipient(db, stale), null);
      assert.equal(await handoffRecipient(db, { runId: fresh.runId, seq: 7 }), "bmV3");
    });
  });
}
