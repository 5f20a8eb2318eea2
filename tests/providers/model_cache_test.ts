import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createModelCache } from "../../src/providers/model_cache.ts";

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

  test("a waiter that gives up leaves; the request goes on for the others", async () => {
    const cache = createModelCache<string>({ now: clock().now });
    const load = controlled<string>();
    const impatient = new AbortController();
    const first = cache.get("k", load.load, impatient.signal);
    const second = cache.get("k", load.load, new AbortController().signal);
    impatient.abort();
    await assert.rejects(first);
    assert.equal(load.signal()?.aborted, false);
    load.resolve("late");
    assert.equal(await second, "late");
    assert.equal(await cache.get("k", () => Promise.resolve("new")), "late");
  });

  for (const outcome of ["answers", "fails"] as const) {
    test(`cancels the request when every waiter gave up, and holds nothing when it then ${outcome}`, async () => {
      const cache = createModelCache<string>({ now: clock().now });
      const load = controlled<string>();
      const waiter = new AbortController();
      const pending = cache.get("k", load.load, waiter.signal);
      waiter.abort();
      await assert.rejects(pending);
      assert.equal(load.signal()?.aborted, true);
      if (outcome === "answers") load.resolve("too late");
      else load.reject(new Error("aborted"));
      await Promise.resolve();
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
