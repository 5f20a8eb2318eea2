/**
 * The Responses API surface decides as the native preview does
 * (fixtures/compat_golden/*.json, decisions.md §12 and §14): each case's Chat
 * Completions body is sent as its Responses equivalent (system messages as
 * `instructions`, the messages as input items, tool calls as `function_call`
 * items and their results as `function_call_output`), and the decision the
 * turn records must be the bytes of the case's `expected`.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { call } from "../support/app.ts";
import { engineHarness, ollamaReply, openAiReply } from "../support/engine_app.ts";

const DIR = fileURLToPath(new URL("../../fixtures/compat_golden/", import.meta.url));

// deno-lint-ignore no-explicit-any
type Json = any;

const cases = readdirSync(DIR).filter((f) => f.endsWith(".json")).sort().map((f) =>
  JSON.parse(readFileSync(`${DIR}${f}`, "utf8"))
);

const h = engineHarness();
const KEYS = { "x-router-provider-openai-api-key": "sk-test-openai" };

const text = (content: Json): string =>
  typeof content === "string" ? content : (content ?? []).map((p: Json) => p.text ?? "").join("");

/** A Chat Completions body as the Responses body a client would send for the same turn. */
export function asResponsesBody(openai: Json): Json {
  const system: string[] = [];
  const input: Json[] = [];
  for (const m of openai.messages) {
    if (m.role === "system" || m.role === "developer") system.push(text(m.content));
    else if (m.role === "user") input.push({ role: "user", content: m.content });
    else if (m.role === "assistant") {
      if (text(m.content) !== "") input.push({ role: "assistant", content: text(m.content) });
      for (const c of m.tool_calls ?? []) {
        input.push({
          type: "function_call",
          call_id: c.id,
          name: c.function.name,
          arguments: c.function.arguments,
        });
      }
    } else if (m.role === "tool") {
      input.push({
        type: "function_call_output",
        call_id: m.tool_call_id,
        output: text(m.content),
      });
    }
  }
  return {
    ...(openai.model === undefined ? {} : { model: openai.model }),
    ...(system.length === 0 ? {} : { instructions: system.join("\n\n") }),
    input,
    // Chat Completions trims to the window; so does `auto` here.
    truncation: "auto",
  };
}

async function responsesDecision(c: Json, native: Json): Promise<string> {
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
    new Request("http://switchyard.test/v1/responses", {
      method: "POST",
      headers: { authorization: `Bearer ${h.alice.apiKey}`, ...KEYS },
      body: JSON.stringify({ model: `switchyard/${name}`, ...asResponsesBody(c.openai) }),
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
  const order = Object.keys(native.classification);
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

describe("Responses and native decisions agree (fixtures/compat_golden)", () => {
  test("there are cases", () => assert.ok(cases.length >= 5));
  for (const golden of cases) {
    test(`${golden.name}: ${golden.description}`, async () => {
      const expected = JSON.stringify(golden.expected);
      const decided = await responsesDecision(golden, golden.expected);
      assert.equal(
        decided,
        expected,
        "the Responses turn decided otherwise than the native preview",
      );
    });
  }
});
