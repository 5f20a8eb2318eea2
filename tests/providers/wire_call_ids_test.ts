import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { anthropicMessagesBody } from "../../src/providers/anthropic_messages_request.ts";
import { geminiBody } from "../../src/providers/gemini_request.ts";
import { openAiChatBody } from "../../src/providers/openai_chat_request.ts";
import type { ChatMessage, CompletionRequest } from "../../src/providers/types.ts";
import { wireCallIds } from "../../src/providers/wire_call_ids.ts";

/** A run that called a tool on `by`, which gave the call `providerId` (or none). */
function run(by: string, providerId?: string): CompletionRequest {
  const messages: ChatMessage[] = [
    { role: "user", content: "read a.ts" },
    {
      role: "assistant",
      content: "",
      toolCalls: [{
        callId: "0193-service-id",
        ...(providerId === undefined ? {} : { providerCall: { provider: by, id: providerId } }),
        name: "read_file",
        arguments: { path: "a.ts" },
      }],
    },
    { role: "tool", callId: "0193-service-id", content: "x", isError: false },
  ];
  return { model: "m", messages, stream: false };
}

describe("provider tool-call ids on the way back", () => {
  test("OpenAI-compatible: tool_calls[].id and tool_call_id are the provider's own", () => {
    const body = openAiChatBody(run("openai-compat:mistral", "a1B2c3D4e"), "openai-compat:mistral");
    const [, assistant, tool] = body.messages as Record<string, unknown>[];
    assert.equal((assistant.tool_calls as { id: string }[])[0].id, "a1B2c3D4e");
    assert.equal(tool.tool_call_id, "a1B2c3D4e");
  });

  test("Anthropic: tool_use.id and tool_result.tool_use_id are the provider's own", () => {
    const body = anthropicMessagesBody(
      run("anthropic", "toolu_01A09q90qw90lq917835lq9"),
      "anthropic",
    );
    const [, assistant, results] = body.messages as { content: Record<string, unknown>[] }[];
    assert.equal(assistant.content[0].id, "toolu_01A09q90qw90lq917835lq9");
    assert.equal(results.content[0].tool_use_id, "toolu_01A09q90qw90lq917835lq9");
  });

  test("another provider's call (a fallback mid-run) keeps the service's id", () => {
    const body = openAiChatBody(run("anthropic", "toolu_01"), "openai");
    const [, assistant, tool] = body.messages as Record<string, unknown>[];
    assert.equal((assistant.tool_calls as { id: string }[])[0].id, "0193-service-id");
    assert.equal(tool.tool_call_id, "0193-service-id");
  });

  test("Gemini: an id it gave goes back in functionCall and functionResponse; none, none", () => {
    const given = geminiBody("gemini", run("gemini", "fc-7")).contents as {
      parts: Record<string, { id?: string }>[];
    }[];
    assert.equal(given[1].parts[0].functionCall.id, "fc-7");
    assert.equal(given[2].parts[0].functionResponse.id, "fc-7");
    const none = geminiBody("gemini", run("gemini")).contents as {
      parts: Record<string, { id?: string }>[];
    }[];
    assert.equal("id" in none[1].parts[0].functionCall, false);
    assert.equal("id" in none[2].parts[0].functionResponse, false);
  });

  test("an id the provider repeated keeps only its first call; later ones get the service's", () => {
    const call = (callId: string) => ({
      callId,
      providerCall: { provider: "p", id: "call_0" },
      name: "shell",
      arguments: {},
    });
    const idOf = wireCallIds([
      { role: "assistant", content: "", toolCalls: [call("s1")] },
      { role: "assistant", content: "", toolCalls: [call("s2")] },
    ], "p");
    assert.deepEqual([idOf("s1"), idOf("s2")], ["call_0", "s2"]);
  });
});
