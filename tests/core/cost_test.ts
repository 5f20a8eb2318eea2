import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import Big from "big.js";
import { lookupCatalog } from "../../src/providers/catalog.ts";
import type { TokenUsage } from "../../src/providers/types.ts";
import {
  estimateCost,
  exceedsCostLimit,
  formatDecimal,
  inputCostCeiling,
  isDecimalString,
  sumDecimals,
  usageCost,
} from "../../src/core/cost.ts";

describe("decimal formatting", () => {
  const cases: [string, string][] = [
    ["0", "0"],
    ["-0", "0"],
    ["0.000", "0"],
    ["1.500", "1.5"],
    ["1e-9", "0.000000001"],
    ["1.5e21", "1500000000000000000000"],
    ["12.34", "12.34"],
  ];
  for (const [input, out] of cases) {
    test(`${input} → ${out}`, () => assert.equal(formatDecimal(new Big(input)), out));
  }
  test("decimal strings are plain non-negative decimals", () => {
    assert.deepEqual(["0", "0.5", "10", "1.25"].map(isDecimalString), [true, true, true, true]);
    assert.deepEqual(["", "-1", "1e3", ".5", "1.", "01", "abc"].map(isDecimalString), [
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("cost of usage", () => {
  test("a local model without prices costs zero; declared prices still win", () => {
    assert.equal(usageCost({ local: true }, 1000, 500), "0");
    assert.equal(
      usageCost({ local: true, input_cost_per_million_tokens: "1" }, 1_000_000, 0),
      "1",
    );
  });
  const prices = { input_cost_per_million_tokens: "2.5", output_cost_per_million_tokens: "10" };
  test("exact: input × price / 10^6 + output × price / 10^6", () => {
    assert.equal(usageCost(prices, 1000, 500), "0.0075");
    assert.equal(usageCost(prices, 1, 0), "0.0000025");
    assert.equal(usageCost(prices, 0, 0), "0");
    // 0.1 + 0.2 is 0.3, not 0.30000000000000004
    assert.equal(
      usageCost(
        { input_cost_per_million_tokens: "0.1", output_cost_per_million_tokens: "0.2" },
        1e6,
        1e6,
      ),
      "0.3",
    );
    assert.equal(
      usageCost(
        { input_cost_per_million_tokens: "0.000001", output_cost_per_million_tokens: "0" },
        3,
        0,
      ),
      "0.000000000003",
    );
  });
  test("no declared prices: null; one missing price counts as zero", () => {
    assert.equal(usageCost({}, 100, 100), null);
    assert.equal(usageCost({ local: false }, 100, 100), null);
    assert.equal(usageCost({ output_cost_per_million_tokens: "4" }, 100, 250000), "1");
  });
  test("sums of decimals are exact", () => {
    assert.equal(sumDecimals(["0.1", "0.2", "0.0000001"]), "0.3000001");
    assert.equal(sumDecimals([]), "0");
  });
});

describe("cost of cached prompt tokens (decisions.md §15)", () => {
  const prices = {
    input_cost_per_million_tokens: "3",
    output_cost_per_million_tokens: "15",
    cache_read_cost_per_million_tokens: "0.3",
    cache_write_cost_per_million_tokens: "3.75",
  };
  const cases: [
    string,
    number,
    number,
    { read?: number; write?: number },
    string,
  ][] = [
    // uncached × 3 + reads × 0.3 + writes × 3.75 + output × 15, per 10^6
    ["nothing cached is the plain formula", 1000, 500, {}, "0.0105"],
    ["reads only", 1000, 0, { read: 800 }, "0.00084"],
    ["writes only", 1000, 0, { write: 1000 }, "0.00375"],
    [
      "reads, writes and uncached",
      6065,
      120,
      { read: 4200, write: 1840 },
      "0.010035",
    ],
    ["zero counts", 0, 0, { read: 0, write: 0 }, "0"],
    // A provider never reports more cached than prompt tokens; if one did, none is free.
    ["more cached than prompt", 100, 0, { read: 100, write: 50 }, "0.0002175"],
  ];
  for (const [name, input, output, cache, cost] of cases) {
    test(
      name,
      () => assert.equal(usageCost(prices, input, output, cache), cost),
    );
  }
  test("a cache price the model does not declare is its input price", () => {
    const plain = {
      input_cost_per_million_tokens: "2",
      output_cost_per_million_tokens: "8",
    };
    assert.equal(
      usageCost(plain, 5000, 100, { read: 3000, write: 1000 }),
      usageCost(plain, 5000, 100),
    );
    assert.equal(
      usageCost(plain, 5000, 100, { read: 3000, write: 1000 }),
      "0.0108",
    );
    // A read price alone: writes still cost input.
    assert.equal(
      usageCost(
        { ...plain, cache_read_cost_per_million_tokens: "0.5" },
        5000,
        0,
        {
          read: 4000,
          write: 1000,
        },
      ),
      "0.004",
    );
  });
  test("the input cost ceiling: the highest price a prompt token can cost, never passed", () => {
    assert.equal(inputCostCeiling(prices, 10_000), "0.0375");
    assert.equal(inputCostCeiling({ input_cost_per_million_tokens: "2" }, 10_000), "0.02");
    assert.equal(inputCostCeiling({}, 10_000), "0");
    // However the cache splits the prompt, its real input cost stays within the ceiling.
    for (const [read, write] of [[0, 0], [10_000, 0], [0, 10_000], [4000, 6000]]) {
      const real = usageCost(prices, 10_000, 0, { read, write })!;
      assert.ok(!new Big(real).gt(inputCostCeiling(prices, 10_000)), `${read}/${write}: ${real}`);
    }
  });
  test("cache prices alone still make a model priced", () => {
    assert.equal(
      usageCost({ cache_read_cost_per_million_tokens: "1" }, 10, 0, {
        read: 10,
      }),
      "0.00001",
    );
  });
});

/** The usage a recorded provider fixture yields (its adapter's normalised `usage` event). */
function recordedUsage(path: string): TokenUsage {
  const fixture = JSON.parse(
    readFileSync(
      new URL(`../../fixtures/providers/${path}.json`, import.meta.url),
      "utf8",
    ),
  ) as { expected: { type: string; usage?: TokenUsage }[] };
  const event = fixture.expected.find((e) => e.type === "usage");
  assert.ok(event?.usage, `${path} reports usage`);
  return event.usage;
}

describe("recorded cache reads and writes, priced with the shipped catalog", () => {
  // [fixture, provider, model, the cost worked out by hand from the fixture's own figures]
  const cases: [string, string, string, string][] = [
    // 12 × 3 + 2048 × 0.3 + 0 × 3.75 + 5 × 15 = 725.4 → 0.0007254
    [
      "anthropic/usage_cached_tokens",
      "anthropic",
      "claude-sonnet-4-5",
      "0.0007254",
    ],
    // 25 × 3 + 4200 × 0.3 + 1840 × 3.75 + 120 × 15 = 10035 → 0.010035
    [
      "anthropic/cache_marks_placed",
      "anthropic",
      "claude-sonnet-4-5",
      "0.010035",
    ],
    // 8 × 1 + 0 × 0.1 + 3000 × 1.25 + 42 × 5 = 3968 → 0.003968
    [
      "anthropic/cache_marks_client",
      "anthropic",
      "claude-haiku-4-5",
      "0.003968",
    ],
    // (2006 − 1920) × 0.15 + 1920 × 0.075 + 4 × 0.6 = 159.3 → 0.0001593
    ["openai/usage_cached_tokens", "openai", "gpt-4o-mini", "0.0001593"],
    // (3120 − 2944) × 0.15 + 2944 × 0.075 + 18 × 0.6 = 258 → 0.000258
    ["openai/prompt_cache_key", "openai", "gpt-4o-mini", "0.000258"],
    // (2100 − 2048) × 0.3 + 2048 × 0.03 + 4 × 2.5 = 87.04 → 0.00008704
    ["gemini/usage_cached_tokens", "gemini", "gemini-2.5-flash", "0.00008704"],
  ];
  for (const [fixture, provider, model, cost] of cases) {
    test(`${fixture} on ${provider}/${model} costs ${cost}`, () => {
      const usage = recordedUsage(fixture);
      const prices = lookupCatalog(provider, model);
      assert.ok(prices !== undefined);
      assert.ok(
        (usage.cachedInputTokens ?? 0) + (usage.cacheWriteTokens ?? 0) > 0,
        "cached",
      );
      assert.equal(
        usageCost(prices, usage.inputTokens ?? 0, usage.outputTokens ?? 0, {
          read: usage.cachedInputTokens,
          write: usage.cacheWriteTokens,
        }),
        cost,
      );
    });
  }
});

describe("preview estimate", () => {
  test("min prices the input; max adds the reply reserve as output", () => {
    assert.deepEqual(
      estimateCost(
        { input_cost_per_million_tokens: "3", output_cost_per_million_tokens: "15" },
        2000,
        8192,
      ),
      { min: "0.006", max: "0.12888", currency: "USD" },
    );
  });
  test("no declared prices: a zero range", () => {
    assert.deepEqual(estimateCost({}, 5000, 4096), { min: "0", max: "0", currency: "USD" });
  });
  test("cost limit compares max exactly", () => {
    assert.equal(exceedsCostLimit("0.12888", "0.12888"), false);
    assert.equal(exceedsCostLimit("0.12887", "0.12888"), true);
    assert.equal(exceedsCostLimit("1", "0.9999999999"), false);
  });
});
