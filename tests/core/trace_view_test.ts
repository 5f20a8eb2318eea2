import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  MAX_TRACE_LIMIT,
  type TraceEventRecord,
  traceView,
  traceWindow,
} from "../../src/core/trace_view.ts";

const ENVELOPE = {
  version: 1,
  algorithm: "A256GCM",
  key_id: "k",
  nonce: "bg==",
  ciphertext: "Yw==",
};
const record = (over: Partial<TraceEventRecord>): TraceEventRecord => ({
  trace_id: "t1",
  event_type: "routing_decision",
  task_type: "chat",
  provider: "openai",
  model: "gpt-4o",
  payload: { plaintext: { provider: "openai" } },
  created_at: new Date("2026-01-01T00:00:00.000Z"),
  ...over,
});

describe("trace view", () => {
  test("shapes events with trace_id, ISO times and a typed plaintext payload", () => {
    const view = traceView("s1", [
      record({ matched_rule: "docs" }),
      record({ event_type: "classification", provider: null, model: null, matched_rule: null }),
      record({ event_type: "message", payload: { encrypted: ENVELOPE } }),
    ]);
    assert.equal(view.trace.session_id, "s1");
    assert.deepEqual(view.trace.events[0], {
      event_type: "routing_decision",
      task_type: "chat",
      provider: "openai",
      model: "gpt-4o",
      matched_rule: "docs",
      created_at: "2026-01-01T00:00:00.000Z",
      payload: { plaintext: { provider: "openai", type: "routing_decision" } },
      trace_id: "t1",
    });
    assert.equal(view.trace.events[1].matched_rule, null);
    assert.equal("matched_rule" in view.trace.events[1], true, "null is shown");
    assert.equal("matched_rule" in view.trace.events[2], false, "absent stays absent");
    assert.deepEqual(view.trace.events[2].payload, { encrypted: ENVELOPE });
  });

  test("the payload type always equals the event type", () => {
    const view = traceView("s", [
      record({ event_type: "cost", payload: { plaintext: { type: "x" } } }),
    ]);
    assert.deepEqual(view.trace.events[0].payload, { plaintext: { type: "cost" } });
  });

  test("window defaults to 50 from 0 and takes integers >= 0", () => {
    assert.deepEqual(traceWindow({ limit: null, offset: null }), {
      ok: true,
      value: { limit: 50, offset: 0 },
    });
    assert.deepEqual(traceWindow({ limit: "0", offset: "7" }), {
      ok: true,
      value: { limit: 0, offset: 7 },
    });
    const huge = traceWindow({ limit: "0", offset: "99999999999999999999999" });
    assert.deepEqual(huge, { ok: true, value: { limit: 0, offset: Number.MAX_SAFE_INTEGER } });
  });

  test("window reads a limit above the maximum as the maximum", () => {
    assert.equal(MAX_TRACE_LIMIT, 1000);
    for (
      const [asked, read] of [["1000", 1000], ["1001", 1000], ["99999999999999999999999", 1000]]
    ) {
      assert.deepEqual(traceWindow({ limit: String(asked), offset: null }), {
        ok: true,
        value: { limit: read, offset: 0 },
      });
    }
  });

  test("window refuses anything but digits, naming the parameter", () => {
    for (const bad of ["-1", "1.5", "", "abc", " 3", "1e3", "+2", "0x10"]) {
      const limit = traceWindow({ limit: bad, offset: null });
      assert.equal(limit.ok, false, bad);
      if (!limit.ok) {
        assert.equal(limit.failure.code, "invalid_request");
        assert.deepEqual(limit.failure.details, { parameter: "limit" });
      }
      const offset = traceWindow({ limit: null, offset: bad });
      assert.equal(!offset.ok && offset.failure.details?.parameter, "offset", bad);
    }
  });
});
