import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { breakOutcome, type ReplyStep, stepAfterReply } from "../../src/core/run_steps.ts";
import type { ToolMediation } from "../../src/core/tool_mediation.ts";

function mediation(clientCalls: number, serviceCalls: number): ToolMediation {
  const ids = Array.from({ length: clientCalls + serviceCalls }, (_, i) => `c${i}`);
  return {
    order: ids,
    tool_requests: ids.slice(0, clientCalls).map((call_id) => ({
      call_id,
      name: "shell",
      arguments: {},
      requires_approval: "ask" as const,
    })),
    service_results: ids.slice(clientCalls).map((call_id) => ({
      call_id,
      name: "fetch",
      content: "denied by policy",
      is_error: true,
    })),
    memory: [],
    constrained_call_ids: [],
    next: clientCalls > 0 ? "await_client" : "call_model",
  };
}

describe("step after a model reply", () => {
  const TABLE: [string, boolean, ToolMediation | null, ReplyStep][] = [
    ["no tool calls completes", false, null, "complete"],
    ["no tool calls in plan mode is a plan", true, null, "plan_approval"],
    ["an empty mediation counts as no calls", false, mediation(0, 0), "complete"],
    ["client-bound calls wait for the client", false, mediation(2, 1), "await_client"],
    ["client-bound calls in plan mode wait too", true, mediation(1, 0), "await_client"],
    ["only denied calls call the model again", false, mediation(0, 2), "call_model"],
    ["only denied calls in plan mode call the model again", true, mediation(0, 1), "call_model"],
  ];
  for (const [name, plan, m, expected] of TABLE) {
    test(name, () => assert.equal(stepAfterReply(plan, m), expected));
  }
});

describe("break", () => {
  const TABLE: [boolean, boolean, string][] = [
    [false, false, "idle"],
    [false, true, "idle"],
    [true, false, "idle"],
    [true, true, "awaiting_encrypt"],
  ];
  for (const [encrypted, partial, expected] of TABLE) {
    test(`encrypted ${encrypted}, partial output ${partial}: ${expected}`, () => {
      assert.equal(breakOutcome(encrypted, partial), expected);
    });
  }
});
