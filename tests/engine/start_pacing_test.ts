/** Pacing the starts of streamed turns: a few per round of the event loop, a lone one at once. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { startPacing } from "../../src/engine/start_pacing.ts";

const nextRound = () => new Promise((resolve) => setTimeout(resolve, 0));

test("a start that finds the round not full goes on at once", async () => {
  const pacing = startPacing(2);
  assert.equal(pacing.enter(), null);
  assert.equal(pacing.enter(), null);
  await nextRound();
  await nextRound();
  assert.equal(pacing.enter(), null, "a later round starts empty");
});

test("past the round's share, starts wait for the next rounds, in order", async () => {
  const pacing = startPacing(2);
  const started: number[] = [];
  for (let i = 0; i < 7; i++) {
    const wait = pacing.enter();
    if (wait === null) started.push(i);
    else void wait.then(() => started.push(i));
  }
  assert.deepEqual(started, [0, 1]);
  const rounds: number[][] = [];
  for (let r = 0; r < 4; r++) {
    const before = started.length;
    await nextRound();
    rounds.push(started.slice(before));
  }
  assert.deepEqual(rounds, [[2, 3], [4, 5], [6], []]);
  // Once nobody waits, a start goes on at once again.
  await nextRound();
  assert.equal(pacing.enter(), null);
});

test("a start arriving while others wait queues behind them", async () => {
  const pacing = startPacing(1);
  assert.equal(pacing.enter(), null);
  const order: string[] = [];
  void pacing.enter()!.then(() => order.push("first waiter"));
  const late = pacing.enter();
  assert.notEqual(late, null);
  void late!.then(() => order.push("late"));
  await nextRound();
  await nextRound();
  assert.deepEqual(order, ["first waiter", "late"]);
});
