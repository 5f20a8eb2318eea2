import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  allowedContinuations,
  type Continuation,
  type TurnStatus,
} from "../../src/core/continuation.ts";
import {
  checkContinuation,
  matchIds,
  REJECTED_BY_USER,
} from "../../src/core/continuation_check.ts";
import { toolResultReference } from "../../src/core/continuation_sealed.ts";
import type { Outcome } from "../../src/core/errors.ts";
import type { Pause } from "../../src/core/run_state.ts";
import type { Envelope } from "../../src/core/sealed_envelope.ts";
import { isBase64, isContentReference } from "../../src/core/sealed_envelope.ts";
import { parseContinueRequest } from "../../src/http/continue_request.ts";

const KEY = "key-1";
const env = (keyId = KEY, fields: Partial<Envelope> = {}): Envelope => ({
  version: 1,
  algorithm: "AES-256-GCM",
  key_id: keyId,
  nonce: "bm9uY2Vub25jZTEy", // 12 bytes
  ciphertext: "Y2lwaGVydGV4dCBhbmQgaXRzIHRhZw==", // 23 bytes
  ...fields,
});

function failed<T>(out: Outcome<T>, code = "invalid_request") {
  assert.equal(out.ok, false, JSON.stringify(out));
  if (out.ok) throw new Error("unreachable");
  assert.equal(out.failure.code, code);
  return out.failure;
}

function value<T>(out: Outcome<T>): T {
  if (!out.ok) assert.fail(`expected ok, got ${JSON.stringify(out.failure)}`);
  return out.value;
}

describe("allowed continuations", () => {
  const TABLE: [TurnStatus, boolean, string[]][] = [
    ["completed", false, []],
    ["completed", true, ["sealed", "break"]],
    ["awaiting_tool", false, ["tool_results", "inject", "break"]],
    ["awaiting_approval", false, ["approval_decisions", "inject", "break"]],
    ["awaiting_decrypt", true, ["decrypted", "inject", "break"]],
    ["awaiting_encrypt", true, ["sealed", "break"]],
    ["idle", false, []],
    ["idle", true, []],
    ["error", false, []],
    ["error", true, []],
  ];
  for (const [status, encrypted, expected] of TABLE) {
    test(`${status}${encrypted ? " (encrypted)" : ""} allows ${expected.join(", ") || "nothing"}`, () => {
      assert.deepEqual(allowedContinuations(status, encrypted), expected);
    });
  }
  test("every non-terminal outcome allows break", () => {
    for (const [status, encrypted, expected] of TABLE) {
      if (expected.length > 0) assert.ok(allowedContinuations(status, encrypted).includes("break"));
    }
  });
});

describe("continue body", () => {
  test("break needs no data and ignores any", () => {
    assert.deepEqual(value(parseContinueRequest({ type: "break" })), { type: "break" });
    assert.deepEqual(value(parseContinueRequest({ type: "break", data: { x: 1 } })), {
      type: "break",
    });
  });

  test("unknown fields are dropped at every depth", () => {
    const out = value(parseContinueRequest({
      type: "tool_results",
      extra: 1,
      data: { results: [{ call_id: "a", content: "x", more: true }], other: 2 },
    }));
    assert.deepEqual(out, {
      type: "tool_results",
      data: { results: [{ call_id: "a", content: "x" }] },
    });
  });

  const BAD: [string, unknown, string][] = [
    ["an unknown type", { type: "resume" }, "type"],
    ["no type", { data: {} }, "type"],
    ["tool_results without results", { type: "tool_results", data: {} }, "data.results"],
    ["a call_id that is not a string", {
      type: "tool_results",
      data: { results: [{ call_id: 7 }] },
    }, "data.results[0].call_id"],
    ["a decision outside approved/rejected", {
      type: "approval_decisions",
      data: { decisions: [{ approval_id: "a", decision: "maybe" }] },
    }, "data.decisions[0].decision"],
    ["approval_decisions without data", { type: "approval_decisions" }, "data"],
    ["a plaintext value that is not a string", {
      type: "decrypted",
      data: { plaintext: { "message:1": 5 } },
    }, "data.plaintext.message:1"],
    ["sealed without encrypted", { type: "sealed", data: {} }, "data.encrypted"],
    ["an envelope missing its nonce", {
      type: "sealed",
      data: {
        encrypted: { "message:1": { version: 1, algorithm: "a", key_id: "k", ciphertext: "" } },
      },
    }, "data.encrypted.message:1.nonce"],
    ["inject without messages", { type: "inject", data: {} }, "data.messages"],
  ];
  for (const [name, body, path] of BAD) {
    test(`${name} is 422 invalid_request naming ${path}`, () => {
      const f = failed(parseContinueRequest(body));
      assert.equal(f.details?.path, path);
      assert.match(f.message, /^invalid continuation: /);
    });
  }
});

const TOOL_PAUSE: Pause = {
  kind: "tool",
  order: ["a", "d", "b"],
  calls: [
    { call_id: "a", name: "read_file", requires_approval: "allow" },
    { call_id: "b", name: "shell", requires_approval: "ask" },
  ],
  service_results: [{ call_id: "d", name: "fetch", content: "denied by policy", is_error: true }],
  to_encrypt: [],
};

const toolResults = (results: unknown[], encrypted?: Record<string, Envelope>): Continuation =>
  ({
    type: "tool_results",
    data: encrypted === undefined ? { results } : { results, encrypted },
  }) as Continuation;

describe("tool results", () => {
  test("answer the outstanding calls one to one, in request order", () => {
    const out = value(checkContinuation(
      toolResults([
        { call_id: "b", content: "ok", decision: "approved" },
        { call_id: "a", content: "file text" },
      ]),
      TOOL_PAUSE,
      null,
    ));
    assert.equal(out.type, "tool_results");
    if (out.type !== "tool_results") return;
    assert.deepEqual(out.results.map((r) => [r.call_id, r.content, r.is_error, r.decision]), [
      ["a", "file text", false, null],
      ["b", "ok", false, "approved"],
    ]);
    assert.deepEqual(out.approvals, [{ call_id: "b", decision: "approved" }]);
    assert.deepEqual(out.sealed, {});
  });

  test("denied calls are answered beside the client's, in the model's call order", () => {
    const out = value(checkContinuation(
      toolResults([{ call_id: "a", content: "A" }, { call_id: "b", content: "B", is_error: true }]),
      TOOL_PAUSE,
      null,
    ));
    assert.ok(out.type === "tool_results");
    assert.deepEqual(out.for_model, [
      { call_id: "a", content: "A", is_error: false },
      { call_id: "d", content: "denied by policy", is_error: true },
      { call_id: "b", content: "B", is_error: true },
    ]);
  });

  test("a rejected ask call without content reads as rejected, an error", () => {
    const out = value(checkContinuation(
      toolResults([{ call_id: "a", content: "" }, { call_id: "b", decision: "rejected" }]),
      TOOL_PAUSE,
      null,
    ));
    assert.ok(out.type === "tool_results");
    assert.deepEqual(out.results[1], {
      call_id: "b",
      name: "shell",
      requires_approval: "ask",
      content: REJECTED_BY_USER,
      is_error: true,
      decision: "rejected",
    });
    assert.deepEqual(out.approvals, [{ call_id: "b", decision: "rejected" }]);
  });

  test("a decision on an allow call is no approval", () => {
    const out = value(checkContinuation(
      toolResults([{ call_id: "a", decision: "approved" }, { call_id: "b" }]),
      TOOL_PAUSE,
      null,
    ));
    assert.ok(out.type === "tool_results");
    assert.deepEqual(out.approvals, []);
  });

  const MISMATCHES: [
    string,
    unknown[],
    { missing: string[]; extra: string[]; repeated: string[] },
  ][] = [
    ["a missing call_id", [{ call_id: "a" }], { missing: ["b"], extra: [], repeated: [] }],
    ["an extra call_id", [{ call_id: "a" }, { call_id: "b" }, { call_id: "z" }], {
      missing: [],
      extra: ["z"],
      repeated: [],
    }],
    ["a result for a denied call", [{ call_id: "a" }, { call_id: "b" }, { call_id: "d" }], {
      missing: [],
      extra: ["d"],
      repeated: [],
    }],
    ["a repeated call_id", [{ call_id: "a" }, { call_id: "a" }, { call_id: "b" }], {
      missing: [],
      extra: [],
      repeated: ["a"],
    }],
    ["all three at once", [{ call_id: "a" }, { call_id: "a" }, { call_id: "q" }], {
      missing: ["b"],
      extra: ["q"],
      repeated: ["a"],
    }],
    ["no results", [], { missing: ["a", "b"], extra: [], repeated: [] }],
  ];
  for (const [name, results, ids] of MISMATCHES) {
    test(`${name} is 422 invalid_request naming the ids`, () => {
      const f = failed(checkContinuation(toolResults(results), TOOL_PAUSE, null));
      assert.deepEqual(f.details, { path: "data.results", ...ids });
      for (const id of [...ids.missing, ...ids.extra, ...ids.repeated]) {
        assert.ok(f.message.includes(`'${id}'`), f.message);
      }
    });
  }

  test("in an encrypted session every result and every to_encrypt row must be sealed", () => {
    const pause: Pause = { ...TOOL_PAUSE, to_encrypt: ["message:m1"] } as Pause;
    const results = [{ call_id: "a", content: "A" }, { call_id: "b", content: "B" }];
    const all = {
      "message:m1": env(),
      [toolResultReference("a")]: env(),
      [toolResultReference("b")]: env(),
    };
    const out = value(checkContinuation(toolResults(results, all), pause, KEY));
    assert.ok(out.type === "tool_results");
    assert.deepEqual(Object.keys(out.sealed), [
      "message:m1",
      "tool_call:a:result",
      "tool_call:b:result",
    ]);

    const partial = { ...all };
    delete partial[toolResultReference("b")];
    const f = failed(checkContinuation(toolResults(results, partial), pause, KEY));
    assert.deepEqual(f.details, { path: "data.encrypted", missing: ["tool_call:b:result"] });
    const none = failed(checkContinuation(toolResults(results), pause, KEY));
    assert.deepEqual(none.details?.missing, [
      "message:m1",
      "tool_call:a:result",
      "tool_call:b:result",
    ]);
  });

  test("a plaintext session stores no envelope and asks for none", () => {
    const out = value(checkContinuation(
      toolResults([{ call_id: "a" }, { call_id: "b" }], { "message:x": env("other") }),
      TOOL_PAUSE,
      null,
    ));
    assert.ok(out.type === "tool_results");
    assert.deepEqual(out.sealed, {});
  });
});

describe("sealed envelopes", () => {
  const pause: Pause = { kind: "encrypt", to_encrypt: ["message:1", "trace:2"] };
  const sealed = (encrypted: Record<string, unknown>) =>
    ({ type: "sealed", data: { encrypted } }) as Continuation;

  test("sealed covering every reference is kept verbatim; unrequested ones are dropped", () => {
    const out = value(checkContinuation(
      sealed({ "message:1": env(), "trace:2": env(), "plan:9": env() }),
      pause,
      KEY,
    ));
    assert.deepEqual(out, { type: "sealed", sealed: { "message:1": env(), "trace:2": env() } });
  });

  test("each known AEAD's nonce size is accepted, and any nonce for an AEAD not known by name", () => {
    const xchacha = env(KEY, {
      algorithm: "xchacha20poly1305",
      nonce: "bm9uY2Vub25jZW5vbmNlbm9uY2Vub25j", // 24 bytes
    });
    const other = env(KEY, {
      algorithm: "AEGIS-256",
      nonce: "bm9uY2Vub25jZW5vbmNlbm9uY2Vub25jZTMy",
    });
    const out = value(
      checkContinuation(sealed({ "message:1": xchacha, "trace:2": other }), pause, KEY),
    );
    assert.deepEqual(out, { type: "sealed", sealed: { "message:1": xchacha, "trace:2": other } });
  });

  const BAD: [string, Record<string, unknown>, string, RegExp][] = [
    ["a missing reference", { "message:1": env() }, "data.encrypted", /missing 'trace:2'/],
    [
      "another session's key_id",
      { "message:1": env(), "trace:2": env("key-2") },
      "data.encrypted.trace:2",
      /key_id must be the session's 'key-1', got 'key-2'/,
    ],
    [
      "a version other than 1",
      { "message:1": env(KEY, { version: 2 }), "trace:2": env() },
      "data.encrypted.message:1",
      /version must be 1/,
    ],
    [
      "a nonce that is not base64",
      { "message:1": env(KEY, { nonce: "not base64!" }), "trace:2": env() },
      "data.encrypted.message:1",
      /nonce must be base64/,
    ],
    [
      "a ciphertext that is not base64",
      { "message:1": env(KEY, { ciphertext: "abcde" }), "trace:2": env() },
      "data.encrypted.message:1",
      /ciphertext must be base64/,
    ],
    [
      "a ciphertext shorter than an AEAD tag (cut)",
      { "message:1": env(KEY, { ciphertext: "dG9vIHNob3J0" }), "trace:2": env() },
      "data.encrypted.message:1",
      /ciphertext must hold at least the 16-byte authentication tag/,
    ],
    [
      "an empty nonce",
      { "message:1": env(KEY, { nonce: "" }), "trace:2": env() },
      "data.encrypted.message:1",
      /nonce must be base64/,
    ],
    [
      "a nonce of the wrong size for the named AEAD",
      { "message:1": env(KEY, { algorithm: "XChaCha20-Poly1305" }), "trace:2": env() },
      "data.encrypted.message:1",
      /nonce must be 24 bytes for XChaCha20-Poly1305, got 12/,
    ],
    [
      "an empty algorithm",
      { "message:1": env(KEY, { algorithm: "" }), "trace:2": env() },
      "data.encrypted.message:1",
      /algorithm/,
    ],
    [
      "a key that is no content reference",
      { "message:1": env(), "trace:2": env(), "blob:3": env() },
      "data.encrypted.blob:3",
      /not a content reference/,
    ],
  ];
  for (const [name, map, path, message] of BAD) {
    test(`${name} is 422 invalid_request`, () => {
      const f = failed(checkContinuation(sealed(map), pause, KEY));
      assert.equal(f.details?.path, path);
      assert.match(f.message, message);
    });
  }

  test("base64 and content references", () => {
    for (const s of ["", "YQ==", "YWI=", "YWJj", "YWJjZA", "a-_b"]) assert.ok(isBase64(s), s);
    for (const s of ["a", "YQ=", "Y Q==", "YQ==YQ==", "é"]) assert.ok(!isBase64(s), s);
    for (const r of ["message:1", "run_input:x", "tool_call:a:result"]) {
      assert.ok(isContentReference(r), r);
    }
    for (const r of ["message:", "blob:1", "message", ":1"]) assert.ok(!isContentReference(r), r);
  });
});

describe("approval decisions", () => {
  const pause: Pause = {
    kind: "approval",
    approvals: [{ approval_id: "ap1", kind: "remote_disclosure", paths: ["src/a.ts"] }],
    to_encrypt: [],
  };
  const decisions = (list: unknown[]) =>
    ({ type: "approval_decisions", data: { decisions: list } }) as Continuation;

  test("one decision per pending approval, with its outcome", () => {
    const approved = value(checkContinuation(
      decisions([{ approval_id: "ap1", decision: "approved" }]),
      pause,
      null,
    ));
    assert.deepEqual(approved, {
      type: "approval_decisions",
      decisions: [{ approval: pause.approvals[0], decision: "approved", reason: null }],
      outcome: "proceed",
      sealed: {},
    });
    const rejected = value(checkContinuation(
      decisions([{ approval_id: "ap1", decision: "rejected", reason: "too risky" }]),
      pause,
      null,
    ));
    assert.ok(rejected.type === "approval_decisions");
    assert.equal(rejected.outcome, "idle");
    assert.equal(rejected.decisions[0].reason, "too risky");
  });

  const MISMATCHES: [string, unknown[], Record<string, string[]>][] = [
    ["no decision", [], { missing: ["ap1"], extra: [], repeated: [] }],
    ["an unknown approval", [{ approval_id: "ap1", decision: "approved" }, {
      approval_id: "ap9",
      decision: "approved",
    }], { missing: [], extra: ["ap9"], repeated: [] }],
    ["a repeated approval", [
      { approval_id: "ap1", decision: "approved" },
      { approval_id: "ap1", decision: "rejected" },
    ], { missing: [], extra: [], repeated: ["ap1"] }],
  ];
  for (const [name, list, ids] of MISMATCHES) {
    test(`${name} is 422 invalid_request`, () => {
      const f = failed(checkContinuation(decisions(list), pause, null));
      assert.deepEqual(f.details, { path: "data.decisions", ...ids });
    });
  }
});

describe("decrypted", () => {
  const pause: Pause = {
    kind: "decrypt",
    to_decrypt: ["message:1", "message:2"],
    to_encrypt: ["run_input:r"],
  };
  const decrypted = (plaintext: Record<string, string>, encrypted?: Record<string, Envelope>) =>
    ({
      type: "decrypted",
      data: { plaintext, ...(encrypted ? { encrypted } : {}) },
    }) as Continuation;

  test("plaintext for every requested reference; only those are kept", () => {
    const out = value(checkContinuation(
      decrypted({ "message:1": "one", "message:2": "two", "message:3": "unasked" }, {
        "run_input:r": env(),
      }),
      pause,
      KEY,
    ));
    assert.deepEqual(out, {
      type: "decrypted",
      plaintext: { "message:1": "one", "message:2": "two" },
      sealed: { "run_input:r": env() },
    });
  });

  test("a missing plaintext is 422 invalid_request naming it", () => {
    const f = failed(
      checkContinuation(decrypted({ "message:1": "one" }, { "run_input:r": env() }), pause, KEY),
    );
    assert.deepEqual(f.details, { path: "data.plaintext", missing: ["message:2"] });
  });

  test("the pause's to_encrypt must come back sealed", () => {
    const f = failed(
      checkContinuation(decrypted({ "message:1": "a", "message:2": "b" }), pause, KEY),
    );
    assert.deepEqual(f.details, { path: "data.encrypted", missing: ["run_input:r"] });
  });
});

describe("inject and break", () => {
  const inject = (messages: unknown[]) => ({ type: "inject", data: { messages } }) as Continuation;

  test("inject joins its texts, on a waiting or a running run", () => {
    for (const pause of [null, TOOL_PAUSE]) {
      const out = value(checkContinuation(inject([{ text: "one" }, { text: "two" }]), pause, null));
      assert.deepEqual(out, { type: "inject", text: "one\n\ntwo", ciphertexts: [] });
    }
  });

  test("inject keeps the sealed messages of an encrypted session", () => {
    const out = value(checkContinuation(inject([{ text: "x", ciphertext: env() }]), null, KEY));
    assert.deepEqual(out, { type: "inject", text: "x", ciphertexts: [env()] });
  });

  const BAD: [string, unknown[], string][] = [
    ["no messages", [], "data.messages"],
    ["a message without text", [{ text: "a" }, { ciphertext: env() }], "data.messages[1].text"],
    [
      "a message sealed with another key",
      [{ text: "a", ciphertext: env("k2") }],
      "data.messages[0].ciphertext",
    ],
  ];
  for (const [name, messages, path] of BAD) {
    test(`inject with ${name} is 422 invalid_request`, () => {
      assert.equal(failed(checkContinuation(inject(messages), null, KEY)).details?.path, path);
    });
  }

  test("break is always well formed", () => {
    assert.deepEqual(value(checkContinuation({ type: "break" }, null, null)), { type: "break" });
  });

  test("data for another pause is continuation_mismatch, not a state change", () => {
    failed(checkContinuation(inject([]), null, null));
    failed(
      checkContinuation({ type: "sealed", data: { encrypted: {} } }, TOOL_PAUSE, KEY),
      "continuation_mismatch",
    );
    failed(checkContinuation(toolResults([]), null, null), "continuation_mismatch");
  });
});

describe("id matching", () => {
  test("reports each id once, in the order seen", () => {
    assert.deepEqual(matchIds(["a", "b", "c"], ["c", "c", "c", "x", "y", "a"]), {
      missing: ["b"],
      extra: ["x", "y"],
      repeated: ["c"],
    });
  });
});
