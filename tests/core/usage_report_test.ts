import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type CostEvent, usageReport } from "../../src/core/usage_report.ts";

const ev = (over: Partial<CostEvent>): CostEvent => ({
  provider: "openai",
  model: "gpt-4o",
  task_type: "chat",
  input_tokens: null,
  output_tokens: null,
  cost: null,
  ...over,
});

const plain = { encrypted: false };

describe("usage report", () => {
  test("no events: zero totals in USD and empty lists", () => {
    assert.deepEqual(usageReport([], plain), {
      total: {
        input_tokens: 0,
        output_tokens: 0,
        total_tokens: 0,
        estimated_cost: "0",
        currency: "USD",
      },
      by_model: [],
      by_task_type: [],
    });
  });

  test("sums tokens and money exactly, buckets in first-seen order", () => {
    const report = usageReport([
      ev({
        provider: "anthropic",
        model: "claude",
        task_type: "edit",
        input_tokens: 100,
        output_tokens: 20,
        cost: "0.1",
      }),
      ev({ input_tokens: 7, output_tokens: 3, cost: "0.2" }),
      ev({
        provider: "anthropic",
        model: "claude",
        input_tokens: 1,
        output_tokens: 1,
        cost: "0.000001",
      }),
    ], plain);
    assert.deepEqual(report.total, {
      input_tokens: 108,
      output_tokens: 24,
      total_tokens: 132,
      estimated_cost: "0.300001",
      currency: "USD",
    });
    assert.deepEqual(report.by_model, [
      {
        provider: "anthropic",
        model: "claude",
        input_tokens: 101,
        output_tokens: 21,
        total_tokens: 122,
        estimated_cost: "0.100001",
        currency: "USD",
        request_count: 2,
      },
      {
        provider: "openai",
        model: "gpt-4o",
        input_tokens: 7,
        output_tokens: 3,
        total_tokens: 10,
        estimated_cost: "0.2",
        currency: "USD",
        request_count: 1,
      },
    ]);
    assert.deepEqual(report.by_task_type, [
      {
        task_type: "edit",
        input_tokens: 100,
        output_tokens: 20,
        estimated_cost: "0.1",
        request_count: 1,
      },
      {
        task_type: "chat",
        input_tokens: 8,
        output_tokens: 4,
        estimated_cost: "0.200001",
        request_count: 2,
      },
    ]);
  });

  test("0.1 + 0.2 is exactly 0.3, trailing zeros trimmed, zero as 0", () => {
    assert.equal(
      usageReport([ev({ cost: "0.1" }), ev({ cost: "0.2" })], plain).total.estimated_cost,
      "0.3",
    );
    assert.equal(
      usageReport([ev({ cost: "0.50" }), ev({ cost: "0.50" })], plain).total.estimated_cost,
      "1",
    );
    assert.equal(
      usageReport([ev({ cost: "0" }), ev({ cost: null })], plain).total.estimated_cost,
      "0",
    );
    assert.equal(
      usageReport(
        [ev({ cost: "0.000000000000000001" }), ev({ cost: "12345678901234567890" })],
        plain,
      )
        .total.estimated_cost,
      "12345678901234567890.000000000000000001",
      "plain notation, no exponent",
    );
  });

  test("cache reads and writes are summed and shown where non-zero", () => {
    const report = usageReport([
      ev({
        model: "claude",
        input_tokens: 6065,
        output_tokens: 120,
        cached_tokens: 4200,
        cache_write_tokens: 1840,
        cost: "0.010035",
      }),
      ev({
        model: "claude",
        task_type: "edit",
        input_tokens: 6200,
        output_tokens: 80,
        cached_tokens: 6065,
        cache_write_tokens: 0,
        cost: "0.0034",
      }),
      ev({
        model: "gpt-4o",
        input_tokens: 10,
        output_tokens: 5,
        cost: "0.0001",
      }),
    ], plain);
    assert.deepEqual(report.total, {
      input_tokens: 12275,
      output_tokens: 205,
      cache_read_tokens: 10265,
      cache_write_tokens: 1840,
      total_tokens: 12480,
      estimated_cost: "0.013535",
      currency: "USD",
    });
    assert.deepEqual(
      report.by_model.map((
        m,
      ) => [m.model, m.cache_read_tokens, m.cache_write_tokens]),
      [
        ["claude", 10265, 1840],
        ["gpt-4o", undefined, undefined],
      ],
    );
    assert.deepEqual(
      report.by_task_type.map((
        t,
      ) => [t.task_type, t.cache_read_tokens, t.cache_write_tokens]),
      [["chat", 4200, 1840], ["edit", 6065, undefined]],
    );
  });

  test("a count no event reported is omitted, never zero-filled", () => {
    const report = usageReport([ev({ input_tokens: 12, cost: "0.01" })], plain);
    assert.deepEqual(report.total, {
      input_tokens: 12,
      total_tokens: 12,
      estimated_cost: "0.01",
      currency: "USD",
    });
    assert.equal("output_tokens" in report.by_model[0], false);
    assert.equal("output_tokens" in report.by_task_type[0], false);

    const none = usageReport([ev({})], plain);
    assert.deepEqual(none.total, { estimated_cost: "0", currency: "USD" });
    assert.deepEqual(none.by_model[0], {
      provider: "openai",
      model: "gpt-4o",
      estimated_cost: "0",
      currency: "USD",
      request_count: 1,
    });
  });

  test("a bucket where some events reported a count sums the reported ones", () => {
    const report = usageReport([
      ev({ input_tokens: 5, output_tokens: 2 }),
      ev({ input_tokens: null, output_tokens: 4 }),
      ev({ provider: "ollama", model: "qwen3" }),
    ], plain);
    assert.deepEqual(
      [
        report.by_model[0].input_tokens,
        report.by_model[0].output_tokens,
        report.by_model[0].total_tokens,
      ],
      [5, 6, 11],
    );
    assert.equal("input_tokens" in report.by_model[1], false);
    assert.equal(report.by_model[1].request_count, 1);
    assert.deepEqual([report.total.input_tokens, report.total.output_tokens], [5, 6]);
  });

  test("an encrypted session shows only names and counts, and a total without figures", () => {
    const report = usageReport([
      ev({ input_tokens: 5, output_tokens: 2, cost: "0.1" }),
      ev({ task_type: "plan", provider: "gemini", model: "flash", cost: "0.2" }),
      ev({}),
    ], { encrypted: true });
    assert.deepEqual(report, {
      total: { currency: "USD" },
      by_model: [
        { provider: "openai", model: "gpt-4o", request_count: 2 },
        { provider: "gemini", model: "flash", request_count: 1 },
      ],
      by_task_type: [
        { task_type: "chat", request_count: 2 },
        { task_type: "plan", request_count: 1 },
      ],
    });
    assert.deepEqual(usageReport([], { encrypted: true }), {
      total: { currency: "USD" },
      by_model: [],
      by_task_type: [],
    });
  });

  test("provider and model are one key: a name containing the other's text does not merge", () => {
    const report = usageReport([
      ev({ provider: "a", model: "b/c" }),
      ev({ provider: "a/b", model: "c" }),
    ], plain);
    assert.equal(report.by_model.length, 2);
  });
});
