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
import { recordedDecision } from "./recorded_decision.ts";
import { engineHarness } from "../support/engine_app.ts";

const DIR = fileURLToPath(new URL("../../fixtures/compat_golden/", import.meta.url));

// deno-lint-ignore no-explicit-any
type Json = any;

const cases = readdirSync(DIR).filter((f) => f.endsWith(".json")).sort().map((f) =>
  JSON.parse(readFileSync(`${DIR}${f}`, "utf8"))
);

const h = engineHarness();

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

function responsesDecision(c: Json, native: Json): Promise<string> {
  const order = Object.keys(native.classification);
  return recordedDecision(h, c, order, "/v1/responses", asResponsesBody);
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
