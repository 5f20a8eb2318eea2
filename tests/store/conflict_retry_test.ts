/**
 * Batches that lose a deadlock or serialization failure (SQLSTATE 40P01,
 * 40001): the batched claim (run_admission.ts `executeClaimer`) and the group
 * write of turn ends (turn_writer.ts) go again turn by turn, each answered as
 * alone and nothing written twice; a lone statement that loses one goes again
 * at most three times (conflict_retry.ts); an outage is never retried, whether
 * it committed being unknown. The errors are injected at the driver's edge on
 * every store, and provoked for real on PostgreSQL.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import { ServiceError } from "../../src/core/errors.ts";
import { uuidv7 } from "../../src/platform/ids.ts";
import { CONFLICT_RETRY_DELAYS_MS, retryOnConflict } from "../../src/store/conflict_retry.ts";
import type { Db, Queryable } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import {
  claimForExecute,
  type ExecuteClaim,
  executeClaimer,
} from "../../src/store/run_admission.ts";
import { insertSession } from "../../src/store/sessions.ts";
import {
  CONFLICT_MESSAGE,
  isStorageConflict,
  rethrowStorageFault,
  StorageConflict,
} from "../../src/store/storage_fault.ts";
import { turnWriter } from "../../src/store/turn_writer.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { storesUnderTest } from "../support/databases.ts";
import { type Turn, turnEnd as turnEndAt } from "../support/turn_end.ts";
import { promptClaim } from "../support/prompt_claim.ts";

const T0 = new Date("2026-03-01T10:00:00.000Z");
const turnEnd = (t: Turn, reply?: string) => turnEndAt(t, T0, reply);

/** An error as postgres.js makes one from the server's ErrorResponse (its `PostgresError`). */
function postgresError(code: string, message: string): Error {
  return Object.assign(new Error(message), {
    name: "PostgresError",
    severity: "ERROR",
    code,
  });
}

/** What a driver throws for `error` (both map their errors through storage_fault.ts). */
function asDriverThrows(error: unknown): unknown {
  try {
    rethrowStorageFault(error);
  } catch (mapped) {
    return mapped;
  }
}

const DEADLOCK = () => postgresError("40P01", "deadlock detected");
const SERIALIZATION = () =>
  postgresError("40001", "could not serialize access due to concurrent update");
const STATEMENT_TIMEOUT = () =>
  postgresError("57014", "canceling statement due to statement timeout");
const CONNECTION_CLOSED = () =>
  Object.assign(new Error("write CONNECTION_CLOSED"), {
    code: "CONNECTION_CLOSED",
  });

interface Injected extends Queryable {
  /** Each statement the store was asked, by which function it calls, and how it ended. */
  log: { call: string; outcome: "ok" | "conflict" | "fault" | "error" }[];
  driver?: string;
}

/** The function a statement calls (`switchyard_…`), or its first words. */
const callOf = (text: string) => text.match(/switchyard_\w+/)?.[0] ?? text.slice(0, 30);

/**
 * `db` as its driver would answer, but the first `times` statements calling
 * `fn` fail with `error` (as the driver throws it) without reaching the store.
 */
function injecting(
  db: Queryable,
  fn: string,
  error: () => unknown,
  times = 1,
): Injected {
  let left = times;
  const log: Injected["log"] = [];
  return {
    log,
    // The driver's name, as run_admission.ts reads it to choose the claim's commit.
    driver: (db as { driver?: string }).driver,
    async query<T>(text: string, params?: readonly unknown[]) {
      const call = callOf(text);
      if (call === fn && left > 0) {
        left--;
        const thrown = asDriverThrows(error());
        log.push({
          call,
          outcome: isStorageConflict(thrown) ? "conflict" : "fault",
        });
        throw thrown;
      }
      try {
        const rows = await db.query<T>(text, params);
        log.push({ call, outcome: "ok" });
        return rows;
      } catch (e) {
        log.push({
          call,
          outcome: isStorageConflict(e) ? "conflict" : "error",
        });
        throw e;
      }
    },
    exec: (text) => db.exec(text),
  };
}

/** `db` with each statement's function and outcome logged, nothing injected. */
const logging = (db: Queryable) => injecting(db, "", () => null, 0);

async function newSession(
  db: Queryable,
): Promise<{ id: string; userId: string }> {
  const userId = uuidv7();
  await insertUserWithKey(db, { id: userId, keyHash: "x", now: T0 });
  const id = (await insertSession(db, {
    id: uuidv7(),
    userId,
    title: "conflicts",
    now: T0,
  })).id;
  return { id, userId };
}

/** Sessions sorted by id: the order a batch locks them in. */
async function sessionsInLockOrder(db: Queryable, n: number) {
  const sessions = await Promise.all(
    Array.from({ length: n }, () => newSession(db)),
  );
  return sessions.sort((a, b) => a.id < b.id ? -1 : 1);
}

/** A claim with its prompt and the prompt's trace event. */
const turnClaim = (session: { id: string }, text: string) => promptClaim(session.id, text, T0);

type Claimed = Extract<ExecuteClaim, { kind: "claimed" }>;

function claimed(c: ExecuteClaim): Claimed {
  assert.equal(c.kind, "claimed");
  return c as Claimed;
}

/** A session with a run claimed by a turn, as a turn's end finds it. */
async function claimedTurn(
  db: Queryable,
  session?: { id: string },
): Promise<Turn> {
  const sessionId = (session ?? await newSession(db)).id;
  const turn = { sessionId, runId: uuidv7(), turnId: uuidv7() };
  claimed(await claimForExecute(db, { ...turn, instance: "i1", now: T0 }));
  return turn;
}

/** Per session: its runs, messages, trace events and usage events, and the transactions that wrote its messages. */
async function stored(db: Queryable, sessions: readonly string[]) {
  const rows = await db.query<
    {
      id: string;
      runs: number;
      messages: number;
      trace: number;
      usage: number;
      writers: number;
    }
  >(
    `SELECT s.id,
            (SELECT count(*)::int FROM runs WHERE session_id = s.id) AS runs,
            (SELECT count(*)::int FROM messages WHERE session_id = s.id) AS messages,
            (SELECT count(*)::int FROM trace_events WHERE session_id = s.id) AS trace,
            (SELECT count(*)::int FROM usage_events WHERE session_id = s.id) AS usage,
            (SELECT count(DISTINCT xmin::text)::int FROM messages WHERE session_id = s.id) AS writers
     FROM sessions s WHERE s.id = ANY ($1::uuid[])`,
    [sessions],
  );
  return sessions.map((id) => {
    const { id: _, ...counts } = rows.find((r) => r.id === id)!;
    return counts;
  });
}

/** The transactions that wrote these sessions' messages, all together. */
async function transactionsOf(
  db: Queryable,
  sessions: readonly string[],
): Promise<number> {
  const rows = await db.query<{ n: number }>(
    "SELECT count(DISTINCT xmin::text)::int AS n FROM messages WHERE session_id = ANY ($1::uuid[])",
    [sessions],
  );
  return rows[0].n;
}

const isStorageError = (message: string) => (e: unknown) =>
  e instanceof ServiceError && e.failure.code === "storage_error" &&
  e.failure.message === message;

const OUTAGE_MESSAGE = "storage unavailable: try again shortly";

describe("a conflict is told from an outage", () => {
  const cases = [
    { name: "a deadlock (40P01)", error: DEADLOCK, conflict: true },
    {
      name: "a serialization failure (40001)",
      error: SERIALIZATION,
      conflict: true,
    },
    {
      name: "a statement timeout (57014)",
      error: STATEMENT_TIMEOUT,
      conflict: false,
    },
    { name: "a lost connection", error: CONNECTION_CLOSED, conflict: false },
  ];
  for (const c of cases) {
    test(`${c.name} is a storage_error, ${c.conflict ? "" : "not "}a conflict`, () => {
      const thrown = asDriverThrows(c.error());
      assert.ok(thrown instanceof ServiceError);
      assert.equal(thrown.failure.code, "storage_error");
      assert.equal(
        thrown.failure.message,
        c.conflict ? CONFLICT_MESSAGE : OUTAGE_MESSAGE,
      );
      assert.equal(thrown instanceof StorageConflict, c.conflict);
      assert.equal(isStorageConflict(thrown), c.conflict);
      assert.equal(
        isStorageConflict(c.error()),
        c.conflict,
        "raw from the driver",
      );
      // Neither the query nor its parameters: only what failed.
      assert.deepEqual(Object.keys(thrown.failure), ["code", "message"]);
    });
  }

  test("retryOnConflict goes again after each delay, three times at most, and never on an outage", async () => {
    const failing = (error: () => unknown, times: number) => {
      let calls = 0;
      const attempt = () => {
        calls++;
        return calls <= times ? Promise.reject(asDriverThrows(error())) : Promise.resolve(calls);
      };
      return { attempt, calls: () => calls };
    };
    assert.deepEqual(CONFLICT_RETRY_DELAYS_MS, [10, 20, 40]);
    const twice = failing(DEADLOCK, 2);
    const started = performance.now();
    assert.equal(await retryOnConflict(twice.attempt), 3);
    assert.ok(performance.now() - started >= 25, "waited 10 ms, then 20 ms");
    const always = failing(SERIALIZATION, Infinity);
    await assert.rejects(
      retryOnConflict(always.attempt, [0, 0, 0]),
      isStorageError(CONFLICT_MESSAGE),
    );
    assert.equal(always.calls(), 4, "the first attempt and three retries");
    for (const outage of [STATEMENT_TIMEOUT, CONNECTION_CLOSED]) {
      const once = failing(outage, 1);
      await assert.rejects(
        retryOnConflict(once.attempt),
        isStorageError(OUTAGE_MESSAGE),
      );
      assert.equal(once.calls(), 1);
    }
    const bad = failing(() => postgresError("23505", "duplicate key"), 1);
    await assert.rejects(retryOnConflict(bad.attempt), { code: "23505" });
    assert.equal(bad.calls(), 1);
  });
});

for (const store of storesUnderTest(process.env)) {
  describe(`batches that lose a conflict on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      await migrate(db);
    });
    after(() => opened.dispose());

    for (
      const [name, error] of [["deadlock", DEADLOCK], [
        "serialization failure",
        SERIALIZATION,
      ]] as const
    ) {
      test(`a batch of claims that loses a ${name} goes again claim by claim, each answered as alone`, async () => {
        const [lone, ...batched] = await sessionsInLockOrder(db, 4);
        const faulty = injecting(db, "switchyard_claim_executes", error);
        const claimer = executeClaimer(faulty);
        const results = (await Promise.all(
          [lone, ...batched].map((s, k) => claimer.claim(turnClaim(s, `prompt ${k}`))),
        )).map(claimed);
        results.forEach((r, k) => {
          assert.equal(r.run.session_id, [lone, ...batched][k].id);
          assert.deepEqual(r.messageSeqs, [1]);
        });
        // The lone claim, the batch that lost, then each of its claims alone.
        assert.deepEqual(faulty.log, [
          { call: "switchyard_claim_execute", outcome: "ok" },
          { call: "switchyard_claim_executes", outcome: "conflict" },
          ...batched.map(() => ({
            call: "switchyard_claim_execute",
            outcome: "ok",
          })),
        ]);
        // One run, one prompt and its trace event each: nothing written twice.
        for (const counts of await stored(db, batched.map((s) => s.id))) {
          assert.deepEqual(counts, {
            runs: 1,
            messages: 1,
            trace: 1,
            usage: 0,
            writers: 1,
          });
        }
        assert.equal(await transactionsOf(db, batched.map((s) => s.id)), 3);
      });

      test(`a batch of turn ends that loses a ${name} goes again turn by turn, each answered as alone`, async () => {
        const turns = await Promise.all(
          [1, 2, 3, 4].map(() => claimedTurn(db)),
        );
        const faulty = injecting(db, "switchyard_write_turns", error);
        const writer = turnWriter(faulty);
        const written = await Promise.all(
          turns.map((t) => writer.write(...turnEnd(t))),
        );
        for (const w of written) {
          assert.deepEqual(w, { moved: true, messageSeqs: [1, 2] });
        }
        assert.deepEqual(faulty.log, [
          { call: "switchyard_write_turn", outcome: "ok" },
          { call: "switchyard_write_turns", outcome: "conflict" },
          { call: "switchyard_write_turn", outcome: "ok" },
          { call: "switchyard_write_turn", outcome: "ok" },
          { call: "switchyard_write_turn", outcome: "ok" },
        ]);
        const sessions = turns.map((t) => t.sessionId);
        for (const counts of await stored(db, sessions)) {
          assert.deepEqual(counts, {
            runs: 1,
            messages: 2,
            trace: 2,
            usage: 1,
            writers: 1,
          });
        }
        assert.equal(await transactionsOf(db, sessions), 4);
        const runs = await db.query<{ state: string }>(
          "SELECT state FROM runs WHERE id = ANY ($1::uuid[])",
          [turns.map((t) => t.runId)],
        );
        assert.deepEqual(runs.map((r) => r.state), [
          "idle",
          "idle",
          "idle",
          "idle",
        ]);
      });
    }

    for (
      const [name, error] of [["a statement timeout", STATEMENT_TIMEOUT], [
        "a lost connection",
        CONNECTION_CLOSED,
      ]] as const
    ) {
      test(`a batch of claims cut by ${name} is not retried: each claim answers storage_error`, async () => {
        const [lone, ...batched] = await sessionsInLockOrder(db, 3);
        const faulty = injecting(db, "switchyard_claim_executes", error);
        const claimer = executeClaimer(faulty);
        const settled = await Promise.allSettled(
          [lone, ...batched].map((s, k) => claimer.claim(turnClaim(s, `prompt ${k}`))),
        );
        assert.equal(settled[0].status, "fulfilled");
        for (const s of settled.slice(1)) {
          assert.equal(s.status, "rejected");
          assert.ok(
            isStorageError(OUTAGE_MESSAGE)((s as PromiseRejectedResult).reason),
          );
        }
        assert.deepEqual(faulty.log.map((l) => l.call), [
          "switchyard_claim_execute",
          "switchyard_claim_executes",
        ]);
      });

      test(`a batch of turn ends cut by ${name} is not retried: each turn answers storage_error`, async () => {
        const turns = await Promise.all([1, 2, 3].map(() => claimedTurn(db)));
        const faulty = injecting(db, "switchyard_write_turns", error);
        const writer = turnWriter(faulty);
        const settled = await Promise.allSettled(
          turns.map((t) => writer.write(...turnEnd(t))),
        );
        assert.deepEqual(settled.map((s) => s.status), [
          "fulfilled",
          "rejected",
          "rejected",
        ]);
        for (const s of settled.slice(1)) {
          assert.ok(
            isStorageError(OUTAGE_MESSAGE)((s as PromiseRejectedResult).reason),
          );
        }
        assert.deepEqual(faulty.log.map((l) => l.call), [
          "switchyard_write_turn",
          "switchyard_write_turns",
        ]);
      });
    }

    test("a lone claim that loses a deadlock goes again, three times at most", async () => {
      const [twice, always] = await sessionsInLockOrder(db, 2);
      const flaky = injecting(db, "switchyard_claim_execute", DEADLOCK, 2);
      assert.deepEqual(
        claimed(await claimForExecute(flaky, turnClaim(twice, "x")))
          .messageSeqs,
        [
          1,
        ],
      );
      assert.deepEqual(flaky.log.map((l) => l.outcome), [
        "conflict",
        "conflict",
        "ok",
      ]);
      const stuck = injecting(
        db,
        "switchyard_claim_execute",
        DEADLOCK,
        Infinity,
      );
      await assert.rejects(
        claimForExecute(stuck, turnClaim(always, "y")),
        isStorageError(CONFLICT_MESSAGE),
      );
      assert.equal(stuck.log.length, 4, "the first attempt and three retries");
      assert.deepEqual(await stored(db, [twice.id, always.id]), [
        { runs: 1, messages: 1, trace: 1, usage: 0, writers: 1 },
        { runs: 0, messages: 0, trace: 0, usage: 0, writers: 0 },
      ]);
    });

    test("a lone turn end that loses a serialization failure goes again, three times at most", async () => {
      const [twice, always] = await Promise.all([
        claimedTurn(db),
        claimedTurn(db),
      ]);
      const flaky = injecting(db, "switchyard_write_turn", SERIALIZATION, 3);
      assert.deepEqual(await turnWriter(flaky).write(...turnEnd(twice)), {
        moved: true,
        messageSeqs: [1, 2],
      });
      assert.deepEqual(flaky.log.map((l) => l.outcome), [
        "conflict",
        "conflict",
        "conflict",
        "ok",
      ]);
      const stuck = injecting(
        db,
        "switchyard_write_turn",
        SERIALIZATION,
        Infinity,
      );
      await assert.rejects(
        turnWriter(stuck).write(...turnEnd(always)),
        isStorageError(CONFLICT_MESSAGE),
      );
      assert.equal(stuck.log.length, 4);
      assert.deepEqual(await stored(db, [twice.sessionId, always.sessionId]), [
        { runs: 1, messages: 2, trace: 2, usage: 1, writers: 1 },
        { runs: 1, messages: 0, trace: 0, usage: 0, writers: 0 },
      ]);
    });

    if (store.name === "PostgreSQL") {
      /**
       * A real deadlock: `holder` locks the batch's second session, the batch
       * locks its first and waits for the second, then `holder` asks for the
       * first. The batch's connections detect it (deadlock_timeout 50 ms, the
       * holder's 10 s), so the batch is the one PostgreSQL aborts.
       */
      const deadlocked = async (
        run: (victim: Queryable) => Promise<unknown>,
        first: string,
        second: string,
      ) => {
        const [{ name }] = await db.query<{ name: string }>(
          "SELECT current_database() AS name",
        );
        await db.exec(`ALTER DATABASE "${name}" SET deadlock_timeout = '50ms'`);
        try {
          const victim = logging(await opened.reopen!());
          const holder = await opened.reopen!();
          let holding!: () => void;
          const held = new Promise<void>((resolve) => holding = resolve);
          let release!: () => void;
          const gate = new Promise<void>((resolve) => release = resolve);
          const lock = "SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE";
          const holds = holder.transaction(async (tx) => {
            await tx.query("SET LOCAL deadlock_timeout = '10s'");
            await tx.query(lock, [second]);
            holding();
            await gate;
            await tx.query(lock, [first]);
          });
          await held;
          const ran = run(victim);
          // The batch waits for the second session's row, holding the first's.
          for (let waited = 0;; waited += 20) {
            const [{ n }] = await db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity
               WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            );
            if (n > 0) break;
            assert.ok(waited < 10_000, "the batch waits for the held session");
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          release();
          await holds;
          const result = await ran;
          return { result, log: victim.log };
        } finally {
          await db.exec(`ALTER DATABASE "${name}" RESET deadlock_timeout`);
        }
      };

      test("a batch of claims that PostgreSQL aborts in a deadlock is claimed claim by claim", async () => {
        const [lone, s1, s2] = await sessionsInLockOrder(db, 3);
        const { result, log } = await deadlocked(
          async (victim) => {
            const claimer = executeClaimer(victim);
            return (await Promise.all(
              [lone, s1, s2].map((s, k) => claimer.claim(turnClaim(s, `p${k}`))),
            ))
              .map(claimed);
          },
          s1.id,
          s2.id,
        );
        assert.deepEqual(log, [
          { call: "switchyard_claim_execute", outcome: "ok" },
          { call: "switchyard_claim_executes", outcome: "conflict" },
          { call: "switchyard_claim_execute", outcome: "ok" },
          { call: "switchyard_claim_execute", outcome: "ok" },
        ]);
        (result as Claimed[]).forEach((r, k) => {
          assert.equal(r.run.session_id, [lone, s1, s2][k].id);
          assert.deepEqual(r.messageSeqs, [1]);
        });
        for (const counts of await stored(db, [s1.id, s2.id])) {
          assert.deepEqual(counts, {
            runs: 1,
            messages: 1,
            trace: 1,
            usage: 0,
            writers: 1,
          });
        }
        assert.equal(await transactionsOf(db, [s1.id, s2.id]), 2);
      });

      test("a batch of turn ends that PostgreSQL aborts in a deadlock is written turn by turn", async () => {
        const [lone, s1, s2] = await sessionsInLockOrder(db, 3);
        const turns = await Promise.all(
          [lone, s1, s2].map((s) => claimedTurn(db, s)),
        );
        const { result, log } = await deadlocked(
          async (victim) => {
            const writer = turnWriter(victim);
            return await Promise.all(
              turns.map((t) => writer.write(...turnEnd(t))),
            );
          },
          s1.id,
          s2.id,
        );
        assert.deepEqual(log, [
          { call: "switchyard_write_turn", outcome: "ok" },
          { call: "switchyard_write_turns", outcome: "conflict" },
          { call: "switchyard_write_turn", outcome: "ok" },
          { call: "switchyard_write_turn", outcome: "ok" },
        ]);
        for (const w of result as unknown[]) {
          assert.deepEqual(w, { moved: true, messageSeqs: [1, 2] });
        }
        for (const counts of await stored(db, [s1.id, s2.id])) {
          assert.deepEqual(counts, {
            runs: 1,
            messages: 2,
            trace: 2,
            usage: 1,
            writers: 1,
          });
        }
        assert.equal(await transactionsOf(db, [s1.id, s2.id]), 2);
      });
    }
  });
}
