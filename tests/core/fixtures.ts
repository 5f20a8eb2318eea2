/** Shared plain-data builders for the core tests. */
import type { ModelDescriptor } from "../../src/core/model.ts";
import type { TurnRequest } from "../../src/core/turn_request_types.ts";
import { parseTurnRequest } from "../../src/http/turn_request.ts";

/** A validated request from a partial JSON body (`input.text` defaults to "hello"). */
export function request(body: Record<string, unknown> = {}): TurnRequest {
  const input = { text: "hello", ...(body.input as Record<string, unknown> | undefined) };
  const out = parseTurnRequest({ ...body, input });
  if (!out.ok) throw new Error(`fixture request is invalid: ${out.failure.message}`);
  return out.value;
}

export function model(
  ref: string,
  fields: Partial<ModelDescriptor> = {},
): ModelDescriptor {
  const slash = ref.indexOf("/");
  return {
    provider: ref.slice(0, slash),
    model: ref.slice(slash + 1),
    local: false,
    auth: "api_key",
    capabilities: { streaming: true, tools: true },
    max_context_tokens: 128000,
    max_output_tokens: 4096,
    default_parameters: {},
    ...fields,
  };
}

/** A small catalog: two remote models needing keys, one keyless local model. */
export const CATALOG: ModelDescriptor[] = [
  model("openai/gpt-4o", {
    input_cost_per_million_tokens: "2.5",
    output_cost_per_million_tokens: "10",
  }),
  model("anthropic/claude", {
    max_context_tokens: 200000,
    max_output_tokens: 8192,
    input_cost_per_million_tokens: "3",
    output_cost_per_million_tokens: "15",
  }),
  model("ollama/llama3", {
    local: true,
    auth: "none",
    max_context_tokens: 8192,
    max_output_tokens: null,
    capabilities: { streaming: true },
  }),
];
