import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { planApproval, remoteDisclosureApproval } from "../../src/core/approvals.ts";
import { failure } from "../../src/core/errors.ts";
import { decideTurn } from "../../src/core/turn_decision.ts";
import {
  assistantMessage,
  awaitingApprovalEnvelope,
  awaitingDecryptEnvelope,
  awaitingEncryptEnvelope,
  awaitingToolEnvelope,
  completedEnvelope,
  errorEnvelope,
  idleEnvelope,
  turnContext,
  type TurnEnvelope,
  turnRouting,
  turnUsage,
} from "../../src/core/turn_envelope.ts";
import {
  reasoningDelta,
  replayEvents,
  textDelta,
  toolCallRequested,
  toolCallStarted,
  turnEnd,
  usageEvent,
} from "../../src/core/turn_stream_events.ts";
import type { ToolRequest } from "../../src/core/tool_mediation.ts";
import { assertMatchesSchema } from "../support/openapi.ts";
import { CATALOG, model, request } from "./fixtures.ts";

const ENV = {
  version: 1,
  algorithm: "AES-256-GCM",
  key_id: "k1",
  nonce: "bm9uY2U=",
  ciphertext: "Y2lwaGVy",
};

function decision() {
  const out = decideTurn({
    request: request({
      input: { text: "fix the bug" },
      policy: {
        routing: {
          rules: [{ name: "edits", intent: "chat", model: "openai/gpt-4o", fallbacks: [] }],
        },
      },
      attachments: {
        files: [{ path: "src/a.ts", content: "x", required: false }],
        instructions: [],
      },
    }),
    catalog: CATALOG,
    credential_providers: ["openai"],
  });
  if (!out.ok) throw new Error(out.failure.message);
  return out.value;
}

function completed(encrypted: boolean): TurnEnvelope {
  const d = decision();
  return completedEnvelope({
    message: assistantMessage("done", d.routing.model),
    classification: d.classification,
    routing: turnRouting(d.classification.intent, d.routing),
    context: turnContext(d.context),
    usage: turnUsage(d.routing.model, { input_tokens: 1000, output_tokens: 200 }),
    trace_id: "turn-1",
    to_encrypt: encrypted ? { "message:m2": "done" } : {},
  }, encrypted);
}

const REQUEST: ToolRequest = {
  call_id: "c1",
  name: "read_file",
  arguments: { path: "src/a.ts" },
  requires_approval: "ask",
};

describe("turn envelopes", () => {
  const CASES: [string, () => TurnEnvelope, string, string[]][] = [
    ["completed", () => completed(false), "completed", []],
    ["completed, encrypted", () => completed(true), "completed", ["sealed", "break"]],
    [
      "awaiting_tool",
      () => awaitingToolEnvelope([REQUEST], "turn-1"),
      "awaiting_tool",
      ["tool_results", "inject", "break"],
    ],
    [
      "awaiting_tool with to_encrypt",
      () => awaitingToolEnvelope([REQUEST], "turn-1", { "tool_call:c1": "{}" }),
      "awaiting_tool",
      ["tool_results", "inject", "break"],
    ],
    [
      "awaiting_approval (remote_disclosure)",
      () =>
        awaitingApprovalEnvelope(
          remoteDisclosureApproval("ap", { provider: "openai", model: "gpt-4o" }, ["src/a.ts"]),
          "turn-1",
        ),
      "awaiting_approval",
      ["approval_decisions", "inject", "break"],
    ],
    [
      "awaiting_approval (plan)",
      () => awaitingApprovalEnvelope(planApproval("ap", "pl", "the plan"), "turn-1"),
      "awaiting_approval",
      ["approval_decisions", "inject", "break"],
    ],
    [
      "awaiting_decrypt",
      () => awaitingDecryptEnvelope({ "message:1": ENV }, "turn-1", { "run_input:r": "prompt" }),
      "awaiting_decrypt",
      ["decrypted", "inject", "break"],
    ],
    [
      "awaiting_encrypt",
      () => awaitingEncryptEnvelope({ "message:9": "partial" }, "turn-1"),
      "awaiting_encrypt",
      ["sealed", "break"],
    ],
    ["idle", () => idleEnvelope(), "idle", []],
    ["idle with its trace id", () => idleEnvelope("turn-1"), "idle", []],
    [
      "error",
      () =>
        errorEnvelope(failure("provider_unavailable", "provider unavailable: openai", { a: 1 })),
      "error",
      [],
    ],
  ];
  for (const [name, build, status, allowed] of CASES) {
    test(`${name} matches TurnResponse and allows ${allowed.join(", ") || "nothing"}`, () => {
      const envelope = build();
      assert.equal(envelope.status, status);
      assert.deepEqual(envelope.allowed_continuations, allowed);
      assert.deepEqual(Object.keys(envelope), ["status", "data", "allowed_continuations"]);
      assertMatchesSchema("TurnResponse", envelope);
      assertMatchesSchema("TurnStreamEvent", turnEnd(envelope));
    });
  }

  test("completed data holds every field, in order", () => {
    const e = completed(false);
    assert.deepEqual(Object.keys(e.data), [
      "message",
      "classification",
      "routing",
      "context",
      "usage",
      "trace_id",
      "to_encrypt",
    ]);
    assert.deepEqual(e.data.message, {
      role: "assistant",
      content: "done",
      provider: "openai",
      model: "gpt-4o",
    });
    assert.deepEqual(e.data.routing, {
      task_type: "chat",
      provider: "openai",
      model: "gpt-4o",
      matched_rule: "edits",
      fallback_used: false,
      override_used: false,
    });
    assert.deepEqual(e.data.context, { included: ["file src/a.ts"], excluded: [] });
    assert.deepEqual(e.data.to_encrypt, {});
  });

  test("error data is { error: { code, message } } and nothing else", () => {
    const e = errorEnvelope(failure("rate_limited", "rate limited: openai", { retry: 1 }));
    assert.deepEqual(e.data, { error: { code: "rate_limited", message: "rate limited: openai" } });
  });

  test("a schema check fails for a wrong continuation list (the check can fail)", () => {
    const bad = { ...awaitingToolEnvelope([REQUEST], "t"), allowed_continuations: ["break"] };
    assert.throws(() => assertMatchesSchema("TurnResponse", bad));
  });
});

describe("usage in a turn", () => {
  const priced = model("x/y", {
    input_cost_per_million_tokens: "2.5",
    output_cost_per_million_tokens: "10",
  });
  const TABLE: [string, Parameters<typeof turnUsage>, Record<string, unknown>][] = [
    ["priced exactly", [priced, { input_tokens: 1234, output_tokens: 567 }], {
      input_tokens: 1234,
      output_tokens: 567,
      estimated_cost: "0.008755",
      currency: "USD",
    }],
    ["an unreported count is omitted, not zero", [priced, { output_tokens: 100 }], {
      output_tokens: 100,
      estimated_cost: "0.001",
      currency: "USD",
    }],
    ["a model without prices costs 0", [model("ollama/l", { local: true }), {
      input_tokens: 10,
      output_tokens: 10,
    }], { input_tokens: 10, output_tokens: 10, estimated_cost: "0", currency: "USD" }],
    ["nothing reported", [priced, {}], { estimated_cost: "0", currency: "USD" }],
  ];
  for (const [name, args, expected] of TABLE) {
    test(name, () => {
      const usage = turnUsage(...args);
      assert.deepEqual(usage, expected);
      assertMatchesSchema("TurnUsage", usage);
      assertMatchesSchema("TurnStreamEvent", usageEvent(usage));
    });
  }
});

describe("stream events", () => {
  const EVENTS: [string, unknown, Record<string, unknown>][] = [
    ["text_delta", textDelta("Hel"), { type: "text_delta", delta: "Hel" }],
    ["reasoning_delta", reasoningDelta("hmm"), { type: "reasoning_delta", delta: "hmm" }],
    ["tool_call_started", toolCallStarted("c1", "read_file"), {
      type: "tool_call_started",
      call_id: "c1",
      name: "read_file",
    }],
    ["tool_call_requested", toolCallRequested(REQUEST), {
      type: "tool_call_requested",
      call_id: "c1",
      name: "read_file",
      arguments: { path: "src/a.ts" },
      requires_approval: "ask",
    }],
    ["usage", usageEvent({ input_tokens: 1, estimated_cost: "0", currency: "USD" }), {
      type: "usage",
      input_tokens: 1,
      estimated_cost: "0",
      currency: "USD",
    }],
    ["turn_end", turnEnd(idleEnvelope()), {
      type: "turn_end",
      status: "idle",
      data: {},
      allowed_continuations: [],
    }],
  ];
  for (const [name, event, expected] of EVENTS) {
    test(`${name} has its fields and matches TurnStreamEvent`, () => {
      assert.deepEqual(event, expected);
      assertMatchesSchema("TurnStreamEvent", event);
    });
  }

  test("turn_end carries the envelope beside its type", () => {
    const e = completed(true);
    assert.deepEqual(turnEnd(e), { type: "turn_end", ...e });
  });

  test("a buffered reply is replayed as the same events, ending with one turn_end", () => {
    const end = awaitingToolEnvelope([REQUEST], "turn-1");
    const usage = { input_tokens: 5, output_tokens: 2, estimated_cost: "0", currency: "USD" };
    const events = replayEvents(
      { reasoning: "think", text: "Reading.", tool_requests: [REQUEST], usage },
      end,
    );
    assert.deepEqual(events.map((e) => e.type), [
      "reasoning_delta",
      "text_delta",
      "tool_call_started",
      "tool_call_requested",
      "usage",
      "turn_end",
    ]);
    assert.deepEqual(events.at(-1), turnEnd(end));
    for (const e of events) assertMatchesSchema("TurnStreamEvent", e);
    assert.deepEqual(
      replayEvents({ text: "", tool_requests: [] }, idleEnvelope()).map((e) => e.type),
      ["turn_end"],
    );
  });
});
