/**
 * Frames first: entries (the work that starts requests) take at most the
 * queue's time budget of one round of the event loop; past it they wait for a
 * later round, after what the loop had waiting (a stream's frame), in order;
 * a lone entry waits for nothing.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterIoRead, entryQueue } from "../../src/engine/entry_queue.ts";

const FRAME_WRITER = fileURLToPath(
  new URL("../support/frame_writer.ts", import.meta.url),
);
const runtimeArgs = process.versions.bun === undefined
  ? ["run", "--allow-read", "--allow-write", "--allow-net", "--quiet"]
  : [];

/** A queue with `n` requests being started, as under a burst, and a stream open. */
function busyQueue(budgetMs: number, n = 2) {
  const queue = entryQueue(budgetMs);
  for (let i = 0; i < n; i++) queue.begin();
  queue.streamOpened();
  return queue;
}

/** What a waiting entry waits for. */
const nextRound = () => new Promise<void>((resolve) => afterIoRead(resolve));
const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* a start's CPU */ }
};
/** Blocks this process (no event loop) until another process created the file. */
const waitForFile = (path: string) => {
  const end = performance.now() + 30_000;
  while (!existsSync(path)) {
    if (performance.now() > end) throw new Error(`${path} never came`);
  }
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

// The runtimes do not promise when a socket's readiness is seen against timers: on a loaded
// machine a round now and then reads bytes one round late (measured: 1 trial in 40 under Deno
// with the CPU taken). So the frame must come first in most trials; without the queue's wait
// the start comes first in every one.
const TRIALS = 7;
const FRAME_FIRST_AT_LEAST = 5;

test("once a round spent its budget, an entry waits until the bytes that arrived meanwhile were read", async () => {
  // A stream's frames come from another process, so they are in this socket's kernel buffer
  // before the entry asks to go on, whatever the machine's load.
  const dir = mkdtempSync(join(tmpdir(), "frames-"));
  const writer = spawn(process.execPath, [...runtimeArgs, FRAME_WRITER, dir], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let client: Socket | null = null;
  let asked = 0;
  /** Has the writer send `content`; with `wait`, blocks this process until it was sent. */
  const ask = (content: string, wait: boolean) => {
    const n = ++asked;
    // Renamed into place: the writer polls for the name and must never read it half written.
    writeFileSync(join(dir, "frame.next"), content);
    renameSync(join(dir, "frame.next"), join(dir, `frame.${n}`));
    if (wait) waitForFile(join(dir, `sent.${n}`));
  };
  try {
    await new Promise<void>((resolve, reject) => {
      writer.stdout!.once("data", () => resolve());
      writer.once("exit", (code) => reject(new Error(`the frame writer ended: ${code}`)));
    });
    client = connect(join(dir, "frames.sock"));
    await new Promise<void>((resolve) => client!.once("data", () => resolve())); // "ready"
    const orders: string[][] = [];
    for (let t = 0; t < TRIALS; t++) {
      orders.push(
        await new Promise<string[]>((resolve) => {
          const queue = busyQueue(5);
          const order: string[] = [];
          const done = () => order.length === 2 && resolve(order);
          const onData = (chunk: Buffer) => {
            if (chunk.toString() !== "go") {
              order.push("frame");
              client!.off("data", onData);
              return done();
            }
            assert.equal(queue.enter(), null, "the first start of a round goes on");
            ask("frame", true); // the frame is written, while this process is busy
            busy(6); // past the round's budget
            const wait = queue.enter();
            assert.notEqual(wait, null, "past the budget an entry waits");
            void wait!.then(() => {
              order.push("start");
              done();
            });
          };
          client!.on("data", onData);
          ask("go", false);
        }),
      );
    }
    const frameFirst = orders.filter((order) => order[0] === "frame").length;
    assert.ok(
      frameFirst >= FRAME_FIRST_AT_LEAST,
      `the frame is read first in ${frameFirst} of ${TRIALS} trials: ${JSON.stringify(orders)}`,
    );
  } finally {
    client?.destroy();
    writer.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a lone request never waits, whatever its own work took", () => {
  const queue = entryQueue(5);
  queue.streamOpened();
  queue.begin();
  assert.equal(queue.enter(), null);
  busy(6);
  assert.equal(
    queue.enter(),
    null,
    "its store's round trips and its own work are no burst",
  );
  queue.begin(); // a second request comes in: the round's budget holds again
  assert.equal(queue.enter(), null);
  busy(6);
  assert.notEqual(
    queue.enter(),
    null,
    "two being started, past the budget: it waits",
  );
  queue.end();
  queue.end();
});

test("while no stream is open nobody waits: there is no frame to put first", async () => {
  const queue = entryQueue(5);
  queue.begin();
  queue.begin();
  busy(6);
  assert.equal(queue.enter(), null, "a burst of buffered starts goes on");
  const closed = queue.streamOpened();
  const other = queue.streamOpened();
  assert.equal(queue.enter(), null, "the round's budget starts with the first stream's entry");
  busy(6);
  closed();
  closed(); // a second call counts nothing
  const wait = queue.enter();
  assert.notEqual(wait, null, "the other stream still open, past the budget: it waits");
  await wait;
  other();
  busy(6);
  assert.equal(queue.enter(), null, "no stream left: it goes on");
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
