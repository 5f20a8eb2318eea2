import assert from "node:assert/strict";
import process from "node:process";
import { beat, joinInstances, leave } from "../../src/store/instances.ts";
import { readSupersedeSeqs, renewClaims } from "../../src/store/run_watch.ts";
import { after, before, describe, test } from "node:test";
import { uuidv7 } from "../../src/platform/ids.ts";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openPostgres } from "../../src/store/postgres_driver.ts";
import {
  claimForContinue,
  claimForExecute,
  type ExecuteClaim,
  supersede,
} from "../../src/store/run_admission.ts";
import {
  CLAIM_LEASE_MS,
  endLostTurns,
  findLiveRun,
  findRun,
  finishRun,
  pauseRun,
  returnToClient,
  type RunRow,
  saveRunInput,
} from "../../src/store/runs.ts";
import { insertSession } from "../../src/store/sessions.ts";
import type { NewTraceEvent } from "../../src/store/traces.ts";
import { notifySuperseded, openSupersedeSignals } from "../../src/store/supersede_signal.ts";
import { isUniqueViolation } from "../../src/store/transaction.ts";
import { insertUserWithKey } from "../../src/store/users.ts";
import { createScratchDatabase, storesUnderTest } from "../support/databases.ts";

const T0 = new Date("2026-03-01T10:00:00.000Z");
const later = (ms: number) => new Date(T0.getTime() + ms);
const TOOL_PAUSE = {
  kind: "tool",
  order: ["c1"],
  calls: [{ call_id: "c1", name: "read_file", requires_approval: "allow" }],
  service_results: [],
  to_encrypt: [],
};

async function newSession(db: Db): Promise<string> {
  const userId = uuidv7();
  await insertUserWithKey(db, { id: userId, keyHash: "x", now: T0 });
  return (await insertSession(db, { id: uuidv7(), userId, title: "runs", now: T0 })).id;
}

function claimed(c: ExecuteClaim): { run: RunRow; superseded: RunRow | null } {
  assert.equal(c.kind, "claimed");
  return c as Extract<ExecuteClaim, { kind: "claimed" }>;
}

const execute = (db: Db, sessionId: string, now = T0, instance = "i1") =>
  claimForExecute(db, {
    sessionId,
    runId: uuidv7(),
    turnId: uuidv7(),
    instance,
    now,
    runInput: { text: "hello" },
  });

/** A run claimed at T0 and paused at +1 ms for the client's answer to TOOL_PAUSE's call. */
async function pausedRun(db: Db, sessionId: string): Promise<RunRow> {
  const { run } = claimed(await execute(db, sessionId));
  await pauseRun(db, {
    runId: run.id,
    turnId: run.current_turn!,
    now: later(1),
    pause: TOOL_PAUSE,
  });
  return run;
}

for (const store of storesUnderTest(process.env)) {
  describe(`run store on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      await migrate(db);
    });
    after(() => opened.dispose());

    test("execute on a session without a live run starts a running run under a 30 s lease", async () => {
      const sessionId = await newSession(db);
      const { run, superseded } = claimed(await execute(db, sessionId));
      assert.equal(superseded, null);
      assert.equal(run.state, "running");
      assert.equal(run.session_id, sessionId);
      assert.equal(run.claimed_by, "i1");
      assert.equal(run.claim_expires?.getTime(), T0.getTime() + CLAIM_LEASE_MS);
      assert.deepEqual(run.run_input, { text: "hello" });
      assert.equal(run.pause, null);
      assert.equal(run.supersede_seq, 0);
      assert.deepEqual(await findLiveRun(db, sessionId), run);
    });

    test("execute while a turn is running answers in flight and changes nothing", async () => {
      const sessionId = await newSession(db);
      const { run } = claimed(await execute(db, sessionId));
      const second = await execute(db, sessionId, later(1000), "i2");
      assert.equal(second.kind, "in_flight");
      assert.equal(second.run?.id, run.id);
      assert.deepEqual(await findRun(db, run.id), run);
    });

    test("a pause keeps its data and run input; continue claims it only for an allowed kind", async () => {
      const sessionId = await newSession(db);
      const { run } = claimed(await execute(db, sessionId));
      const paused = await pauseRun(db, {
        runId: run.id,
        turnId: run.current_turn!,
        now: later(1),
        pause: TOOL_PAUSE,
        runInput: { text: "hello", approved_paths: ["a.ts"] },
      });
      assert.equal(paused?.state, "awaiting_client");
      assert.deepEqual(paused?.pause, TOOL_PAUSE);
      assert.equal(paused?.claimed_by, null);
      assert.equal(paused?.claim_expires, null);

      const wrong = await claimForContinue(db, {
        sessionId,
        turnId: uuidv7(),
        instance: "i2",
        now: later(2),
        pauseKinds: ["approval", "decrypt"],
      });
      assert.equal(wrong.kind, "mismatch");
      assert.equal((await findRun(db, run.id))?.state, "awaiting_client", "checkpoint kept");

      const turnId = uuidv7();
      const right = await claimForContinue(db, {
        sessionId,
        turnId,
        instance: "i2",
        now: later(3),
        pauseKinds: ["tool"],
      });
      assert.equal(right.kind, "claimed");
      if (right.kind !== "claimed") return;
      assert.equal(right.run.state, "running");
      assert.equal(right.run.current_turn, turnId);
      assert.equal(right.run.claimed_by, "i2");
      assert.deepEqual(right.run.pause, TOOL_PAUSE, "the claim keeps the pause for validation");
      assert.deepEqual(right.run.run_input, { text: "hello", approved_paths: ["a.ts"] });

      // bad continuation data: the run goes back to the client unchanged
      assert.equal(await returnToClient(db, { runId: run.id, turnId, now: later(4) }), true);
      const again = await findRun(db, run.id);
      assert.equal(again?.state, "awaiting_client");
      assert.deepEqual(again?.pause, TOOL_PAUSE);
      const any = await claimForContinue(db, {
        sessionId,
        turnId: uuidv7(),
        instance: "i1",
        now: later(5),
      });
      assert.equal(any.kind, "claimed", "no pause kinds given: any pause is claimed");
    });

    test("continue without a live run is no_active_run; during a running turn it is in flight", async () => {
      const sessionId = await newSession(db);
      const request = { sessionId, instance: "i1", now: T0 };
      assert.deepEqual(await claimForContinue(db, { ...request, turnId: uuidv7() }), {
        kind: "no_active_run",
      });
      const { run } = claimed(await execute(db, sessionId));
      const during = await claimForContinue(db, { ...request, turnId: uuidv7() });
      assert.equal(during.kind, "in_flight");
      assert.equal(
        await finishRun(db, {
          runId: run.id,
          turnId: run.current_turn!,
          now: later(1),
          state: "idle",
        }),
        true,
      );
      assert.equal(
        (await claimForContinue(db, { ...request, turnId: uuidv7() })).kind,
        "no_active_run",
      );
      assert.equal((await findRun(db, run.id))?.state, "idle");
      claimed(await execute(db, sessionId, later(2)));
    });

    test("execute supersedes a run awaiting the client: it goes idle with its pause cleared", async () => {
      const sessionId = await newSession(db);
      const first = await pausedRun(db, sessionId);
      const { run: second, superseded } = claimed(await execute(db, sessionId, later(2)));
      assert.notEqual(second.id, first.id);
      assert.equal(superseded?.id, first.id);
      assert.deepEqual(superseded?.pause, TOOL_PAUSE, "the caller learns which calls to cancel");
      const old = await findRun(db, first.id);
      assert.equal(old?.state, "idle");
      assert.equal(old?.pause, null);
      assert.equal(old?.supersede_seq, 1);
      assert.equal((await findLiveRun(db, sessionId))?.id, second.id);
    });

    test("execute cancels the calls of a paused run in the trace, and none of a continued run whose claim lapsed", async () => {
      const cancelledOf = (sessionId: string, now: Date) => {
        const traceId = uuidv7();
        const cancelledCall = {
          sessionId,
          traceId,
          eventType: "tool_call" as const,
          payload: {
            plaintext: { type: "tool_call", status: "cancelled", call_id: "", tool_name: "" },
          },
          now,
        };
        const traced = async () =>
          (await db.query<{ payload: { plaintext: Record<string, unknown> } }>(
            "SELECT payload FROM trace_events WHERE trace_id = $1 AND event_type = 'tool_call'",
            [traceId],
          )).map((e) => e.payload.plaintext);
        return { cancelledCall, traced };
      };
      const takeOver = (sessionId: string, now: Date, cancelledCall: NewTraceEvent) =>
        claimForExecute(db, {
          sessionId,
          runId: uuidv7(),
          turnId: uuidv7(),
          instance: "i2",
          now,
          cancelledCall,
        });
      // Awaiting the client: its pending call is cancelled.
      const waiting = await newSession(db);
      await pausedRun(db, waiting);
      const first = cancelledOf(waiting, later(2));
      claimed(await takeOver(waiting, later(2), first.cancelledCall));
      assert.deepEqual(await first.traced(), [
        { type: "tool_call", status: "cancelled", call_id: "c1", tool_name: "read_file" },
      ]);
      // Continued (its calls answered, the pause kept for the continuation's check), then
      // lapsed: the turn is traced as lost, and no call as cancelled.
      const continued = await newSession(db);
      const run = await pausedRun(db, continued);
      const taken = await claimForContinue(db, {
        sessionId: continued,
        turnId: uuidv7(),
        instance: "i1",
        now: later(2),
      });
      assert.equal(taken.kind, "claimed");
      const afterLease = later(2 + CLAIM_LEASE_MS + 1);
      const second = cancelledOf(continued, afterLease);
      const { superseded } = claimed(await takeOver(continued, afterLease, second.cancelledCall));
      assert.equal(superseded?.id, run.id);
      assert.deepEqual(await second.traced(), []);
    });

    test("a lapsed claim belonged to a crashed instance: continue finds no run, execute starts over", async () => {
      const sessionId = await newSession(db);
      const { run } = claimed(await execute(db, sessionId));
      const afterLease = later(CLAIM_LEASE_MS + 1);
      assert.equal(
        (await claimForContinue(db, {
          sessionId,
          turnId: uuidv7(),
          instance: "i2",
          now: afterLease,
        })).kind,
        "no_active_run",
      );
      const { superseded } = claimed(await execute(db, sessionId, afterLease, "i2"));
      assert.equal(superseded?.id, run.id);
      assert.equal((await findRun(db, run.id))?.state, "idle");
    });

    test("a claim of an instance that stopped beating lapses in seconds, traced as lost", async () => {
      const sessionId = await newSession(db);
      const holder = `i-${uuidv7()}`;
      await beat(db, holder, T0);
      const { run } = claimed(await execute(db, sessionId, T0, holder));
      // Beating: in flight well past three seconds.
      await beat(db, holder, later(2500));
      assert.equal((await execute(db, sessionId, later(5000), "i2")).kind, "in_flight");
      // Silent for three seconds: lapsed for continue, break and execute alike.
      const silent = later(5500);
      const probe = { sessionId, turnId: uuidv7(), instance: "i2", now: silent };
      assert.equal((await claimForContinue(db, probe)).kind, "no_active_run");
      const { superseded } = claimed(await execute(db, sessionId, silent, "i2"));
      assert.equal(superseded?.id, run.id);
      assert.equal((await findRun(db, run.id))?.state, "idle");
      const lost = await db.query<{ payload: Record<string, unknown> }>(
        "SELECT payload FROM trace_events WHERE trace_id = $1",
        [run.current_turn],
      );
      assert.deepEqual(lost.map((e) => e.payload), [{
        plaintext: {
          type: "message",
          role: "assistant",
          interrupted: true,
          reason: "instance_lost",
        },
      }]);
    });

    test("a break of a turn whose instance is gone opens no hand-off and traces the loss", async () => {
      const sessionId = await newSession(db);
      const holder = `i-${uuidv7()}`;
      await beat(db, holder, T0);
      const { run } = claimed(await execute(db, sessionId, T0, holder));
      const cut = await supersede(db, {
        sessionId,
        turnId: uuidv7(),
        instance: "i2",
        now: later(3001),
        handoffKey: "key",
      });
      assert.equal(cut?.handoff, null);
      const lost = await db.query("SELECT 1 FROM trace_events WHERE trace_id = $1", [
        run.current_turn,
      ]);
      assert.equal(lost.length, 1);
    });

    test("joining as the sole instance cuts every running run of another; leaving drops the row", async () => {
      const sessionId = await newSession(db);
      const { run } = claimed(await execute(db, sessionId, T0, `i-${uuidv7()}`));
      const me = `i-${uuidv7()}`;
      assert.ok((await joinInstances(db, { instance: me, now: later(1), sole: true })) >= 1);
      const after = await findRun(db, run.id);
      assert.equal(after?.state, "idle");
      assert.equal(after?.claimed_by, null);
      assert.equal(after?.supersede_seq, run.supersede_seq + 1);
      assert.equal(claimed(await execute(db, sessionId, later(2), me)).superseded, null);
      await leave(db, me);
      assert.deepEqual(await db.query("SELECT 1 FROM instances WHERE id = $1", [me]), []);
    });

    test("joining beside live instances cuts only the runs of the silent ones", async () => {
      const live = `i-${uuidv7()}`;
      const gone = `i-${uuidv7()}`;
      await beat(db, live, later(9000));
      await beat(db, gone, T0);
      const kept = claimed(await execute(db, await newSession(db), T0, live)).run;
      const lost = claimed(await execute(db, await newSession(db), T0, gone)).run;
      await joinInstances(db, { instance: `i-${uuidv7()}`, now: later(10_000), sole: false });
      assert.equal((await findRun(db, kept.id))?.state, "running");
      assert.equal((await findRun(db, lost.id))?.state, "idle");
      assert.deepEqual(await db.query("SELECT 1 FROM instances WHERE id = $1", [gone]), []);
      await beat(db, live, later(10_000));
      assert.equal((await findRun(db, kept.id))?.claimed_by, live);
    });

    test("renewing keeps the claim alive past the first lease", async () => {
      const sessionId = await newSession(db);
      const { run } = claimed(await execute(db, sessionId));
      const at = later(CLAIM_LEASE_MS - 1000);
      assert.deepEqual(
        await renewClaims(db, [{ runId: run.id, turnId: run.current_turn! }], at),
        [run.id],
      );
      const probe = await execute(db, sessionId, later(CLAIM_LEASE_MS + 1000));
      assert.equal(probe.kind, "in_flight");
      assert.deepEqual(await renewClaims(db, [{ runId: run.id, turnId: uuidv7() }], at), []);
    });

    test("supersede takes a running run over: the old holder's updates do nothing", async () => {
      const sessionId = await newSession(db);
      const { run } = claimed(await execute(db, sessionId));
      const oldTurn = { runId: run.id, turnId: run.current_turn!, now: later(1) };
      assert.equal((await readSupersedeSeqs(db, [run.id])).get(run.id) ?? null, 0);
      const newTurn = uuidv7();
      const result = await supersede(db, {
        sessionId,
        turnId: newTurn,
        instance: "i2",
        now: later(1),
      });
      assert.equal(result?.previous.current_turn, run.current_turn);
      assert.equal(result?.run.id, run.id);
      assert.equal(result?.run.state, "running");
      assert.equal(result?.run.current_turn, newTurn);
      assert.equal(result?.run.claimed_by, "i2");
      assert.equal((await readSupersedeSeqs(db, [run.id])).get(run.id) ?? null, 1);

      assert.deepEqual(await renewClaims(db, [oldTurn], oldTurn.now), []);
      assert.equal(await pauseRun(db, { ...oldTurn, pause: TOOL_PAUSE }), null);
      assert.equal(await saveRunInput(db, { ...oldTurn, runInput: {} }), false);
      assert.equal(await finishRun(db, { ...oldTurn, state: "idle" }), false);
      assert.equal((await findRun(db, run.id))?.current_turn, newTurn);

      assert.equal(
        await saveRunInput(db, {
          runId: run.id,
          turnId: newTurn,
          now: later(2),
          runInput: { t: 2 },
        }),
        true,
      );
      assert.deepEqual((await findRun(db, run.id))?.run_input, { t: 2 });
      assert.equal(
        await finishRun(db, { runId: run.id, turnId: newTurn, now: later(2), state: "idle" }),
        true,
      );
    });

    test("supersede of a waiting run clears its pause and hands back what was pending", async () => {
      const sessionId = await newSession(db);
      await pausedRun(db, sessionId);
      const result = await supersede(db, {
        sessionId,
        turnId: uuidv7(),
        instance: "i1",
        now: later(2),
      });
      assert.deepEqual(result?.previous.pause, TOOL_PAUSE);
      assert.equal(result?.previous.state, "awaiting_client");
      assert.equal(result?.run.pause, null);
      assert.equal(result?.run.supersede_seq, 1);
    });

    test("supersede without a live run answers null", async () => {
      const sessionId = await newSession(db);
      assert.equal(
        await supersede(db, { sessionId, turnId: uuidv7(), instance: "i1", now: T0 }),
        null,
      );
      assert.equal((await readSupersedeSeqs(db, [uuidv7()])).size, 0);
    });

    test("a second live run violates the unique index, which reads as in flight", async () => {
      const sessionId = await newSession(db);
      claimed(await execute(db, sessionId));
      const error = await db.query(
        "INSERT INTO runs (id, session_id, state, created_at, updated_at) VALUES ($1, $2, 'awaiting_client', now(), now())",
        [uuidv7(), sessionId],
      ).then(() => null, (e: unknown) => e);
      assert.ok(isUniqueViolation(error));
      assert.equal(isUniqueViolation(new Error("other")), false);
    });

    test("a supersede notification is harmless without listeners and on the embedded store", async () => {
      const signals = await openSupersedeSignals(undefined);
      let heard = 0;
      const stop = signals.watch("r", () => heard++);
      await db.transaction((tx) => notifySuperseded(tx, "r", 1));
      stop();
      await signals.close();
      assert.equal(heard, 0);
    });
  });
}

// Two instances are two connection pools on one PostgreSQL.
const adminUrl = process.env.DATABASE_URL;
if (adminUrl) {
  describe("runs across two instances on PostgreSQL", () => {
    let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
    let a: Db;
    let b: Db;
    before(async () => {
      scratch = await createScratchDatabase(adminUrl);
      a = openPostgres(scratch.url, { maxConnections: 5 });
      b = openPostgres(scratch.url, { maxConnections: 5 });
      await migrate(a);
    });
    after(async () => {
      await a.close();
      await b.close();
      await scratch.drop();
    });

    test("of many parallel continues exactly one claims the run, the rest are in flight", async () => {
      const sessionId = await newSession(a);
      await pausedRun(a, sessionId);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          claimForContinue(i % 2 === 0 ? a : b, {
            sessionId,
            turnId: uuidv7(),
            instance: i % 2 === 0 ? "a" : "b",
            now: later(2),
            pauseKinds: ["tool"],
          })),
      );
      const kinds = results.map((r) => r.kind).sort();
      assert.deepEqual(kinds, ["claimed", ...Array(11).fill("in_flight")]);
    });

    for (
      const [name, end] of [["ending lost turns", endLostTurns], [
        "renewing leases",
        renewClaims,
      ]] as const
    ) {
      test(`${name} locks runs in the order a claim batch does: the two never deadlock`, async () => {
        const sessions = [await newSession(a), await newSession(a)].sort();
        const runs: RunRow[] = [];
        for (const sessionId of sessions) runs.push(claimed(await execute(a, sessionId)).run);
        let ending!: Promise<string[]>;
        await b.transaction(async (tx) => {
          // As a claim batch: the lower session's run first.
          await tx.query("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", [runs[0].id]);
          // Named the other way round, they were locked in that order: the higher one first.
          const held = runs.map((r) => ({ runId: r.id, turnId: r.current_turn! })).reverse();
          ending = end(a, held, T0);
          await new Promise((resolve) => setTimeout(resolve, 200));
          await tx.query("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", [runs[1].id]);
        });
        assert.deepEqual((await ending).sort(), runs.map((r) => r.id).sort());
      });
    }

    test("an instance's start does not wait for a live instance's turn", async () => {
      const live = `i-${uuidv7()}`;
      await beat(a, live, later(9000));
      const kept = claimed(await execute(a, await newSession(a), T0, live)).run;
      let joined = false;
      await b.transaction(async (tx) => {
        // As the live instance's turn end would: its run locked until it commits.
        await tx.query("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", [kept.id]);
        const joining = joinInstances(a, {
          instance: `i-${uuidv7()}`,
          now: later(10_000),
          sole: false,
        }).then(() => joined = true);
        await Promise.race([joining, new Promise((resolve) => setTimeout(resolve, 1000))]);
      });
      assert.equal(joined, true, "the start waited for a run it does not cut");
      assert.equal((await findRun(a, kept.id))?.state, "running");
    });

    test("an instance's start cuts runs in the order a claim batch locks them: the two never deadlock", async () => {
      const gone = `i-${uuidv7()}`;
      await beat(a, gone, T0);
      const sessions = [await newSession(a), await newSession(a)].sort();
      // Claimed the higher session first, so a scan meets the runs in the other order.
      const higher = claimed(await execute(a, sessions[1], T0, gone)).run;
      const lower = claimed(await execute(a, sessions[0], T0, gone)).run;
      let joining!: Promise<number>;
      await b.transaction(async (tx) => {
        // As a claim batch: the lower session's run first.
        await tx.query("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", [lower.id]);
        joining = joinInstances(a, { instance: `i-${uuidv7()}`, now: later(10_000), sole: false });
        await new Promise((resolve) => setTimeout(resolve, 200));
        await tx.query("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", [higher.id]);
      });
      assert.ok((await joining) >= 2);
      assert.equal((await findRun(a, lower.id))?.state, "idle");
      assert.equal((await findRun(a, higher.id))?.state, "idle");
    });

    test("of many parallel executes exactly one starts a run", async () => {
      const sessionId = await newSession(a);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => execute(i % 2 === 0 ? a : b, sessionId, T0, `i${i}`)),
      );
      assert.equal(results.filter((r) => r.kind === "claimed").length, 1);
      assert.equal(results.filter((r) => r.kind === "in_flight").length, 9);
      const live = await a.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM runs WHERE session_id = $1",
        [sessionId],
      );
      assert.equal(live[0].n, 1);
    });

    test("parallel executes on a waiting run: one supersedes it, the others are in flight", async () => {
      const sessionId = await newSession(a);
      const run = await pausedRun(a, sessionId);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => execute(i % 2 === 0 ? a : b, sessionId, later(2))),
      );
      assert.equal(results.filter((r) => r.kind === "claimed").length, 1);
      assert.equal((await findRun(b, run.id))?.state, "idle");
    });

    test("execute on one instance while the other runs a turn is in flight", async () => {
      const sessionId = await newSession(a);
      claimed(await execute(a, sessionId, T0, "a"));
      assert.equal((await execute(b, sessionId, later(5), "b")).kind, "in_flight");
    });

    test("a supersede made on one instance is seen by the other's poll and heard by its listener", async () => {
      const sessionId = await newSession(a);
      const { run } = claimed(await execute(a, sessionId, T0, "a"));
      const signals = await openSupersedeSignals(scratch.url);
      try {
        const heard: number[] = [];
        const stop = signals.watch(run.id, (seq) => heard.push(seq));
        signals.watch(uuidv7(), () => assert.fail("another run's watcher must not hear it"));
        const result = await supersede(b, {
          sessionId,
          turnId: uuidv7(),
          instance: "b",
          now: later(1),
        });
        assert.equal(
          (await readSupersedeSeqs(a, [run.id])).get(run.id) ?? null,
          result?.run.supersede_seq,
        );
        const deadline = Date.now() + 2000;
        while (heard.length === 0 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 10));
        }
        assert.deepEqual(heard, [1]);

        // a notification in a transaction that rolls back is never delivered
        await assert.rejects(b.transaction(async (tx) => {
          await notifySuperseded(tx, run.id, 99);
          throw new Error("roll back");
        }));
        await supersede(b, { sessionId, turnId: uuidv7(), instance: "b", now: later(2) });
        const until = Date.now() + 2000;
        while (heard.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
        assert.deepEqual(heard, [1, 2]);
        stop();
      } finally {
        await signals.close();
      }
    });
  });
}
