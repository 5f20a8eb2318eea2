/**
 * The command line shows the cached part of a call's input where a report or
 * a `cost` trace event carries it, and nothing more where it does not.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cacheText, eventSummary } from "../../clients/typescript/src/cli/trace_table.ts";
import type { TraceEvent } from "../../clients/typescript/src/types.ts";

describe("cache counts on the command line", () => {
  test("shown when a report has them, absent otherwise", () => {
    assert.equal(cacheText({}), "");
    assert.equal(
      cacheText({ cache_read_tokens: 4200, cache_write_tokens: 1840 }),
      " (4200 read from cache, 1840 written to cache)",
    );
    assert.equal(
      cacheText({ cache_read_tokens: 2944 }),
      " (2944 read from cache)",
    );
  });

  test("a cost event's row in the trace table", () => {
    const event = {
      seq: 1,
      trace_id: "0190a5b8-7c1e-7a3b-8c2d-1234567890ab",
      event_type: "cost",
      task_type: "chat",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      matched_rule: null,
      created_at: "2026-01-01T00:00:00.000Z",
      payload: {
        plaintext: {
          type: "cost",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          input_tokens: 6065,
          output_tokens: 120,
          cache_read_tokens: 4200,
          cache_write_tokens: 1840,
          cost: "0.010035",
        },
      },
    } as unknown as TraceEvent;
    assert.equal(
      eventSummary(event),
      "6065 in (4200 read from cache, 1840 written to cache), 120 out, 0.010035 USD",
    );
  });
});
