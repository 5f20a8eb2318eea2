import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  clientDeadlineMs,
  DEADLINE_CODE,
  StatementDeadline,
  watchdog,
  withinDeadline,
} from "../../src/store/statement_deadline.ts";
import { isStorageFault } from "../../src/store/storage_fault.ts";

const never = new Promise<never>(() => {});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("statement deadline", () => {
  test("the client waits a quarter longer than the server, at most half a second", () => {
    assert.equal(clientDeadlineMs(400), 500);
    assert.equal(clientDeadlineMs(10_000), 10_500);
  });

  test("an answer in time passes through, and nothing is discarded", async () => {
    let expired = 0;
    assert.equal(await withinDeadline(Promise.resolve(7), 50, () => expired++), 7);
    await assert.rejects(withinDeadline(Promise.reject(new Error("x")), 50, () => expired++), {
      message: "x",
    });
    await sleep(80);
    assert.equal(expired, 0);
  });

  test("no answer by the deadline is a storage fault, and the connection is discarded once", async () => {
    let expired = 0;
    const started = performance.now();
    await assert.rejects(withinDeadline(never, 50, () => expired++), (error) => {
      assert.ok(error instanceof StatementDeadline);
      assert.equal(error.code, DEADLINE_CODE);
      assert.ok(isStorageFault(error));
      return true;
    });
    assert.ok(performance.now() - started >= 45);
    assert.equal(expired, 1);
  });

  test("a watchdog trips only while armed", async () => {
    let expired = 0;
    const guard = watchdog(40, () => expired++);
    let tripped = false;
    guard.tripped.catch(() => tripped = true);
    guard.arm();
    await sleep(20);
    guard.disarm();
    await sleep(60);
    assert.equal(tripped, false);
    guard.arm();
    await sleep(80);
    assert.equal(tripped, true);
    assert.equal(expired, 1);
  });
});
