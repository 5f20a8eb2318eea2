import { describe, test } from "node:test";
import assert from "node:assert/strict";
import Big from "big.js";
import {
  estimateCost,
  exceedsCostLimit,
  formatDecimal,
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
