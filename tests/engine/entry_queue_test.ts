/**
 * Frames first: entries (the work that starts requests) take at most the
 * queue's time budget of one round of the event loop; past it they wait for a
 * later round, after what the loop had waiting (a stream's frame), in order;
 * a lone entry waits for nothing.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { entryQueue } from "../../src/engine/entry_queue.ts";

/** A queue with `n` requests being started, as under a burst. */
function busyQueue(budgetMs: number, n = 2) {
  const queue = entryQueue(budgetMs);
  for (let i = 0; i < n; i++) queue.begin();
  return queue;
}

const nextRound = () => new Promise((resolve) => setTimeout(resolve, 0));
const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* a start's CPU */ }
};

test("an entry in a round with budget left goes on at once, a lone one always", async () => {
  const queue = busyQueue(50);
  assert.equal(queue.enter(), null);
  assert.equal(queue.enter(), null);
  await nextRound();
  await nextRound();
  assert.equal(
    queue.enter(),
    null,
    "a later round starts with its whole budget",
  );
});

test("once a round spent its budget, an entry waits until the bytes that arrived meanwhile were read", async () => {
  // A stream's frames: bytes written to a socket every millisecond by a server of this process.
  const server = createServer((socket) => {
    const timer = setInterval(() => socket.write("frame"), 1);
    socket.on("close", () => clearInterval(timer));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = connect((server.address() as AddressInfo).port, "127.0.0.1");
  try {
    const order = await new Promise<string[]>((resolve) => {
      const queue = busyQueue(5);
      const order: string[] = [];
      let reads = 0;
      client.on("data", () => {
        if (reads++ === 0) {
          assert.equal(
            queue.enter(),
            null,
            "the first start of a round goes on",
          );
          busy(6); // past the round's budget, while frames arrive
          const wait = queue.enter();
          assert.notEqual(wait, null, "past the budget an entry waits");
          void wait!.then(() => order.push("start"));
        } else order.push("frame");
        if (order.includes("start")) resolve(order);
      });
    });
    assert.equal(order[0], "frame", `the frame is read first: ${order}`);
  } finally {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("a lone request never waits, whatever its own work took", () => {
  const queue = entryQueue(5);
  queue.begin();
  assert.equal(queue.enter(), null);
  busy(6);
  assert.equal(queue.enter(), null, "its store's round trips and its own work are no burst");
  queue.begin(); // a second request comes in: the round's budget holds again
  assert.equal(queue.enter(), null);
  busy(6);
  assert.notEqual(queue.enter(), null, "two being started, past the budget: it waits");
  queue.end();
  queue.end();
});

test("waiting entries go in order, a round's worth at a time", async () => {
  const queue = busyQueue(5);
  assert.equal(queue.enter(), null);
  busy(6);
  const started: number[] = [];
  const rounds: number[] = [];
  for (let i = 0; i < 6; i++) {
    void queue.enter()!.then(() => {
      started.push(i);
      busy(3); // each start spends most of a round's budget: two fit in a round
    });
  }
  assert.deepEqual(started, []);
  for (let r = 0; r < 6 && started.length < 6; r++) {
    await nextRound();
    rounds.push(started.length);
  }
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
  // Never the whole burst in one round: at most two entries of 3 ms each per 5 ms round.
  for (let r = 0; r < rounds.length; r++) {
    assert.ok(rounds[r] - (rounds[r - 1] ?? 0) <= 2, `round ${r}: ${rounds}`);
  }
  await nextRound();
  await nextRound();
  assert.equal(
    queue.enter(),
    null,
    "once nobody waits, an entry goes on at once again",
  );
});

test("an entry arriving while others wait queues behind them", async () => {
  const queue = busyQueue(5);
  assert.equal(queue.enter(), null);
  busy(6);
  const order: string[] = [];
  void queue.enter()!.then(() => order.push("first"));
  void queue.enter()!.then(() => order.push("second"));
  await nextRound();
  await nextRound();
  assert.deepEqual(order, ["first", "second"]);
});
