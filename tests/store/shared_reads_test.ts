import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sharedReads } from "../../src/store/shared_reads.ts";

/** A read the test ends by hand, and the value it will answer. */
function controlledReads() {
  const started: { value: number; end: () => void; fail: (e: Error) => void }[] = [];
  let version = 0;
  const read = () =>
    new Promise<number>((resolve, reject) => {
      const value = version;
      started.push({ value, end: () => resolve(value), fail: reject });
    });
  return { started, read, write: () => version++ };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("shared reads", () => {
  test("a lone read starts at once and answers what it read", async () => {
    const shared = sharedReads<number>();
    const c = controlledReads();
    const answer = shared("k", c.read);
    assert.equal(c.started.length, 1);
    c.started[0].end();
    assert.equal(await answer, 0);
  });

  test("reads asked for while one is in flight share the next one, started after they asked", async () => {
    const shared = sharedReads<number>();
    const c = controlledReads();
    const first = shared("k", c.read);
    c.write(); // acknowledged before the next callers ask: they must see it
    const later = Array.from({ length: 49 }, () => shared("k", c.read));
    assert.equal(c.started.length, 1, "the later ones wait for the read in flight");
    c.started[0].end();
    assert.equal(await first, 0);
    await tick();
    assert.equal(c.started.length, 2, "one read for all 49");
    c.started[1].end();
    assert.deepEqual(await Promise.all(later), Array(49).fill(1));
  });

  test("different keys never share", async () => {
    const shared = sharedReads<number>();
    const c = controlledReads();
    const a = shared("a", c.read);
    const b = shared("b", c.read);
    assert.equal(c.started.length, 2);
    c.started.forEach((s) => s.end());
    assert.deepEqual(await Promise.all([a, b]), [0, 0]);
  });

  test("a failed read fails its callers alone: the next one still runs and a later caller starts afresh", async () => {
    const shared = sharedReads<number>();
    const c = controlledReads();
    const first = shared("k", c.read);
    const second = shared("k", c.read);
    c.started[0].fail(new Error("store away"));
    await assert.rejects(first, /store away/);
    await tick();
    assert.equal(c.started.length, 2);
    c.started[1].end();
    assert.equal(await second, 0);
    const third = shared("k", c.read);
    assert.equal(c.started.length, 3, "nothing in flight: a new read");
    c.started[2].end();
    assert.equal(await third, 0);
  });
});
