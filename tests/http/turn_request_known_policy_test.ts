import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseTurnRequest } from "../../src/http/turn_request.ts";

const policy = () => ({
  classification: { rules: [{ intent: "edit", keywords: ["fix"], extra: 1 }] },
  routing: { default: { model: "openai/gpt-4o-mini" } },
  privacy: { remote: { mode: "allow" } },
  unknown: true,
});

function parsed(body: Record<string, unknown>) {
  const out = parseTurnRequest(body);
  assert.ok(out.ok, JSON.stringify(out));
  return out.value;
}

describe("turn request: a policy validated before", () => {
  test("gives the same request, byte for byte, as the first time", () => {
    const first = parsed({ input: { text: "please fix it" }, policy: policy(), stray: 1 });
    const again = parsed({ input: { text: "please fix it" }, policy: policy(), stray: 1 });
    assert.equal(JSON.stringify(again), JSON.stringify(first));
    assert.equal("unknown" in again.policy, false);
    assert.equal("extra" in again.policy.classification.rules[0], false);
  });

  test("is a copy of its own: changing one request's policy leaves the next alone", () => {
    const first = parsed({ input: { text: "a" }, policy: policy() });
    first.policy.routing.rules.push({} as never);
    const again = parsed({ input: { text: "a" }, policy: policy() });
    assert.equal(again.policy.routing.rules.length, 0);
    assert.notEqual(again.policy, first.policy);
  });

  test("the rest of the body is still validated, with the same errors", () => {
    parsed({ input: { text: "a" }, policy: policy() });
    const bad = parseTurnRequest({ input: { text: 3 }, policy: policy() });
    assert.equal(bad.ok, false);
    const fresh = parseTurnRequest({ input: { text: 3 }, policy: { ...policy(), version: 1 } });
    assert.equal(fresh.ok, false);
    assert.deepEqual(
      !bad.ok && bad.failure.details,
      !fresh.ok && fresh.failure.details,
    );
  });

  test("a policy that failed is validated again, and fails again", () => {
    const broken = { routing: { default: { model: 7 } } };
    const a = parseTurnRequest({ input: { text: "a" }, policy: broken });
    const b = parseTurnRequest({ input: { text: "a" }, policy: structuredClone(broken) });
    assert.equal(a.ok, false);
    assert.deepEqual(b, a);
  });
});
