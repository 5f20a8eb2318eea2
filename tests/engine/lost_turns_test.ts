/**
 * Turns the store refused to end (src/engine/lost_turns.ts): a claim that
 * finds its session held by one flushes them first. A flush must end the turn
 * it was asked about even while the retry loop's own attempt, begun before
 * that turn was added, is under way; and where the store refuses, it throws
 * the store's error, never nothing. A claim that read its session as held by
 * a turn the retry ended meanwhile claims again.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { minding } from "../../src/engine/engine_deps.ts";
import { lostTurns } from "../../src/engine/lost_turns.ts";
import { memoryLogger } from "../../src/log.ts";
import type { Queryable } from "../../src/store/db.ts";
import type {
  ExecuteClaim,
  ExecuteClaimer,
  ExecuteClaimRequest,
} from "../../src/store/run_admission.ts";

/** A store whose statements wait until released; each records the turns it was asked to end. */
function gatedStore() {
  const batches: string[][] = [];
  const pending: { release: () => void; refuse: (error: Error) => void }[] = [];
  const db = {
    query: (_text: string, params: readonly unknown[] = []) => {
      batches.push([...params[1] as string[]]);
      return new Promise((resolve, reject) => {
        pending.push({ release: () => resolve([]), refuse: reject });
      });
    },
    exec: () => Promise.resolve(),
  } as unknown as Queryable;
  return { db, batches, pending };
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(ok(), "timed out");
};

test("a flush during the retry loop's attempt ends the turn added after that attempt's batch", async () => {
  const store = gatedStore();
  const lost = lostTurns({ db: store.db, now: () => new Date(0), logger: memoryLogger() });
  lost.add({ runId: "r1", turnId: "t1" });
  await until(() => store.pending.length === 1); // the loop's attempt, with t1 only
  lost.add({ runId: "r2", turnId: "t2" });
  const flushed = lost.flush();
  store.pending[0].release();
  await until(() => store.pending.length === 2);
  assert.deepEqual(store.batches, [["t1"], ["t2"]]);
  store.pending[1].release();
  await flushed;
  assert.equal(lost.has("t2"), false);
  assert.equal(lost.size, 0);
  assert.deepEqual(["t1", "t2", "t3"].map((t) => lost.seen(t)), [true, true, false]);
});

describe("a claim minding the lost turns (engine_deps.ts)", () => {
  /** A claimer answering `answers` in order, counting its claims. */
  const claimer = (answers: ExecuteClaim[]) => {
    const made = { claims: 0 };
    const claims: ExecuteClaimer = {
      claim: () => {
        made.claims++;
        return Promise.resolve(answers.shift()!);
      },
    };
    return { claims, made };
  };
  const held = (turn: string) =>
    ({ kind: "in_flight", run: { current_turn: turn } }) as ExecuteClaim;
  const claimed = { kind: "claimed" } as ExecuteClaim;
  const request = { runId: "r9", turnId: "t9" } as ExecuteClaimRequest;

  test("one that read its session held by a lost turn the retry ended meanwhile claims again", async () => {
    const store = gatedStore();
    const lost = lostTurns({ db: store.db, now: () => new Date(0), logger: memoryLogger() });
    lost.add({ runId: "r1", turnId: "t1" });
    await until(() => store.pending.length === 1);
    store.pending[0].release(); // the retry ends t1 as the claim reads its session
    await until(() => lost.size === 0);
    const { claims, made } = claimer([held("t1"), claimed]);
    assert.equal((await minding(claims, lost).claim(request)).kind, "claimed");
    assert.equal(made.claims, 2);
  });

  test("one held by a turn that is no lost turn of this instance is refused", async () => {
    const lost = lostTurns({ db: gatedStore().db, now: () => new Date(0), logger: memoryLogger() });
    const { claims, made } = claimer([held("t1"), claimed]);
    assert.equal((await minding(claims, lost).claim(request)).kind, "in_flight");
    assert.equal(made.claims, 1);
  });
});

test("a flush the store refuses throws the store's error", async () => {
  const store = gatedStore();
  const lost = lostTurns({ db: store.db, now: () => new Date(0), logger: memoryLogger() });
  lost.add({ runId: "r1", turnId: "t1" });
  await until(() => store.pending.length === 1);
  const flushed = lost.flush().then(() => null, (error) => error);
  store.pending[0].release(); // the loop's attempt ended t1 …
  lost.add({ runId: "r2", turnId: "t2" });
  await until(() => store.pending.length === 2);
  const refusal = Object.assign(new Error("no space"), { code: "53100" });
  store.pending[1].refuse(refusal); // … the flush's own attempt is refused
  assert.equal(await flushed, refusal);
  assert.equal(lost.has("t2"), true, "a refused turn still waits to be ended");
  await until(() => store.pending.length === 3); // the loop tries again
  store.pending[2].release();
  await until(() => lost.size === 0);
});
