/**
 * The console's decision replay on real traces: the engine runs turns against fake providers
 * (one falling back after an HTTP 503, one routed by a rule), and the replay of the trace the
 * API answers must name the choices, the fallback's reason, the context and the spend.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  fallbacksTaken,
  replayTurns,
  turnsByMessage,
} from "../../clients/typescript/src/decision.ts";
import { call } from "../support/app.ts";
import { engineHarness } from "../support/engine_app.ts";
import { makeConsoleData } from "./console_data.ts";

const h = engineHarness();

async function traceOf(sessionId: string) {
  const r = await call(h.app, "GET", `/api/v1/sessions/${sessionId}/traces?limit=1000`, {
    token: h.alice.token,
  });
  return r.body.trace.events;
}

describe("decision replay", () => {
  test("a turn that fell back shows the failed choice, its reason, and the one that answered", async () => {
    const data = await makeConsoleData(h.app, h.alice, { openai: h.openai, ollama: h.ollama });
    const events = await traceOf(data.sessionId);
    const turns = replayTurns(events);
    assert.equal(turns.length, 2);
    const [fallback, review] = turns;

    assert.deepEqual(
      fallback.choices.map((c) => [`${c.provider}/${c.model}`, c.failure !== null]),
      [["openai/gpt-4o-mini", true], ["ollama/qwen3:8b", false]],
    );
    const taken = fallbacksTaken(fallback);
    assert.equal(taken.length, 1);
    assert.equal(taken[0].model, "openai/gpt-4o-mini");
    assert.match(taken[0].why, /failed \(provider_unavailable\): openai answered HTTP 503/);
    const first = fallback.choices[0];
    assert.deepEqual(first.excluded, [
      { kind: "file", label: "secrets/keys.env", reason: "restricted" },
    ]);
    const chosen = fallback.choices[1];
    assert.equal(chosen.intent, "chat");
    assert.equal(chosen.source, "inferred");
    assert.equal(chosen.confidence, "low");
    assert.equal(chosen.routingRule, null);
    assert.equal(chosen.fallbackUsed, true);
    assert.deepEqual(fallback.spends, [
      { provider: "ollama", model: "qwen3:8b", inputTokens: 26, outputTokens: 12, cost: "0" },
    ]);

    assert.equal(review.choices.length, 1);
    assert.equal(review.choices[0].intent, "review");
    assert.equal(review.choices[0].classificationRule, 0);
    assert.equal(review.choices[0].routingRule, "reviews");
    assert.deepEqual(fallbacksTaken(review), []);
    assert.equal(review.spends[0].cost, "0.00036");

    // Replies pair with their turns through the `message` events' places.
    const roles = ["user", "assistant", "user", "assistant"];
    const paired = turnsByMessage(events, turns, roles);
    assert.equal(paired.get(1), fallback);
    assert.equal(paired.get(3), review);
    assert.equal(paired.size, 2);
  });

  test("sealed payloads are counted and the readable columns still tell the choice", () => {
    const sealed = {
      version: 1,
      algorithm: "AES-256-GCM",
      key_id: "k",
      nonce: "n",
      ciphertext: "c",
    };
    const event = (event_type: string) =>
      ({
        event_type,
        task_type: "edit",
        provider: "openai",
        model: "gpt-4o",
        created_at: "2026-01-01T00:00:00.000Z",
        payload: { encrypted: sealed },
        trace_id: "t1",
      }) as Parameters<typeof replayTurns>[0][number];
    const events = [event("classification"), {
      ...event("routing_decision"),
      matched_rule: "edits",
    }];
    const [turn] = replayTurns(events);
    assert.equal(turn.sealed, 2);
    assert.equal(turn.choices.length, 1);
    assert.equal(turn.choices[0].intent, "edit");
    assert.equal(turn.choices[0].routingRule, "edits");
    assert.equal(`${turn.choices[0].provider}/${turn.choices[0].model}`, "openai/gpt-4o");
    // No readable `message` events: replies pair with deciding turns in order.
    assert.equal(turnsByMessage(events, [turn], ["user", "assistant"]).get(1), turn);
  });

  test("a fallback the router skipped is named from its reason", () => {
    const [turn] = replayTurns([
      {
        event_type: "routing_decision",
        task_type: "chat",
        provider: "ollama",
        model: "qwen3:8b",
        created_at: "2026-01-01T00:00:00.000Z",
        payload: {
          plaintext: {
            type: "routing_decision",
            reason:
              "no rule matched; using the default route to 'openai/gpt-4o' (fallback 1: openai/gpt-4o unavailable: missing credentials)",
          },
        },
        trace_id: "t2",
      } as Parameters<typeof replayTurns>[0][number],
    ]);
    assert.deepEqual(fallbacksTaken(turn), [
      { model: "openai/gpt-4o", why: "unavailable: missing credentials" },
    ]);
  });
});
