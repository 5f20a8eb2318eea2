import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createModelCache, ListingTimeout } from "../../src/providers/model_cache.ts";

function clock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/** A load whose settling the test controls, counting calls and watching its signal. */
function controlled<T>() {
  let calls = 0;
  let settle: { resolve: (v: T) => void; reject: (e: unknown) => void } | undefined;
  let lastSignal: AbortSignal | undefined;
  const load = (signal: AbortSignal) => {
    calls++;
    lastSignal = signal;
    return new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
  };
  return {
    load,
    calls: () => calls,
    signal: () => lastSignal,
    resolve: (v: T) => settle?.resolve(v),
    reject: (e: unknown) => settle?.reject(e),
  };
}

describe("model cache", () => {
  test("serves a listing from the cache until the TTL passes", async () => {
    const c = clock();
    const cache = createModelCache<string>({ ttlMs: 60_000, now: c.now });
    let calls = 0;
    const load = () => Promise.resolve(`v${++calls}`);
    assert.equal(await cache.get("openai|fp", load), "v1");
    c.advance(59_999);
    assert.equal(await cache.get("openai|fp", load), "v1");
    c.advance(1);
    assert.equal(await cache.get("openai|fp", load), "v2");
    assert.equal(calls, 2);
  });

  test("keeps listings of different keys (credential fingerprints) apart", async () => {
    const cache = createModelCache<string>({ now: clock().now });
    assert.equal(await cache.get("openai|a", () => Promise.resolve("A")), "A");
    assert.equal(await cache.get("openai|b", () => Promise.resolve("B")), "B");
    assert.equal(await cache.get("openai|a", () => Promise.resolve("X")), "A");
  });

  test("shares one in-flight request between concurrent identical lookups", async () => {
    const cache = createModelCache<string>({ now: clock().now });
    const load = controlled<string>();
    const first = cache.get("k", load.load);
    const second = cache.get("k", load.load);
    load.resolve("shared");
    assert.deepEqual(await Promise.all([first, second]), ["shared", "shared"]);
    assert.equal(load.calls(), 1);
  });

  test("answers a failure from the cache for failureTtlMs, then asks again", async () => {
    const c = clock();
    const cache = createModelCache<string>({ now: c.now, failureTtlMs: 2_000 });
    let calls = 0;
    const failing = () => (calls++, Promise.reject(new Error("HTTP 500")));
    await assert.rejects(cache.get("k", failing), /HTTP 500/);
    assert.equal(cache.size, 0, "a failure is no listing");
    c.advance(1_999);
    await assert.rejects(cache.get("k", failing), /HTTP 500/);
    assert.ok(cache.peek("k") !== undefined && "error" in cache.peek("k")!);
    assert.equal(calls, 1, "the held failure answered");
    assert.equal(cache.peek("other"), undefined);
    c.advance(1);
    assert.equal(cache.peek("k"), undefined);
    assert.equal(await cache.get("k", () => Promise.resolve("ok")), "ok");
    assert.deepEqual(cache.peek("k"), { value: "ok" });
  });

  /** A waiter's deadline the test ends by hand. */
  const deadline = (ms: number) => {
    const controller = new AbortController();
    return { signal: controller.signal, ms, pass: () => controller.abort() };
  };

  test("a waiter that gives up leaves; the request goes on for the others", async () => {
    const cache = createModelCache<string>({ now: clock().now });
    const load = controlled<string>();
    const impatient = deadline(100);
    const first = cache.get("k", load.load, impatient);
    const second = cache.get("k", load.load, deadline(5_000));
    impatient.pass();
    await assert.rejects(first, (e) => e instanceof ListingTimeout && e.ms === 100);
    assert.equal(load.signal()?.aborted, false);
    load.resolve("late");
    assert.equal(await second, "late");
    assert.equal(await cache.get("k", () => Promise.resolve("new")), "late");
  });

  test("a load every waiter gave up on goes on, and what it lists answers the next request", async () => {
    const cache = createModelCache<string>({ now: clock().now });
    const load = controlled<string>();
    const waiter = deadline(100);
    const pending = cache.get("k", load.load, waiter);
    waiter.pass();
    await assert.rejects(pending, ListingTimeout);
    assert.equal(load.signal()?.aborted, false);
    load.resolve("slow but there");
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(cache.peek("k"), { value: "slow but there" });
    assert.equal(await cache.get("k", () => Promise.resolve("new")), "slow but there");
    assert.equal(load.calls(), 1);
  });

  test("past one waiter's deadline, a waiter that would wait no longer is answered at once", async () => {
    const c = clock();
    const cache = createModelCache<string>({ now: c.now });
    const load = controlled<string>();
    const first = deadline(10_000);
    const pending = cache.get("k", load.load, first);
    c.advance(10_000);
    first.pass();
    await assert.rejects(pending, ListingTimeout);
    // As patient: told at once, its own deadline untouched, no second load.
    const same = deadline(10_000);
    await assert.rejects(
      cache.get("k", load.load, same),
      (e) => e instanceof ListingTimeout && e.ms === 10_000,
    );
    assert.equal(same.signal.aborted, false);
    // More patient (a longer X-Router-Timeout-Ms): it waits on the same load.
    const patient = cache.get("k", load.load, deadline(60_000));
    load.resolve("after 12 s");
    assert.equal(await patient, "after 12 s");
    assert.equal(load.calls(), 1);
  });

  test("a load that never settles ends at maxFlightMs, held as a timeout for failureTtlMs", async () => {
    const c = clock();
    const cache = createModelCache<string>({ now: c.now, maxFlightMs: 20, failureTtlMs: 2_000 });
    const load = controlled<string>();
    // No deadline of its own: only the cap ends the wait. The cap's timer is unreferenced (a load
    // never holds the process open), so an interval keeps this test's event loop alive meanwhile.
    const alive = setInterval(() => {}, 1_000);
    try {
      await assert.rejects(
        cache.get("k", load.load),
        (e) => e instanceof ListingTimeout && e.ms === 20,
      );
    } finally {
      clearInterval(alive);
    }
    assert.equal(load.signal()?.aborted, true);
    const held = cache.peek("k");
    assert.ok(held !== undefined && "error" in held && held.error instanceof ListingTimeout);
    await assert.rejects(cache.get("k", load.load), ListingTimeout);
    assert.equal(load.calls(), 1);
    c.advance(2_000);
    assert.equal(await cache.get("k", () => Promise.resolve("back")), "back");
  });

  for (const outcome of ["answers", "fails"] as const) {
    test(`clear cancels a load in flight, and holds nothing when it then ${outcome}`, async () => {
      const cache = createModelCache<string>({ now: clock().now });
      const load = controlled<string>();
      const pending = cache.get("k", load.load);
      cache.clear();
      assert.equal(load.signal()?.aborted, true);
      await assert.rejects(pending);
      if (outcome === "answers") load.resolve("too late");
      else load.reject(new Error("refused"));
      await new Promise((resolve) => setTimeout(resolve, 0));
      assert.equal(cache.peek("k"), undefined);
      assert.equal(await cache.get("k", () => Promise.resolve("fresh")), "fresh");
    });
  }

  test("drops the oldest entries beyond its bound", async () => {
    const cache = createModelCache<string>({ now: clock().now, maxEntries: 2 });
    for (const k of ["a", "b", "c"]) await cache.get(k, () => Promise.resolve(k));
    assert.equal(cache.size, 2);
    assert.equal(await cache.get("a", () => Promise.resolve("reloaded")), "reloaded");
  });
});
