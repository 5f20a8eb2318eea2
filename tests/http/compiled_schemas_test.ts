/**
 * The schemas of ark.ts: each schema a request is checked with is compiled
 * once, whole, and the parts it is built of stay uncompiled (arktype would
 * otherwise keep a compiled source for every part and every schema built on
 * it). `precompilation`, arktype's compiled source, tells them apart.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseTurnRequest, TurnRequestSchema } from "../../src/http/turn_request.ts";
import { ContinueRequestSchema, Envelope } from "../../src/http/continue_request.ts";
import { object } from "../../src/http/ark.ts";

const source = (schema: unknown) => (schema as { precompilation?: unknown }).precompilation;

describe("schemas", () => {
  test("the turn and continue requests' schemas are compiled; their parts are not", () => {
    assert.equal(typeof source(TurnRequestSchema), "string");
    assert.equal(typeof source(ContinueRequestSchema), "string");
    assert.equal(source(Envelope), undefined);
    assert.equal(source(object({ a: "string" })), undefined);
  });

  test("a body without workspace, policy or preferences gets fresh defaults each time", () => {
    const first = parseTurnRequest({ input: { text: "a" } });
    assert.ok(first.ok);
    assert.equal(first.value.policy.classification.default_intent, "chat");
    assert.equal(first.value.policy.privacy.remote.mode, "ask");
    first.value.workspace.referenced_paths.push("x");
    first.value.policy.routing.rules.push({} as never);
    first.value.local_preferences.local_only = true;
    const again = parseTurnRequest({ input: { text: "a" } });
    assert.ok(again.ok);
    assert.deepEqual(again.value.workspace.referenced_paths, []);
    assert.deepEqual(again.value.policy.routing.rules, []);
    assert.equal(again.value.local_preferences.local_only, false);
  });
});
