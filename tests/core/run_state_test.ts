import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { approvalRef, costLimitApproval, planApproval } from "../../src/core/approvals.ts";
import {
  applyRunEvent,
  approvalPause,
  decryptPause,
  encryptPause,
  type Pause,
  type RunEvent,
  type RunSnapshot,
  type RunState,
  toolPause,
} from "../../src/core/run_state.ts";
import type { ToolMediation } from "../../src/core/tool_mediation.ts";

const toolWait: Pause = {
  kind: "tool",
  order: ["c1"],
  calls: [{ call_id: "c1", name: "shell", requires_approval: "ask" }],
  service_results: [],
  to_encrypt: [],
};

const runs: Record<string, RunSnapshot> = {
  idle: { state: "idle", pause: null },
  running: { state: "running", pause: null },
  "awaiting_client (tool)": { state: "awaiting_client", pause: toolWait },
  "awaiting_client (encrypt)": { state: "awaiting_client", pause: encryptPause(["message:1"]) },
  error: { state: "error", pause: null },
};

const events: Record<string, RunEvent> = {
  start: { type: "start" },
  pause: { type: "pause", pause: toolWait },
  resume: { type: "resume" },
  supersede: { type: "supersede" },
  complete: { type: "complete" },
  fail: { type: "fail" },
  recover: { type: "recover" },
  break: { type: "break" },
};

/** [from, event, to or null when illegal]: every pair of the machine. */
const TABLE: [string, string, RunState | null][] = [
  ["idle", "start", "running"],
  ["idle", "pause", null],
  ["idle", "resume", null],
  ["idle", "supersede", null],
  ["idle", "complete", null],
  ["idle", "fail", null],
  ["idle", "recover", null],
  ["idle", "break", null],
  ["running", "start", null],
  ["running", "pause", "awaiting_client"],
  ["running", "resume", null],
  ["running", "supersede", "running"],
  ["running", "complete", "idle"],
  ["running", "fail", "error"],
  ["running", "recover", null],
  ["running", "break", "idle"],
  ["awaiting_client (tool)", "start", "running"],
  ["awaiting_client (tool)", "pause", null],
  ["awaiting_client (tool)", "resume", "running"],
  ["awaiting_client (tool)", "supersede", null],
  ["awaiting_client (tool)", "complete", null],
  ["awaiting_client (tool)", "fail", null],
  ["awaiting_client (tool)", "break", "idle"],
  ["awaiting_client (encrypt)", "complete", "idle"],
  ["awaiting_client (encrypt)", "break", "idle"],
  ["awaiting_client (encrypt)", "resume", "running"],
  ["error", "start", "running"],
  ["error", "recover", "idle"],
  ["error", "resume", null],
  ["error", "break", null],
  ["error", "fail", null],
];

describe("run transitions", () => {
  for (const [from, event, to] of TABLE) {
    test(`${event} from ${from} ${to === null ? "is illegal" : `goes ${to}`}`, () => {
      if (to === null) {
        assert.throws(
          () => applyRunEvent(runs[from], events[event]),
          /illegal run transition/,
        );
        return;
      }
      const next = applyRunEvent(runs[from], events[event]);
      assert.equal(next.state, to);
      assert.equal(next.pause === null, to !== "awaiting_client");
    });
  }

  test("pause keeps the pending data", () => {
    const next = applyRunEvent(runs.running, { type: "pause", pause: toolWait });
    assert.deepEqual(next, { state: "awaiting_client", pause: toolWait });
  });

  test("a snapshot survives a JSON round trip unchanged (the store keeps it as JSON)", () => {
    const run = applyRunEvent(runs.running, { type: "pause", pause: toolWait });
    assert.deepEqual(JSON.parse(JSON.stringify(run)), run);
  });
});

describe("pause builders", () => {
  test("toolPause keeps ids, names and modes, never arguments", () => {
    const mediation: ToolMediation = {
      order: ["a", "b", "m"],
      tool_requests: [{
        call_id: "a",
        name: "read_file",
        arguments: { path: "secret.txt" },
        requires_approval: "allow",
      }],
      service_results: [{
        call_id: "b",
        name: "shell",
        content: "denied by policy",
        is_error: true,
      }],
      memory: [],
      constrained_call_ids: [],
      next: "await_client",
    };
    const memory = [{ call_id: "m", name: "memory", content: "recorded", is_error: false }];
    const pause = toolPause(mediation, memory, ["tool_call:a"]);
    assert.deepEqual(pause, {
      kind: "tool",
      order: ["a", "b", "m"],
      calls: [{ call_id: "a", name: "read_file", requires_approval: "allow" }],
      service_results: [...mediation.service_results, ...memory],
      to_encrypt: ["tool_call:a"],
    });
    assert.ok(!JSON.stringify(pause).includes("secret.txt"));
  });

  test("approvalPause keeps no plan text or cost detail", () => {
    const plan = planApproval("ap1", "plan-1", "step one: CANARY");
    const cost = costLimitApproval("ap2", "0.1", { min: "0.05", max: "0.2", currency: "USD" }, {
      provider: "openai",
      model: "gpt-4o",
    });
    const pause = approvalPause([plan, cost]);
    assert.deepEqual(pause, {
      kind: "approval",
      approvals: [approvalRef(plan), approvalRef(cost)],
      to_encrypt: [],
    });
    assert.ok(!JSON.stringify(pause).includes("CANARY"));
  });

  test("decrypt and encrypt pauses hold references only", () => {
    assert.deepEqual(decryptPause(["message:1"], ["run_input:r"]), {
      kind: "decrypt",
      to_decrypt: ["message:1"],
      to_encrypt: ["run_input:r"],
    });
    assert.deepEqual(encryptPause(["message:2"]), { kind: "encrypt", to_encrypt: ["message:2"] });
  });
});
