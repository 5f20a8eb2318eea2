/**
 * The lane an instance's claim batches and turn-end batches share
 * (src/store/store_lane.ts): one batch in flight at a time, in the order they
 * asked, a failed one holding up nothing; a claimer and a writer on one lane
 * never have two statements in flight, and each batch gathers what came while
 * the other was in flight.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import type { Db, Queryable } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { executeClaimer } from "../../src/store/run_admission.ts";
import { type StoreLane, storeLane } from "../../src/store/store_lane.ts";
import { turnWriter } from "../../src/store/turn_writer.ts";
import { storesUnderTest } from "../support/databases.ts";
import { promptClaim } from "../support/prompt_claim.ts";
import { claimedTurn, newSession, transactionsWriting, turnEnd } from "../support/turn_end.ts";

const T0 = new Date("2026-03-01T10:00:00.000Z");

function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Settles the microtasks (and a macrotask) queued so far. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the store lane", () => {
  test("runs one batch at a time, in the order they came", async () => {
    const lane = storeLane();
    const started: string[] = [];
    const first = deferred();
    const second = deferred();
    const a = lane.run(async () => {
      started.push("a");
      await first.promise;
      return "a done";
    });
    const b = lane.run(async () => {
      started.push("b");
      await second.promise;
      return "b done";
    });
    const c = lane.run(() => {
      started.push("c");
      return Promise.resolve("c done");
    });
    // A batch that finds the lane free starts at once.
    assert.deepEqual(started, ["a"]);
    await settle();
    assert.deepEqual(started, ["a"]);
    first.resolve();
    await settle();
    assert.deepEqual(started, ["a", "b"]);
    second.resolve();
    assert.deepEqual(await Promise.all([a, b, c]), ["a done", "b done", "c done"]);
    assert.deepEqual(started, ["a", "b", "c"]);
  });

  test("a failed batch fails its caller alone and the next one runs", async () => {
    const lane = storeLane();
    const failing = deferred();
    const a = lane.run(() => failing.promise);
    const b = lane.run(() => Promise.resolve("b done"));
    failing.reject(new Error("the store went away"));
    await assert.rejects(a, /the store went away/);
    assert.equal(await b, "b done");
    // A batch that throws before its first await does too.
    const c = lane.run(() => {
      throw new Error("bad batch");
    });
    await assert.rejects(c, /bad batch/);
    assert.equal(await lane.run(() => Promise.resolve(1)), 1);
  });
});

/** `db` with the most statements it ever had in flight at once. */
function counting(db: Db): Queryable & { driver: Db["driver"]; most(): number } {
  let inFlight = 0;
  let most = 0;
  return {
    driver: db.driver,
    exec: (text) => db.exec(text),
    async query<T>(text: string, params?: readonly unknown[]) {
      most = Math.max(most, ++inFlight);
      try {
        return await db.query<T>(text, params);
      } finally {
        inFlight--;
      }
    },
    most: () => most,
  };
}

for (const store of storesUnderTest(process.env)) {
  describe(`claims and turn ends on one lane on ${store.name}`, () => {
    let db: Db;
    let opened: Awaited<ReturnType<typeof store.open>>;
    before(async () => {
      opened = await store.open();
      db = opened.db;
      await migrate(db);
    });
    after(() => opened.dispose());

    /** Four claims and four turn ends asked for at once; the most statements in flight. */
    async function claimsAndEnds(lanes: [StoreLane, StoreLane]) {
      const fresh = await Promise.all([1, 2, 3, 4].map(() => newSession(db, T0)));
      const ending = await Promise.all([1, 2, 3, 4].map(() => claimedTurn(db, T0)));
      const counted = counting(db);
      const claimer = executeClaimer(counted, lanes[0]);
      const writer = turnWriter(counted, lanes[1]);
      const [claims, written] = await Promise.all([
        Promise.all(fresh.map((s, k) => claimer.claim(promptClaim(s.id, `prompt ${k}`, T0)))),
        Promise.all(ending.map((t) => writer.write(...turnEnd(t, T0)))),
      ]);
      for (const c of claims) assert.equal(c.kind, "claimed");
      for (const w of written) assert.deepEqual(w, { moved: true, messageSeqs: [1, 2] });
      return {
        most: counted.most(),
        claimTransactions: await transactionsWriting(db, "runs", fresh.map((s) => s.id)),
        writeTransactions: await transactionsWriting(
          db,
          "usage_events",
          ending.map((t) => t.sessionId),
        ),
      };
    }

    test("sharing a lane, a claim batch and a write batch are never in flight together", async () => {
      const lane = storeLane();
      // The first claim finds the lane free and goes alone; the turn ends wait for it and go
      // together, then the other claims, which waited for both.
      assert.deepEqual(await claimsAndEnds([lane, lane]), {
        most: 1,
        claimTransactions: 2,
        writeTransactions: 1,
      });
    });

    test("on lanes of their own, the claimer and the writer go side by side", async () => {
      const { most } = await claimsAndEnds([storeLane(), storeLane()]);
      assert.equal(most, 2);
    });
  });
}
