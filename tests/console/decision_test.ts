/**
 * The console's decision replay on real traces: the engine runs turns against fake providers
 * (one falling back after an HTTP 503, one routed by a rule that reads a file before it answers,
 * and a compatible-API conversation), and the replay of the trace the API answers must name the
 * choices, the fallback's reason, the context and the spend, and group the model calls into the
 * turns their user lived: one per prompt, one per compatible request.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  fallbacksTaken,
  replayTurns,
  turnsByMessage,
} from "../../clients/typescript/src/decision.ts";
import { callPerTurn, sessionTurns, turnsAtMessages } from "../../clients/typescript/src/turns.ts";
import { call } from "../support/app.ts";
import { engineHarness, openAiReply } from "../support/engine_app.ts";
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
    // Three model calls: the fallback, then the review's call asking for a file and its answer.
    const calls = replayTurns(events);
    assert.equal(calls.length, 3);
    const [fallback, asking, answering] = calls;

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

    for (const review of [asking, answering]) {
      assert.equal(review.choices.length, 1);
      assert.equal(review.choices[0].intent, "review");
      assert.equal(review.choices[0].classificationRule, 0);
      assert.equal(review.choices[0].routingRule, "reviews");
      assert.deepEqual(fallbacksTaken(review), []);
    }
    assert.equal(answering.spends[0].cost, "0.00036");
    // The answering call's context names the file read by what it did, not by its call id.
    assert.deepEqual(answering.choices[0].included[0], {
      kind: "tool_call",
      label: "read_file docs/q3.md",
      reason: "required",
    });

    // Replies pair with the model call that wrote them through the `message` events' places.
    const roles = ["user", "assistant", "user", "assistant"];
    const paired = turnsByMessage(events, calls, roles);
    assert.equal(paired.get(1), fallback);
    assert.equal(paired.get(3), answering);
    assert.equal(paired.size, 2);
  });

  test("a native run with a tool call and its answer is ONE turn: two model calls, the tool call between", async () => {
    const data = await makeConsoleData(h.app, h.alice, { openai: h.openai, ollama: h.ollama });
    const events = await traceOf(data.sessionId);
    const turns = sessionTurns(events);
    assert.deepEqual(turns.map((t) => [t.number, t.calls.length]), [[1, 1], [2, 2]]);
    const review = turns[1];
    assert.deepEqual(review.steps.map((s) => s.kind), ["model_call", "tool_call", "model_call"]);
    const tool = review.tools[0];
    assert.deepEqual(
      [tool.name, tool.arguments, tool.label, tool.status],
      ["read_file", { path: "docs/q3.md" }, "read_file docs/q3.md", "completed"],
    );
    // The turn's cost is the exact sum of its calls' costs, never a floating-point one.
    assert.equal(review.cost, "0.0003678");
    assert.equal(review.unpriced, 0);
    assert.deepEqual([review.inputTokens, review.outputTokens], [1224, 307]);
    // Each turn shows under its last message: the first reply, the review's answer.
    const at = turnsAtMessages(turns, ["user", "assistant", "user", "assistant"]);
    assert.deepEqual([...at].map(([i, t]) => [i, t.number]), [[1, 1], [3, 2]]);
    assert.deepEqual([review.prompt, review.replies], [2, [3]]);
  });

  test("a compatible-API request is a turn of one model call; a conversation's requests are consecutive turns", async () => {
    const stored = await call(h.app, "PUT", "/api/v1/policies/default", {
      token: h.alice.token,
      body: {
        routing: { default: { model: "openai/gpt-4o-mini" } },
        privacy: { remote: { mode: "allow" } },
      },
    });
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    const complete = (messages: unknown[]) =>
      call(h.app, "POST", "/v1/chat/completions", {
        token: h.alice.token,
        headers: { "x-router-provider-openai-api-key": "sk-test" },
        body: {
          model: "switchyard",
          messages,
          tools: [{
            type: "function",
            function: {
              name: "read_file",
              parameters: { type: "object", properties: { path: { type: "string" } } },
            },
          }],
        },
      });
    const ask = { role: "user", content: "What does README.md say?" };
    h.openai.enqueue(
      openAiReply({ calls: [{ name: "read_file", arguments: { path: "README.md" } }] }),
    );
    const first = await complete([ask]);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const asked = first.body.choices[0].message;
    h.openai.enqueue(openAiReply({ text: "It says hello.", input: 1200, output: 300 }));
    const second = await complete([
      ask,
      asked,
      { role: "tool", tool_call_id: asked.tool_calls[0].id, content: "# Hello" },
    ]);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    const sessionId = first.headers.get("x-router-session-id")!;
    assert.equal(second.headers.get("x-router-session-id"), sessionId);

    const detail = await call(h.app, "GET", `/api/v1/sessions/${sessionId}`, {
      token: h.alice.token,
    });
    assert.ok(callPerTurn(detail.body.session), "the session says which surface made it");
    const events = await traceOf(sessionId);
    const turns = sessionTurns(events, { callPerTurn: true });
    assert.deepEqual(turns.map((t) => t.calls.length), [1, 1]);
    assert.deepEqual(turns[0].steps.map((s) => s.kind), ["model_call", "tool_call"]);
    assert.equal(turns[0].tools[0].label, "read_file README.md");
    assert.equal(turns[0].tools[0].status, "requested");
    // The second request brings the client's result: its tool call reads first, named as asked.
    assert.deepEqual(turns[1].steps.map((s) => s.kind), ["tool_call", "model_call"]);
    assert.equal(turns[1].tools[0].label, "read_file README.md");
    assert.equal(turns[1].tools[0].status, "completed");
    assert.equal(turns[1].cost, "0.00036");
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
