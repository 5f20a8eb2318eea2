import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  type Admission,
  admit,
  claimableFrom,
  type RequestKind,
} from "../../src/core/run_admission.ts";
import type { Pause, PauseKind, RunSnapshot } from "../../src/core/run_state.ts";

function pause(kind: PauseKind): Pause {
  switch (kind) {
    case "tool":
      return { kind, order: [], calls: [], service_results: [], to_encrypt: [] };
    case "approval":
      return { kind, approvals: [], to_encrypt: [] };
    case "decrypt":
      return { kind, to_decrypt: [], to_encrypt: [] };
    case "encrypt":
      return { kind, to_encrypt: [] };
  }
}

const RUNS: Record<string, RunSnapshot> = {
  idle: { state: "idle", pause: null },
  error: { state: "error", pause: null },
  running: { state: "running", pause: null },
  tool: { state: "awaiting_client", pause: pause("tool") },
  approval: { state: "awaiting_client", pause: pause("approval") },
  decrypt: { state: "awaiting_client", pause: pause("decrypt") },
  encrypt: { state: "awaiting_client", pause: pause("encrypt") },
};

const A = (verdict: Admission["verdict"], cancels: Admission["cancels"], newRun = false) => ({
  verdict,
  cancels,
  new_run: newRun,
});
const START = A("accepted", null, true);
const REPLACE = A("superseding", "pending_pause", true);
const ANSWER = A("accepted", null);
const STOP_TURN = A("superseding", "in_flight_turn");
const DROP_PAUSE = A("superseding", "pending_pause");

type Expect = Admission | "run_in_flight" | "no_active_run" | "continuation_mismatch";

/** Columns: idle, error, running, tool, approval, decrypt, encrypt (decisions.md §2, §7). */
const TABLE: [RequestKind, Expect[]][] = [
  ["execute", [START, START, "run_in_flight", REPLACE, REPLACE, REPLACE, REPLACE]],
  ["tool_results", [
    "no_active_run",
    "no_active_run",
    "run_in_flight",
    ANSWER,
    "continuation_mismatch",
    "continuation_mismatch",
    "continuation_mismatch",
  ]],
  ["approval_decisions", [
    "no_active_run",
    "no_active_run",
    "run_in_flight",
    "continuation_mismatch",
    ANSWER,
    "continuation_mismatch",
    "continuation_mismatch",
  ]],
  ["decrypted", [
    "no_active_run",
    "no_active_run",
    "run_in_flight",
    "continuation_mismatch",
    "continuation_mismatch",
    ANSWER,
    "continuation_mismatch",
  ]],
  ["sealed", [
    "no_active_run",
    "no_active_run",
    "run_in_flight",
    "continuation_mismatch",
    "continuation_mismatch",
    "continuation_mismatch",
    ANSWER,
  ]],
  ["inject", [
    "no_active_run",
    "no_active_run",
    STOP_TURN,
    DROP_PAUSE,
    DROP_PAUSE,
    DROP_PAUSE,
    "continuation_mismatch",
  ]],
  ["break", [
    "no_active_run",
    "no_active_run",
    STOP_TURN,
    DROP_PAUSE,
    DROP_PAUSE,
    DROP_PAUSE,
    DROP_PAUSE,
  ]],
];

const COLUMNS = Object.keys(RUNS);

describe("run admission", () => {
  for (const [kind, row] of TABLE) {
    row.forEach((expected, i) => {
      const name = typeof expected === "string" ? expected : JSON.stringify(expected);
      test(`${kind} on a run ${COLUMNS[i]}: ${name}`, () => {
        const out = admit(kind, RUNS[COLUMNS[i]]);
        if (typeof expected === "string") {
          assert.equal(out.ok, false);
          if (!out.ok) assert.equal(out.failure.code, expected);
        } else {
          assert.ok(out.ok);
          assert.deepEqual(out.value, expected);
        }
      });
    });
  }

  test("a mismatch names the kind received and the kinds allowed", () => {
    const out = admit("sealed", RUNS.tool);
    assert.equal(out.ok, false);
    if (out.ok) return;
    assert.deepEqual(out.failure.details, {
      type: "sealed",
      allowed_continuations: ["tool_results", "inject", "break"],
    });
    assert.match(out.failure.message, /^continuation mismatch: 'sealed'/);
  });

  test("a waiting run without its pause is a broken invariant", () => {
    assert.throws(() => admit("break", { state: "awaiting_client", pause: null }));
  });
});

describe("claim conditions", () => {
  const expected: [RequestKind, ReturnType<typeof claimableFrom>][] = [
    ["execute", [{ state: "idle" }, { state: "error" }, {
      state: "awaiting_client",
      pause_kinds: ["tool", "approval", "decrypt", "encrypt"],
    }]],
    ["tool_results", [{ state: "awaiting_client", pause_kinds: ["tool"] }]],
    ["sealed", [{ state: "awaiting_client", pause_kinds: ["encrypt"] }]],
    ["inject", [{ state: "running" }, {
      state: "awaiting_client",
      pause_kinds: ["tool", "approval", "decrypt"],
    }]],
    ["break", [{ state: "running" }, {
      state: "awaiting_client",
      pause_kinds: ["tool", "approval", "decrypt", "encrypt"],
    }]],
  ];
  for (const [kind, conditions] of expected) {
    test(`${kind} may claim a run from ${JSON.stringify(conditions)}`, () => {
      assert.deepEqual(claimableFrom(kind), conditions);
    });
  }

  test("claim conditions agree with admission for every kind and state", () => {
    for (const [kind] of TABLE) {
      const conditions = claimableFrom(kind);
      for (const [name, run] of Object.entries(RUNS)) {
        const claimable = conditions.some((c) =>
          c.state === run.state &&
          (c.pause_kinds === undefined || c.pause_kinds.includes(run.pause!.kind))
        );
        assert.equal(claimable, admit(kind, run).ok, `${kind} on ${name}`);
      }
    }
  });
});
