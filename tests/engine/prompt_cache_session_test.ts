/**
 * The prompt-caching bench's session as a test (decisions.md §15): a
 * 20-request agent session through the Anthropic-compatible API against a
 * fake that caches as Anthropic does. With `caching = "auto"` the service's
 * breakpoints make every request after the first read what the one before it
 * wrote, and the session costs at least 3× less than with `"off"`; under both,
 * the cost Switchyard recorded equals, to the last digit, the cost worked out
 * from the usage the fake reported and the catalog's prices.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Big from "big.js";
import {
  handCost,
  replaySession,
  SESSION_REQUESTS,
  type SessionCost,
  TARGET_RATIO,
} from "../../bench/prompt_cache.ts";

describe("a 20-request agent session, cached and not", () => {
  let auto: SessionCost;
  let off: SessionCost;

  test("with caching off, nothing is marked, read or written", async () => {
    off = await replaySession("off");
    assert.equal(off.usages.length, SESSION_REQUESTS);
    for (const u of off.usages) {
      assert.equal(u.cache_read_input_tokens, 0);
      assert.equal(u.cache_creation_input_tokens, 0);
    }
    assert.equal(off.recorded, off.byHand);
  });

  test("with caching auto, each request reads what the one before wrote", async () => {
    auto = await replaySession("auto");
    assert.equal(auto.usages.length, SESSION_REQUESTS);
    assert.equal(auto.usages[0].cache_read_input_tokens, 0);
    assert.ok(auto.usages[0].cache_creation_input_tokens > 4000);
    for (const [n, u] of auto.usages.entries()) {
      if (n === 0) continue;
      const before = auto.usages[n - 1];
      // The whole previous prompt is read back; only what this request added is written.
      assert.equal(
        u.cache_read_input_tokens,
        before.cache_read_input_tokens + before.cache_creation_input_tokens + before.input_tokens,
        `request ${n} reads request ${n - 1}'s prompt`,
      );
    }
    // Input counts every prompt token: the same prompts were sent either way.
    const prompt = (s: SessionCost) =>
      s.usages.reduce(
        (n, u) => n + u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens,
        0,
      );
    assert.equal(prompt(auto), prompt(off));
  });

  test("the recorded cost is the hand computation to the last digit, and ≥ 3× cheaper", () => {
    assert.equal(auto.recorded, auto.byHand);
    assert.equal(auto.byHand, handCost(auto.usages));
    assert.ok(new Big(auto.recorded).gt(0));
    const ratio = new Big(off.recorded).div(auto.recorded);
    assert.ok(ratio.gte(TARGET_RATIO), `caching saves ${ratio.toFixed(2)}×`);
  });
});
