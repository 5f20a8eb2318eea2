/**
 * The decision a compatible request's turn recorded, read back from its trace
 * and laid out as the native preview lays it out, so the two compare byte for
 * byte (fixtures/compat_golden): the case's policy stored under its name, the
 * request sent through the surface at `path`, the trace's classification and
 * routing events.
 */
import assert from "node:assert/strict";
import { call } from "../support/app.ts";
import { type EngineHarness, ollamaReply, openAiReply } from "../support/engine_app.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

export const KEYS = { "x-router-provider-openai-api-key": "sk-test-openai" };

export async function recordedDecision(
  h: EngineHarness,
  c: { name: string; policy: unknown; openai: Json },
  /** The native preview's classification keys, in its order. */
  order: string[],
  path: string,
  body: (openai: Json) => Record<string, unknown>,
): Promise<string> {
  // A case whose `model` is a `provider/model` routes under the caller's `default` policy.
  const explicit = typeof c.openai.model === "string";
  const name = explicit ? "default" : c.name.replace(/[^a-z0-9]/g, "-");
  const stored = await call(h.app, "PUT", `/api/v1/policies/${name}`, {
    token: h.alice.token,
    body: c.policy,
  });
  assert.ok(stored.status < 300, JSON.stringify(stored.body));
  h.openai.enqueue(openAiReply({ text: "ok" }));
  h.ollama.enqueue(ollamaReply({ text: "ok" }));
  const response = await h.app.handler(
    new Request(`http://switchyard.test${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.alice.apiKey}`, ...KEYS },
      body: JSON.stringify({ model: `switchyard/${name}`, ...body(c.openai) }),
    }),
  );
  const answer = await response.json();
  assert.equal(response.status, 200, JSON.stringify(answer));
  const session = response.headers.get("x-router-session-id")!;
  const traceId = response.headers.get("x-router-trace-id")!;
  const trace = await call(h.app, "GET", `/api/v1/sessions/${session}/traces`, {
    token: h.alice.token,
  });
  const events = trace.body.trace.events.filter((e: Json) => e.trace_id === traceId);
  const of = (type: string) => events.find((e: Json) => e.event_type === type);
  const said = of("classification").payload.plaintext;
  const routed = of("routing_decision");
  const r = routed.payload.plaintext;
  // The stored payload's keys come back in the store's order: lay them out as the preview does.
  const classification = Object.fromEntries(order.map((k) => [k, said[k]]));
  const routing = {
    intent: said.intent,
    provider: r.provider,
    model: r.model,
    matched_rule: routed.matched_rule ?? null,
    fallback_used: r.fallback_used,
    override_used: r.override_used,
    reason: r.reason,
  };
  assert.equal(answer.model, `${routing.provider}/${routing.model}`);
  return JSON.stringify({ classification, routing });
}
