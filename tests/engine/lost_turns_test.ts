/**
 * Turns the store refused to end (src/engine/lost_turns.ts): a claim that
 * finds its session held by one flushes them first. A flush must end the turn
 * it was asked about even while the retry loop's own attempt, begun before
 * that turn was added, is under way; and where the store refuses, it throws
 * the store's error, never nothing.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { lostTurns } from "../../src/engine/lost_turns.ts";
import { memoryLogger } from "../../src/log.ts";
import type { Queryable } from "../../src/store/db.ts";

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
