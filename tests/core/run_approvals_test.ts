import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  type ApprovalKind,
  type ApprovalOutcome,
  approvalOutcome,
  approvalRef,
  approvalTarget,
  approvalTracePayload,
  combinedOutcome,
  costLimitApproval,
  type Decision,
  exceededCostLimit,
  planApproval,
  preCallApproval,
  type PreCallInput,
  remoteDisclosureApproval,
} from "../../src/core/approvals.ts";
import type { RoutingRule } from "../../src/core/turn_request_types.ts";
import { assertMatchesSchema } from "../support/openapi.ts";
import { request } from "./fixtures.ts";

const MODEL = { provider: "anthropic", model: "claude" };

function rule(costLimit?: string): RoutingRule {
  const r = request({
    policy: {
      routing: {
        rules: [{
          name: "r",
          model: "anthropic/claude",
          ...(costLimit ? { cost_limit: costLimit } : {}),
        }],
      },
    },
  });
  return r.policy.routing.rules[0];
}

describe("pending approvals", () => {
  test("remote_disclosure names provider, model and paths", () => {
    const a = remoteDisclosureApproval("ap1", MODEL, ["src/a.ts", "docs/b.md"]);
    assert.deepEqual(a, {
      approval_id: "ap1",
      kind: "remote_disclosure",
      detail: { provider: "anthropic", model: "claude", paths: ["src/a.ts", "docs/b.md"] },
    });
    assertMatchesSchema("PendingApproval", a);
  });

  test("cost_limit names limit, estimate, currency, provider and model", () => {
    const a = costLimitApproval(
      "ap2",
      "0.01",
      { min: "0.003", max: "0.0153", currency: "USD" },
      MODEL,
    );
    assert.deepEqual(a, {
      approval_id: "ap2",
      kind: "cost_limit",
      detail: {
        limit: "0.01",
        estimated_cost: { min: "0.003", max: "0.0153" },
        currency: "USD",
        provider: "anthropic",
        model: "claude",
      },
    });
    assertMatchesSchema("PendingApproval", a);
  });

  test("plan carries its id and text", () => {
    const a = planApproval("ap3", "pl1", "1. read\n2. write");
    assert.deepEqual(a, {
      approval_id: "ap3",
      kind: "plan",
      detail: { plan_id: "pl1", plan: "1. read\n2. write" },
    });
    assertMatchesSchema("PendingApproval", a);
  });

  test("the kept reference drops the detail but keeps disclosed paths and the plan id", () => {
    assert.deepEqual(approvalRef(remoteDisclosureApproval("a", MODEL, ["x"])), {
      approval_id: "a",
      kind: "remote_disclosure",
      paths: ["x"],
    });
    assert.deepEqual(approvalRef(planApproval("b", "p", "text")), {
      approval_id: "b",
      kind: "plan",
      plan_id: "p",
    });
    const cost = costLimitApproval("c", "1", { min: "0", max: "2", currency: "USD" }, MODEL);
    assert.deepEqual(approvalRef(cost), { approval_id: "c", kind: "cost_limit" });
  });
});

describe("cost limit", () => {
  const TABLE: [string | undefined, string, string | null][] = [
    [undefined, "100", null],
    ["0.01", "0.0100", null],
    ["0.01", "0.0101", "0.01"],
    ["1", "0.99", null],
    ["0", "0.000001", "0"],
  ];
  for (const [limit, max, expected] of TABLE) {
    test(`limit ${limit ?? "(none)"} with max ${max}: ${expected === null ? "no pause" : "pause"}`, () => {
      assert.equal(exceededCostLimit(rule(limit), { min: "0", max, currency: "USD" }), expected);
    });
  }
  test("no matched rule never pauses for cost", () => {
    assert.equal(exceededCostLimit(null, { min: "0", max: "999", currency: "USD" }), null);
  });
});

describe("approval before the model call", () => {
  const base: PreCallInput = {
    approval_id: "ap",
    model: MODEL,
    disclosure_paths: [],
    rule: rule("0.01"),
    estimate: { min: "0.001", max: "0.5", currency: "USD" },
    cost_limit_approved: false,
  };

  test("disclosure is asked before cost", () => {
    const a = preCallApproval({ ...base, disclosure_paths: ["src/a.ts"] });
    assert.equal(a?.kind, "remote_disclosure");
  });
  test("then the cost limit", () => {
    const a = preCallApproval(base);
    assert.equal(a?.kind, "cost_limit");
    assert.equal(a?.approval_id, "ap");
  });
  test("an approved cost limit holds for the rest of the run", () => {
    assert.equal(preCallApproval({ ...base, cost_limit_approved: true }), null);
  });
  test("nothing to approve: the model is called", () => {
    assert.equal(preCallApproval({ ...base, rule: rule() }), null);
  });
});

describe("approval outcomes", () => {
  const TABLE: [ApprovalKind, Decision, ApprovalOutcome][] = [
    ["remote_disclosure", "approved", "proceed"],
    ["remote_disclosure", "rejected", "idle"],
    ["cost_limit", "approved", "call_model"],
    ["cost_limit", "rejected", "idle"],
    ["plan", "approved", "ordinary_turn"],
    ["plan", "rejected", "idle"],
  ];
  for (const [kind, decision, outcome] of TABLE) {
    test(`${kind} ${decision}: ${outcome}`, () => {
      assert.equal(approvalOutcome(kind, decision), outcome);
    });
  }
  test("one rejection among several ends the run", () => {
    assert.equal(
      combinedOutcome([
        { kind: "plan", decision: "approved" },
        { kind: "cost_limit", decision: "rejected" },
      ]),
      "idle",
    );
    assert.equal(
      combinedOutcome([
        { kind: "cost_limit", decision: "approved" },
        { kind: "remote_disclosure", decision: "approved" },
      ]),
      "proceed",
    );
  });
});

describe("approval trace payload", () => {
  test("target_type, target_id, decision and reason", () => {
    assert.deepEqual(approvalTracePayload("tool_call", "c1", "approved"), {
      type: "approval",
      target_type: "tool_call",
      target_id: "c1",
      decision: "approved",
    });
    assert.deepEqual(approvalTracePayload("cost_limit", "ap", "rejected", "too much"), {
      type: "approval",
      target_type: "cost_limit",
      target_id: "ap",
      decision: "rejected",
      reason: "too much",
    });
  });
  test("a plan is targeted by its plan id, other approvals by their id", () => {
    assert.deepEqual(approvalTarget(approvalRef(planApproval("ap", "pl", "x"))), {
      target_type: "plan",
      target_id: "pl",
    });
    assert.deepEqual(approvalTarget(approvalRef(remoteDisclosureApproval("ap", MODEL, []))), {
      target_type: "remote_disclosure",
      target_id: "ap",
    });
  });
  test("the payload matches the trace event schema", () => {
    assertMatchesSchema("TraceEvent", {
      event_type: "approval",
      task_type: "chat",
      provider: null,
      model: null,
      created_at: "2026-01-01T00:00:00.000Z",
      payload: { plaintext: approvalTracePayload("plan", "pl", "rejected", null) },
      trace_id: "t1",
    });
  });
});
