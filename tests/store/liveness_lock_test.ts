/**
 * Instance liveness seen at once on PostgreSQL (migration 016,
 * store/liveness_lock.ts): an instance whose recorded advisory lock nobody
 * holds is gone, whatever its heartbeat says; one that holds it is alive; a
 * lock connection cut while the process lives is taken again, and a turn taken
 * over meanwhile ends superseded.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { memoryLogger } from "../../src/log.ts";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Db } from "../../src/store/db.ts";
import { beat, joinInstances, leave } from "../../src/store/instances.ts";
import { holdLivenessLock, type LivenessLock } from "../../src/store/liveness_lock.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openPostgres } from "../../src/store/postgres_driver.ts";
import { claimForExecute, type ExecuteClaim } from "../../src/store/run_admission.ts";
import { CLAIM_LEASE_MS, findRun, type RunRow } from "../../src/store/runs.ts";
import { insertSession } from "../../src/store/sessions.ts";
import { noRecords, writeTurn } from "../../src/store/turn_writes.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { createScratchDatabase } from "../support/databases.ts";

const later = (at: Date, ms: number) => new Date(at.getTime() + ms);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function newSession(db: Db, now: Date): Promise<string> {
  const userId = uuidv7();
  await insertUserWithKey(db, { id: userId, keyHash: "x", now });
  return (await insertSession(db, { id: uuidv7(), userId, title: "liveness", now })).id;
}

const execute = (db: Db, sessionId: string, now: Date, instance: string) =>
  claimForExecute(db, {
    sessionId,
    runId: uuidv7(),
    turnId: uuidv7(),
    instance,
    now,
    runInput: { text: "hello" },
  });

function claimed(c: ExecuteClaim): { run: RunRow; superseded: RunRow | null } {
  assert.equal(c.kind, "claimed");
  return c as Extract<ExecuteClaim, { kind: "claimed" }>;
}

/** The end of `run`'s turn as its holder writes it. */
const endTurn = (db: Db, run: RunRow, now: Date) =>
  writeTurn(db, { runId: run.id, turnId: run.current_turn!, state: "idle", now }, noRecords());

/** Whether some connection holds lock `key` (tried shared, as the claims do). */
async function held(db: Db, key: string): Promise<boolean> {
  const rows = await db.query<{ free: boolean }>(
    "SELECT pg_try_advisory_xact_lock_shared($1::bigint) AS free",
    [key],
  );
  return !rows[0].free;
}

const adminUrl = process.env.DATABASE_URL;
if (adminUrl) {
  describe("instance liveness locks on PostgreSQL", () => {
    let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
    let a: Db;
    let b: Db;
    const locks: LivenessLock[] = [];
    const hold = async () => {
      const lock = await holdLivenessLock(scratch.url, { logger: memoryLogger() });
      locks.push(lock);
      return lock;
    };
    before(async () => {
      scratch = await createScratchDatabase(adminUrl);
      a = openPostgres(scratch.url, { maxConnections: 4 });
      b = openPostgres(scratch.url, { maxConnections: 4 });
      await migrate(a);
    });
    after(async () => {
      for (const lock of locks) await lock.close();
      await a.close();
      await b.close();
      await scratch.drop();
    });

    test("a holder with its lock keeps its turn; once the lock is gone the turn is taken at once and its end is superseded", async () => {
      const now = new Date();
      const lock = await hold();
      const holder = `i-${uuidv7()}`;
      await joinInstances(a, { instance: holder, now, sole: false, livenessLock: lock.key });
      const sessionId = await newSession(a, now);
      const { run } = claimed(await execute(a, sessionId, now, holder));
      assert.equal((await execute(b, sessionId, later(now, 100), "other")).kind, "in_flight");
      assert.equal(await held(b, lock.key), true);

      await lock.close(); // as a killed process's connection closes
      assert.equal(await held(b, lock.key), false);
      // The heartbeat is 200 ms old: only the lock tells.
      const taken = claimed(await execute(b, sessionId, later(now, 200), "other"));
      assert.equal(taken.superseded?.id, run.id);
      assert.deepEqual(await endTurn(a, run, later(now, 300)), { moved: false, messageSeqs: [] });
      assert.equal((await findRun(a, taken.run.id))?.state, "running");
      assert.equal((await findRun(a, taken.run.id))?.claimed_by, "other");
    });

    test("an instance never takes its own live turn for gone: its lock free (its connection cut), its own claim is in flight, another's takes the turn", async () => {
      const now = new Date();
      const lock = await hold();
      const holder = `i-${uuidv7()}`;
      await joinInstances(a, { instance: holder, now, sole: false, livenessLock: lock.key });
      const sessionId = await newSession(a, now);
      const { run } = claimed(await execute(a, sessionId, now, holder));
      await lock.close(); // as a cut connection leaves it, until the instance takes it again
      assert.equal(await held(b, lock.key), false);
      // The instance asking is alive: its own turn holds the session.
      assert.equal((await execute(a, sessionId, later(now, 100), holder)).kind, "in_flight");
      assert.equal((await findRun(a, run.id))?.state, "running");
      // Another instance sees a holder without its lock: gone.
      const taken = claimed(await execute(b, sessionId, later(now, 200), "other"));
      assert.equal(taken.superseded?.id, run.id);
    });

    test("for three seconds after the server's start nothing proves an instance with a lock gone, neither its free lock nor its heartbeat as old as the outage: its turn holds and its reservations count", async () => {
      const [{ started }] = await a.query<{ started: Date }>(
        "SELECT pg_postmaster_start_time() AS started",
      );
      const at = (ms: number) => later(started, ms);
      const lock = await hold();
      const holder = `i-${uuidv7()}`;
      // Its last beat came before the outage, and its lock is free: as a restarted server leaves
      // a live instance until it takes its lock again and beats.
      await beat(a, holder, at(-10_000), lock.key);
      const sessionId = await newSession(a, at(-10_000));
      const { run } = claimed(await execute(a, sessionId, at(-10_000), holder));
      await lock.close();
      assert.equal(await held(b, lock.key), false);
      const reservationLive = async (ms: number) =>
        (await b.query<{ live: boolean }>(
          `SELECT switchyard_reservation_live(
                    jsonb_populate_record(NULL::budget_ledger, $1::jsonb), $2) AS live`,
          [JSON.stringify({ instance: holder, spent: false }), at(ms)],
        ))[0].live;

      assert.equal((await execute(b, sessionId, at(2_900), "other")).kind, "in_flight");
      assert.equal(await reservationLive(2_900), true);
      // Then the locks have settled: a free one proves its instance gone at once. (3,001: the start
      // time has microseconds, which a Date drops.)
      assert.equal(await reservationLive(3_001), false);
      assert.equal(claimed(await execute(b, sessionId, at(3_001), "other")).superseded?.id, run.id);
    });

    test("an instance's own turn whose lease ran out is lapsed to it", async () => {
      const now = new Date();
      const lock = await hold();
      const holder = `i-${uuidv7()}`;
      await joinInstances(a, { instance: holder, now, sole: false, livenessLock: lock.key });
      const sessionId = await newSession(a, now);
      const { run } = claimed(await execute(a, sessionId, now, holder));
      const expired = later(now, CLAIM_LEASE_MS + 1);
      await beat(a, holder, expired, lock.key);
      assert.equal(claimed(await execute(a, sessionId, expired, holder)).superseded?.id, run.id);
    });

    test("joining cuts the runs of an instance whose lock nobody holds, not of one that holds its lock, though both beat", async () => {
      const now = new Date();
      const liveLock = await hold();
      const goneLock = await hold();
      const live = `i-${uuidv7()}`;
      const gone = `i-${uuidv7()}`;
      await beat(a, live, now, liveLock.key);
      await beat(a, gone, now, goneLock.key);
      const kept = claimed(await execute(a, await newSession(a, now), now, live)).run;
      const lost = claimed(await execute(a, await newSession(a, now), now, gone)).run;
      await goneLock.close();
      const me = `i-${uuidv7()}`;
      assert.equal(await joinInstances(b, { instance: me, now: later(now, 100), sole: false }), 1);
      assert.equal((await findRun(a, kept.id))?.state, "running");
      assert.equal((await findRun(a, lost.id))?.state, "idle");
      const rows = await a.query<{ id: string }>(
        "SELECT id FROM instances WHERE id = ANY($1::text[]) ORDER BY id",
        [[live, gone]],
      );
      assert.deepEqual(rows.map((r) => r.id), [live]);
      await leave(a, live);
      await leave(b, me);
    });

    test("a row without a lock (the embedded store, an older version) is judged by its heartbeat alone", async () => {
      const now = new Date();
      const holder = `i-${uuidv7()}`;
      await beat(a, holder, now);
      const sessionId = await newSession(a, now);
      claimed(await execute(a, sessionId, now, holder));
      assert.equal((await execute(b, sessionId, later(now, 2900), "other")).kind, "in_flight");
      claimed(await execute(b, sessionId, later(now, 3001), "other"));
    });

    test("a lock connection cut while the process lives: a turn taken over meanwhile ends superseded, and the lock is taken again within a second", async () => {
      const now = new Date();
      const logger = memoryLogger();
      const lock = await holdLivenessLock(scratch.url, { logger });
      locks.push(lock);
      const holder = `i-${uuidv7()}`;
      await joinInstances(a, { instance: holder, now, sole: false, livenessLock: lock.key });
      const sessionId = await newSession(a, now);
      const { run } = claimed(await execute(a, sessionId, now, holder));
      const [{ pid }] = await b.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'switchyard-liveness'
           AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
                       AND mode = 'ExclusiveLock'
                       AND ((classid::bigint << 32) | objid::bigint) = $1::bigint)`,
        [lock.key],
      );
      // A third connection keeps the lock from being taken again (a shared
      // lock, as a claim's check holds it) while another instance claims.
      let taken: Awaited<ReturnType<typeof execute>> | undefined;
      const c = openPostgres(scratch.url, { maxConnections: 1 });
      try {
        await c.transaction(async (tx) => {
          await b.query("SELECT pg_terminate_backend($1)", [pid]);
          for (let i = 0;; i++) {
            const [row] = await tx.query<{ free: boolean }>(
              "SELECT pg_try_advisory_xact_lock_shared($1::bigint) AS free",
              [lock.key],
            );
            if (row.free) break;
            assert.ok(i < 200, "the cut backend kept the lock");
            await sleep(5);
          }
          taken = await execute(b, sessionId, later(now, 100), "other");
        });
      } finally {
        await c.close();
      }
      assert.equal(claimed(taken!).superseded?.id, run.id);
      assert.deepEqual(await endTurn(a, run, later(now, 200)), { moved: false, messageSeqs: [] });

      const cut = Date.now();
      while (!(lock.held && await held(b, lock.key))) {
        assert.ok(Date.now() - cut < 1500, `not taken again: ${logger.lines.join("\n")}`);
        await sleep(10);
      }
      assert.ok(Date.now() - cut < 1000 + 100, `taken again after ${Date.now() - cut} ms`);
      assert.ok(logger.lines.some((l) => l.includes("liveness lock lost")));
      // Held again: a claim of another instance is refused.
      const next = await newSession(a, now);
      claimed(await execute(a, next, later(now, 300), holder));
      assert.equal((await execute(b, next, later(now, 400), "other")).kind, "in_flight");
    });

    test("a clean close releases the lock", async () => {
      const lock = await holdLivenessLock(scratch.url, { logger: memoryLogger() });
      assert.equal(lock.held, true);
      assert.equal(await held(a, lock.key), true);
      await lock.close();
      assert.equal(lock.held, false);
      assert.equal(await held(a, lock.key), false);
    });
  });
}
