/**
 * Group commit (src/store/turn_writer.ts): the ends of turns that finish
 * while a write is in flight share the next transaction, each answered as
 * it would be alone; a bad turn fails alone; what was answered is committed.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { findRun } from "../../src/store/runs.ts";
import { listHistory as listMessages } from "../../src/store/messages.ts";
import { deleteSession } from "../../src/store/sessions.ts";
import { appendTraceEvents, listTraceEvents } from "../../src/store/traces.ts";
import { turnWriter } from "../../src/store/turn_writer.ts";
import { turnDocument } from "../../src/store/turn_writes.ts";
import { appendUsageEvent, listUsageEvents } from "../../src/store/usage.ts";
import { storesUnderTest } from "../support/databases.ts";
import {
  claimedTurn,
  transactionsWriting,
  type Turn,
  turnEnd as turnEndAt,
} from "../support/turn_end.ts";

const T0 = new Date("2026-03-01T10:00:00.000Z");
const turnEnd = (t: Turn, reply?: string) => turnEndAt(t, T0, reply);

const noIndex = <T extends { messageIndex?: number }>({ messageIndex: _, ...e }: T) => e;

/** How many transactions wrote these sessions' messages. */
const transactionsOf = (db: Db, sessions: readonly string[]) =>
  transactionsWriting(db, "messages", sessions);

for (const store of storesUnderTest(process.env)) {
  describe(`group commit on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      await migrate(db);
    });
    after(() => opened.dispose());

    test("turns ending during a write share the next transaction, each answered as alone", async () => {
      const turns = await Promise.all(Array.from({ length: 9 }, () => claimedTurn(db, T0)));
      const writer = turnWriter(db);
      // The first finds the writer free and goes alone; the eight others end while it is in flight.
      const written = await Promise.all(turns.map((t) => writer.write(...turnEnd(t))));
      for (const w of written) assert.deepEqual(w, { moved: true, messageSeqs: [1, 2] });
      assert.equal(await transactionsOf(db, turns.map((t) => t.sessionId)), 2);
      for (const t of turns) {
        assert.equal((await findRun(db, t.runId))?.state, "idle");
        const messages = await listMessages(db, t.sessionId);
        assert.deepEqual(messages.map((m) => [m.seq, m.role, m.interrupted]), [
          [1, "user", false],
          [2, "assistant", false],
        ]);
        const trace = await listTraceEvents(db, t.sessionId, { limit: 10, offset: 0 });
        assert.deepEqual(trace.map((e) => (e.payload.plaintext as { seq: number }).seq), [1, 2]);
        assert.equal((await listUsageEvents(db, t.sessionId)).length, 1);
      }
    });

    test("cache reads and writes are stored, alone, in a batch and by a direct insert", async () => {
      const turns = await Promise.all(
        Array.from({ length: 4 }, () => claimedTurn(db, T0)),
      );
      const writer = turnWriter(db);
      const cached = (t: Turn, k: number): ReturnType<typeof turnEnd> => {
        const [move, records] = turnEnd(t);
        const usage = {
          ...records.usage[0],
          cachedTokens: 100 * k,
          cacheWriteTokens: 10 * k,
        };
        return [move, { ...records, usage: [usage] }];
      };
      // The first goes alone; the others end while it is in flight and share a batch.
      await Promise.all(
        turns.slice(0, 3).map((t, k) => writer.write(...cached(t, k + 1))),
      );
      const [, direct] = cached(turns[3], 4);
      await appendUsageEvent(db, direct.usage[0]);
      for (const [k, t] of turns.entries()) {
        const [row] = await listUsageEvents(db, t.sessionId);
        assert.deepEqual([row.cached_tokens, row.cache_write_tokens], [
          100 * (k + 1),
          10 * (k + 1),
        ]);
      }
      // Not reported: NULL, never 0.
      const plain = await claimedTurn(db, T0);
      await writer.write(...turnEnd(plain));
      const [row] = await listUsageEvents(db, plain.sessionId);
      assert.deepEqual([row.cached_tokens, row.cache_write_tokens], [
        null,
        null,
      ]);
    });

    test("a superseded turn in a batch is told so and its reply is interrupted; the others move", async () => {
      const [a, b, c] = await Promise.all([
        claimedTurn(db, T0),
        claimedTurn(db, T0),
        claimedTurn(db, T0),
      ]);
      const writer = turnWriter(db);
      const stale = { ...b, turnId: uuidv7() };
      const written = await Promise.all([a, stale, c].map((t) => writer.write(...turnEnd(t))));
      assert.deepEqual(written.map((w) => w.moved), [true, false, true]);
      assert.deepEqual((await listMessages(db, b.sessionId)).map((m) => m.interrupted), [
        false,
        true,
      ]);
      assert.equal((await findRun(db, b.runId))?.state, "running");
    });

    test("two turns of one session in a batch take their seqs in the order they ended", async () => {
      const [first, other] = await Promise.all([claimedTurn(db, T0), claimedTurn(db, T0)]);
      const writer = turnWriter(db);
      const [, records] = turnEnd(first, "late part");
      const written = await Promise.all([
        writer.write(...turnEnd(other)),
        writer.write(null, records),
        writer.write(...turnEnd(first, "reply")),
      ]);
      assert.deepEqual(written.map((w) => w.messageSeqs), [[1, 2], [1, 2], [3, 4]]);
      const texts = (await listMessages(db, first.sessionId)).map((m) => m.content.plaintext);
      assert.deepEqual(texts, ["question", "late part", "question", "reply"]);
    });

    test("a turn whose records fail fails alone: the others of its batch are committed", async () => {
      const turns = await Promise.all(Array.from({ length: 5 }, () => claimedTurn(db, T0)));
      const writer = turnWriter(db);
      const [move, records] = turnEnd(turns[2]);
      // A message of another session in a turn's records: it gets no seq, and the write fails.
      records.messages[1] = { ...records.messages[1], sessionId: turns[3].sessionId };
      const outcomes = await Promise.allSettled(
        turns.map((t, k) => k === 2 ? writer.write(move, records) : writer.write(...turnEnd(t))),
      );
      assert.deepEqual(outcomes.map((o) => o.status), [
        "fulfilled",
        "fulfilled",
        "rejected",
        "fulfilled",
        "fulfilled",
      ]);
      assert.equal((await listMessages(db, turns[2].sessionId)).length, 0);
      assert.equal((await findRun(db, turns[2].runId))?.state, "running");
      for (const k of [0, 1, 3, 4]) {
        assert.equal((await findRun(db, turns[k].runId))?.state, "idle");
        assert.equal((await listMessages(db, turns[k].sessionId)).length, 2);
      }
      // The writer goes on after a failed batch.
      const next = await claimedTurn(db, T0);
      assert.deepEqual(await writer.write(...turnEnd(next)), { moved: true, messageSeqs: [1, 2] });
    });

    test("deleting a session deletes its messages, trace and usage; a turn after it fails alone", async () => {
      const [gone, kept] = await Promise.all([claimedTurn(db, T0), claimedTurn(db, T0)]);
      const writer = turnWriter(db);
      await writer.write(...turnEnd(gone));
      const owner = await db.query<{ user_id: string }>(
        "SELECT user_id FROM sessions WHERE id = $1",
        [gone.sessionId],
      );
      assert.equal(await deleteSession(db, owner[0].user_id, gone.sessionId), true);
      for (const table of ["messages", "trace_events", "usage_events"]) {
        const left = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} WHERE session_id = $1`,
          [gone.sessionId],
        );
        assert.deepEqual(left, [{ n: 0 }], table);
      }
      // Records of the deleted session, with no message to bump its counter: the write fails.
      const [, records] = turnEnd(gone);
      const orphan = { ...records, messages: [], trace: records.trace.map(noIndex) };
      const outcomes = await Promise.allSettled([
        writer.write(...turnEnd(kept)),
        writer.write(null, orphan),
        writer.write(null, { messages: [], trace: [], usage: records.usage }),
      ]);
      assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "rejected", "rejected"]);
      const rejected = outcomes[1] as PromiseRejectedResult;
      assert.equal((rejected.reason as { code?: string }).code, "23503");
      const orphans = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM trace_events WHERE session_id = $1",
        [gone.sessionId],
      );
      assert.deepEqual(orphans, [{ n: 0 }]);
      await assert.rejects(appendTraceEvents(db, orphan.trace), { code: "23503" });
      await assert.rejects(appendUsageEvent(db, records.usage[0]), { code: "23503" });
      // A turn whose records also name the deleted session: the write holds it, and fails whole.
      const mixed = await claimedTurn(db, T0);
      const [move, own] = turnEnd(mixed);
      await assert.rejects(
        writer.write(move, { ...own, trace: [...own.trace, ...orphan.trace] }),
        { code: "23503" },
      );
      assert.deepEqual(await writer.write(move, own), { moved: true, messageSeqs: [1, 2] });
      // A document of an instance of an earlier version lists no `holds`: its records are read.
      const { holds, ...earlier } = turnDocument(null, orphan);
      assert.deepEqual(holds, [gone.sessionId]);
      await assert.rejects(
        db.query("SELECT switchyard_write_turn($1::jsonb) AS w", [JSON.stringify(earlier)]),
        { code: "23503" },
      );
    });

    test("a turn whose session was deleted under it fails as a key would, alone; its calls are still settled", async () => {
      const [gone, kept] = await Promise.all([claimedTurn(db, T0), claimedTurn(db, T0)]);
      const owner = await db.query<{ user_id: string }>(
        "SELECT user_id FROM sessions WHERE id = $1",
        [gone.sessionId],
      );
      const userId = owner[0].user_id;
      assert.equal(await deleteSession(db, userId, gone.sessionId), true);
      // The turn's end with its messages (a lone write and in a batch) and one budgeted call.
      const call = { id: uuidv7(), userId, cost: "0.000123", now: T0 };
      const [move, records] = turnEnd(gone);
      const writer = turnWriter(db);
      const alone = await Promise.allSettled([
        writer.write(move, { ...records, settlements: [call] }),
      ]);
      const batched = await Promise.allSettled([
        writer.write(...turnEnd(kept)),
        writer.write(move, records),
      ]);
      assert.deepEqual(
        [...alone, ...batched].map((o) => o.status),
        ["rejected", "fulfilled", "rejected"],
      );
      for (const o of [alone[0], batched[1]]) {
        assert.equal(((o as PromiseRejectedResult).reason as { code?: string }).code, "23503");
      }
      const ledger = await db.query<{ spent: boolean; amount: string }>(
        "SELECT spent, amount::text FROM budget_ledger WHERE id = $1",
        [call.id],
      );
      assert.deepEqual(ledger, [{ spent: true, amount: "0.000123" }]);
      const left = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM messages WHERE session_id = $1",
        [gone.sessionId],
      );
      assert.deepEqual(left, [{ n: 0 }]);
    });

    if (store.name === "PostgreSQL") {
      test("every answered turn is there after the writer's connections are killed", async () => {
        const other = await opened.reopen!();
        const turns = await Promise.all(Array.from({ length: 12 }, () => claimedTurn(db, T0)));
        const writer = turnWriter(db);
        const answered: Turn[] = [];
        const writes = turns.map((t) =>
          writer.write(...turnEnd(t)).then(() => answered.push(t), () => {})
        );
        await writes[0];
        // A crash of the instance: every connection but the observer's goes at once.
        await other.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        await Promise.all(writes);
        assert.ok(answered.length >= 1);
        for (const t of answered) {
          assert.equal((await listMessages(other, t.sessionId)).length, 2);
          assert.equal((await findRun(other, t.runId))?.state, "idle");
        }
      });
    }
  });
}
